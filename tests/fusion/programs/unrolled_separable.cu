// A row pass of a separable blur over interleaved RGB bytes, written one channel per
// iteration with a run-time filter width inside (each iteration a window's sum), a pitch
// argument, an early-return guard in braces; then a gray conversion reading the channels.
#define CHANNEL_NUM 3
typedef unsigned char uchar;

__global__ void blur_rows(const uchar *input, float *temp, const float *k1d, int width,
                          int height, int pitch, int k_w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) {
    return;
  }
  int half_k_w = k_w / 2;
  for (int c = 0; c < CHANNEL_NUM; ++c) {
    float sum = 0.0f;
    for (int kx = 0; kx < k_w; kx++) {
      int ix = min(max(x + kx - half_k_w, 0), width - 1);
      sum += input[y * pitch + ix * CHANNEL_NUM + c] * k1d[kx];
    }
    temp[(y * width + x) * CHANNEL_NUM + c] = sum;
  }
}

__global__ void to_bytes(const float *temp, uchar *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) {
    return;
  }
  int i = y * width + x;
  float g = (temp[i * CHANNEL_NUM] + temp[i * CHANNEL_NUM + 1] + temp[i * CHANNEL_NUM + 2]) / 3;
  out[i] = (uchar)fminf(fmaxf(g, 0.0f), 255.0f);
}

void run(const uchar *in, float *tmp, uchar *out, const float *k1d, int w, int h, int kw) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  blur_rows<<<g, b>>>(in, tmp, k1d, w, h, w * CHANNEL_NUM, kw);
  to_bytes<<<g, b>>>(tmp, out, w, h);
}
