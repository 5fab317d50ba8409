// Shared memory reached in ways hfuse cannot redirect to part 2's region (thread mode): each
// kernel below is refused as part 2 with an error at the construct.
#include <cuda_runtime.h>
#include "smem_header.cuh"

template <class T> struct Smem {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <class T> struct AliasedSmem {
  __device__ inline operator T *() {
    extern __shared__ int __asmem[];
    return (T *)__asmem;
  }
};
typedef AliasedSmem<float> FloatSmem;

struct LaneSmem {
  __device__ int *mine() {
    extern __shared__ int __lsmem[];
    return __lsmem + threadIdx.x;
  }
};

struct Outer {  // a class using another class that declares shared memory
  __device__ float *get() { return Smem<float>(); }
};

struct OutOfLine {
  __device__ int *get();
};
__device__ int *OutOfLine::get() {
  extern __shared__ int __osmem[];
  return __osmem;
}

#define TWO_DECLS extern __shared__ int s_two[]; int *p_two = s_two
__device__ int *two_decls() {
  TWO_DECLS;
  return p_two;
}

#define QUALIFIED_PTR(T) ((T *)::Smem<T>())
#define SMEM_TYPE \
  Smem<int>
typedef SMEM_TYPE IntSmem;  // an alias through a macro continued over two lines

__device__ float *by_value(Smem<float> s) { return s; }  // the class in a signature

__global__ void plain(const float *in, float *out, unsigned n) {
  float *s = Smem<float>();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void from_header(const float *in, float *out, unsigned n) {
  float *s = HeaderSmem<float>();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void qualified(const float *in, float *out, unsigned n) {
  float *s = ::Smem<float>();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void via_typedef(const float *in, float *out, unsigned n) {
  float *s = FloatSmem();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void lane_member(int *out, unsigned n) {
  int *s = LaneSmem().mine();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  *s = (int)i;
  __syncthreads();
  if (i < n) out[i] = *s;
}

__global__ void outer_class(const float *in, float *out, unsigned n) {
  float *s = Outer().get();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void out_of_line(int *out, unsigned n) {
  int *s = OutOfLine().get();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (int)i;
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void two_in_macro(int *out, unsigned n) {
  int *s = two_decls();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (int)i;
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void qualified_macro(float *out, unsigned n) {
  float *s = QUALIFIED_PTR(float);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (float)i;
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void alias_macro(int *out, unsigned n) {
  int *s = IntSmem();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (int)i;
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}

__global__ void signature_class(float *out, unsigned n) {
  float *s = by_value({});
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (float)i;
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x];
}
