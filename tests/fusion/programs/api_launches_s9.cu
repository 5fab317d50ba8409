// Kernels started through the runtime API (issue 25): `cudaLaunchKernel(func, grid, block,
// args, shared, stream)` with `args` a local array of the arguments' addresses, as
// NVIDIA's samples and code ported from the driver API write launches. Each entry is
// `entry(in, t, u, v, out, int w, int h)` over n = w * h elements.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) printf("error %s\n", cudaGetErrorString(e_));         \
    } while (0)

__global__ void scale(const float *in, float *t, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = in[i] * a - 0.5f;
}

__global__ void plus(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t[i] + 2.0f;
}

__global__ void negate(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = -a[i];
}

template <typename T, int K>
__global__ void times(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * (T)K + (T)0.125;
}

template <typename T>
__global__ void square(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

// Two API launches on one stream, the kernel named through a cast and through `&`.
void p_api_pair(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h;
    float a = 1.5f;
    dim3 block(128), grid((n + 127) / 128);
    cudaStream_t s = 0;
    void *args_scale[] = {(void *)&in, (void *)&t, (void *)&n, (void *)&a};
    cudaLaunchKernel((const void *)scale, grid, block, args_scale, 0, s);
    void *args_plus[] = {&t, &out, &n};
    cudaLaunchKernel((void *)&plus, grid, block, args_plus, 0, s);
    cudaStreamSynchronize(s);
}

// An API launch between two chevron launches, with its default shared size and stream;
// the array is declared before a value it points at changes: the launch reads the value
// the variable holds at the call (a = 3), as the runtime does.
void p_api_mixed(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, threads = 64, blocks = (n + threads - 1) / threads;
    float a = 0.25f;
    void *args[] = {&t, &u, &n};
    scale<<<blocks, threads>>>(in, t, n, a);
    a = 3.0f;
    cudaLaunchKernel(negate, dim3(blocks), dim3(threads), args);
    scale<<<blocks, threads>>>(u, out, n, a);
}

// The array's element is replaced before the call: not read as a launch (a call that
// may launch anything: the sequence splits there).
void p_api_rewritten(const float *in, float *t, float *u, float *v, float *out, int w,
                     int h)
{
    int n = w * h;
    float a = 2.0f;
    void *args[] = {&in, &t, &n, &a};
    args[1] = &u;
    cudaLaunchKernel((const void *)scale, dim3((n + 127) / 128), dim3(128), args, 0, 0);
    plus<<<(n + 127) / 128, 128>>>(u, out, n);
}

// The call's status is checked through a macro: its value is used, so it stays a call.
void p_api_checked(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h;
    float a = 2.0f;
    void *args[] = {&in, &t, &n, &a};
    CHECK(cudaLaunchKernel((const void *)scale, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    plus<<<(n + 127) / 128, 128>>>(t, out, n);
}

// The count is a long where the kernel takes an int: the runtime would read the first
// four bytes of it, which is no conversion cudafuse can write as a `<<<...>>>` argument.
void p_api_wide(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    long n = (long)w * h;
    int m = w * h;
    void *args[] = {&t, &u, &n};
    plus<<<(m + 127) / 128, 128>>>(in, t, m);
    cudaLaunchKernel((const void *)negate, dim3((m + 127) / 128), dim3(128), args, 0, 0);
    plus<<<(m + 127) / 128, 128>>>(u, out, m);
}

// Instantiations of kernel templates, named with their arguments: each launch starts the
// concrete copy the front end makes of its instantiation.
void p_api_templates(const float *in, float *t, float *u, float *v, float *out, int w,
                     int h)
{
    int n = w * h;
    dim3 block(32), grid((n + 31) / 32);
    void *first[] = {&in, &t, &n};
    cudaLaunchKernel((const void *)times<float, 3>, grid, block, first, 0, nullptr);
    void *second[] = {&t, &u, &n};
    cudaLaunchKernel(square<float>, grid, block, second, 0, nullptr);
    void *third[] = {&u, &out, &n};
    cudaLaunchKernel((void *)&times<float, -2>, grid, block, third, 0, nullptr);
}

// p_api_templates written with `<<<>>>`, which CUDA defines to launch the same: the
// reference its fused file is compared with (the emulator finds a kernel passed by address
// for non-template kernels only, so p_api_templates itself does not run there).
void p_api_templates_chevrons(const float *in, float *t, float *u, float *v, float *out,
                              int w, int h)
{
    int n = w * h;
    dim3 block(32), grid((n + 31) / 32);
    times<float, 3><<<grid, block, 0, nullptr>>>(in, t, n);
    square<float><<<grid, block>>>(t, u, n);
    times<float, -2><<<grid, block, 0, nullptr>>>(u, out, n);
}
