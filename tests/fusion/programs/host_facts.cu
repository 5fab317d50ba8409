// Host code as third parties write it, between the launches of a pipeline: error checks
// that exit or throw (macros, templates, functors, helpers), allocations and transfers of
// buffers the earlier launches do not use, pointer variables (aliases, a time loop rotating
// its buffers by parity), a shared-memory kernel launched in between; overloaded kernels;
// std:: math in kernels. Every entry fuses.
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <math.h>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <cuda_runtime.h>

#define CHECK_EXIT(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      _exit(-1);                                                              \
    }                                                                         \
  } while (0)

template <typename T>
void check(T err, const char *const func, const char *const file, const int line) {
  if (err != cudaSuccess) {
    std::cerr << "CUDA error at " << file << ":" << line << " " << cudaGetErrorString(err)
              << " " << func << std::endl;
    std::exit(EXIT_FAILURE);
  }
}
#define checkCuda(val) check((val), #val, __FILE__, __LINE__)

inline void throw_if_kernel_failed() {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("kernel failed: ") + cudaGetErrorString(e));
}

struct Checker {
  void operator()(cudaError_t e) const {
    if (e != cudaSuccess) {
      fprintf(stderr, "%s\n", cudaGetErrorString(e));
      std::quick_exit(2);
    }
  }
};

