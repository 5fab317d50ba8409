// The runtime API of the emulator: device properties and attributes, events, streams with
// flags and priorities, callbacks, host allocations, errors, occupancy (test_emu_runtime_api.py).
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <string.h>

__global__ void busy(float *x, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int r = 0; r < rounds; ++r) x[i] = x[i] * 0.999f + 1.0f;
}

// Device facts, in a fixed order (see the test).
void device_report(long long *out) {
  int k = 0, v = 0;
  cudaGetDeviceCount(&v);
  out[k++] = v;
  cudaDeviceProp p;
  out[k++] = cudaGetDeviceProperties(&p, 0);
  out[k++] = p.major * 10 + p.minor;
  out[k++] = p.multiProcessorCount;
  out[k++] = p.maxThreadsPerMultiProcessor;
  out[k++] = p.maxThreadsPerBlock;
  out[k++] = (long long)p.sharedMemPerBlock;
  out[k++] = (long long)p.sharedMemPerBlockOptin;
  out[k++] = (long long)p.sharedMemPerMultiprocessor;
  out[k++] = p.regsPerBlock;
  out[k++] = p.warpSize;
  out[k++] = p.l2CacheSize;
  out[k++] = (long long)p.totalGlobalMem;
  out[k++] = p.concurrentKernels;
  out[k++] = p.cooperativeLaunch;
  out[k++] = strstr(p.name, "H100") != nullptr;
  cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
  out[k++] = v;
  cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0);
  out[k++] = v;
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  out[k++] = v;
  cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0);
  out[k++] = v;
  out[k++] = cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1);  // no device 1
  out[k++] = cudaSetDevice(0);
  out[k++] = cudaGetLastError();  // cudaErrorInvalidDevice from the call before last
  out[k++] = cudaGetLastError();  // cleared
  cudaDriverGetVersion(&v);
  out[k++] = v;
  cudaRuntimeGetVersion(&v);
  out[k++] = v;
  out[k++] = CUDART_VERSION;
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  float *d = nullptr;
  cudaMalloc(&d, 1 << 20);
  size_t free_after = 0;
  cudaMemGetInfo(&free_after, &total_b);
  out[k++] = (long long)(free_b - free_after);
  cudaFree(d);
  cudaDeviceCanAccessPeer(&v, 0, 0);
  out[k++] = v;
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, busy, 256, 0);
  out[k++] = blocks;
  int grid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&grid, &block, busy, 0, 0);
  out[k++] = block;
  out[k++] = grid;
  out[k++] = cudaProfilerStart() + cudaProfilerStop() + cudaThreadSynchronize();
}

int g_order[4];
int g_calls = 0;
void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void *data) {
  g_order[g_calls++] = *static_cast<int *>(data) + 10 * (status != cudaSuccess);
}
void CUDART_CB on_host(void *data) { g_order[g_calls++] = *static_cast<int *>(data); }

