// Kernel heads through macros: one macro standing for __global__ and its launch bounds,
// another for a two-argument __launch_bounds__ after a written __global__.
#define KERNEL(n) __global__ __launch_bounds__(n)
#define BOUNDED __launch_bounds__(256, 2)
KERNEL(256) void scale(const float *x, float *t, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = a * x[i];
}
__global__ void BOUNDED shift(const float *x, float *y, float b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + b;
}
void run(const float *x, float *t, float *y, int n) {
    scale<<<(n + 255) / 256, 256>>>(x, t, 3.0f, n);
    shift<<<(n + 255) / 256, 256>>>(t, y, 0.5f, n);
}
