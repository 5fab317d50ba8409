// Pipelines cudafuse must leave alone, each with the note that says why. --fuse-all makes
// the cost model irrelevant: only legality decides.
// RUN: fuse %s -o - --fuse-all
// DIAG: refusals.cu:{{[0-9]+}}:3: note: hist -> use_hist: not fused: 'hist' cannot be recomputed: it updates 'bins' with atomics (line {{[0-9]+}}): other threads update the same elements
// DIAG: note: gather_src -> gather: not fused: 'gather' reads 't' in a way cudafuse cannot map: data-dependent index
// DIAG: note: blur_src -> unguarded: not fused: 'unguarded' reads 't' at offsets 0..1 in x with unguarded border handling
// DIAG: note: half_grid -> consumer_hg: not fused: 'half_grid': its grid does not cover the iteration space in x: its x size w / 32 rounds down, leaving out the last w % 32 elements whenever that is not 0
// DIAG: note: tiled -> after_tiled: not fused: 'tiled' cannot be recomputed: it declares shared variable 'tile'
// DIAG: note: launches in 'copy_between' are not fused across this statement: its call to 'cudaMemcpy' touches 't', which may be a buffer the launch of 'gather_src' at line {{[0-9]+}} uses
// DIAG: note: inplace_src -> inplace_dst: not fused: 'inplace_src' reads 'img' from memory, which the fused kernel writes
// DIAG: note: narrow_src -> narrow_dst: not fused: 'narrow_src' and 'narrow_dst' do not provably have the same iteration space
// DIAG: note: arith_src -> arith_dst: not fused: 'arith_dst' uses 't' other than by subscripting (p[i])
// DIAG: note: arith_src -> narrow_src: not fused: its launches use different streams
// DIAG: note: launch of 'arith_src' in 'p_alias' left as it is: the launches of 'arith_src' at line {{[0-9]+}} and 'narrow_src' at line {{[0-9]+}} are not fused: pointer 'u' may name the same buffer as 'out'
// DIAG: note: launch of 'counting_src' in 'p_helper_effect' left as it is: kernel 'counting_src' writes global 'g_count' (in 'counted'), which other launches may read: no launch moves across it
#include <cuda_runtime.h>
#define GUARD2D                                                        \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                       \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                       \
  if (x >= w || y >= h) return;

__global__ void hist(const float *in, float *t, int *bins, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  atomicAdd(&bins[(int)(in[y * w + x] * 15.0f)], 1);
  t[y * w + x] = in[y * w + x];
}
__global__ void use_hist(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x] * 2.0f;
}
extern "C" void p_atomic(const float *in, float *t, float *out, int *bins, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  hist<<<g, b>>>(in, t, bins, w, h);
  use_hist<<<g, b>>>(t, out, w, h);
}

__global__ void gather_src(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x] + 1.0f;
}
__global__ void gather(const float *t, const int *idx, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[idx[y * w + x]];
}
extern "C" void p_gather(const float *in, const int *idx, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  gather_src<<<g, b>>>(in, t, w, h);
  gather<<<g, b>>>(t, idx, out, w, h);
}

__global__ void blur_src(const float *in, float *t, int w, int h) {
  GUARD2D
  t[y * w + x] = in[y * w + x] * 0.5f;
}
__global__ void unguarded(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x] + t[y * w + x + 1];
}
extern "C" void p_unguarded(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  blur_src<<<g, b>>>(in, t, w, h);
  unguarded<<<g, b>>>(t, out, w, h);
}

__global__ void half_grid(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x] * 3.0f;
}
__global__ void consumer_hg(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x] - 1.0f;
}
extern "C" void p_half_grid(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8), half(w / 32, h / 8);
  half_grid<<<half, b>>>(in, t, w, h);
  consumer_hg<<<g, b>>>(t, out, w, h);
}

__global__ void tiled(const float *in, float *t, int w, int h) {
  __shared__ float tile[8][32];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  t[y * w + x] = tile[threadIdx.y][threadIdx.x];
}
__global__ void after_tiled(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x];
}
extern "C" void p_tiled(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  tiled<<<g, b>>>(in, t, w, h);
  after_tiled<<<g, b>>>(t, out, w, h);
}

extern "C" void copy_between(const float *in, float *t, float *out, float *host, int w,
                             int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  gather_src<<<g, b>>>(in, t, w, h);
  cudaMemcpy(t, host, sizeof(float) * w, cudaMemcpyHostToDevice);
  use_hist<<<g, b>>>(t, out, w, h);
}

__global__ void inplace_src(const float *img, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = img[y * w + min(x + 1, w - 1)];
}
__global__ void inplace_dst(const float *t, float *img, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  img[y * w + x] = t[y * w + x] * 0.5f;
}
extern "C" void p_inplace(float *img, float *t, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  inplace_src<<<g, b>>>(img, t, w, h);
  inplace_dst<<<g, b>>>(t, img, w, h);
}

__global__ void narrow_src(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x];
}
__global__ void narrow_dst(const float *t, float *out, int w, int h, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cols || y >= h) return;
  out[y * w + x] = t[y * w + x];
}
extern "C" void p_narrow(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  narrow_src<<<g, b>>>(in, t, w, h);
  narrow_dst<<<g, b>>>(t, out, w, h, w / 2);
}

__global__ void arith_src(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x];
}
__global__ void arith_dst(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float *row = t + y * w;  // (only subscripted, a row pointer would be respelled)
  out[y * w + x] = *(row + x);
}
extern "C" void p_arith(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  arith_src<<<g, b>>>(in, t, w, h);
  arith_dst<<<g, b>>>(t, out, w, h);
}

extern "C" void p_streams(const float *in, float *t, float *out, int w, int h,
                          cudaStream_t s1, cudaStream_t s2) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  arith_src<<<g, b, 0, s1>>>(in, t, w, h);
  narrow_src<<<g, b, 0, s2>>>(t, out, w, h);
}

extern "C" void p_alias(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  float *u = t;  // u may be t or out (a stable alias of t alone would fuse)
  if (w > 64) u = out;
  arith_src<<<g, b>>>(in, t, w, h);
  narrow_src<<<g, b>>>(u, out, w, h);
}

__device__ int g_count;
__device__ float counted(float v) {
  g_count = g_count + 1;
  return v * 0.5f;
}
__global__ void counting_src(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = counted(in[y * w + x]);
}
extern "C" void p_helper_effect(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  counting_src<<<g, b>>>(in, t, w, h);
  narrow_src<<<g, b>>>(t, out, w, h);
}
