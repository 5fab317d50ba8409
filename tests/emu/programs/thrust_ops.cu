// Thrust with the emulator: device_vectors handed to kernels through raw_pointer_cast, and
// the algorithms programs use most, on the toolkit's Thrust (host backend).
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

struct affine {
  float a, b;
  __host__ __device__ float operator()(float x) const { return a * x + b; }
};

struct pair_product {
  __host__ __device__ float operator()(const thrust::tuple<float, int> &t) const {
    return thrust::get<0>(t) * thrust::get<1>(t);
  }
};

__global__ void square(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

__global__ void block_sums(const float *v, float *sums, int n) {
  __shared__ float part[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? v[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

// out[i] = sorted(a*x + b)^2 ; returns the sum through *total; scan holds the inclusive scan
// of out, excl its exclusive scan of the integers n-1, ..., 0.
int transform_sort_scan(const float *x, float *out, float *scan, int *excl, float *total,
                        float *sums, int n) {
  thrust::device_vector<float> d(x, x + n);
  thrust::transform(d.begin(), d.end(), d.begin(), affine{0.5f, -3.0f});
  thrust::sort(d.begin(), d.end());
  int blocks = (n + 127) / 128;
  square<<<blocks, 128>>>(thrust::raw_pointer_cast(d.data()), n);
  thrust::device_vector<float> d_sums(blocks);
  block_sums<<<blocks, 128>>>(thrust::raw_pointer_cast(&d[0]),
                              thrust::raw_pointer_cast(d_sums.data()), n);
  thrust::copy(d_sums.begin(), d_sums.end(), sums);
  *total = thrust::reduce(d.begin(), d.end(), 0.0f, thrust::plus<float>());
  thrust::device_vector<float> d_scan(n);
  thrust::inclusive_scan(d.begin(), d.end(), d_scan.begin());
  cudaMemcpy(scan, thrust::raw_pointer_cast(d_scan.data()), n * sizeof(float),
             cudaMemcpyDeviceToHost);
  thrust::device_vector<int> seq(n);
  thrust::sequence(seq.begin(), seq.end(), n - 1, -1);
  thrust::exclusive_scan(seq.begin(), seq.end(), seq.begin());
  thrust::copy(seq.begin(), seq.end(), excl);
  thrust::copy(d.begin(), d.end(), out);
  return 0;
}

// Sorts keys with their values; then dot[i] = key[i] * i through a zip of the keys and a
// counting iterator.
void sort_pairs(int *keys, float *values, float *dot, int n) {
  thrust::device_vector<int> k(keys, keys + n);
  thrust::device_vector<float> v(n);
  cudaMemcpy(thrust::raw_pointer_cast(v.data()), values, n * sizeof(float),
             cudaMemcpyHostToDevice);
  thrust::sort_by_key(k.begin(), k.end(), v.begin());
  thrust::host_vector<int> hk = k;
  thrust::copy(hk.begin(), hk.end(), keys);
  thrust::copy(v.begin(), v.end(), values);
  thrust::device_vector<float> kf(k.begin(), k.end());
  thrust::counting_iterator<int> idx(0);
  auto first = thrust::make_zip_iterator(thrust::make_tuple(kf.begin(), idx));
  thrust::transform(first, first + n, kf.begin(), pair_product());
  thrust::copy(kf.begin(), kf.end(), dot);
}
