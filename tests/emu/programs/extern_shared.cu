// extern __shared__ wherever CUDA allows it: in member functions (cuda-samples'
// SharedMemory<T> and its specialisation, a getPointer() member), in a helper inside a
// namespace, through a macro, and at namespace scope.
#include <cuda_runtime.h>

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};
template <> struct SharedMemory<double> {
  __device__ inline operator double *() {
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

#define DYN(T, name) extern __shared__ T name[]
namespace ns {
__device__ int *macro_buf() {
  DYN(int, m_buf);
  return m_buf;
}
}  // namespace ns

extern __shared__ float ns_floats[];

template <class T> __global__ void reverse_block(const T *in, T *out, unsigned n) {
  T *s = SharedMemory<T>();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  unsigned j = blockIdx.x * blockDim.x + blockDim.x - 1 - threadIdx.x;
  if (j < n) out[j] = s[threadIdx.x];
}

__global__ void rotate_member(const int *in, int *out, unsigned n) {
  int *s = SmemBuf<int>().getPointer();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void rotate_macro(const int *in, int *out, unsigned n) {
  int *s = ns::macro_buf();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 2) % blockDim.x];
}

__global__ void scale_namespace_scope(const float *in, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  ns_floats[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = 2.f * ns_floats[blockDim.x - 1 - threadIdx.x];
}

void reverse_f(const float *in, float *out, unsigned n) {
  reverse_block<float><<<(n + 127) / 128, 128, 128 * sizeof(float)>>>(in, out, n);
}
void reverse_d(const double *in, double *out, unsigned n) {
  reverse_block<double><<<(n + 63) / 64, 64, 64 * sizeof(double)>>>(in, out, n);
}
