// __match_any_sync / __match_all_sync as one warp collective (issue 31: a warp-aggregated
// histogram spent its time in 32 shuffles per match). Written for cudafuse's tests.
#include <cuda_runtime.h>

// Each lane matches its value among the lanes of `mask` (only they call); float values
// compare their bits, as match.any.sync.b32 does; 64-bit values all their bits.
__global__ void match(const unsigned *mask_of_warp, const unsigned char *c, const float *f,
                      const long long *w, unsigned *any_c, unsigned *any_f, unsigned *any_w,
                      unsigned *all_c, int *pred) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mask = mask_of_warp[i / 32];
  if (!(mask >> (threadIdx.x % 32) & 1u)) return;
  any_c[i] = __match_any_sync(mask, c[i]);
  any_f[i] = __match_any_sync(mask, f[i]);
  any_w[i] = __match_any_sync(mask, w[i]);
  all_c[i] = __match_all_sync(mask, c[i] / 8, &pred[i]);
}

// A warp-aggregated histogram: each group of equal values adds its count once.
__global__ void histogram(const unsigned char *in, unsigned *hist, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int at = blockIdx.x * blockDim.x; at < n; at += blockDim.x * gridDim.x) {
    int i = at + threadIdx.x;
    unsigned active = __ballot_sync(0xffffffffu, i < n);  // a tail warp's lanes below n
    if (i < n) {
      unsigned char v = in[i];
      unsigned same = __match_any_sync(active, v);
      if ((int)(threadIdx.x % 32) == __ffs(same) - 1) atomicAdd(&local[v], __popc(same));
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], local[i]);
}
