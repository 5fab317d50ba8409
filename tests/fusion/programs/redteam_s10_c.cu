// Red-team programs for issue 25's session-10 fusions (our own), part c: helpers of several
// launches with a default argument, a reference parameter, a global the caller changes
// between calls, called in a loop that swaps buffers.
#include <cuda_runtime.h>
#include <utility>

__global__ void rc_scale(const float *in, float *out, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * s + 0.25f;
}

__global__ void rc_left(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + max(x - 1, 0)] - in[y * w + x];
}

void rc_two(const float *in, float *tmp, float *out, int w, int h, float s) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rc_scale<<<g, b>>>(in, tmp, s, w, h);
  rc_left<<<g, b>>>(tmp, out, w, h);
}

void rc_default(const float *in, float *t, float *out, float *out2, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rc_scale<<<g, b>>>(in, t, 0.5f, w, h);
  rc_two(t, out2, out, w, h, 3.0f);
}

// A scale read from a global the caller sets between calls.
float g_rc_scale = 1.0f;

void rc_two_global(const float *in, float *tmp, float *out, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rc_scale<<<g, b>>>(in, tmp, g_rc_scale, w, h);
  rc_left<<<g, b>>>(tmp, out, w, h);
}

void rc_global(const float *in, float *t, float *a, float *out, int w, int h) {
  g_rc_scale = 2.0f;
  rc_two_global(in, t, a, w, h);
  g_rc_scale = -1.0f;
  rc_two_global(a, t, out, w, h);
}

// Buffers that overlap: the output starts one element into the input.
void rc_offset(float *a, float *t, int w, int h) {
  rc_two(a, t, a + 1, w, h > 1 ? h - 1 : 1, 2.0f);
}

// Called in a loop that swaps its buffers.
void rc_loop(float *a, float *b, float *t, int w, int h) {
  for (int k = 0; k < 3; ++k) {
    rc_two(a, t, b, w, h, 0.5f);
    std::swap(a, b);
  }
}

// A reference parameter the helper's launch is given.
void rc_two_ref(const float *in, float *&tmp, float *out, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rc_scale<<<g, b>>>(in, tmp, 1.5f, w, h);
  rc_left<<<g, b>>>(tmp, out, w, h);
}

void rc_ref(const float *in, float *t, float *out, int w, int h) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rc_scale<<<g, b>>>(in, out, 0.5f, w, h);
  rc_two_ref(out, t, out, w, h);
}
