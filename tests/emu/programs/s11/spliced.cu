// Every kind of text the emulator's rewrite splices into a program, and the device macros
// that expand in it (issue 27): launches (direct, in a macro argument, through a function
// pointer, through cudaLaunchKernel, of a template instance), a NULL argument, bounds,
// extern __shared__, barriers, shuffles, warp reductions and inline PTX.
#include <cstdio>

#define CHECK(x) do { (x); if (cudaGetLastError() != cudaSuccess) std::printf("error\n"); } while (0)

__global__ void __launch_bounds__(128) block_sum(const int *in, int *out, int *unused, int n) {
  extern __shared__ int part[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v += __shfl_down_sync(0xffffffffu, v, 16);
  v += __shfl_down_sync(0xffffffffu, v, 8);
  v += __shfl_down_sync(0xffffffffu, v, 4);
  v += __shfl_down_sync(0xffffffffu, v, 2);
  v += __shfl_down_sync(0xffffffffu, v, 1);
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) s += part[w];
    out[blockIdx.x] = s;
  }
  if (unused != NULL) unused[0] = 1;
}

template <int K>
__global__ void __launch_bounds__(64) scale(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int r;
    asm("{\n\t.reg .u32 t;\n\tmul.lo.u32 t, %1, %2;\n\tmov.u32 %0, t;\n\t}"
        : "=r"(r) : "r"(data[i]), "r"(K));
    data[i] = r;
  }
}

__global__ void warp_total(const int *data, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? data[i] : 0;
  int s = __reduce_add_sync(0xffffffffu, v);
  if (threadIdx.x % 32 == 0) atomicAdd(out, s);
}

void spliced_entry(const int *host_in, int *sums, int *scaled, int *total, int n) {
  int *in, *out, *tot;
  int blocks = (n + 127) / 128;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMalloc(&tot, sizeof(int));
  cudaMemcpy(in, host_in, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(tot, 0, sizeof(int));
  CHECK((block_sum<<<blocks, 128, 4 * sizeof(int)>>>(in, out, NULL, n)));
  cudaMemcpy(sums, out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  void (*total_of)(const int *, int *, int) = warp_total;
  total_of<<<(n + 63) / 64, 64>>>(in, tot, n);
  cudaMemcpy(total, tot, sizeof(int), cudaMemcpyDeviceToHost);
  scale<3><<<(n + 63) / 64, 64>>>(in, n);
  void *args[] = {&in, &n};
  cudaLaunchKernel((const void *)scale<5>, dim3((n + 63) / 64), dim3(64), args, 0, 0);
  cudaDeviceSynchronize();
  cudaMemcpy(scaled, in, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  cudaFree(tot);
}
