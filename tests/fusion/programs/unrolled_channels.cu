// Channels stored by loops of a few constant iterations (kernel/respell/unroll.py): each
// iteration stores an element of its own, so the loop unrolled is one store per channel.
#define CH 4

// Interleaved RGB, a braced body with a local and a comment, 2-D grid.
__global__ void gain_rgb(const float *in, float *out, int w, int h, float g) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int idx = y * w + x;
  for (int c = 0; c < 3; ++c) {
    float v = in[idx * 3 + c];  // this channel's input
    out[idx * 3 + c] = v * g + (float)c;
  }
}

__global__ void rgb_gray(const float *rgb, float *gray, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int i = y * w + x;
    gray[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
  }
}

// Planar planes from interleaved bytes, a 1-D grid, the body one statement, unrolled by
// pragma as well; then a consumer that is itself a channel loop (planar in, RGBA out, a
// macro bound counted down, the fourth channel stored after it); then a sum of the four.
__global__ void to_planes(const unsigned char *rgb, float *planes, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
#pragma unroll
    for (int c = 0; c < 3; c++) planes[c * n + i] = rgb[3 * i + c] / 255.0f;
  }
}

__global__ void planes_rgba(const float *planes, float *rgba, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = CH - 2; c >= 0; --c) {
    float v = planes[c * n + i];
    rgba[i * CH + c] = v * v;
  }
  rgba[i * CH + CH - 1] = alpha;
}

__global__ void rgba_sum(const float *rgba, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sum[i] = rgba[CH * i] + rgba[CH * i + 1] + rgba[CH * i + 2] + rgba[CH * i + 3];
}

// Left as loops: a bound the host passes (not a constant), and a body that breaks.
__global__ void scale_n(const float *in, float *out, int n, int channels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < channels; ++c) out[i * 3 + c] = 2.0f * in[i * 3 + c];
}

__global__ void first_small(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; ++c) {
    out[i * 3 + c] = in[i * 3 + c];
    if (in[i * 3 + c] < 0.0f) break;
  }
}

void interleaved(const float *in, float *tmp, float *gray, int w, int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  gain_rgb<<<grid, block>>>(in, tmp, w, h, 1.5f);
  rgb_gray<<<grid, block>>>(tmp, gray, w, h);
}

void planar(const unsigned char *rgb, float *planes, float *rgba, float *sum, int w, int h) {
  int n = w * h;
  to_planes<<<(n + 127) / 128, 128>>>(rgb, planes, n);
  planes_rgba<<<(n + 63) / 64, 64>>>(planes, rgba, n, 0.5f);
  rgba_sum<<<(n + 127) / 128, 128>>>(rgba, sum, n);
}

void refused(const float *in, float *tmp, float *tmp2, float *gray, float *gray2, int w,
             int h) {
  int n = w * h;
  scale_n<<<(n + 127) / 128, 128>>>(in, tmp, n, 3);
  rgb_gray<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(tmp, gray, w, h);
  first_small<<<(n + 127) / 128, 128>>>(in, tmp2, n);
  rgb_gray<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(tmp2, gray2, w, h);
}

// A channel loop around a loop that only computes the channel's value (a weighted sum of
// a 3-pixel window, clamped at the ends): unrolled with its inner loop in each copy.
__global__ void window_rgb(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 3; c++) {
    float s = 0.0f;
    for (int k = -1; k <= 1; ++k) s += in[min(max(i + k, 0), n - 1) * 3 + c] * (2 - k * k);
    out[i * 3 + c] = s / 4;
  }
}

// Left as loops: a 2 x 2 block per thread (each iteration of dy stores two elements).
__global__ void up2(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    for (int dy = 0; dy < 2; dy++)
      for (int dx = 0; dx < 2; dx++) out[(2 * y + dy) * 2 * w + 2 * x + dx] = in[y * w + x];
}

__global__ void luma3(const float *rgb, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.25f * rgb[3 * i] + 0.5f * rgb[3 * i + 1] + 0.25f * rgb[3 * i + 2];
}

__global__ void halve(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * in[i];
}

void windowed(const float *in, float *tmp, float *gray, float *up, float *half, int w,
              int h) {
  int n = w * h;
  window_rgb<<<(n + 31) / 32, 32>>>(in, tmp, n);
  luma3<<<(n + 127) / 128, 128>>>(tmp, gray, n);
  up2<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(gray, up, w, h);
  halve<<<(n + 127) / 128, 128>>>(up, half, n);
}

// A consumer reading the three channels in a loop (each iteration one channel of its
// element): unrolled, each read is a constant channel.
__global__ void weighted_gray(const float *rgb, const float *wt, float *gray, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int c = 0; c < 3; ++c) s += wt[c] * rgb[i * 3 + c];
  gray[i] = s;
}

void read_loop(const float *in, float *tmp, const float *wt, float *gray, int w, int h) {
  int n = w * h;
  window_rgb<<<(n + 63) / 64, 64>>>(in, tmp, n);
  weighted_gray<<<(n + 127) / 128, 128>>>(tmp, wt, gray, n);
}

// The channel count in a local given one value (`int channels = 3;`), in the bound and in
// the index; a 2-D consumer over the same pixels.
__global__ void invert_rgb(const float *in, float *out, int w, int h) {
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  int row = threadIdx.y + blockIdx.y * blockDim.y;
  int channels = 3;
  if (col < w && row < h) {
    int offset = (row * w + col) * channels;
    for (int c = 0; c < channels; c++) out[offset + c] = 1.0f - in[offset + c];
  }
}

void local_count(const float *in, float *tmp, float *gray, int w, int h) {
  dim3 block(8, 8), grid((w + 7) / 8, (h + 7) / 8);
  invert_rgb<<<grid, block>>>(in, tmp, w, h);
  rgb_gray<<<grid, block>>>(tmp, gray, w, h);
}

// Locals the iteration reassigns (a value, a running maximum) and an index through a chain
// of locals: still one block per iteration.
__global__ void abs_gain(const float *in, float *out, int n, float g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int c = 0; c < 3; ++c) {
      int base = i * 3;
      int at = base + c;
      float v = in[at] * g;
      if (v < 0.0f) v = -v;
      out[at] = v;
    }
  }
}

__global__ void max_channel(const float *rgb, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float best = rgb[3 * i];
    for (int c = 1; c < 3; ++c) {
      float v = rgb[3 * i + c];
      best = v > best ? v : best;
    }
    m[i] = best;
  }
}

void reassigned(const float *in, float *tmp, float *m, int w, int h) {
  int n = w * h;
  abs_gain<<<(n + 127) / 128, 128>>>(in, tmp, n, 0.5f);
  max_channel<<<(n + 127) / 128, 128>>>(tmp, m, n);
}

// C89 style: the loop variable declared before the loop, and read after it (its value then
// is the one that ended the loop).
__global__ void c89_scale(const float *in, float *out, float *last, int n) {
  int i, c;
  i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (c = 0; c < 3; c++)
      out[i * 3 + c] = in[i * 3 + c] * 0.25f;
    last[i] = (float)c;
  }
}

void c89(const float *in, float *tmp, float *last, float *gray, int w, int h) {
  int n = w * h;
  c89_scale<<<(n + 127) / 128, 128>>>(in, tmp, last, n);
  luma3<<<(n + 127) / 128, 128>>>(tmp, gray, n);
}
