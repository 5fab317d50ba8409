// Kernels with no bounds guard, correct only because of the block and grid their launches use
// (one block per image row or column, each thread one element): the style of many course and
// student codes. Host functions take the width first (cols, rows), as the tests pass them.

// 1-D coordinate over the whole image, the block size spelled as the parameter it equals.
__global__ void split_bf(const float *in, float *a, int rows, int cols)
{
    int idx = blockIdx.x * cols + threadIdx.x;
    a[idx] = in[idx] * 0.5f + 1.0f;
}

// The thread's column and its block's row, declared apart, a clamped 3x3 box.
__global__ void blur_bf(const float *a, float *b, int rows, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    int rad = 1;
    float s = 0.f;
    for (int dr = -rad; dr <= rad; ++dr)
        for (int dc = -rad; dc <= rad; ++dc) {
            int rr = min(max(r + dr, 0), rows - 1);
            int cc = min(max(c + dc, 0), cols - 1);
            s += a[rr * cols + cc];
        }
    b[r * cols + c] = s / 9.f;
}

// The usual coordinate, blockDim read, and no guard.
__global__ void scale_bf(const float *b, float *out, int rows, int cols)
{
    const unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
    out[i] = b[i] * 2.f - 1.f;
}

void p_rows_int(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    split_bf<<<rows, cols>>>(in, a, rows, cols);
    blur_bf<<<rows, cols>>>(a, b, rows, cols);
    scale_bf<<<rows, cols>>>(b, out, rows, cols);
}

void p_rows_dim3(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    const dim3 threads(cols);
    const dim3 blocks(rows, 1, 1);
    split_bf<<<blocks, threads>>>(in, a, rows, cols);
    blur_bf<<<blocks, threads>>>(a, b, rows, cols);
    scale_bf<<<blocks, threads>>>(b, out, rows, cols);
}

// One block per column: the thread walks the rows (r = threadIdx.x), its block the columns.
__global__ void gain_col(const float *in, float *a, int rows, int cols)
{
    int r = threadIdx.x, c = blockIdx.x;
    a[r * cols + c] = in[r * cols + c] * 3.f;
}

// A vertical difference in the same mapping, clamped at the last row.
__global__ void diff_col(const float *a, float *out, int rows, int cols)
{
    int c = blockIdx.x;
    int r = threadIdx.x;
    int below = min(r + 1, rows - 1);
    out[r * cols + c] = a[below * cols + c] - a[r * cols + c];
}

void p_cols(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    gain_col<<<cols, rows>>>(in, a, rows, cols);
    diff_col<<<cols, rows>>>(a, out, rows, cols);
}

// Rows of a fixed 16 columns (no width is passed: both kernels assume it, as their launches).
#define NCOLS 16
__global__ void lift16(const float *in, float *a, int rows)
{
    int i = blockIdx.x * NCOLS + threadIdx.x;
    a[i] = in[i] + 0.25f;
}

__global__ void left16(const float *a, float *out, int rows)
{
    int x = threadIdx.x, y = blockIdx.x;
    out[y * NCOLS + x] = a[y * NCOLS + max(x - 1, 0)] * a[y * NCOLS + x];
}

void p_const(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    lift16<<<rows, NCOLS>>>(in, a, rows);
    left16<<<rows, 16>>>(a, out, rows);
}

// A row per block, walked by its threads whatever their number (block-stride loops), the
// two launches with different blocks.
__global__ void half_bs(const float *in, float *a, int rows, int cols)
{
    int y = blockIdx.x;
    for (int x = threadIdx.x; x < cols; x += blockDim.x)
        a[y * cols + x] = in[y * cols + x] * 0.5f + (float)y;
}

__global__ void slope_bs(const float *a, float *out, int rows, int cols)
{
    const int y = blockIdx.x;
    for (int x = threadIdx.x; x < cols; x += blockDim.x)
        out[y * cols + x] = a[y * cols + x] - a[y * cols + max(x - 1, 0)];
}

void p_block_stride(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    half_bs<<<rows, 32>>>(in, a, rows, cols);
    slope_bs<<<dim3(rows), dim3(64)>>>(a, out, rows, cols);
}

// ---- refused ---------------------------------------------------------------------------

// A block of 32 threads whatever the width: the kernel's element is then not the image's.
__global__ void half_bf(const float *in, float *a, int rows, int cols)
{
    int idx = blockIdx.x * cols + threadIdx.x;
    a[idx] = in[idx] - 1.f;
}

__global__ void copy_bf(const float *a, float *out, int rows, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    out[r * cols + c] = a[r * cols + c];
}

void p_block32(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    half_bf<<<rows, 32>>>(in, a, rows, cols);
    copy_bf<<<rows, cols>>>(a, out, rows, cols);
}

// A 2-D grid of 1-D blocks: the kernel reads only blockIdx.x.
__global__ void twod_bf(const float *in, float *a, int rows, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    a[r * cols + c] = in[r * cols + c] + 2.f;
}

__global__ void copy2_bf(const float *a, float *out, int rows, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    out[r * cols + c] = a[r * cols + c];
}

void p_grid2d(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    twod_bf<<<dim3(rows, 2), cols>>>(in, a, rows, cols);
    copy2_bf<<<rows, cols>>>(a, out, rows, cols);
}

// The grid's size is the caller's, passed to no kernel: not known to the kernel's analysis.
__global__ void bump_bf(const float *in, float *a, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    a[r * cols + c] = in[r * cols + c] * 4.f;
}

__global__ void copy3_bf(const float *a, float *out, int rows, int cols)
{
    int c = threadIdx.x;
    int r = blockIdx.x;
    out[r * cols + c] = a[r * cols + c];
}

void p_unknown(const float *in, float *a, float *b, float *out, int cols, int rows)
{
    bump_bf<<<rows, cols>>>(in, a, cols);
    copy3_bf<<<rows, cols>>>(a, out, rows, cols);
}
