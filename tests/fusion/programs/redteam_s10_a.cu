// Red-team programs for issue 25's session-10 fusions (our own): aliasing through helper
// calls, point-wise producers recomputed at loop reads whose inputs change, guards shorter
// than the reader's loop, struct fields reassigned, switches that are not simple chains,
// channel indices that are not at a constant channel. Entry points take device buffers.
#include <cuda_runtime.h>

__global__ void rt_rows(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = x > 0 ? x - 1 : 0, r = x < w - 1 ? x + 1 : w - 1;
  out[y * w + x] = 0.25f * in[y * w + l] + 0.5f * in[y * w + x] + 0.25f * in[y * w + r];
}

__global__ void rt_cols(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int u = max(y - 1, 0), d = min(y + 1, h - 1);
    out[y * w + x] = 0.25f * in[u * w + x] + 0.5f * in[y * w + x] + 0.25f * in[d * w + x];
  }
}

void rt_smooth(const float *src, float *tmp, float *dst, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_rows<<<g, b>>>(src, tmp, w, h);
  rt_cols<<<g, b>>>(tmp, dst, w, h);
}

// The helper's output is its own input.
void rt_alias_self(float *a, float *t, int w, int h) { rt_smooth(a, t, a, w, h); }

// The first call's output is the second's input and the second's output.
void rt_alias_chain(const float *x, float *a, float *t, int w, int h) {
  rt_smooth(x, t, a, w, h);
  rt_smooth(a, t, a, w, h);
}

// The same buffer as source of one call and scratch of the next.
void rt_alias_scratch(float *a, float *b, float *c, int w, int h) {
  rt_smooth(a, b, c, w, h);
  rt_smooth(c, a, b, w, h);
}

__global__ void rt_pscale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * 2.0f + 1.0f;
}

__global__ void rt_pscale_short(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w - 1 && y < h) out[y * w + x] = in[y * w + x] * 2.0f + 1.0f;
}

__global__ void rt_rowsum(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int k = 0; k < w; ++k) s += t[y * w + k] * (k == x ? 2.0f : 1.0f);
  out[y * w + x] = s;
}

__global__ void rt_colsum(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  int k = 0;
  while (k < h) { s += t[k * w + x]; ++k; }
  out[y * w + x] = s - t[y * w + x];
}

__global__ void rt_bump(float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) a[y * w + x] += 1.0f;
}

