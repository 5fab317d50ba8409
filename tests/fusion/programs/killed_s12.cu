// An intermediate overwritten whole after the group (killed) need not be stored: a
// point-wise producer, a consumer reading its own row at run-time indices, then the
// intermediate reused (cleared, or copied into) and read again. Written for cudafuse's tests.
#include <cuda_runtime.h>

__global__ void scale_shift(const float *in, float *t, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) t[i] = in[i] * 0.5f + 1.0f;
}

__global__ void minus_row_max(const float *t, float *out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    int r = i / cols;
    float m = t[r * cols];
    for (int j = 1; j < cols; ++j) m = fmaxf(m, t[r * cols + j]);
    out[i] = t[i] - m;
}

__global__ void add_into(float *acc, const float *t, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) acc[i] += t[i];
}

void k_memset(const float *in, float *out, float *acc, int rows, int cols) {
    int count = rows * cols;
    float *t;
    cudaMalloc(&t, count * sizeof(float));
    int blocks = (count + 127) / 128;
    scale_shift<<<blocks, 128>>>(in, t, rows, cols);
    minus_row_max<<<blocks, 128>>>(t, out, rows, cols);
    cudaMemset(t, 0, sizeof(float) * rows * cols);
    add_into<<<blocks, 128>>>(acc, t, count);
    cudaFree(t);
}

void k_copy(const float *in, float *out, float *acc, int rows, int cols) {
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *t = NULL;
    cudaMalloc((void **)&t, bytes);
    int blocks = (rows * cols + 127) / 128;
    scale_shift<<<blocks, 128>>>(in, t, rows, cols);
    minus_row_max<<<blocks, 128>>>(t, out, rows, cols);
    cudaMemcpy(t, acc, rows * cols * sizeof(float), cudaMemcpyDeviceToDevice);
    add_into<<<blocks, 128>>>(acc, t, rows * cols);
    cudaFree(t);
}

void k_partial(const float *in, float *out, float *acc, int rows, int cols) {
    int count = rows * cols;
    float *t;
    cudaMalloc(&t, count * sizeof(float));
    int blocks = (count + 127) / 128;
    scale_shift<<<blocks, 128>>>(in, t, rows, cols);
    minus_row_max<<<blocks, 128>>>(t, out, rows, cols);
    cudaMemset(t, 0, (count - cols) * sizeof(float));
    add_into<<<blocks, 128>>>(acc, t, count);
    cudaFree(t);
}

void k_branch(const float *in, float *out, float *acc, int rows, int cols) {
    int count = rows * cols;
    float *t;
    cudaMalloc(&t, count * sizeof(float));
    int blocks = (count + 127) / 128;
    scale_shift<<<blocks, 128>>>(in, t, rows, cols);
    minus_row_max<<<blocks, 128>>>(t, out, rows, cols);
    if (rows > 4) cudaMemset(t, 0, count * sizeof(float));
    add_into<<<blocks, 128>>>(acc, t, count);
    cudaFree(t);
}

void k_maybe(const float *in, float *out, float *acc, int rows, int cols) {
    int count = rows * cols;
    float *t;
    cudaMalloc(&t, count * sizeof(float));
    int blocks = (count + 127) / 128;
    scale_shift<<<blocks, 128>>>(in, t, rows, cols);
    minus_row_max<<<blocks, 128>>>(t, out, rows, cols);
    (void)(rows > 4 && cudaMemset(t, 0, count * sizeof(float)) == cudaSuccess);
    add_into<<<blocks, 128>>>(acc, t, count);
    cudaFree(t);
}
