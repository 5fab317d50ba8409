// Red-team programs for issue 25's session-10 fusions (our own), part b: point-wise
// producers that keep their guard (transposes) recomputed at loop reads while their input or
// intermediate changes; switch chains; channels computed or clamped as a whole.
#include <cuda_runtime.h>

// tr[x][y] = s * in[y][x] (tr is w rows of h), its guard in the transposed terms.
__global__ void rb_tr(const float *in, float *tr, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < h && y < w) tr[y * h + x] = s * in[x * w + y] + 0.5f;
}

// Updates its own element in place.
__global__ void rb_tr_inplace(float *tr, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < h && y < w) tr[y * h + x] = tr[y * h + x] * tr[y * h + x] - 1.0f;
}

__global__ void rb_rowsum(const float *tr, float *sums, int w, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < w) {
    float acc = 0.0f;
    for (int c = 0; c < h; ++c) acc += tr[r * h + c] * (float)(c + 1);
    sums[r] = acc;
  }
}

// Writes the transpose's input (in, h rows of w) at its own row-major elements.
__global__ void rb_rowsum_into(const float *tr, float *in, int w, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < w) {
    float acc = 0.0f;
    for (int c = 0; c < h; ++c) acc += tr[r * h + c];
    in[r] = acc;
  }
}

__global__ void rb_bump1(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * -2.0f + 1.0f;
}

// A loop reader then a launch that writes the intermediate again, then a second reader.
__global__ void rb_fill(float *a, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + (float)i;
}

void rb_between(float *in, float *sums, int w, int h) {
  float *tr;
  cudaMalloc(&tr, sizeof(float) * w * h);
  dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
  rb_tr<<<grid, block>>>(in, tr, 0.25f, w, h);
  rb_bump1<<<(w * h + 31) / 32, 32>>>(in, w * h);
  rb_rowsum<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
  cudaFree(tr);
}

void rb_into_input(float *in, int w, int h) {
  float *tr;
  cudaMalloc(&tr, sizeof(float) * w * h);
  dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
  rb_tr<<<grid, block>>>(in, tr, 0.25f, w, h);
  rb_rowsum_into<<<(w + 31) / 32, 32>>>(tr, in, w, h);
  cudaFree(tr);
}

void rb_inplace(const float *in, float *sums, int w, int h) {
  float *tr;
  cudaMalloc(&tr, sizeof(float) * w * h);
  dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
  rb_tr<<<grid, block>>>(in, tr, 0.25f, w, h);
  rb_tr_inplace<<<grid, block>>>(tr, w, h);
  rb_rowsum<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
  cudaFree(tr);
}

void rb_refill(const float *in, float *sums, float *sums2, int w, int h) {
  float *tr;
  cudaMalloc(&tr, sizeof(float) * w * h);
  dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
  rb_tr<<<grid, block>>>(in, tr, 0.25f, w, h);
  rb_rowsum<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
  rb_fill<<<(w * h + 31) / 32, 32>>>(tr, 2.0f, w * h);
  rb_rowsum<<<(w + 31) / 32, 32>>>(tr, sums2, w, h);
  cudaFree(tr);
}

// A grid that covers fewer columns of tr than the reader's loop reads (rows of in dropped).
void rb_short_grid(const float *in, float *sums, int w, int h) {
  float *tr;
  cudaMalloc(&tr, sizeof(float) * w * h);
  cudaMemset(tr, 0, sizeof(float) * w * h);
  dim3 block(1, 8), grid(h > 1 ? h - 1 : 1, (w + 7) / 8);
  rb_tr<<<grid, block>>>(in, tr, 0.25f, w, h);
  rb_rowsum<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
  cudaFree(tr);
}

// Switch chains, 1-D as the Canny style.
__global__ void rb_lin(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!(i >= 0 && i < w * h)) return;
  out[i] = in[i] * 4.0f - 1.0f;
}

__global__ void rb_sw_shared(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!(i >= 0 && i < w * h)) return;
  int k = (int)in[i];
  switch (k - 1) {
  case -1: case 1: out[i] = in[i] * 2.0f; break;
  case 0: out[i] = 7.0f; break;
  case 'a' - 'b' - 1: out[i] = -in[i]; break;
  default: out[i] = in[i] + 0.5f; break;
  }
}

__global__ void rb_sw_unsigned(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!(i >= 0 && i < w * h)) return;
  unsigned u = (unsigned)(int)in[i];
  switch (u) {
  case -1u: out[i] = 100.0f; break;
  case 2: out[i] = 200.0f; break;
  default: out[i] = in[i]; break;
  }
}

__global__ void rb_sw_char(const float *in, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!(i >= 0 && i < w * h)) return;
  unsigned char c = (unsigned char)(int)in[i];
  switch (c) {
  case 255: out[i] = 1.0f; break;
  case 3: { float t = in[i]; out[i] = t * t; break; }
  default: out[i] = 0.25f * in[i]; break;
  }
}

void rb_switches(const float *in, float *a, float *b, float *c, float *out, int w, int h) {
  int n = w * h;
  rb_lin<<<(n + 31) / 32, 32>>>(in, a, w, h);
  rb_sw_shared<<<(n + 31) / 32, 32>>>(a, b, w, h);
  rb_sw_unsigned<<<(n + 31) / 32, 32>>>(b, c, w, h);
  rb_sw_char<<<(n + 31) / 32, 32>>>(c, out, w, h);
}

// Channels.
__global__ void rb_lift3(const float *in, float *lit, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int o = (y * w + x) * 3;
    lit[o + 0] = in[y * w + x] + 1.0f;
    lit[o + 1] = in[y * w + x] * 2.0f;
    lit[o + 2] = in[y * w + x] - 3.0f;
  }
}

__global__ void rb_diag_c(const float *lit, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int c = (x + y) % 3;
  out[y * w + x] = lit[(y * w + x) * 3 + c];
}

// The neighbour's channel through an index that wraps into the next pixel.
__global__ void rb_wrap(const float *lit, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xr = min(x + 1, w - 1);
  out[y * w + x] = lit[(y * w + xr) * 3 + 2] + lit[3 * (y * w + x) + 4 - 3 * (x < w - 1 ? 1 : 0)];
}

// A float column turned into an int channel base: (int)(t * 3) is one integer.
__global__ void rb_floatcol(const float *lit, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float t = (float)x / (float)w;
  int col = (int)(t * (float)w);
  out[y * w + x] = lit[(y * w + col) * 3 + 1] + lit[(int)(3.0f * (float)(y * w + x)) + 2];
}

void rb_ch_diag(const float *in, float *o, int w, int h) {
  float *lit;
  cudaMalloc(&lit, sizeof(float) * 3 * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rb_lift3<<<g, b>>>(in, lit, w, h);
  rb_diag_c<<<g, b>>>(lit, o, w, h);
  cudaFree(lit);
}

void rb_ch_wrap(const float *in, float *o, int w, int h) {
  float *lit;
  cudaMalloc(&lit, sizeof(float) * 3 * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rb_lift3<<<g, b>>>(in, lit, w, h);
  rb_wrap<<<g, b>>>(lit, o, w, h);
  cudaFree(lit);
}

void rb_ch_floatcol(const float *in, float *o, int w, int h) {
  float *lit;
  cudaMalloc(&lit, sizeof(float) * 3 * w * h);
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rb_lift3<<<g, b>>>(in, lit, w, h);
  rb_floatcol<<<g, b>>>(lit, o, w, h);
  cudaFree(lit);
}
