// Kernels whose x walks the rows: the grid's x indexes rows and y columns, elements are
// stored at x * cols + y (a common student and course style). Host functions take the
// width first (cols, rows), as the tests' spec passes them.
#include <cstddef>

__global__ void gray_rf(const float *in, float *g, const size_t rows, const size_t cols)
{
    int idx = threadIdx.x, idy = threadIdx.y, bdx = blockIdx.x, bdy = blockIdx.y;
    int dimx = blockDim.x, dimy = blockDim.y;
    int x = bdx * dimx + idx;
    int y = bdy * dimy + idy;
    int offset = x * cols + y;
    if (x < rows && y < cols) {
        g[offset] = 0.25f * in[offset] + 0.5f;
    }
}

__device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A clamped 3x3 box blur in the same mapping: row offsets in x, column offsets in y.
__global__ void blur_rf(const float *g, float *out, const size_t rows, const size_t cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= rows || y >= cols) return;
    float s = 0.f;
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
            s += g[clampi(x + dx, 0, (int)rows - 1) * cols + clampi(y + dy, 0, (int)cols - 1)];
    out[x * cols + y] = s / 9.f;
}

// Reads its own element and the one below it (the next row), unguarded at the last row:
// refused, the border cannot be reproduced.
__global__ void next_row_rf(const float *g, float *out, const size_t rows, const size_t cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= rows || y >= cols) return;
    out[x * cols + y] = g[x * cols + y] - g[(x + 1) * cols + y];
}

// The usual mapping (x along the row).
__global__ void square_xy(const float *g, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = g[y * w + x] * g[y * w + x];
}

void p_rows_first(const float *in, float *g, float *out, int cols, int rows)
{
    const dim3 block(8, 16);
    const dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    gray_rf<<<grid, block>>>(in, g, rows, cols);
    blur_rf<<<grid, block>>>(g, out, rows, cols);
}

// A grid that covers only rows - 1 rows: the blur's reads of the last row would see a
// gray value the original never computed. Refused (the grid does not cover).
void p_rows_first_short(const float *in, float *g, float *out, int cols, int rows)
{
    const dim3 block(8, 16);
    gray_rf<<<dim3((rows - 1) / 8, (cols + 15) / 16), block>>>(in, g, rows, cols);
    blur_rf<<<dim3((rows + 7) / 8, (cols + 15) / 16), block>>>(g, out, rows, cols);
}

void p_rows_first_unguarded(const float *in, float *g, float *out, int cols, int rows)
{
    const dim3 block(8, 16);
    const dim3 grid((rows + 7) / 8, (cols + 15) / 16);
    gray_rf<<<grid, block>>>(in, g, rows, cols);
    next_row_rf<<<grid, block>>>(g, out, rows, cols);
}

// A producer in one mapping and its consumer in the other: refused, the two kernels' threads
// own different elements.
void p_mixed(const float *in, float *g, float *out, int cols, int rows)
{
    gray_rf<<<dim3((rows + 7) / 8, (cols + 15) / 16), dim3(8, 16)>>>(in, g, rows, cols);
    square_xy<<<dim3((cols + 15) / 16, (rows + 7) / 8), dim3(16, 8)>>>(g, out, cols, rows);
}
