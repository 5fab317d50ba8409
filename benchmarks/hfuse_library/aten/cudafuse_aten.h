// Stand-ins for the PyTorch (ATen/THC/c10) headers that ATen's CUDA kernel files include,
// written for cudafuse's benchmark (benchmarks/hfuse_library_pairs.py); no PyTorch code.
// Device side: the types and helpers the kernels use (PackedTensorAccessor, TensorInfo,
// IndexToOffset, acc_type, numeric_limits, THCNumerics, ScalarConvert, the launch-bounds and
// kernel-loop macros, WARP_SHFL_XOR), with the meaning ATen documents. Host side: the
// smallest Tensor/Scalar/dispatch declarations the files' host functions compile against;
// the host functions are never called (the benchmark launches the kernels itself), so their
// bodies do nothing useful.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <cfloat>  // FLT_MIN, FLT_MAX: ATen's c10/util/Half.h includes it (mmcv's kernels rely on that)
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>
#include <algorithm>

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= 0) ? 1024 : (val))
#define C10_MIN_BLOCKS_PER_SM(threads_per_block, blocks_per_sm) (blocks_per_sm)
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(1024, 1)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))
#define C10_LAUNCH_BOUNDS_2(max_threads_per_block, min_blocks_per_sm) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))), (min_blocks_per_sm))
#define C10_UNUSED __attribute__((__unused__))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// ATen's is an if statement (files write it with and without a semicolon after).
#define TORCH_CHECK(cond, ...) \
  if (!(cond)) {              \
    throw 0;                  \
  }
#define AT_ASSERT(cond) ((void)(cond))
#define AT_ASSERTM(cond, ...) ((void)(cond))
#define AT_CHECK(cond, ...) ((void)(cond))
#define AT_ERROR(...) throw 0
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define THCudaCheck(expr) ((void)(expr))
// The dispatch macros run their lambda for one type (float or int64_t), as ATen's do for
// the tensor's own type.
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  [&] { using scalar_t = float; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  [&] { using scalar_t = float; return __VA_ARGS__(); }()
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  [&] { using scalar_t = float; return __VA_ARGS__(); }()
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  [&] { using scalar_t = int64_t; return __VA_ARGS__(); }()

namespace c10 {
// IEEE binary16 converting to and from float as c10::Half does (mmcv's kernels specialised
// for `phalf` read it through static_cast<float>).
struct Half {
  unsigned short x;
  Half() = default;
  __host__ __device__ Half(float f) : x(__half_as_ushort(__float2half(f))) {}
  __host__ __device__ operator float() const { return __half2float(__ushort_as_half(x)); }
  __host__ __device__ Half(__half h) : x(__half_as_ushort(h)) {}
  __host__ __device__ operator __half() const { return __ushort_as_half(x); }
  __host__ __device__ Half &operator+=(float v) { return *this = Half(float(*this) + v); }
};
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, Undefined };
enum class DeviceType { CPU, CUDA };
enum class Backend { CPU, CUDA };
enum class MemoryFormat { Contiguous, Preserve };
using IntArrayRef = std::vector<int64_t>;
}  // namespace c10

namespace at {
using c10::Backend;
using c10::DeviceType;
using c10::Half;
using c10::IntArrayRef;
using c10::MemoryFormat;
using c10::ScalarType;
constexpr ScalarType kFloat = ScalarType::Float, kDouble = ScalarType::Double,
                     kLong = ScalarType::Long, kHalf = ScalarType::Half;
constexpr DeviceType kCUDA = DeviceType::CUDA;

template <typename T, bool is_cuda> struct AccumulateType { using type = T; };
template <> struct AccumulateType<Half, true> { using type = float; };
template <> struct AccumulateType<float, true> { using type = float; };
template <> struct AccumulateType<double, true> { using type = double; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;

template <typename T> struct numeric_limits;
template <> struct numeric_limits<float> {
  static inline __host__ __device__ float lowest() { return -3.402823466e+38f; }
  static inline __host__ __device__ float max() { return 3.402823466e+38f; }
  static inline __host__ __device__ float lower_bound() { return -__builtin_huge_valf(); }
  static inline __host__ __device__ float upper_bound() { return __builtin_huge_valf(); }
};
template <> struct numeric_limits<double> {
  static inline __host__ __device__ double lowest() { return -1.7976931348623157e+308; }
  static inline __host__ __device__ double max() { return 1.7976931348623157e+308; }
  static inline __host__ __device__ double lower_bound() { return -__builtin_huge_val(); }
  static inline __host__ __device__ double upper_bound() { return __builtin_huge_val(); }
};

template <typename T> struct DefaultPtrTraits { typedef T *PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T *__restrict__ PtrType; };

// A strided view of N dimensions: a[i] is a view of N-1 dimensions, a[i] of 1 is an element.
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ TensorAccessor(PtrType data, const index_t *sizes, const index_t *strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](
      index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }

 protected:
  PtrType data_;
  const index_t *sizes_;
  const index_t *strides_;
};
template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ TensorAccessor(PtrType data, const index_t *sizes, const index_t *strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  __host__ __device__ T &operator[](index_t i) { return data_[strides_[0] * i]; }
  __host__ __device__ const T &operator[](index_t i) const { return data_[strides_[0] * i]; }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }

