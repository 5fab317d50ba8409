// The same pipeline launched three ways: with <<<...>>> (mode 0), through the runtime API with
// the kernel passed as an address (mode 1), and with cudaLaunchKernelEx / ExC (mode 2). Kernel templates' instances, kernels in
// namespaces, a typedef'd template argument, a host function template and a pointer chosen
// at run time: the emulator must run every one of them (emu/rewrite.py, _kernel_addresses).
#include <cstdio>
#include <cuda_runtime.h>

// A status check around a launch: the launch is written in the macro's argument.
#define CHECK(call)                                                       \
  do {                                                                    \
    cudaError_t status_ = (call);                                         \
    if (status_ != cudaSuccess) printf("error %d\n", (int)status_);       \
  } while (0)
// A launch the macro's definition makes: the kernel is named in its argument.
#define API_LAUNCH(kernel, g, b, a) cudaLaunchKernel((const void *)(kernel), g, b, a, 0, 0)

template <typename T, int K>
__global__ void times(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * K;
}

template <typename T>
__global__ void addone(T *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = x[i] + T(1);
}

namespace ops {
__global__ void shift(float *x, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] -= by;
}
namespace inner {
template <class T> __global__ void half(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] / T(2);
}
}  // namespace inner
}  // namespace ops

// The kernel picked by a helper that returns its address (mmcv's bias_act style).
template <class T> static const void *choose_times(int k) {
  switch (k) {
    case 2: return (const void *)times<T, 2>;
    case 3: return (const void *)times<T, 3>;
    default: return nullptr;
  }
}

typedef float real;
using step_fn = void (*)(float *, int);

template <class T>
static void negate_twice(T *d, int n, dim3 grid, dim3 block, bool api) {
  void *args[] = {&d, &n};
  if (api) {
    cudaLaunchKernel((void *)times<T, -1>, grid, block, args, 0, 0);
    cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(&times<T, -1>), grid, block,
                                args, 0, 0);
  } else {
    times<T, -1><<<grid, block>>>(d, n);
    times<T, -1><<<grid, block>>>(d, n);
  }
}

void run(float *x, int n, int mode) {
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(64), grid((n + 63) / 64);
  float by = 0.5f;
  // Which kernel runs last depends on n: a pointer the launch cannot name statically.
  step_fn steps[] = {times<float, 5>, addone<real>};
  step_fn pick = steps[n % 2];
  void *args[] = {&d, &n};
  void *args3[] = {&d, &n, &by};
  if (mode == 0) {
    times<float, 3><<<grid, block>>>(d, n);
    addone<real><<<1, 32>>>(d, n);
    ops::shift<<<grid, block>>>(d, n, by);
    ops::inner::half<float><<<grid, block>>>(d, n);
    negate_twice(d, n, grid, block, false);
    pick<<<grid, block>>>(d, n);
  } else if (mode == 2) {  // CUDA 12's launches with a configuration and attributes
    cudaLaunchAttribute attrs[2] = {};
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = 1;
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.attrs = attrs;
    cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, times<float, 3>, d, n);
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    CHECK(cudaLaunchKernelExC(&cfg, (const void *)&addone<real>, args));
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.numAttrs = 2;  // cooperative from here on
    cudaLaunchKernelEx(&cfg, ops::shift, d, n, by);
    cudaLaunchKernelExC(&cfg, reinterpret_cast<const void *>(ops::inner::half<float>), args);
    negate_twice(d, n, grid, block, false);
    cudaLaunchKernelEx(&cfg, pick, d, n);
  } else {
    cudaLaunchKernel(n > 0 ? choose_times<float>(3) : (const void *)times<float, 3>, grid,
                     block, args, 0, 0);
    CHECK(cudaLaunchKernel((void *)&addone<real>, dim3(1), dim3(32), args, 0, 0));
    cudaLaunchKernel(ops::shift, grid, block, args3, 0, nullptr);
    API_LAUNCH(ops::inner::half<float>, grid, block, args);
    negate_twice(d, n, grid, block, true);
    cudaLaunchKernel((const void *)pick, grid, block, args);
  }
  cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}

// A table filled before any host function runs: no code the rewrite sees names the instance,
// so the launch must stop, located, rather than do nothing.
static void (*const table[])(float *, int) = {times<float, 7>};

void run_unknown(float *x, int n) {
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice);
  void *args[] = {&d, &n};
  cudaLaunchKernel((const void *)table[0], dim3(1), dim3(n), args, 0, 0);
  cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
