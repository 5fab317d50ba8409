// Two copies of one pipeline. In reassigned() the block count the launches read is
// assigned between them: the plan groups the pair (its grids cover the domain only under a
// run-time check), and code generation then refuses the group, since the original launches
// kept for when the check fails could not move to the fused launch. In fresh() the second
// count has its own variable, and the pair fuses under the check.
#define CAP 4096

__global__ void square(const double *a, double *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * a[i];
}

__global__ void plus_half(const double *b, double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = b[i] + 0.5;
}

void reassigned(const double *a, double *c, int n) {
  double *tmp;
  cudaMalloc(&tmp, n * sizeof(double));
  unsigned g = (CAP + 255) / 256;
  square<<<g, 256>>>(a, tmp, n);
  g = (CAP + 127) / 128;
  plus_half<<<g, 128>>>(tmp, c, n);
  cudaFree(tmp);
}

void fresh(const double *a, double *c, int n) {
  double *tmp;
  cudaMalloc(&tmp, n * sizeof(double));
  unsigned g = (CAP + 255) / 256;
  square<<<g, 256>>>(a, tmp, n);
  unsigned g2 = (CAP + 127) / 128;
  plus_half<<<g2, 128>>>(tmp, c, n);
  cudaFree(tmp);
}
