// Kernels taking structs by value that describe an array, written for cudafuse's tests in
// the styles of PyTorch's TensorInfo (public data/sizes/strides/dims, no constructor) and
// PackedTensorAccessor (a constructor over data, sizes and strides; protected members;
// int64_t or int indices).
#include <cstdint>

template <typename T, typename I> struct Info {
  T *data;
  I sizes[4];
  I strides[4];
  int dims;
};

template <typename T, typename I = int64_t> class Accessor {
 public:
  __host__ __device__ Accessor(T *__restrict__ data, const I *sizes, const I *strides)
      : data_(data) {
    for (int i = 0; i < 2; ++i) {
      sizes_[i] = sizes[i];
      strides_[i] = strides[i];
    }
  }
  __host__ __device__ I size(int i) const { return sizes_[i]; }
  __host__ __device__ T &at(I r, I c) const { return data_[r * strides_[0] + c * strides_[1]]; }
  __host__ __device__ T *__restrict__ data() { return data_; }

 protected:
  T *__restrict__ data_;
  I sizes_[2];
  I strides_[2];
};

// Each row's sum of a strided (transposed) matrix view.
__global__ void row_sums(Info<const float, int> in, Info<float, int> out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= in.sizes[0]) return;
  float s = 0.0f;
  for (int c = 0; c < in.sizes[1]; ++c) s += in.data[r * in.strides[0] + c * in.strides[1]];
  out.data[r * out.strides[0]] = s * (float)in.dims;
}

template <typename T>
__global__ void scale_view(const Accessor<T> a, Accessor<T, int> b, T k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.size(0) * a.size(1)) return;
  int r = i / a.size(1), c = i % a.size(1);
  b.at(r, c) = k * a.at(r, c);
}
