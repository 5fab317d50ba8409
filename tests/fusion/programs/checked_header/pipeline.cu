// Error checks of another style: a header (namespace gpu) building messages in a
// std::stringstream, a const lambda capturing a counter by reference, a throw.
#include "gpu_check.cuh"
#include <cstdio>
namespace {
__global__ void scale(const float *x, float *t, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = a * x[i];
}
__global__ void shift(const float *x, float *y, float b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + b;
}
}  // namespace

void run(const float *x, float *t, float *y, int n) {
    int launched = 0;
    const auto after = [&launched](const char *name) {
        const cudaError_t e = cudaPeekAtLastError();
        if (e != cudaSuccess)
            throw std::runtime_error(std::string(name) + ": " + cudaGetErrorString(e) +
                                     " after " + gpu::str(launched) + " launches");
    };
    scale<<<(n + 255) / 256, 256>>>(x, t, 3.0f, n);
    ++launched;
    after("scale");
    gpu::ensure(cudaGetLastError(), "scale", __LINE__);
    shift<<<(n + 255) / 256, 256>>>(t, y, 0.5f, n);
    after("shift");
}
