// Dynamic parallelism: kernels that launch kernels. Children run at their launch, to
// completion, inside the launching thread; tail launches run after the launching grid.
#include <cuda_runtime.h>

__device__ int g_next_id;

// Each block takes an id; every thread launches a child grid that records its parent's id.
// The parent's id lives in static shared memory, which the children (the same kernel)
// overwrite with their own unless the emulator keeps the parent's.
__global__ void family(int *parent_of, int *depth_of, int max_depth, int depth, int parent) {
  __shared__ int s_id;
  if (threadIdx.x == 0) s_id = atomicAdd(&g_next_id, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    parent_of[s_id] = parent;
    depth_of[s_id] = depth;
  }
  if (depth + 1 < max_depth) family<<<gridDim.x, blockDim.x>>>(parent_of, depth_of, max_depth,
                                                               depth + 1, s_id);
}

int run_family(int *parent_of, int *depth_of, int blocks, int threads, int max_depth) {
  int zero = 0;
  cudaMemcpyToSymbol(g_next_id, &zero, sizeof zero);
  family<<<blocks, threads>>>(parent_of, depth_of, max_depth, 0, -1);
  cudaDeviceSynchronize();
  int count = 0;
  cudaMemcpyFromSymbol(&count, g_next_id, sizeof count);
  return count;
}

// The child overwrites dynamic shared memory with its own values; the parent block must find
// its own afterwards (its threads read them after the launch and a barrier).
__global__ void smem_child(int *scratch) {
  extern __shared__ int s[];
  s[threadIdx.x] = -1000 - (int)threadIdx.x;
  __syncthreads();
  scratch[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void smem_parent(int *out, int *scratch) {
  extern __shared__ int s[];
  int v = (int)(blockIdx.x * 100 + threadIdx.x);
  s[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1)
    smem_child<<<2, blockDim.x, blockDim.x * sizeof(int)>>>(scratch + blockIdx.x * 2 * blockDim.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x] + (int)threadIdx.y;
}

// A tail launch starts after every block of its parent grid: it sees all their writes.
__global__ void total_of(const int *parts, int n, int *total) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += parts[i];
  *total = sum;
}

__global__ void parts_then_total(int *parts, int *total, int *early) {
  parts[blockIdx.x] = (int)blockIdx.x + 1;
  if (blockIdx.x == 0) {
    total_of<<<1, 1, 0, cudaStreamTailLaunch>>>(parts, gridDim.x, total);
    total_of<<<1, 1, 0, cudaStreamFireAndForget>>>(parts, gridDim.x, early);
  }
}

// Recursion until the launch fails: CUDA nests at most 24 levels.
__global__ void dive(int *deepest, int *error, int depth) {
  *deepest = depth;
  dive<<<1, 1>>>(deepest, error, depth + 1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess && *error == 0) *error = (int)e;
}

// Single-thread recursive quicksort on device-created streams, as CUDA samples do it.
__device__ void insertion_sort(unsigned *a, int lo, int hi) {
  for (int i = lo + 1; i <= hi; ++i) {
    unsigned v = a[i];
    int j = i - 1;
    while (j >= lo && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

__global__ void quicksort(unsigned *a, int lo, int hi, int depth) {
  if (hi - lo < 16 || depth >= 20) {
    insertion_sort(a, lo, hi);
    return;
  }
  unsigned pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      unsigned t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  if (lo < j) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(a, lo, j, depth + 1);
    cudaStreamDestroy(s);
  }
  if (i < hi) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(a, i, hi, depth + 1);
    cudaStreamDestroy(s);
  }
}

void sort(unsigned *a, int n) {
  unsigned *d;
  cudaMalloc(&d, n * sizeof(unsigned));
  cudaMemcpy(d, a, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  quicksort<<<1, 1>>>(d, 0, n - 1, 0);
  cudaDeviceSynchronize();
  cudaMemcpy(a, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
