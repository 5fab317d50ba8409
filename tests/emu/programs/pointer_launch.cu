// Kernels launched through variables: a generic lambda's `auto` parameter (as cuda-lab's
// reduction benchmark does) and a function pointer to a template instance.
__global__ void add_one(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}

__global__ void total_of(const float *a, int n, float *total) {  // a float atomic: serial
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, a[i]);
}

template <int S>
__global__ void scaled(float *a, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) a[i] = S * tile[threadIdx.x];
}

void run(float *host, float *total, int n) {
  float *d, *t;
  cudaMalloc(&d, n * sizeof(float));
  cudaMalloc(&t, sizeof(float));
  cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(t, 0, sizeof(float));
  auto launch = [&](auto kernel, auto... args) {
    kernel<<<(n + 63) / 64, 64>>>(args...);
  };
  launch(add_one, d, n);
  void (*triple)(float *, int) = scaled<3>;
  triple<<<(n + 63) / 64, 64>>>(d, n);
  launch(total_of, d, n, t);
  cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(total, t, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(t);
}
