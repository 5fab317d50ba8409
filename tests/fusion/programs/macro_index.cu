// Indexing through a macro that reads `w` from the enclosing scope: the fused code must
// print the producer's row stride from its meaning (w), not the macro call's text.
#define IDX(x, y) ((y) * w + (x))
__global__ void grad(const float *in, float *g, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) g[IDX(x, y)] = in[IDX(x, y)] * 2.0f;
}
__global__ void blur(const float *g, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y < h) out[IDX(x, y)] = g[IDX(x - 1, y)] + g[IDX(x + 1, y)];
  else if (x < w && y < h) out[IDX(x, y)] = g[IDX(x, y)];
}
__global__ void scale(const float *g, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[IDX(x, y)] = g[IDX(x, y)] * 0.5f;
}
void pipeline(const float *in, float *g, float *out, float *o2, int w, int h) {
  dim3 b(32, 8), gr((w + 31) / 32, (h + 7) / 8);
  grad<<<gr, b>>>(in, g, w, h);
  scale<<<gr, b>>>(g, o2, w, h);
}
