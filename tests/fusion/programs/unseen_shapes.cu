// Pipelines in shapes written by others (issue 25): guards as nested ifs, filter sizes
// passed as literals at the launch, interior stencils after whole-image stages, helpers from
// an included header. Every entry is `entry(const float *in, float *..., int w, int h)`.
#include "unseen_shapes.cuh"

#define RADIUS_ARG 1

// ---- guards as nested ifs ----------------------------------------------------------------
__global__ void nested_scale(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) {
        if (y < h) {
            int i = y * w + x;
            t[i] = 0.5f * in[i] + 0.25f;
        }
    }
}

__global__ void nested_blur(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < h)
        if (x < w) {
            float s = 0.f;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = min(max(x + dx, 0), w - 1);
                    int yy = min(max(y + dy, 0), h - 1);
                    s += t[yy * w + xx];
                }
            out[y * w + x] = s / 9.f;
        }
}

void p_nested(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    nested_scale<<<g, b>>>(in, t, w, h);
    nested_blur<<<g, b>>>(t, out, w, h);
}

// ---- a filter size passed as a literal, an interior-only consumer -------------------------
__global__ void gray(const float *in, float *t, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    t[y * width + x] = in[y * width + x] * 0.5f + 0.1f;
}

__global__ void sobel(const float *t, float *out, int width, int height, int kernel_size)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int r = kernel_size / 2;
    if (x < r || y < r || x >= width - r || y >= height - r) return;
    float gx = t[y * width + x + 1] - t[y * width + x - 1];
    float gy = t[(y + 1) * width + x] - t[(y - 1) * width + x];
    out[y * width + x] = sqrtf(gx * gx + gy * gy);
}

void p_literal(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(32, 8);
    dim3 grid((w + 31) / 32, (h + 7) / 8);
    gray<<<grid, block>>>(in, t, w, h);
    sobel<<<grid, block>>>(t, out, w, h, 2 * RADIUS_ARG + 1);
}

__global__ void laplace(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    out[y * w + x] = 4.f * t[y * w + x] - t[y * w + x - 1] - t[y * w + x + 1]
                   - t[(y - 1) * w + x] - t[(y + 1) * w + x];
}

void p_interior(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    gray<<<grid, block>>>(in, t, w, h);
    laplace<<<grid, block>>>(t, out, w, h);
}

// The grid covers only the interior: the fused kernel could not store all of 't'.
void p_interior_short_grid(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 16);
    gray<<<dim3((w + 15) / 16, (h + 15) / 16), block>>>(in, t, w, h);
    laplace<<<dim3((w - 1) / 16, (h + 15) / 16), block>>>(t, out, w, h);
}

// ---- a by-value helper from an included header --------------------------------------------
__global__ void square(const float *in, float *t, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) t[i] = sq(in[i]);
}

__global__ void square_plus(const float *t, float *out, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) out[i] = sq(t[i]) + 1.0f;
}

void p_header_helper(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    square<<<(n + 127) / 128, 128>>>(in, t, w, h);
    square_plus<<<(n + 127) / 128, 128>>>(t, out, w, h);
}

// ---- a parameter that differs between launches stays a parameter --------------------------
__global__ void shift(const float *t, float *out, int w, int h, int k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < k || y >= h || x >= w - k) return;
    out[y * w + x] = t[y * w + x + 1];
}

void p_varying(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    gray<<<grid, block>>>(in, t, w, h);
    shift<<<grid, block>>>(t, out, w, h, 1);
    shift<<<grid, block>>>(t, out, w, h, 0);
}

// ---- guards spelled otherwise: scaled by a constant channel count, negated, moved ----------
__global__ void scaled_copy(const float *in, float *t, int w, int h, int channels)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid * channels < w * h * channels)
        t[tid] = in[tid] * 2.0f;
}

__global__ void scaled_add(const float *t, float *out, int w, int h, int channels)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid * channels < w * h * channels)
        out[tid] = t[tid] + 1.0f;
}

void p_scaled(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    scaled_copy<<<(n + 127) / 128, 128>>>(in, t, w, h, 3);
    scaled_add<<<(n + 127) / 128, 128>>>(t, out, w, h, 3);
}

__global__ void odd_guard(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (!(x >= w) && y - h < 0) {
        float v = t[y * w + x];
        out[y * w + x] = v * v;
    }
}

void p_odd_guard(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    gray<<<grid, block>>>(in, t, w, h);
    odd_guard<<<grid, block>>>(t, out, w, h);
}

// A scale that is not a known positive constant: `tid * h < w * h * h` is not `tid < w * h`
// (h = 0 stores nothing).
__global__ void scaled_by_param(const float *in, float *t, int w, int h)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid * h < w * h * h)
        t[tid] = in[tid] * 2.0f;
}

void p_scaled_by_param(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    scaled_by_param<<<(n + 127) / 128, 128>>>(in, t, w, h);
    scaled_add<<<(n + 127) / 128, 128>>>(t, out, w, h, 3);
}

