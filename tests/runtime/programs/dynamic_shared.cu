__global__ void rev(const float *in, float *out, int n) {
  extern __shared__ float s[];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}
void run(const float *in, float *out, int n, int shared) {
  float *a, *b;
  cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
  cudaMemcpy(a, in, n * 4, cudaMemcpyHostToDevice);
  rev<<<n / 64, 64, shared>>>(a, b, n);
  cudaMemcpy(out, b, n * 4, cudaMemcpyDeviceToHost);
  cudaFree(a); cudaFree(b);
}
