// A separable blur: the horizontal pass is staged in a shared-memory tile (block plus the
// vertical pass's halo), filled by the whole block before the vertical pass runs.
// RUN: fuse %s -o - --scratch tmp --tiles always
// CODE: __global__ void cf_sep_fused0(float *out, int w, int h, const float *cf_p3)
// CODE-NEXT: __shared__ float cf_tile0[288];  // tmp: 16x16 block + halo 0,1
// CODE-NEXT: const long long cf_tile0_x0 = (long long)blockIdx.x * 16 - 0, cf_tile0_y0 = (long long)blockIdx.y * 16 - 1;
// CODE: if (cf_u >= 0 && cf_u < (w) && cf_v >= 0 && cf_v < (h))
// CODE-NEXT: cf_tile0[cf_k] = cf_sep_fused0_0_hpass_out_xy(cf_u, cf_v,
// CODE: __syncthreads();
// CODE-NEXT: const cf_sep_fused0_0_hpass_out_view tmp{out, w, h, cf_p3, (w), (h), cf_tile0, cf_tile0_x0, cf_tile0_y0, 16, 18};
// CODE: tmp.at2(0 + (x), (min((y + 1), (h - 1))), (w))
#include <cuda_runtime.h>
__global__ void hpass(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 0.25f * in[y * w + max(x - 1, 0)] + 0.5f * in[y * w + x] +
                   0.25f * in[y * w + min(x + 1, w - 1)];
}
__global__ void vpass(const float *tmp, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 0.25f * tmp[max(y - 1, 0) * w + x] + 0.5f * tmp[y * w + x] +
                   0.25f * tmp[min(y + 1, h - 1) * w + x];
}
extern "C" void sep(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  hpass<<<grid, block>>>(in, tmp, w, h);
  vpass<<<grid, block>>>(tmp, out, w, h);
}
