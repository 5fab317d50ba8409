// Written for cudafuse's tests in the style of ggml's CUDA backend (llama.cpp): `static
// __global__` templates, a block size as a non-type template parameter whose larger
// instantiation takes an `if constexpr` branch (with a static_assert that the smaller one
// must not see), a warp reduction helper, and a template whose `max(res, (To)cur)` is left
// for the instantiation to resolve beside an `int max` resolved in the template itself, and
// a function pointer as a template parameter.
#include <cfloat>

#define WARP_SIZE 32

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    x += __shfl_xor_sync(0xffffffff, x, offset, 32);
  }
  return x;
}

template <int block_size>
static __global__ void row_rms_norm(const float *x, float *dst, const int ncols,
                                    const float eps) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  x += row * ncols;
  dst += row * ncols;
  float tmp = 0.0f;
  for (int col = tid; col < ncols; col += block_size) {
    tmp += x[col] * x[col];
  }
  tmp = warp_reduce_sum(tmp);
  if constexpr (block_size > WARP_SIZE) {
    static_assert(block_size == 256, "a warp or 256 threads");
    __shared__ float s_sum[block_size / WARP_SIZE];
    const int warp_id = tid / WARP_SIZE;
    const int lane_id = tid % WARP_SIZE;
    if (lane_id == 0) {
      s_sum[warp_id] = tmp;
    }
    __syncthreads();
    tmp = lane_id < block_size / WARP_SIZE ? s_sum[lane_id] : 0.0f;
    tmp = warp_reduce_sum(tmp);
  }
  const float scale = rsqrtf(tmp / ncols + eps);
  for (int col = tid; col < ncols; col += block_size) {
    dst[col] = scale * x[col];
  }
}

template <typename Ti, typename To>
static __global__ void pool1d_max(const Ti *src, To *dst, const int n, const int width) {
  const int idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (idx >= n) {
    return;
  }
  const int begin = max(0, 2 * idx - 1);
  const int end = min(width, 2 * idx + 2);
  To res = -FLT_MAX;
  for (int j = begin; j < end; ++j) {
    res = max(res, (To)src[j]);
  }
  dst[idx] = res;
}

// A function pointer as a non-type template parameter (ggml's k_get_rows<qk, qr,
// dequantize_kernel, dst_t>), called in the body.
typedef void (*dequantize_t)(const unsigned char *q, int i, float &v);

static __device__ void dequantize_u8(const unsigned char *q, int i, float &v) {
  v = (q[i] - 128) * (1.0f / 64);
}

template <dequantize_t dequantize_kernel>
static __global__ void rows_dequant(const unsigned char *q, float *dst, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v;
  dequantize_kernel(q, i, v);
  dst[i] = v;
}

extern "C" void dequant_bytes(const unsigned char *q, float *dst, int n) {
  rows_dequant<dequantize_u8><<<(n + 63) / 64, 64>>>(q, dst, n);
}

extern "C" void norm_rows(const float *x, float *dst, int rows, int ncols, int threads) {
  if (threads == WARP_SIZE) {
    row_rms_norm<WARP_SIZE><<<rows, WARP_SIZE>>>(x, dst, ncols, 1e-6f);
  } else {
    row_rms_norm<256><<<rows, 256>>>(x, dst, ncols, 1e-6f);
  }
}

extern "C" void pool_floats(const float *src, float *dst, int n, int width) {
  pool1d_max<float, float><<<(n + 127) / 128, 128>>>(src, dst, n, width);
}
