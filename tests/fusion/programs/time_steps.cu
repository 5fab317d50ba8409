// Time-step loops (issue 16): launch sequences inside loop bodies and branches, written in
// several styles. Each entry takes (inputs..., outputs..., int w, int h, int steps).
#include <cuda_runtime.h>
#include <utility>

#define TS_GRID dim3((w + 15) / 16, (h + 15) / 16)

__global__ void ts_copy(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x];
}

__global__ void ts_blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}

__global__ void ts_scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * 0.75f + 0.125f;
}

__global__ void ts_relax(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
  int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
  out[y * w + x] = 0.5f * in[y * w + x] +
                   0.125f * (in[y * w + xl] + in[y * w + xr] + in[yu * w + x] + in[yd * w + x]);
}

__global__ void ts_axpy(const float *x_, const float *y_, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = x_[y * w + x] + 0.5f * y_[y * w + x];
}

__global__ void ts_bump(float *u, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) u[y * w + x] = u[y * w + x] * 0.9f + 0.1f;
}

// FDTD-style field updates: each reads the other's previous values at a neighbour.
__global__ void ts_update_h(float *hf, const float *ef, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xr = min(x + 1, w - 1);
  hf[y * w + x] = hf[y * w + x] + 0.25f * (ef[y * w + xr] - ef[y * w + x]);
}

__global__ void ts_update_e(float *ef, const float *hf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0);
  ef[y * w + x] = ef[y * w + x] + 0.25f * (hf[y * w + x] - hf[y * w + xl]);
}

// A for loop over a parameter; ping-pong parameters exchanged with std::swap.
void pingpong_for(const float *in, float *out, float *a, float *b, int w, int h, int steps) {
  dim3 block(16, 16);
  float *tmp;
  cudaMalloc(&tmp, sizeof(float) * w * h);
  ts_copy<<<TS_GRID, block>>>(in, a, w, h);
  for (int t = 0; t < steps; ++t) {
    ts_blur<<<TS_GRID, block>>>(a, tmp, w, h);
    ts_scale<<<TS_GRID, block>>>(tmp, b, w, h);
    std::swap(a, b);
  }
  ts_copy<<<TS_GRID, block>>>(a, out, w, h);
  cudaFree(tmp);
}

// A while loop; local buffers exchanged through a temporary pointer.
void pingpong_while(const float *in, float *out, int w, int h, int steps) {
  size_t bytes = sizeof(float) * w * h;
  float *cur, *next, *tmp;
  cudaMalloc(&cur, bytes);
  cudaMalloc(&next, bytes);
  cudaMalloc(&tmp, bytes);
  dim3 block(16, 16);
  ts_copy<<<TS_GRID, block>>>(in, cur, w, h);
  int t = 0;
  while (t < steps) {
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    ts_relax<<<grid, block>>>(cur, tmp, w, h);
    ts_blur<<<grid, block>>>(tmp, next, w, h);
    float *swap = cur;
    cur = next;
    next = swap;
    ++t;
  }
  ts_copy<<<TS_GRID, block>>>(cur, out, w, h);
  cudaFree(cur);
  cudaFree(next);
  cudaFree(tmp);
}

// A do-while loop updating a buffer in place between two stages.
void inplace_do(const float *in, float *out, int w, int h, int steps) {
  size_t bytes = sizeof(float) * w * h;
  float *u, *tmp;
  cudaMalloc(&u, bytes);
  cudaMalloc(&tmp, bytes);
  dim3 block(16, 16);
  ts_copy<<<TS_GRID, block>>>(in, u, w, h);
  int t = 0;
  do {
    ts_blur<<<TS_GRID, block>>>(u, tmp, w, h);
    ts_bump<<<TS_GRID, block>>>(tmp, w, h);
    ts_scale<<<TS_GRID, block>>>(tmp, u, w, h);
  } while (++t < steps);
  ts_copy<<<TS_GRID, block>>>(u, out, w, h);
  cudaFree(u);
  cudaFree(tmp);
}

// FDTD: two fields updated in place, each from the other's previous values.
void fdtd(const float *in, float *e, float *hf, int w, int h, int steps) {
  dim3 block(16, 16);
  ts_copy<<<TS_GRID, block>>>(in, e, w, h);
  ts_scale<<<TS_GRID, block>>>(in, hf, w, h);
  for (int t = 0; t < steps; t++) {
    ts_update_h<<<TS_GRID, block>>>(hf, e, w, h);
    ts_update_e<<<TS_GRID, block>>>(e, hf, w, h);
  }
}

// Launches under an if inside the loop: each branch is a sequence of its own.
void branches(const float *in, float *out, float *a, float *b, int w, int h, int steps) {
  dim3 block(16, 16);
  float *tmp;
  cudaMalloc(&tmp, sizeof(float) * w * h);
  ts_copy<<<TS_GRID, block>>>(in, a, w, h);
  for (int t = 0; t < steps; ++t) {
    if (t % 2 == 0) {
      ts_blur<<<TS_GRID, block>>>(a, tmp, w, h);
      ts_scale<<<TS_GRID, block>>>(tmp, b, w, h);
    } else {
      ts_relax<<<TS_GRID, block>>>(a, tmp, w, h);
      ts_blur<<<TS_GRID, block>>>(tmp, b, w, h);
    }
    std::swap(a, b);
  }
  ts_copy<<<TS_GRID, block>>>(a, out, w, h);
  cudaFree(tmp);
}

// An intermediate of this iteration ('prev') is read by the next iteration's first launch:
// it must still be stored.
void carried(const float *in, float *out, int w, int h, int steps) {
  size_t bytes = sizeof(float) * w * h;
  float *prev, *mix;
  cudaMalloc(&prev, bytes);
  cudaMalloc(&mix, bytes);
  dim3 block(16, 16);
  ts_copy<<<TS_GRID, block>>>(in, prev, w, h);
  for (int t = 0; t < steps; ++t) {
    ts_axpy<<<TS_GRID, block>>>(in, prev, mix, w, h);
    ts_blur<<<TS_GRID, block>>>(mix, prev, w, h);
    ts_scale<<<TS_GRID, block>>>(prev, out, w, h);
  }
  cudaFree(prev);
  cudaFree(mix);
}

// A lambda holding the loop body: its body is a sequence of its own.
void in_lambda(const float *in, float *out, float *a, int w, int h, int steps) {
  dim3 block(16, 16);
  auto step = [&]() {
    ts_blur<<<TS_GRID, block>>>(in, a, w, h);
    ts_scale<<<TS_GRID, block>>>(a, out, w, h);
  };
  for (int t = 0; t < steps; ++t) step();
}
