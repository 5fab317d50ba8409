// Pointers carried in structs the host function takes by value (issue 25): `img.data` as a
// launch argument is a buffer of its own (hostexprs.struct_field), as a pointer parameter
// is, when the function never changes the struct. The entries build the structs and call
// the pipeline functions, which fuse.
#include <cuda_runtime.h>

struct Image {
  float *data;
  int w, h;
};

__global__ void hs_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 0.5f;
}
__global__ void hs_mix(const float *t, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * b[i] + 1.0f;
}

void hs_pipeline(Image src, Image tmp, Image dst, const float *weights) {
  int n = src.w * src.h;
  hs_scale<<<(n + 127) / 128, 128>>>(src.data, tmp.data, n);
  cudaMemset(dst.data + n, 0, 0);
  hs_mix<<<(n + 127) / 128, 128>>>(tmp.data, weights, dst.data, n);
}

void hs_entry(const float *in, float *tmp, const float *weights, float *out, int w, int h) {
  Image a = {(float *)in, w, h}, t = {tmp, w, h}, d = {out, w, h};
  hs_pipeline(a, t, d, weights);
}

// The same through one-launch wrappers given the fields.
void hs_scale_of(const float *in, float *t, int n) {
  hs_scale<<<(n + 127) / 128, 128>>>(in, t, n);
}
void hs_mix_of(const float *t, const float *b, float *out, int n) {
  hs_mix<<<(n + 63) / 64, 64>>>(t, b, out, n);
}
void hs_wrapped(Image src, Image tmp, Image dst, const float *weights) {
  hs_scale_of(src.data, tmp.data, src.w * src.h);
  hs_mix_of(tmp.data, weights, dst.data, src.w * src.h);
}
void hs_entry_wrapped(const float *in, float *tmp, const float *weights, float *out, int w,
                      int h) {
  Image a = {(float *)in, w, h}, t = {tmp, w, h}, d = {out, w, h};
  hs_wrapped(a, t, d, weights);
}