// The producer's input changes between the producer and its loop reader.
void rt_pw_overwrite_between(float *in, float *out, int w, int h) {
  float *t;
  cudaMalloc(&t, sizeof(float) * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_pscale<<<g, b>>>(in, t, w, h);
  rt_bump<<<g, b>>>(in, w, h);
  rt_rowsum<<<g, b>>>(t, out, w, h);
  cudaFree(t);
}

// The loop reader writes the producer's input.
void rt_pw_reader_writes_input(float *in, int w, int h) {
  float *t;
  cudaMalloc(&t, sizeof(float) * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_pscale<<<g, b>>>(in, t, w, h);
  rt_colsum<<<g, b>>>(t, in, w, h);
  cudaFree(t);
}

// The producer leaves the last column as cudaMemset left it; the reader's loop reads it.
void rt_pw_short_guard(const float *in, float *out, int w, int h) {
  float *t;
  cudaMalloc(&t, sizeof(float) * w * h);
  cudaMemset(t, 0, sizeof(float) * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_pscale_short<<<g, b>>>(in, t, w, h);
  rt_rowsum<<<g, b>>>(t, out, w, h);
  cudaFree(t);
}

// A grid that covers fewer rows than the reader's loop.
void rt_pw_short_grid(const float *in, float *out, int w, int h) {
  float *t;
  cudaMalloc(&t, sizeof(float) * w * h);
  cudaMemset(t, 0, sizeof(float) * w * h);
  dim3 b(8, 1), g((w + 7) / 8, h > 1 ? h - 1 : 1);
  rt_pscale<<<g, b>>>(in, t, w, h);
  dim3 g2((w + 7) / 8, h);
  rt_colsum<<<g2, b>>>(t, out, w, h);
  cudaFree(t);
}

struct RtLayer { float *a; float *b; float *c; };

static void rt_set(float **slot, float *v) { *slot = v; }

// l->b is reassigned through its address between the launches.
void rt_struct_run(RtLayer *l, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_pscale<<<g, b>>>(l->a, l->b, w, h);
  float **slot = &l->b;
  *slot = l->a;
  rt_rows<<<g, b>>>(l->b, l->c, w, h);
}

void rt_struct_run2(RtLayer *l, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_pscale<<<g, b>>>(l->a, l->b, w, h);
  rt_set(&l->b, l->a);
  rt_rows<<<g, b>>>(l->b, l->c, w, h);
}

void rt_struct_entry(float *x, float *y, float *z, int w, int h) {
  RtLayer L{x, y, z};
  rt_struct_run(&L, w, h);
}

void rt_struct_entry2(float *x, float *y, float *z, int w, int h) {
  RtLayer L{x, y, z};
  rt_struct_run2(&L, w, h);
}

// Default in the middle, cases sharing an arm, a nested switch.
__global__ void rt_sw_mid(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  switch (i % 5) {
  case 0: out[i] = in[i]; break;
  default: out[i] = -in[i]; break;
  case 2: case 3: out[i] = 2.0f * in[i]; break;
  }
}

__global__ void rt_sw_nested(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  switch (i % 3) {
  case 0:
    switch (i % 2) { case 0: out[i] = in[i] + 1.0f; break; default: out[i] = in[i] - 1.0f; break; }
    break;
  case 1: out[i] = 3.0f * in[i]; break;
  default: out[i] = 0.5f * in[i]; break;
  }
}

__global__ void rt_sw_bool(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  switch (in[i] > 2.0f) {
  case true: out[i] = 1.0f; break;
  case false: out[i] = in[i]; break;
  }
}

__global__ void rt_lin(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 1.5f - 0.25f;
}

void rt_switches(const float *in, float *a, float *b, float *c, float *out, int w, int h) {
  int n = w * h;
  rt_lin<<<(n + 31) / 32, 32>>>(in, a, n);
  rt_sw_mid<<<(n + 31) / 32, 32>>>(a, b, w, h);
  rt_sw_nested<<<(n + 31) / 32, 32>>>(b, c, w, h);
  rt_sw_bool<<<(n + 31) / 32, 32>>>(c, out, w, h);
}

// Channels.
__global__ void rt_lift3(const float *in, float *lit, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int o = (y * w + x) * 3;
    lit[o + 0] = in[y * w + x] + 1.0f;
    lit[o + 1] = in[y * w + x] * 2.0f;
    lit[o + 2] = in[y * w + x] - 3.0f;
  }
}

// The whole index clamped: at the last pixel it is channel 2, not 1.
__global__ void rt_next_g(const float *lit, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = lit[min((y * w + x + 1) * 3 + 1, 3 * w * h - 1)];
}

// A channel computed from the position.
__global__ void rt_diag_c(const float *lit, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int c = (x + y) % 3;
  out[y * w + x] = lit[(y * w + x) * 3 + c];
}

// A clamp of two coordinates (min(x, y)) and a channel clamped from a run-time value.
__global__ void rt_minxy(const float *lit, float *out, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = lit[(y * w + min(x, y)) * 3 + 1] + lit[(y * w + x) * 3 + min(k, 2)];
}

void rt_channels(const float *in, float *o1, float *o2, float *o3, int w, int h) {
  float *lit;
  cudaMalloc(&lit, sizeof(float) * 3 * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rt_lift3<<<g, b>>>(in, lit, w, h);
  rt_next_g<<<g, b>>>(lit, o1, w, h);
  rt_diag_c<<<g, b>>>(lit, o2, w, h);
  rt_minxy<<<g, b>>>(lit, o3, w, h, w + 5);
  cudaFree(lit);
}

// Array parameters, one whose size says 3 though it holds an image.
__global__ void rt_arr_a(const float in[], float out[3], int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 0.5f;
}

__global__ void rt_arr_b(const float in[3], float out[], int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[n - 1 - i] * in[i];
}

void rt_arrays(const float *in, float *t, float *out, int w, int h) {
  int n = w * h;
  rt_arr_a<<<(n + 31) / 32, 32>>>(in, t, n);
  rt_arr_b<<<(n + 31) / 32, 32>>>(t, out, n);
}
