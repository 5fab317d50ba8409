// Host code with graphs, stream capture, memory pools, access policy windows, IPC handles,
// peer access and device attributes, around one kernel.
// EXPECT-KERNEL: bump 2
// EXPECT-LAUNCH: capture -> bump 2
#include <cuda_runtime.h>

__global__ void bump(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

int capture(int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int *d = nullptr;
  cudaMallocAsync(&d, n * sizeof(int), s);
  cudaGraph_t g;
  cudaGraphExec_t e;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  bump<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&e, g, 0);
  size_t nodes = 0;
  cudaGraphGetNodes(g, nullptr, &nodes);
  cudaGraphLaunch(e, s);
  cudaStreamAttrValue attr = {};
  attr.accessPolicyWindow.base_ptr = d;
  attr.accessPolicyWindow.num_bytes = n * sizeof(int);
  attr.accessPolicyWindow.hitRatio = 0.6f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  unsigned long long threshold = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  cudaIpcMemHandle_t h;
  cudaIpcGetMemHandle(&h, d);
  int can = 0, major = 0;
  cudaDeviceCanAccessPeer(&can, 0, 1);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  cudaFreeAsync(d, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? (int)nodes + can + major + prop.multiProcessorCount : -1;
}
