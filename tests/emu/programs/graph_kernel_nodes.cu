// One pipeline of kernel-template instances run with <<<...>>> (mode 0) and as an explicitly
// built CUDA graph (mode 1): kernels templated on a functor type and on an int, a template in a
// namespace, node parameters made by a helper, a node added with cudaGraphAddNode, one changed
// with cudaGraphKernelNodeSetParams before instantiation and one swapped for another instance
// with cudaGraphExecKernelNodeSetParams between two launches. Every node's function is named
// as a value ((void *)k<...>), which the emulator must resolve to the instance (issue 27).
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_TRY(expr)                                                                   \
  do {                                                                                   \
    cudaError_t e_ = (expr);                                                             \
    if (e_ != cudaSuccess) fprintf(stderr, "%s: %s\n", #expr, cudaGetErrorString(e_));   \
  } while (0)

struct Scale {
  float s;
  __device__ float operator()(float v) const { return v * s; }
};
struct Offset {
  float b;
  __device__ float operator()(float v) const { return v + b; }
};

template <class Op>
__global__ void apply(float *x, int n, Op op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] = op(x[i]);
}

// A clamped moving average over 2 * Radius + 1 elements, summed left to right.
template <int Radius>
__global__ void box(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int d = -Radius; d <= Radius; ++d) acc += in[min(max(i + d, 0), n - 1)];
  out[i] = acc / (2 * Radius + 1);
}

namespace detail {
template <typename T>
__global__ void square(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}
}  // namespace detail

static cudaKernelNodeParams node_params(void *func, int n, int threads, void **args) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3((n + threads - 1) / threads);
  p.blockDim = dim3(threads);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

// out1: the pipeline with box<1>; out2: the same from x again with box<2>.
void run(const float *x, float *out1, float *out2, int n, int mode) {
  const size_t bytes = n * sizeof(float);
  float *a, *b;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  Scale twice{2.0f};
  Offset minus_one{-1.0f};
  if (mode == 0) {
    for (int pass = 0; pass < 2; ++pass) {
      cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
      apply<Scale><<<2, 32>>>(a, n, twice);
      if (pass == 0) box<1><<<(n + 63) / 64, 64>>>(a, b, n);
      else box<2><<<(n + 63) / 64, 64>>>(a, b, n);
      detail::square<float><<<(n + 127) / 128, 128>>>(b, n);
      apply<Offset><<<3, 64>>>(b, n, minus_one);
      cudaMemcpy(pass == 0 ? out1 : out2, b, bytes, cudaMemcpyDeviceToHost);
    }
  } else {
    cudaGraph_t graph;
    CUDA_TRY(cudaGraphCreate(&graph, 0));
    void *scale_args[] = {&a, &n, &twice};
    void *box_args[] = {&a, &b, &n};
    void *square_args[] = {&b, &n};
    Offset none{0.0f};
    void *offset_args[] = {&b, &n, &none};
    cudaGraphNode_t scale, smooth, sq, shift;
    cudaKernelNodeParams p = node_params((void *)apply<Scale>, 64, 32, scale_args);
    CUDA_TRY(cudaGraphAddKernelNode(&scale, graph, nullptr, 0, &p));
    p = node_params(reinterpret_cast<void *>(&box<1>), n, 64, box_args);
    CUDA_TRY(cudaGraphAddKernelNode(&smooth, graph, &scale, 1, &p));
    cudaGraphNodeParams generic = {};
    generic.type = cudaGraphNodeTypeKernel;
    generic.kernel = node_params((void *)detail::square<float>, n, 128, square_args);
    CUDA_TRY(cudaGraphAddNode(&sq, graph, &smooth, nullptr, 1, &generic));  // CUDA 13 form
    p = node_params((void *)&apply<Offset>, 192, 64, offset_args);
    CUDA_TRY(cudaGraphAddKernelNode(&shift, graph, &sq, 1, &p));
    // The offset node's argument values are replaced before instantiation (copied at the call).
    void *offset_args2[] = {&b, &n, &minus_one};
    p.kernelParams = offset_args2;
    CUDA_TRY(cudaGraphKernelNodeSetParams(shift, &p));
    cudaGraphExec_t exec;
    CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
    CUDA_TRY(cudaGraphLaunch(exec, 0));
    cudaStreamSynchronize(0);
    cudaMemcpy(out1, b, bytes, cudaMemcpyDeviceToHost);
    // Another instance of the template in the executable graph, then a second launch.
    cudaKernelNodeParams wider = node_params((void *)box<2>, n, 64, box_args);
    CUDA_TRY(cudaGraphExecKernelNodeSetParams(exec, smooth, &wider));
    cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
    CUDA_TRY(cudaGraphLaunch(exec, 0));
    cudaStreamSynchronize(0);
    cudaMemcpy(out2, b, bytes, cudaMemcpyDeviceToHost);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  cudaFree(a);
  cudaFree(b);
}

// Pointers no host code the rewrite sees names as a kernel: an instance only a namespace-scope
// table's initialiser takes, and a host function. Each graph call given one must stop the run
// where it is written rather than leave a node that does nothing.
static void *const late_table[] = {(void *)box<3>};
static void not_a_kernel(float *, float *, int) {}

void run_unknown(float *x, int n, int where) {
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  void *args[] = {&a, &b, &n};
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaGraphNode_t node;
  cudaKernelNodeParams p = node_params((void *)box<1>, n, 64, args);
  if (where == 0) p.func = late_table[0];
  CUDA_TRY(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &p));
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  p.func = (void *)not_a_kernel;
  if (where == 1) cudaGraphExecKernelNodeSetParams(exec, node, &p);
  cudaGraphLaunch(exec, 0);
  cudaMemcpy(x, b, n * sizeof(float), cudaMemcpyDeviceToHost);
}
