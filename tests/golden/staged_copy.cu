// A 5-tap row blur whose taps thread 0 copies into shared memory before a barrier, then a
// point kernel that scales the blurred image: the blur is recomputed in the scale without
// its copy (kernel/staged_copy.py): its value function reads the taps from global memory,
// and the fused launch runs under the check that every tap it reads was copied.
// RUN: fuse %s -o - --fuse-all
__global__ void taps(const float *in, float *out, int w, int h, const float *k, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  __shared__ float ks[16];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    for (int i = 0; i <= 2 * r; ++i) ks[i] = k[i];
  __syncthreads();
  float s = 0.f;
  for (int d = -r; d <= r; ++d) s += ks[d + r] * in[y * w + min(max(x + d, 0), w - 1)];
  out[y * w + x] = s;
}

__global__ void scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.f * in[y * w + x];
}

void run(const float *img, const float *k, float *t, float *out, int w, int h, int r) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  taps<<<g, b>>>(img, t, w, h, k, r);
  scale<<<g, b>>>(t, out, w, h);
}

// The original kernels stay as written. (Each pattern spells a character as a regex, {{[(]}}
// and the like, so that it cannot match this comment, which the output keeps.)
// CHECK: __shared__ float ks{{\[}}16];
// The blur's value function: no shared array, copy or barrier; the taps read from k.
// CHECK-LABEL: cf_run_fused0_0_taps_out_xy{{[(]}}long long cf_x, long long cf_y
// CHECK-NOT: ks
// CHECK-NOT: __syncthreads
// CHECK: for (int d = -r; d <= r; ++d) s += k{{\[}}d + r] * in[y * w + min(max(x + d, 0), w - 1)];
// CHECK: return cf_round{{[(]}}s);
// CHECK-LABEL: __global__ void cf_run_fused0{{[(]}}
// CHECK-NOT: __syncthreads
// The fused launch under the copy's inequalities left after the constant ones (the copy
// fits ks[16], every tap read is one thread 0 copied), the original launches otherwise.
// CHECK: if {{[(]}}((long long)((2 * r)) <= (long long)((16 - 1)) && (long long)(((-r) + r)) <= (long long)((2 * r)) && (long long)(0) <= (long long)((r + r)))) { cf_run_fused0<<<g, b>>>(
// CHECK-SAME: } else { /* cudafuse: the original launches */ taps<<<g, b>>>(img, t, w, h, k, r); scale<<<g, b>>>(t, out, w, h);{{ }}
