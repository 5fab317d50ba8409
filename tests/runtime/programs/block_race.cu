// Two kernels whose blocks run in parallel under the emulator (no atomics, no barriers):
// `scale` is order-independent; `smooth_in_place` reads its neighbours' elements, which the
// neighbouring blocks write (a blur in place), so its result depends on the blocks' order.
__global__ void scale(float *a, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

__global__ void smooth_in_place(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i + 1 < n) a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
}

void pipeline(float *host, int n) {
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 31) / 32, 32>>>(d, n, 2.0f);
  smooth_in_place<<<(n + 31) / 32, 32>>>(d, n);
  cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
