// Kernels that reach shared memory outside their own body, in every way hfuse must see:
// cuda-samples' SharedMemory<T> (a class template whose conversion operators declare
// extern __shared__, specialised per type), a getPointer() member, helper device functions
// (transitively), a macro, a namespace-scope extern __shared__ array used by a helper, and
// static __shared__ arrays in a helper and in a member function.
#include <cuda_runtime.h>

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <> struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
  __device__ inline operator const double *() const {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T> struct SmemBuf {
  __device__ T *getPointer() {
    extern __shared__ T s_buf[];
    return s_buf;
  }
};

// A per-block cache declared static in a member function: one array per part.
struct StaticCache {
  __device__ int *get() {
    __shared__ int cache[256];
    return cache;
  }
};

#define SMEM_PTR(T) ((T *)SharedMemory<T>())
#define DYN_SMEM(T, name) extern __shared__ T name[]

extern __shared__ float g_dyn[];

__device__ float *dyn_floats() {
  extern __shared__ float s_f[];
  return s_f;
}
__device__ float *scratch() { return dyn_floats(); }  // reaches it transitively
__device__ float *global_buf() { return g_dyn; }
__device__ int *macro_buf() {
  DYN_SMEM(int, s_m);
  return s_m;
}

// cuda-samples' reduce: a tree reduction of blockDim.x elements in dynamic shared memory.
template <class T> __global__ void reduce(const T *in, T *out, unsigned n) {
  T *sdata = SharedMemory<T>();
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Each block reverses its slice through dynamic shared memory.
__global__ void reverse_sm(const float *in, float *out, unsigned n) {
  float *s = SharedMemory<float>();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : -1.0f;
  __syncthreads();
  unsigned j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n) out[j] = s[threadIdx.x];
}

__global__ void rotate_ptr(const int *in, int *out, unsigned n) {
  SmemBuf<int> smem;
  int *s = smem.getPointer();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 1) % blockDim.x] * 2 + 1;
}

__global__ void shift_helper(const float *in, float *out, unsigned n) {
  float *s = scratch();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 3) % blockDim.x] - 0.5f;
}

__global__ void shift_global(const float *in, float *out, unsigned n) {
  float *s = global_buf();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 5) % blockDim.x] * 3.0f;
}

__global__ void reverse_macro(const double *in, double *out, unsigned n) {
  double *s = SMEM_PTR(double);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void cached_sum(const int *in, int *out, unsigned n) {
  int *c = StaticCache().get();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  c[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = c[threadIdx.x] + c[(threadIdx.x + 1) % blockDim.x];
}

__global__ void cached_diff(const int *in, int *out, unsigned n) {
  int *c = StaticCache().get();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  c[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = c[threadIdx.x] - c[(threadIdx.x + 7) % blockDim.x];
}

__global__ void macro_helper(const int *in, int *out, unsigned n) {
  int *s = macro_buf();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 2) % blockDim.x];
}