__global__ void hf_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 0.5f;
}
__global__ void hf_mix(const float *t, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * b[i] + 1.0f;
}
__global__ void hf_neg(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -a[i];
}
// Stages through dynamic shared memory (one block's own scratch, no global write).
__global__ void hf_staged(const float *a, float *out, int n) {
  extern __shared__ float stage[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = stage[threadIdx.x] * 3.0f;
}

void hf_exit_macro(const float *in, const float *b, float *t, float *out, int n) {
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  CHECK_EXIT(cudaGetLastError());
  CHECK_EXIT(cudaDeviceSynchronize());
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
  CHECK_EXIT(cudaGetLastError());
}

void hf_template_check(const float *in, const float *b, float *t, float *out, int n) {
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  checkCuda(cudaGetLastError());
  checkCuda(cudaDeviceSynchronize());
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
}

void hf_throwing(const float *in, const float *b, float *t, float *out, int n) {
  Checker chk;
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  throw_if_kernel_failed();
  if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("scale failed");
  chk(cudaGetLastError());
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
}

// A scratch buffer allocated between the launches, a buffer neither launch uses cleared and
// filled, and the second launch's other input uploaded after the first launch.
void hf_buffers_between(const float *in, const float *host_b, float *b, float *spare,
                        float *out, int n) {
  float *t = nullptr;
  cudaMalloc(&t, n * sizeof(float));
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  float *scratch;
  checkCuda(cudaMalloc((void **)&scratch, n * sizeof(float)));
  cudaMemset(spare, 0, n * sizeof(float));
  cudaMemcpy(b, host_b, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(scratch, b, n * sizeof(float), cudaMemcpyDeviceToDevice);
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
  cudaMemcpy(spare, scratch, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(scratch);
  cudaFree(t);
}

// Independent launches around an upload: the second reads what the upload writes.
void hf_sibling_upload(const float *in, const float *host_b, float *b, float *t,
                       float *out, int n) {
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(b, host_b, n * sizeof(float), cudaMemcpyHostToDevice);
  hf_neg<<<(n + 127) / 128, 128>>>(b, out, n);
}

// A kernel using dynamic shared memory between a producer and its consumer.
void hf_shared_between(const float *in, const float *b, float *t, float *u, float *out,
                       int n) {
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_staged<<<(n + 127) / 128, 128, 128 * sizeof(float)>>>(b, u, n);
  hf_mix<<<(n + 127) / 128, 128>>>(t, u, out, n);
}

// Pointer variables: aliases set once from a parameter or an allocation.
void hf_aliases(const float *in, const float *b, float *t, float *out, int n) {
  const float *src = in;
  float *mid = t;
  const float *mid_read = mid;
  hf_scale<<<(n + 127) / 128, 128>>>(src, mid, n);
  hf_mix<<<(n + 127) / 128, 128>>>(mid_read, b, out, n);
}

// The intermediate is read after the pipeline through an alias: it is still stored.
void hf_alias_read_after(const float *in, const float *b, float *out, float *h, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  const float *view = t;
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
  cudaMemcpy(h, view, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(t);
}

// A coefficient uploaded to constant memory between the launches: only the second reads it.
__constant__ float hf_coef[2];
__global__ void hf_weigh(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * hf_coef[0] + hf_coef[1];
}
void hf_symbol_between(const float *in, float *t, float *out, int n) {
  const float coef[2] = {0.75f, -2.0f};
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpyToSymbol(hf_coef, coef, sizeof(coef));
  hf_weigh<<<(n + 127) / 128, 128>>>(t, out, n);
}

// A grid assigned (dim3's operator=) between the launches, read only by the second.
void hf_dim3_assigned(const float *in, const float *b, float *t, float *out, int n) {
  dim3 block(128);
  dim3 grid;
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  grid = dim3((n + 127) / 128);
  hf_mix<<<grid, block>>>(t, b, out, n);
}

// A pointer chosen once between two buffers no other launch argument names.
void hf_chosen(const float *in, const float *b, float *t, float *out, float *alt, int n) {
  float *dst = n % 3 == 1 ? out : alt;
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, dst, n);
}

__global__ void hf_lap(const float *src, float *tmp, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = x > 0 ? x - 1 : x, xr = x < w - 1 ? x + 1 : x;
  int yu = y > 0 ? y - 1 : y, yd = y < h - 1 ? y + 1 : y;
  tmp[y * w + x] = src[y * w + xl] + src[y * w + xr] + src[yu * w + x] + src[yd * w + x] -
                   4.0f * src[y * w + x];
}
__global__ void hf_step(float *dst, const float *tmp, const float *src, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  dst[y * w + x] = src[y * w + x] + 0.2f * tmp[y * w + x];
}

// A time loop whose buffers rotate through pointer variables by the step's parity.
void hf_heat(const float *in, float *out, float *buf, float *tmp, int w, int h, int steps) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  const float *src = in;
  for (int t = 0; t < steps; ++t) {
    float *dst = t % 2 ? out : buf;
    hf_lap<<<grid, block>>>(src, tmp, w, h);
    hf_step<<<grid, block>>>(dst, tmp, src, w, h);
    src = dst;
  }
}

// The same rotation spelled with an assignment and `(t & 1) == 0`.
void hf_heat_and(const float *in, float *out, float *buf, float *tmp, int w, int h,
                 int steps) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  const float *src;
  float *dst;
  src = in;
  for (int t = 0; t < steps; t++) {
    dst = (t & 1) == 0 ? buf : out;
    hf_lap<<<grid, block>>>(src, tmp, w, h);
    checkCuda(cudaGetLastError());
    hf_step<<<grid, block>>>(dst, tmp, src, w, h);
    src = dst;
  }
}

// ---- overloaded kernels ------------------------------------------------------------

__global__ void hf_ov_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void hf_ov_scale(const double *in, double *t, double f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * f - 1.0;
}
__global__ void hf_ov_offset(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
__global__ void hf_ov_offset(const double *t, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i] + 0.25;
}
// One name, two arities over the same element type.
__global__ void hf_ov_step(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - 3.0f;
}
__global__ void hf_ov_step(const float *in, float *out, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k;
}

// The second overloads, declared after the first: matched by what clang resolved.
void hf_ov_double(const double *in, double *t, double *out, int n) {
  hf_ov_scale<<<(n + 127) / 128, 128>>>(in, t, 3.0, n);
  hf_ov_offset<<<(n + 63) / 64, 64>>>(t, out, n);
}
void hf_ov_float(const float *in, float *t, float *out, int n) {
  hf_ov_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_ov_offset<<<(n + 127) / 128, 128>>>(t, out, n);
}
void hf_ov_arity(const float *in, float *t, float *u, float *out, int n) {
  hf_ov_step<<<(n + 127) / 128, 128>>>(in, t, 0.5f, n);
  hf_ov_offset<<<(n + 127) / 128, 128>>>(t, u, n);
  hf_ov_scale<<<(n + 127) / 128, 128>>>(u, out, n);
}
// Two overloads of one name in one chain: code generation keys kernels by name, so the
// pair is left unfused (with a note), the rest of the chain fused.
void hf_ov_same_name(const float *in, float *t, float *out, int n) {
  hf_ov_step<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_ov_step<<<(n + 127) / 128, 128>>>(t, out, 0.25f, n);
}

// ---- std:: math on doubles in kernels ----------------------------------------------
__global__ void hf_polar(const double *re, const double *im, double *mag, double *ang, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  mag[i] = std::sqrt(re[i] * re[i] + im[i] * im[i]);
  ang[i] = std::atan2(im[i], re[i]);
}
__global__ void hf_mix_d(const double *mag, const double *ang, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = std::pow(std::fabs(mag[i]), 0.5) + std::exp(-std::fabs(ang[i])) + std::fmax(std::floor(ang[i]), std::hypot(mag[i], 1.0));
}
__global__ void hf_mixf(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = std::sqrt(a[i] * a[i] + 1.0f) + std::atan2(a[i], 2.0f) + std::fma(a[i], 2.0f, 1.0f);
}
void hf_std_math(const double *re, const double *im, double *mag, double *ang, double *out, const float *a, float *b, int n) {
  hf_polar<<<(n + 63) / 64, 64>>>(re, im, mag, ang, n);
  hf_mix_d<<<(n + 63) / 64, 64>>>(mag, ang, out, n);
  hf_mixf<<<(n + 63) / 64, 64>>>(a, b, n);
}

// Host scalars assigned between the launches (host/byvalue.py): each launch before the
// assignment is fused with the value it saw.
__global__ void hf_times(const float *in, float *t, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * s;
}
static int hf_ceil_div(int a, int b) { return (a + b - 1) / b; }

// The grid and block set again, to other values, before the second launch.
void hf_regrid(const float *in, const float *b, float *t, float *out, int n) {
  dim3 block = 128;
  dim3 grid = (n + 127) / 128;
  hf_scale<<<grid, block>>>(in, t, n);
  block = dim3(64);
  grid = dim3((n + 63) / 64);
  hf_mix<<<grid, block>>>(t, b, out, n);
}

// A factor both launches read, changed between them (and the launch size, through a helper).
void hf_factor(const float *in, const float *b, float *t, float *u, float *out, int n) {
  float s = 0.5f;
  int threads = 256;
  int blocks = hf_ceil_div(n, threads);
  hf_times<<<blocks, threads>>>(in, t, s, n);
  s = 3.0f;
  threads = 64;
  blocks = hf_ceil_div(n, threads);
  hf_times<<<blocks, threads>>>(t, u, s, n);
  hf_mix<<<blocks, threads>>>(u, b, out, n);
}

// The count set again and converted to the kernels' int: passed as the first launch saw it.
void hf_count(const float *in, const float *b, float *t, float *out, int n) {
  size_t total = n;
  int blocks = hf_ceil_div((int)total, 128);
  hf_times<<<blocks, 128>>>(in, t, 1.5f, total);
  total = n;
  blocks = hf_ceil_div((int)total, 32);
  hf_mix<<<blocks, 32>>>(t, b, out, total);
}

// A scratch buffer freed inside an error-check macro: the free is no read of it, so the
// fused kernel need not store it.
void hf_free_in_macro(const float *in, const float *b, float *out, int n) {
  float *t;
  CHECK_EXIT(cudaMalloc(&t, n * sizeof(float)));
  hf_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  hf_mix<<<(n + 127) / 128, 128>>>(t, b, out, n);
  CHECK_EXIT(cudaFree(t));
}

// A grid computed from a host global a helper set (cs344 blend style), reassigned before the
// second launch: the first launch is read with the value it saw, which names the global;
// nothing between its assignment and the launch changes the global (the helper in between
// only prints it), so the value read at the fused launch is the same.
int hf_active;
void hf_count_active(int n) { hf_active = n - n / 3; }
void hf_log_active(int n) { printf("%d of %d active\n", hf_active, n); }
void hf_global_grid(const float *in, const float *b, float *t, float *out, int n) {
  hf_count_active(n);
  dim3 block = 128;
  dim3 grid = (hf_active + 127) / 128;
  hf_log_active(n);
  checkCuda(cudaMemset(t, 0, n * sizeof(float)));
  hf_scale<<<grid, block>>>(in, t, hf_active);
  checkCuda(cudaMemset(out, 0, n * sizeof(float)));  // (a buffer hf_scale does not use)
  block = 64;
  grid = (hf_active + 63) / 64;
  hf_mix<<<grid, block>>>(t, b, out, hf_active);
}
