// Each pair of this chain fuses, but k2 and k4 both guard part of their elements, so with
// every buffer live no group holds k2, k3 and k4 (see legality._union_reason): the edge
// left apart must name that refusal, not the partition search.
__global__ void k1(const float *in, float *b1, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  b1[y * w + x] = in[y * w + x] * 2.0f;
}
__global__ void k2(const float *b1, float *b2, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h || y < 1) return;
  b2[y * w + x] = b1[y * w + x] + 1.0f;
}
__global__ void k3(const float *b2, float *b3, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  b3[y * w + x] = b2[y * w + x] * b2[y * w + x];
}
__global__ void k4(const float *b3, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * w + x] = b3[y * w + x] - 3.0f;
}
void run(const float *in, float *b1, float *b2, float *b3, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  k1<<<g, b>>>(in, b1, w, h);
  k2<<<g, b>>>(b1, b2, w, h);
  k3<<<g, b>>>(b2, b3, w, h);
  k4<<<g, b>>>(b3, out, w, h);
}