// Events, streams, callbacks and host memory; `x` runs through `busy`.
void stream_report(float *x, int n, long long *out, float *ms) {
  int k = 0;
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  out[k++] = least;
  out[k++] = greatest;
  cudaStreamCreateWithPriority(&s2, cudaStreamDefault, greatest - 3);  // clamped
  unsigned flags = 0;
  int prio = 0;
  cudaStreamGetFlags(s1, &flags);
  out[k++] = flags;
  cudaStreamGetPriority(s2, &prio);
  out[k++] = prio;

  float *h = nullptr, *hd = nullptr, *d = nullptr;
  out[k++] = cudaHostAlloc((void **)&h, n * sizeof(float), cudaHostAllocMapped);
  out[k++] = cudaHostGetDevicePointer((void **)&hd, h, 0);
  cudaPointerAttributes attr;
  cudaPointerGetAttributes(&attr, h);
  out[k++] = attr.type;
  cudaMalloc(&d, n * sizeof(float));
  cudaPointerGetAttributes(&attr, d + 3);
  out[k++] = attr.type;
  memcpy(h, x, n * sizeof(float));

  cudaEvent_t start, stop, untimed;
  cudaEventCreate(&start);
  cudaEventCreateWithFlags(&stop, cudaEventBlockingSync);
  cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming);
  cudaEventRecord(start, s1);
  cudaMemcpyAsync(d, hd, n * sizeof(float), cudaMemcpyHostToDevice, s1);
  busy<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 2000);
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s1);
  cudaEventRecord(stop, s1);
  cudaStreamWaitEvent(s2, stop, 0);
  int one = 1, two = 2, three = 3;
  cudaStreamAddCallback(s1, on_stream, &one, 0);
  cudaLaunchHostFunc(s2, on_host, &two);
  cudaLaunchHostFunc(s1, on_host, &three);
  out[k++] = cudaEventQuery(stop);
  out[k++] = cudaEventSynchronize(stop);
  out[k++] = cudaEventElapsedTime(ms, start, stop);
  float dummy = 0;
  out[k++] = cudaEventElapsedTime(&dummy, start, untimed);
  cudaGetLastError();
  out[k++] = cudaStreamQuery(s2);
  out[k++] = cudaStreamSynchronize(s1);
  for (int i = 0; i < 3; ++i) out[k++] = g_order[i];
  memcpy(x, h, n * sizeof(float));

  float *m = nullptr;
  out[k++] = cudaMallocManaged(&m, 64 * sizeof(float));
  cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
  out[k++] = cudaMemAdvise(m, 64 * sizeof(float), cudaMemAdviseSetReadMostly, loc);
  out[k++] = cudaMemPrefetchAsync(m, 64 * sizeof(float), loc, 0, s2);
  out[k++] = cudaStreamAttachMemAsync(s1, m, 0, cudaMemAttachSingle);
  cudaFree(m);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaEventDestroy(untimed);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(d);
  out[k++] = cudaFreeHost(h);
}

__constant__ float c_scale[4];
__device__ int d_counter;

// Symbols, 2D copies and memsets, error names and strings.
void memory_report(float *grid2d, long long *out, char *names) {
  int k = 0;
  float scale[4] = {1, 2, 3, 4};
  out[k++] = cudaMemcpyToSymbol(c_scale, scale, sizeof scale);
  out[k++] = cudaMemcpyToSymbol(c_scale, scale, sizeof scale, 4);  // past the end
  float back[2] = {0, 0};
  cudaMemcpyFromSymbol(back, c_scale, sizeof back, 2 * sizeof(float));
  out[k++] = (long long)(back[0] * 10 + back[1]);
  int seven = 7, got = 0;
  cudaMemcpyToSymbolAsync(d_counter, &seven, sizeof seven, 0, cudaMemcpyHostToDevice, 0);
  cudaMemcpyFromSymbolAsync(&got, d_counter, sizeof got, 0, cudaMemcpyDeviceToHost, 0);
  out[k++] = got;
  size_t bytes = 0;
  cudaGetSymbolSize(&bytes, c_scale);
  out[k++] = (long long)bytes;
  float *d = nullptr;
  size_t pitch = 0;
  out[k++] = cudaMallocPitch((void **)&d, &pitch, 5 * sizeof(float), 3);
  out[k++] = (long long)pitch;
  cudaMemset2D(d, pitch, 0, 5 * sizeof(float), 3);
  cudaMemcpy2D(d, pitch, grid2d, 5 * sizeof(float), 4 * sizeof(float), 3, cudaMemcpyHostToDevice);
  cudaMemcpy2D(grid2d, 5 * sizeof(float), d, pitch, 5 * sizeof(float), 3, cudaMemcpyDeviceToHost);
  cudaFree(d);
  snprintf(names, 256, "%s|%s|%s|%s", cudaGetErrorName(cudaErrorInvalidValue),
           cudaGetErrorName(cudaErrorNotReady), cudaGetErrorString(cudaSuccess),
           cudaGetErrorName((cudaError_t)cudaErrorInvalidDevice));
  out[k++] = cudaErrorIllegalAddress;
  out[k++] = cudaErrorLaunchFailure;
}
