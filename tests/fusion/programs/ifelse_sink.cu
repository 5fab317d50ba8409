// Last kernels that store only under an if/else (or an if), in groups whose intermediates
// must still be stored: the stores go before the statement holding the if (issue 15).
#include <cuda_runtime.h>

__global__ void ie_scale(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  a[y * w + x] = in[y * w + x] * 0.75f - 0.25f;
}

__global__ void ie_pick(const float *a, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const int i = y * w + x;
    if (a[i] > 0.0f) {
      out[i] = a[i] * 2.0f;
    } else if (a[i] > -0.1f) {
      out[i] = 0.0f;
    } else {
      out[i] = -a[i];
    }
  }
}

__global__ void ie_blur(const float *a, float *b, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
  b[y * w + x] = 0.25f * a[y * w + xl] + 0.5f * a[y * w + x] + 0.25f * a[y * w + xr];
}

// Stores only where the condition holds: elsewhere out keeps its contents.
__global__ void ie_some(const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (b[y * w + x] < 0.3f) out[y * w + x] = b[y * w + x] + 1.0f;
}

__global__ void ie_gs_sq(const float *in, float *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] = in[i] * in[i];
}

__global__ void ie_gs_sel(const float *a, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (a[i] > 0.25f)
      out[i] = a[i];
    else
      out[i] = 0.25f - a[i];
  }
}

void ie_two(const float *in, float *a, float *out, int w, int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  ie_scale<<<grid, block>>>(in, a, w, h);
  ie_pick<<<grid, block>>>(a, out, w, h);
}

void ie_chain(const float *in, float *a, float *b, float *out, int w, int h) {
  dim3 block(8, 8), grid((w + 7) / 8, (h + 7) / 8);
  ie_scale<<<grid, block>>>(in, a, w, h);
  ie_blur<<<grid, block>>>(a, b, w, h);
  ie_some<<<grid, block>>>(b, out, w, h);
}

void ie_gs(const float *in, float *a, float *out, int w, int h) {
  int n = w * h;
  ie_gs_sq<<<3, 32>>>(in, a, n);
  ie_gs_sel<<<2, 64>>>(a, out, n);
}