// ---- a 2-D image walked by a 1-D grid (x = i % w, y = i / w) --------------------------------
__global__ void box_linear(const float *t, float *out, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) {
        int x = i % w;
        int y = i / w;
        int xl = x > 0 ? x - 1 : 0;
        int xr = x < w - 1 ? x + 1 : w - 1;
        int yu = max(y - 1, 0);
        out[y * w + x] = t[y * w + xl] + t[i] + t[y * w + xr] + t[yu * w + x];
    }
}

void p_linear(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    square<<<(n + 255) / 256, 256>>>(in, t, w, h);
    box_linear<<<(n + 255) / 256, 256>>>(t, out, w, h);
}

void p_linear_after_2d(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 16);
    gray<<<dim3((w + 15) / 16, (h + 15) / 16), block>>>(in, t, w, h);
    box_linear<<<(w * h + 127) / 128, 128>>>(t, out, w, h);
}

// Reads the next element with no check: past the row's end, past the image's last.
__global__ void next_linear(const float *t, float *out, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    int x = i % w, y = i / w;
    out[y * w + x] = t[y * w + x + 1];
}

void p_linear_unguarded(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    square<<<(n + 255) / 256, 256>>>(in, t, w, h);
    next_linear<<<(n + 255) / 256, 256>>>(t, out, w, h);
}

// ---- a stencil staged in shared memory (tile and halo, a barrier, then the guard) -----------
#define TBW 16
#define TBH 8
#define TR 1

__global__ void blur_staged(const float *t, float *out, int w, int h)
{
    __shared__ float tile[TBH + 2 * TR][TBW + 2 * TR];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TBW + tx;
    int y = blockIdx.y * TBH + ty;
    for (int dy = ty; dy < TBH + 2 * TR; dy += TBH)
        for (int dx = tx; dx < TBW + 2 * TR; dx += TBW) {
            int gx = min(max((int)(blockIdx.x * TBW) + dx - TR, 0), w - 1);
            int gy = min(max((int)(blockIdx.y * TBH) + dy - TR, 0), h - 1);
            tile[dy][dx] = t[gy * w + gx];
        }
    __syncthreads();
    if (x < w && y < h) {
        float s = 0.f;
        for (int j = -TR; j <= TR; ++j)
            for (int i = -TR; i <= TR; ++i)
                s += tile[ty + TR + j][tx + TR + i];
        out[y * w + x] = s / 9.f;
    }
}

void p_staged(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(TBW, TBH);
    dim3 grid((w + TBW - 1) / TBW, (h + TBH - 1) / TBH);
    gray<<<grid, block>>>(in, t, w, h);
    blur_staged<<<grid, block>>>(t, out, w, h);
}

// Staged as a producer: recomputed reading 'in' where its tile's loads did (staged_tile.py).
void p_staged_producer(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(TBW, TBH);
    dim3 grid((w + TBW - 1) / TBW, (h + TBH - 1) / TBH);
    blur_staged<<<grid, block>>>(in, t, w, h);
    gray<<<grid, block>>>(t, out, w, h);
}

// The halo read with zero padding by a test instead of a clamp: elements it cannot name,
// not provably inside the image.
__global__ void blur_staged_zero(const float *t, float *out, int w, int h)
{
    __shared__ float tile[TBH + 2][TBW + 2];
    int x = blockIdx.x * TBW + threadIdx.x;
    int y = blockIdx.y * TBH + threadIdx.y;
    for (int dy = threadIdx.y; dy < TBH + 2; dy += TBH)
        for (int dx = threadIdx.x; dx < TBW + 2; dx += TBW) {
            int gx = (int)(blockIdx.x * TBW) + dx - 1, gy = (int)(blockIdx.y * TBH) + dy - 1;
            tile[dy][dx] = gx >= 0 && gx < w && gy >= 0 && gy < h ? t[gy * w + gx] : 0.f;
        }
    __syncthreads();
    if (x < w && y < h)
        out[y * w + x] = tile[threadIdx.y + 1][threadIdx.x] + tile[threadIdx.y + 1][threadIdx.x + 2];
}

void p_staged_zero(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(TBW, TBH);
    dim3 grid((w + TBW - 1) / TBW, (h + TBH - 1) / TBH);
    gray<<<grid, block>>>(in, t, w, h);
    blur_staged_zero<<<grid, block>>>(t, out, w, h);
}

// ---- PolyBench's way: the size a macro, passed to the kernel's bound, the grid from ceil ----
#define PB_N 40
__global__ void pb_scale(int n, const float *a, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] * 2.0f;
}

__global__ void pb_shift(int n, const float *b, float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = b[i] + b[i > 0 ? i - 1 : 0];
}

// (w and h unused: the entries share one signature)
void p_polybench(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(32, 1);
    dim3 grid((size_t)(ceil(((float)PB_N) / ((float)block.x))), 1);
    pb_scale<<<grid, block>>>(PB_N, in, t);
    pb_shift<<<grid, block>>>(PB_N, t, out);
}