 protected:
  PtrType data_;
  const index_t *sizes_;
  const index_t *strides_;
};

// Passed to kernels by value: sizes and strides travel inside it.
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class PackedTensorAccessor {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ PackedTensorAccessor(PtrType data, const index_t *sizes,
                                           const index_t *strides)
      : data_(data) {
    for (size_t i = 0; i < N; i++) {
      sizes_[i] = sizes[i];
      strides_[i] = strides[i];
    }
  }
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](
      index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sizes_ + 1,
                                                        strides_ + 1);
  }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }
  __host__ __device__ index_t stride(index_t i) const { return strides_[i]; }
  __host__ __device__ PtrType data() { return data_; }

 protected:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};
template <typename T, template <typename U> class PtrTraits, typename index_t>
class PackedTensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ PackedTensorAccessor(PtrType data, const index_t *sizes,
                                           const index_t *strides)
      : data_(data) {
    sizes_[0] = sizes[0];
    strides_[0] = strides[0];
  }
  __host__ __device__ T &operator[](index_t i) { return data_[strides_[0] * i]; }
  __host__ __device__ const T &operator[](index_t i) const { return data_[strides_[0] * i]; }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }
  __host__ __device__ index_t stride(index_t i) const { return strides_[i]; }
  __host__ __device__ PtrType data() { return data_; }

 protected:
  PtrType data_;
  index_t sizes_[1];
  index_t strides_[1];
};

struct Scalar {
  double v = 0;
  template <typename T> T to() const { return static_cast<T>(v); }
};
struct TensorOptions {
  TensorOptions dtype(ScalarType) const { return *this; }
  TensorOptions device(DeviceType) const { return *this; }
};
inline TensorOptions device(DeviceType) { return TensorOptions(); }
struct Type {};
inline Type CUDA(ScalarType) { return Type(); }

// The host tensor: its methods exist so the files' host functions compile; nothing calls them.
class Tensor {
 public:
  Tensor() = default;
  int64_t size(int64_t) const { return 0; }
  int64_t stride(int64_t) const { return 0; }
  IntArrayRef sizes() const { return {}; }
  IntArrayRef strides() const { return {}; }
  int64_t dim() const { return 0; }
  int64_t ndimension() const { return 0; }
  int64_t numel() const { return 0; }
  bool defined() const { return false; }
  bool is_contiguous() const { return true; }
  ScalarType scalar_type() const { return ScalarType::Float; }
  TensorOptions options() const { return TensorOptions(); }
  DeviceType device() const { return DeviceType::CUDA; }
  template <typename T> T item() const { return T(); }
  TensorOptions dtype() const { return TensorOptions(); }
  Tensor contiguous(MemoryFormat = MemoryFormat::Contiguous) const { return *this; }
  Tensor view(IntArrayRef) const { return *this; }
  Tensor reshape(IntArrayRef) const { return *this; }
  Tensor select(int64_t, int64_t) const { return *this; }
  Tensor min() const { return *this; }
  Tensor max() const { return *this; }
  Tensor cpu() const { return *this; }
  Tensor toType(Type) const { return *this; }
  Tensor &resize_(IntArrayRef) { return *this; }
  Tensor &resize_as_(const Tensor &) { return *this; }
  Tensor &zero_() { return *this; }
  Tensor &copy_(const Tensor &) { return *this; }
  template <typename T> T *data() const { return nullptr; }
  template <typename T> T *data_ptr() const { return nullptr; }
  void *data_ptr() const { return nullptr; }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  PackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const {
    index_t z[N] = {};
    return PackedTensorAccessor<T, N, PtrTraits, index_t>(nullptr, z, z);
  }
};
using CheckedFrom = const char *;
struct TensorArg {
  TensorArg(const Tensor &, const char *, int) {}
};
enum class TensorArgType { ReadWrite, ReadOnly };
inline void checkAllSameGPU(const char *, std::initializer_list<TensorArg>) {}
inline void checkBackend(const char *, std::initializer_list<Tensor>, Backend) {}
inline void check_dim_size(const Tensor &, int64_t, int64_t, int64_t) {}
inline Tensor empty(IntArrayRef, TensorOptions = TensorOptions()) { return Tensor(); }
inline Tensor empty_like(const Tensor &t) { return t; }
inline Tensor zeros_like(const Tensor &t) { return t; }
inline Tensor zeros(IntArrayRef, TensorOptions = TensorOptions()) { return Tensor(); }
inline int64_t current_device() { return 0; }
inline dim3 getApplyBlock() { return dim3(512); }
inline bool getApplyGrid(uint64_t, dim3 &grid, int64_t) {
  grid = dim3(1);
  return true;
}
template <typename T, typename U> struct ScalarConvert {
  static __host__ __device__ U to(const T v) { return static_cast<U>(v); }
};

