// Reads at run-time loop indices (passes/vertical/kernel/pointwise.py): a cast-and-scale
// permute of (rows, cols) into (cols, rows) read by a kernel that walks a run-time number of
// entries with a while loop is recomputed at each read through the view's index path; a
// producer that sums a column (a loop) stays apart, saying why.
// RUN: fuse %s -o - --explain
// CODE: if (i >= rows * cols) return dst[i];
// CODE-NEXT: int c = i / rows, r = i - c * rows;
// CODE-NEXT: return cf_round((float)src[r * cols + c] * s);
// CODE: __global__ void cf_run_fused0(float *avg, int rows, int cols, int n,
// CODE: while (k < n) {
// CODE-NEXT: acc += t[(long long)c * rows + k];
// CODE: cf_run_fused0<<<(cols + 63) / 64, 64>>>(avg, rows, cols, n, src, t, s);
// CODE-NOT: permute_cast<<<
// DIAG: note: colsum -> normalise: not fused: 'normalise' reads 'sums' at run-time indices (loop variable 'j'), where 'colsum' computes each element with a loop (line {{[0-9]+}}; a reduction or a recurrence): recomputing it at every read would repeat the loop, where reading it costs one load
// DIAG: recomputed per read, costed as 1 read of each element
#include <cuda_runtime.h>

__global__ void permute_cast(const double *src, float *dst, int rows, int cols, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    int c = i / rows, r = i - c * rows;
    dst[i] = (float)src[r * cols + c] * s;
}

__global__ void first_n_mean(const float *t, float *avg, int rows, int cols, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float acc = 0.0f;
        int k = 0;
        while (k < n) {
            acc += t[(long long)c * rows + k];
            ++k;
        }
        avg[c] = acc / (float)n;
    }
}

void run(const double *src, float *avg, int rows, int cols, int n, float s)
{
    float *t;
    cudaMalloc(&t, sizeof(float) * rows * cols);
    permute_cast<<<(rows * cols + 255) / 256, 256>>>(src, t, rows, cols, s);
    first_n_mean<<<(cols + 63) / 64, 64>>>(t, avg, rows, cols, n);
    cudaFree(t);
}

__global__ void colsum(const float *a, float *sums, int rows, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) {
        float acc = 0.0f;
        for (int r = 0; r < rows; r++)
            acc += a[r * cols + j];
        sums[j] = acc;
    }
}

__global__ void normalise(const float *a, const float *sums, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int j = 0; j < cols; j++)
            out[r * cols + j] = a[r * cols + j] / sums[j];
}

void norm(const float *a, float *out, int rows, int cols)
{
    float *sums;
    cudaMalloc(&sums, sizeof(float) * cols);
    colsum<<<(cols + 31) / 32, 32>>>(a, sums, rows, cols);
    normalise<<<(rows + 31) / 32, 32>>>(a, sums, out, rows, cols);
    cudaFree(sums);
}
