// Kernel nodes captured from <<<>>> launches (issue 31: wbing520's cuda_graphs.cu): CUDA gives
// such a node its kernel's address and argument values, which cudaGraphKernelNodeGetParams
// returns and a program sets back, changed. Written for cudafuse's tests.
#include <cuda_runtime.h>

__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}

__global__ void add_into(float *acc, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += x[i];
}

// Two launches and a copy back captured, replayed `launches` times; then the first kernel
// node's parameters read back, given a smaller n and another factor, and set on the
// executable graph, which runs once more. Returns the number of nodes, or -1 when a
// parameter read back is not what was captured.
int captured(const float *x, float *acc_out, int n, int launches, int n2) {
  float *dx, *dacc;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dacc, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dacc, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  int blocks = (n + 63) / 64;
  float a = 0.5f;
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<blocks, 64, 0, s>>>(dx, n, a);
  add_into<<<dim3(blocks), dim3(64), 0, s>>>(dacc, dx, n);
  cudaMemcpyAsync(acc_out, dacc, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  for (int i = 0; i < launches; ++i) cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);

  size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  cudaGraphNode_t nodes[8];
  cudaGraphGetNodes(graph, nodes, &count);
  cudaKernelNodeParams p;
  cudaGraphKernelNodeGetParams(nodes[0], &p);
  if (p.func != (void *)scale || p.gridDim.x != (unsigned)blocks || p.blockDim.x != 64 ||
      *(float **)p.kernelParams[0] != dx || *(int *)p.kernelParams[1] != n ||
      *(float *)p.kernelParams[2] != a)
    return -1;
  float a2 = 3.0f;
  void *args[] = {&dx, &n2, &a2};
  p.gridDim = dim3((n2 + 63) / 64);
  p.kernelParams = args;
  cudaGraphExecKernelNodeSetParams(exec, nodes[0], &p);
  cudaGraphLaunch(exec, s);  // scale's new parameters, add_into's captured ones
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(dx);
  cudaFree(dacc);
  cudaStreamDestroy(s);
  return (int)count;
}

// A launch whose argument converts on the call (an int literal for scale's float `a`): the
// node's argument values are not the kernel's parameters' bytes, so the emulator gives no
// function pointer, and setting the parameters back stops naming the call.
int converted(float *x, int n) {
  float *dx;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<(n + 63) / 64, 64, 0, s>>>(dx, n, 2);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  cudaGraphLaunch(exec, s);  // the captured launch itself runs as written
  cudaMemcpy(x, dx, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaGraphNode_t node;
  size_t count = 1;
  cudaGraphGetNodes(graph, &node, &count);
  cudaKernelNodeParams p;
  cudaGraphKernelNodeGetParams(node, &p);
  cudaGraphExecKernelNodeSetParams(exec, node, &p);
  return p.func == nullptr ? 1 : 0;
}