namespace native {
template <typename To, typename From> To safe_downcast(From v) { return static_cast<To>(v); }
template <typename T>
T pooling_output_shape(T inputSize, T kernelSize, T pad, T stride, T dilation, bool ceil_mode) {
  T out = (inputSize + 2 * pad - dilation * (kernelSize - 1) - 1 + (ceil_mode ? stride - 1 : 0)) /
              stride + 1;
  if (ceil_mode && (out - 1) * stride >= inputSize + pad) --out;
  return out;
}
// Shape checks: the host functions call them, the benchmark never calls those.
template <typename... A> void pool2d_shape_check(const A &...) {}
template <typename... A> void max_pool2d_backward_shape_check(const A &...) {}
using at::empty;
using at::zeros;
}  // namespace native

namespace cuda {
inline cudaStream_t getCurrentCUDAStream() { return 0; }
inline cudaDeviceProp *getCurrentDeviceProperties() {
  static cudaDeviceProp prop;
  return &prop;
}
template <typename T> __host__ __device__ T ATenCeilDiv(T a, T b) { return (a + b - 1) / b; }
namespace detail {
constexpr int CUDA_NUM_THREADS = 1024;
inline int GET_BLOCKS(const int64_t N) {
  return static_cast<int>((N + CUDA_NUM_THREADS - 1) / CUDA_NUM_THREADS);
}
constexpr int MAX_TENSORINFO_DIMS = 25;
// A tensor's pointer, sizes and strides, passed to kernels by value.
template <typename T, typename IndexType> struct TensorInfo {
  TensorInfo() : data(nullptr), dims(0) {}
  TensorInfo(T *p, int dim, IndexType sz[MAX_TENSORINFO_DIMS],
             IndexType st[MAX_TENSORINFO_DIMS])
      : data(p), dims(dim) {
    for (int i = 0; i < dim; ++i) {
      sizes[i] = sz[i];
      strides[i] = st[i];
    }
  }
  T *data;
  IndexType sizes[MAX_TENSORINFO_DIMS];
  IndexType strides[MAX_TENSORINFO_DIMS];
  int dims;
};
template <typename T, typename IndexType>
TensorInfo<T, IndexType> getTensorInfo(const Tensor &) {
  return TensorInfo<T, IndexType>();
}
// The offset of element `linearId` (in row-major order) of a strided tensor; Dims -1 means
// "read the count of dimensions from the info", as ATen's IndexUtils.
template <typename T, typename IndexType, int Dims> struct IndexToOffset {
  static __host__ __device__ IndexType get(IndexType linearId,
                                           const TensorInfo<T, IndexType> &info) {
    IndexType offset = 0;
    for (int i = Dims - 1; i > 0; --i) {
      IndexType curDimIndex = linearId % info.sizes[i];
      offset += curDimIndex * info.strides[i];
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};
template <typename T, typename IndexType> struct IndexToOffset<T, IndexType, -1> {
  static __host__ __device__ IndexType get(IndexType linearId,
                                           const TensorInfo<T, IndexType> &info) {
    IndexType offset = 0;
    for (int i = info.dims - 1; i > 0; --i) {
      IndexType curDimIndex = linearId % info.sizes[i];
      offset += curDimIndex * info.strides[i];
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};
}  // namespace detail
}  // namespace cuda
}  // namespace at

template <typename T> struct THCNumerics {
  static __host__ __device__ bool isnan(T a) { return a != a; }
};
template <typename T, typename U> using ScalarConvert = at::ScalarConvert<T, U>;
template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = 32,
                                           unsigned int mask = 0xffffffff) {
  return __shfl_xor_sync(mask, value, laneMask, width);
}
template <typename T>
__device__ __forceinline__ T WARP_SHFL(T value, int srcLane, int width = 32,
                                       unsigned int mask = 0xffffffff) {
  return __shfl_sync(mask, value, srcLane, width);
}

// ATen's THCAtomics overloads that CUDA lacks: 64-bit signed integers (histogram counts).
__device__ __forceinline__ void atomicAdd(int64_t *address, int64_t val) {
  ::atomicAdd(reinterpret_cast<unsigned long long *>(address),
              static_cast<unsigned long long>(val));
}
// Declared only, for the half-precision branches of templates that the benchmark never
// instantiates (it runs float).
__device__ void atomicAdd(at::Half *address, at::Half val);
