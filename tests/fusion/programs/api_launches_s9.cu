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

// A check that also copies a buffer: more than a check, so its call stays a call.
#define CHECK_AND_SAVE(call, dst, src, bytes)                                        \
    do {                                                                             \
        CHECK(call);                                                                 \
        cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);                       \
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

// The call's status is checked through a macro: the check stays, given cudaSuccess where the
// call's launch went into the fused kernel.
void p_api_checked(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h;
    float a = 2.0f;
    void *args[] = {&in, &t, &n, &a};
    CHECK(cudaLaunchKernel((const void *)scale, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    plus<<<(n + 127) / 128, 128>>>(t, out, n);
}

// The status kept in a variable and tested, and a checked API launch last: the fused
// launch's status is what the check reads there.
void p_api_status(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h;
    float a = 0.5f;
    dim3 block(64), grid((n + 63) / 64);
    void *args[] = {&in, &t, &n, &a};
    cudaError_t err = cudaLaunchKernel((const void *)scale, grid, block, args, 0, 0);
    if (err != cudaSuccess)
        printf("scale: %s\n", cudaGetErrorString(err));
    err = cudaGetLastError();
    void *args2[] = {&t, &out, &n};
    CHECK(cudaLaunchKernel((const void *)negate, grid, block, args2, 0, 0));
}

// A launch whose check macro also copies the intermediate: not read as a launch.
void p_api_saved(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h;
    float a = 1.25f;
    void *args[] = {&in, &t, &n, &a};
    CHECK_AND_SAVE(cudaLaunchKernel((const void *)scale, dim3((n + 127) / 128), dim3(128),
                                    args, 0, 0), v, t, n * sizeof(float));
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

// One launcher per stage, each starting its kernel through the runtime API (the status
// checked in one, kept in the other), called by the pipeline.
void stage_scale(const float *src, float *dst, int count, float factor)
{
    dim3 threads(128), blocks((count + threads.x - 1) / threads.x);
    void *params[] = {&src, &dst, &count, &factor};
    CHECK(cudaLaunchKernel((const void *)scale, blocks, threads, params, 0, 0));
}

void stage_negate(const float *src, float *dst, int count)
{
    void *params[] = {&src, &dst, &count};
    cudaError_t status = cudaLaunchKernel((const void *)negate, dim3((count + 127) / 128),
                                          dim3(128), params, 0, 0);
    if (status != cudaSuccess)
        printf("negate: %s\n", cudaGetErrorString(status));
}

void p_api_stages(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    stage_scale(in, t, w * h, 0.75f);
    stage_negate(t, u, w * h);
    stage_scale(u, out, w * h, 2.0f);
}
