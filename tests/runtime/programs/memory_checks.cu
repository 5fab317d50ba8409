__global__ void minmax(const float *in, int *lo, int *hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMin(lo, (int)in[i]);
    atomicMax(hi, (int)in[i]);
  }
}
__global__ void scale(const float *in, float *out, const int *lo, const int *hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[i] - *lo) / (float)(*hi - *lo + 1);
}
void run(const float *in, float *out, int n) {
  int *lo, *hi;
  float *d_in, *d_out;
  cudaMalloc(&lo, sizeof(int));
  cudaMalloc(&hi, sizeof(int));
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  minmax<<<(n + 255) / 256, 256>>>(d_in, lo, hi, n);
  scale<<<(n + 255) / 256, 256>>>(d_in, d_out, lo, hi, n);
  cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(lo); cudaFree(hi); cudaFree(d_in); cudaFree(d_out);
}

__global__ void rev(const float *in, float *out, int n) {
  extern __shared__ float s[];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}
void run_rev(const float *in, float *out, int n, int shared) {
  float *a, *b;
  cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
  cudaMemcpy(a, in, n * 4, cudaMemcpyHostToDevice);
  rev<<<n / 64, 64, shared>>>(a, b, n);
  cudaMemcpy(out, b, n * 4, cudaMemcpyDeviceToHost);
  cudaFree(a); cudaFree(b);
}
// (test_uninit.py: memory nothing wrote, and dynamic shared memory past a launch's size;
// one program, one emulated build for all its tests.)
