// Tables of device buffers read at run-time positions (issue 25): a pyramid's levels in a
// local array of pointers, per-level partial sums in a host global set up by another
// function (as Rodinia's scan keeps its block sums). Each element is a buffer allocated
// once; a launch names one through a position computed on the host. Each entry is
// `entry(in, t, u, v, out, int w, int h)` over n = w * h elements.
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define LEVELS 4

__global__ void scale(const float *in, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = in[i] * 0.75f + 0.25f;
}

__global__ void plus(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t[i] + 2.0f;
}

__global__ void mix(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - 0.5f * b[i];
}

// Each level from the one before it, through a scratch buffer: in the loop's body the
// launches name levels[l] and levels[l + 1], two buffers.
void p_levels(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *levels[LEVELS];
    for (int l = 0; l < LEVELS; ++l)
        cudaMalloc(&levels[l], n * sizeof(float));
    cudaMemcpy(levels[0], in, n * sizeof(float), cudaMemcpyDeviceToDevice);
    for (int l = 0; l + 1 < LEVELS; ++l) {
        scale<<<g, b>>>(levels[l], t, n);
        mix<<<g, b>>>(t, levels[l], levels[l + 1], n);
    }
    cudaMemcpy(out, levels[LEVELS - 1], n * sizeof(float), cudaMemcpyDeviceToDevice);
    for (int l = 0; l < LEVELS; ++l)
        cudaFree(levels[l]);
}

// The same levels in a std::vector sized first, walked from level 1 up to its size.
void p_levels_vector(const float *in, float *t, float *u, float *v, float *out, int w,
                     int h)
{
    const int n = w * h;
    dim3 block(96), grid((n + block.x - 1) / block.x);
    std::vector<float *> lv(3, nullptr);
    for (size_t l = 0; l < lv.size(); ++l)
        cudaMalloc((void **)&lv[l], n * sizeof(float));
    cudaMemcpy(lv[0], in, n * sizeof(float), cudaMemcpyDeviceToDevice);
    for (size_t l = 1; l < lv.size(); ++l) {
        scale<<<grid, block>>>(lv[l - 1], u, n);
        plus<<<grid, block>>>(u, v, n);
        mix<<<grid, block>>>(v, lv[l - 1], lv[l], n);
    }
    cudaMemcpy(out, lv.back(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    for (float *p : lv)
        cudaFree(p);
}

// C style: the table malloc'd, its loop variable declared at the top of the function.
void p_levels_c89(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n, l, nlev;
    float **lv;
    n = w * h;
    nlev = 3;
    lv = (float **)malloc(nlev * sizeof(float *));
    for (l = 0; l < nlev; l++)
        cudaMalloc((void **)&lv[l], n * sizeof(float));
    scale<<<(n + 63) / 64, 64>>>(in, lv[0], n);
    for (l = 1; l < nlev; l++) {
        plus<<<(n + 63) / 64, 64>>>(lv[l - 1], t, n);
        mix<<<(n + 63) / 64, 64>>>(t, lv[l - 1], lv[l], n);
    }
    plus<<<(n + 63) / 64, 64>>>(lv[nlev - 1], out, n);
    for (l = 0; l < nlev; l++)
        cudaFree(lv[l]);
    free(lv);
}

static float **g_sums;
static int g_levels;

static void alloc_sums(int n)
{
    g_levels = 3;
    g_sums = (float **)malloc(g_levels * sizeof(float *));
    for (int i = 0; i < g_levels; i++)
        cudaMalloc((void **)&g_sums[i], n * sizeof(float));
}

static void free_sums()
{
    for (int i = 0; i < g_levels; i++)
        cudaFree(g_sums[i]);
    free((void **)g_sums);
    g_sums = 0;
}

// One level's work through the global table, at the level its caller passes.
static void run_level(const float *in, float *out, int n, int level)
{
    int b = 64, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, g_sums[level], n);
    plus<<<g, b>>>(g_sums[level], g_sums[level - 1], n);
    mix<<<g, b>>>(g_sums[level - 1], g_sums[level], out, n);
}

void p_global_sums(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    alloc_sums(w * h);
    run_level(in, out, w * h, 2);
    free_sums();
}

// Two positions of different variables: whether they are one buffer is not known.
void p_levels_two_vars(const float *in, float *t, float *u, float *v, float *out, int w,
                       int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *levels[2];
    cudaMalloc(&levels[0], n * sizeof(float));
    cudaMalloc(&levels[1], n * sizeof(float));
    int a = w % 2, c = h % 2;
    scale<<<g, b>>>(in, levels[a], n);
    plus<<<g, b>>>(levels[c], out, n);
    cudaFree(levels[0]);
    cudaFree(levels[1]);
}

// A level allocated again between the launches: the position names a new buffer.
void p_levels_realloc(const float *in, float *t, float *u, float *v, float *out, int w,
                      int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *levels[2];
    cudaMalloc(&levels[0], n * sizeof(float));
    for (int l = 0; l < 1; ++l) {
        scale<<<g, b>>>(in, t, n);
        cudaMalloc(&levels[1], n * sizeof(float));
        plus<<<g, b>>>(t, levels[l + 1], n);
        mix<<<g, b>>>(levels[l + 1], in, out, n);
    }
    cudaFree(levels[0]);
    cudaFree(levels[1]);
}

// The levels cleared in a loop between two launches: `lv[j]` may be `lv[0]`, so the
// memsets may touch what the first launch wrote; nothing moves across them.
void p_levels_cleared(const float *in, float *t, float *u, float *v, float *out, int w,
                      int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *lv[2];
    cudaMalloc(&lv[0], n * sizeof(float));
    cudaMalloc(&lv[1], n * sizeof(float));
    scale<<<g, b>>>(in, lv[0], n);
    for (int j = 0; j < 2; ++j)
        cudaMemset(lv[j], 0, n * sizeof(float));
    plus<<<g, b>>>(lv[0], out, n);
    cudaFree(lv[0]);
    cudaFree(lv[1]);
}
