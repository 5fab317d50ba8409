// Producers read at run-time loop indices (tests/fusion/test_fuse_loop_index_reads.py).
// Written for cudafuse's tests: a permute into (B, NH, T, HS) before an attention-like
// kernel that loops over a causal row of keys, a transpose before a row sum, and
// producers that are not point-wise (a matrix-vector product, a running sum), which
// cannot be recomputed at a read for about the cost of the load they replace.
#include <cuda_runtime.h>

// qkv is (B, T, 2, NH, HS); q and k become (B, NH, T, HS).
__global__ void split_heads(float *q, float *k, const float *qkv, int B, int T, int NH,
                            int HS)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * T * HS) {
        int b = idx / (NH * T * HS);
        int rest = idx % (NH * T * HS);
        int h = rest / (T * HS);
        rest = rest % (T * HS);
        int t = rest / HS;
        int d = rest % HS;
        int from = b * T * 2 * NH * HS + t * 2 * NH * HS + h * HS + d;
        q[idx] = qkv[from] * 0.5f;
        k[idx] = qkv[from + NH * HS];
    }
}

// One thread per (b, h, t): the largest causal score q_t . k_t2 over t2 <= t.
__global__ void causal_max(const float *q, const float *k, float *out, int B, int T, int NH,
                           int HS)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= B * NH * T)
        return;
    int t = row % T;
    const int base = (row - t) * HS;  // the (b, h) head's first key
    float best = -1e30f;
    for (int t2 = 0; t2 <= t; t2++) {
        float s = 0.0f;
        for (int d = 0; d < HS; d++)
            s += q[row * HS + d] * k[base + t2 * HS + d];
        best = fmaxf(best, s);
    }
    out[row] = best;
}

void p_attention(const float *qkv, float *out, int B, int T, int NH, int HS)
{
    float *q, *k;
    size_t n = (size_t)B * T * NH * HS;
    cudaMalloc(&q, n * sizeof(float));
    cudaMalloc(&k, n * sizeof(float));
    split_heads<<<(int)((n + 127) / 128), 128>>>(q, k, qkv, B, T, NH, HS);
    causal_max<<<(B * NH * T + 63) / 64, 64>>>(q, k, out, B, T, NH, HS);
    cudaFree(q);
    cudaFree(k);
}

// in is h rows of w; tr is w rows of h (tr[x][y] = s * in[y][x]).
__global__ void transpose_scale(const float *in, float *tr, float s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;  // 0 <= x < h
    int y = blockIdx.y * blockDim.y + threadIdx.y;  // 0 <= y < w
    if (x < h && y < w)
        tr[y * h + x] = s * in[x * w + y];
}

__global__ void row_sums(const float *tr, float *sums, int w, int h)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < w) {
        float acc = 0.0f;
        for (int c = 0; c < h; ++c)
            acc += tr[r * h + c];
        sums[r] = acc;
    }
}

void p_rowsum(const float *in, float *sums, int w, int h)
{
    float *tr;
    cudaMalloc(&tr, (size_t)w * h * sizeof(float));
    dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
    transpose_scale<<<grid, block>>>(in, tr, 0.25f, w, h);
    row_sums<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
    cudaFree(tr);
}

// The transposed buffer is the caller's: it is read after the group.
void p_rowsum_live(const float *in, float *tr, float *sums, int w, int h)
{
    dim3 block(16, 8), grid((h + 15) / 16, (w + 7) / 8);
    transpose_scale<<<grid, block>>>(in, tr, 0.25f, w, h);
    row_sums<<<(w + 31) / 32, 32>>>(tr, sums, w, h);
}

// A matrix-vector product (n x n): each element of t is a loop over a row.
__global__ void matvec(const float *a, const float *x, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += a[i * n + j] * x[j];
        t[i] = acc;
    }
}

__global__ void matvec_t(const float *a, const float *t, float *y, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc += a[i * n + j] * t[i];
        y[j] = acc;
    }
}

void p_atax(const float *a, const float *x, float *y, int n)
{
    float *t;
    cudaMalloc(&t, (size_t)n * sizeof(float));
    matvec<<<(n + 31) / 32, 32>>>(a, x, t, n);
    matvec_t<<<(n + 31) / 32, 32>>>(a, t, y, n);
    cudaFree(t);
}

// A scale whose bounds are its reader's: its value function drops its guard, so a read
// outside them would not see memory as the original does. Refused, saying so.
__global__ void scale_n(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = 3.0f * a[i];
}

__global__ void prefix_sums(const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j <= i; j++)
            acc += b[j];
        out[i] = acc;
    }
}

void p_same_bounds(const float *a, float *out, int n)
{
    float *b;
    cudaMalloc(&b, (size_t)n * sizeof(float));
    scale_n<<<(n + 31) / 32, 32>>>(a, b, n);
    prefix_sums<<<(n + 31) / 32, 32>>>(b, out, n);
    cudaFree(b);
}
