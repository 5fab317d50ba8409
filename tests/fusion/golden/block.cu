// --block 64x4: the fused group of a separable blur relaunched with a 64x4 block. The grid
// is rebuilt from the guard's bounds (w, h), the tile is sized by the new block, and the
// fused kernel's launch bounds follow it; the unfused launches' text is gone.
// RUN: fuse %s -o - --scratch tmp --tiles always --block 64x4 --explain
// CODE: __global__ void __launch_bounds__(256) cf_sep_fused0(float *out, int w, int h, const float *cf_p3)
// CODE-NEXT: __shared__ float cf_tile0[384];  // tmp: 64x4 block + halo 0,1
// CODE-NEXT: const long long cf_tile0_x0 = (long long)blockIdx.x * 64 - 0, cf_tile0_y0 = (long long)blockIdx.y * 4 - 1;
// CODE: for (int cf_k = threadIdx.y * 64 + threadIdx.x; cf_k < 384; cf_k += 256) {
// CODE: /* cudafuse: hpass fused into cf_sep_fused0 */
// CODE-NEXT: cf_sep_fused0<<<dim3(((w) + 63) / 64, ((h) + 3) / 4), dim3(64, 4)>>>(out, w, h, in);
// CODE-NOT: <<<grid, block>>>
// DIAG: launched with a 64x4 block (--block), its grid covering the image
// The tile is sized by the 64x4 block: hpass runs 64 * (4 + 2) / 256 = 1.5 times per pixel.
// DIAG: pipeline sep: DRAM bytes per output element 16 -> 8 (minimum 8); redundant work x1.25
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
