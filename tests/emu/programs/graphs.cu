// CUDA graphs and stream capture on the emulator (tests/emu/test_emu_graphs.py).
#include <cuda_runtime.h>

__global__ void scale(float *v, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= a;
}
__global__ void add_into(float *acc, const float *v, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += v[i] + b;
}
__global__ void block_sums(const float *v, float *sums, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? v[i] : 0.f;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}

struct HostLog { int calls; float first; const float *watch; };
static void CUDART_CB note(void *p) {
  HostLog *log = static_cast<HostLog *>(p);
  if (log->calls++ == 0) log->first = log->watch[0];
}

// Captured: copy x in, scale by 2 (stream s1), fork to s2 for acc += v + 1 and a block sum,
// join, a host function; replayed `launches` times. Returns what ran during capture (must be
// 0) * 1000 + the node count.
int captured(const float *x, float *acc_out, float *sums_out, int n, int launches,
             int *host_calls, float *host_first) {
  float *dx, *dacc, *dsums;
  int blocks = (n + 127) / 128;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dacc, n * sizeof(float));
  cudaMalloc(&dsums, blocks * sizeof(float));
  cudaMemset(dacc, 0, n * sizeof(float));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);
  static HostLog log;
  log = HostLog{0, 0.f, acc_out};
  float *pinned;
  cudaMallocHost(&pinned, n * sizeof(float));
  log.watch = pinned;

  cudaGraph_t graph;
  cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(dx, x, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  scale<<<blocks, 128, 0, s1>>>(dx, 2.f, n);
  cudaEventRecord(fork, s1);
  cudaStreamWaitEvent(s2, fork, 0);
  add_into<<<blocks, 128, 0, s2>>>(dacc, dx, 1.f, n);
  block_sums<<<blocks, 128, 0, s2>>>(dacc, dsums, n);
  cudaEventRecord(join, s2);
  cudaStreamWaitEvent(s1, join, 0);
  cudaMemcpyAsync(pinned, dacc, n * sizeof(float), cudaMemcpyDeviceToHost, s1);
  cudaLaunchHostFunc(s1, note, &log);
  cudaStreamEndCapture(s1, &graph);

  float probe = 0.f;
  cudaMemcpy(&probe, dacc, sizeof(float), cudaMemcpyDeviceToHost);
  int ran = log.calls + (probe != 0.f);
  size_t nodes = 0;
  cudaGraphGetNodes(graph, nullptr, &nodes);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, NULL, NULL, 0);
  for (int i = 0; i < launches; ++i) cudaGraphLaunch(exec, s1);
  cudaStreamSynchronize(s1);
  cudaMemcpy(acc_out, dacc, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(sums_out, dsums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  *host_calls = log.calls;
  *host_first = log.first;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFreeHost(pinned);
  cudaFree(dx);
  cudaFree(dacc);
  cudaFree(dsums);
  return ran * 1000 + (int)nodes;
}

// Built node by node: memset -> kernel (scale) and a child graph (add_into), joined by an
// empty node, then a memcpy out. The exec's kernel parameters are changed for a second
// launch. counts: nodes, roots, edges.
int explicit_graph(const float *x, float *out1, float *out2, int n, int *counts) {
  float *dv, *dacc, *dcopy;
  cudaMalloc(&dv, n * sizeof(float));
  cudaMalloc(&dacc, n * sizeof(float));
  cudaMalloc(&dcopy, n * sizeof(float));
  cudaMemcpy(dv, x, n * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + 127) / 128;
  cudaGraph_t g, child;
  cudaGraphCreate(&g, 0);
  cudaGraphCreate(&child, 0);

  cudaGraphNode_t set, k, sub, join, copy;
  cudaMemsetParams mp = {};
  mp.dst = dacc;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  cudaGraphAddMemsetNode(&set, g, NULL, 0, &mp);

  float a = 3.f;
  void *kargs[] = {&dv, &a, &n};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)scale;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(128);
  kp.kernelParams = kargs;
  cudaGraphAddKernelNode(&k, g, NULL, 0, &kp);
  a = 100.f;  // the node keeps the value it was given

  float b = 0.5f;
  void *cargs[] = {&dacc, &dv, &b, &n};
  cudaKernelNodeParams cp = kp;
  cp.func = (void *)add_into;
  cp.kernelParams = cargs;
  cudaGraphNode_t inner;
  cudaGraphAddKernelNode(&inner, child, NULL, 0, &cp);
  cudaGraphAddChildGraphNode(&sub, g, NULL, 0, child);
  cudaGraphNode_t before_sub[] = {set, k};
  cudaGraphNode_t subs[] = {sub, sub};
  cudaGraphAddDependencies(g, before_sub, subs, NULL, 2);  // added after the node, as an edge
  cudaGraphAddEmptyNode(&join, g, &sub, 1);
  cudaGraphAddMemcpyNode1D(&copy, g, &join, 1, dcopy, dacc, n * sizeof(float),
                           cudaMemcpyDeviceToDevice);

  size_t nodes = 0, roots = 0, edges = 0;
  cudaGraphGetNodes(g, NULL, &nodes);
  counts[0] = (int)nodes;
  cudaGraphGetRootNodes(g, NULL, &roots);
  cudaGraphGetEdges(g, NULL, NULL, NULL, &edges);
  counts[1] = (int)roots;
  counts[2] = (int)edges;

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, 0);  // out1 = 3x + 0.5
  cudaMemcpy(out1, dcopy, n * sizeof(float), cudaMemcpyDeviceToHost);
  float a2 = -1.f;
  void *kargs2[] = {&dv, &a2, &n};
  kp.kernelParams = kargs2;
  cudaGraphExecKernelNodeSetParams(exec, k, &kp);
  cudaGraphLaunch(exec, 0);  // dv = 3x * -1: out2 = -3x + 0.5
  cudaDeviceSynchronize();
  cudaMemcpy(out2, dcopy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(child);
  cudaGraphDestroy(g);
  cudaFree(dv);
  cudaFree(dacc);
  cudaFree(dcopy);
  return 0;
}
