// One block per row, threads stride along the row; a block-wide shared reduction;
// also a cudaMemcpy2D and pitched rows.
// EXPECT-KERNEL: row_sums 4
// EXPECT-LAUNCH: row_sums_host -> row_sums 4
#include <cuda_runtime.h>

__global__ void row_sums(const float *m, size_t pitch_elems, int cols, float *out) {
  __shared__ float part[256];
  const float *row = m + blockIdx.x * pitch_elems;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += row[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x >> 1; s; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (!threadIdx.x) out[blockIdx.x] = part[0];
}

extern "C" void row_sums_host(const float *h_m, float *d_m, float *d_out, int rows, int cols) {
  size_t pitch = cols * sizeof(float);
  cudaMemcpy2D(d_m, pitch, h_m, pitch, pitch, rows, cudaMemcpyHostToDevice);
  row_sums<<<rows, 256>>>(d_m, cols, cols, d_out);
}
