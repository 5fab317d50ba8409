// Tiled kernels that cudafuse does not recompute, each for a reason the refusal names.
// 1. A separable convolution in two tiled passes, each thread computing STEPS results (the
//    style of NVIDIA's convolutionSeparable and ferraiuolo's row/column passes), its
//    buffers reached through parameters moved to the thread's first element.
#define TW 8
#define STEPS 4
#define HALO 1
#define RAD 2

__global__ void rowsteps(float *src, float *dst, int w, int h, const float *k)
{
    __shared__ float t[TW][(STEPS + 2 * HALO) * TW + 1];
    const int x0 = (blockIdx.x * STEPS - HALO) * TW + threadIdx.x;
    const int y0 = blockIdx.y * blockDim.y + threadIdx.y;
    src += y0 * w + x0;
    dst += y0 * w + x0;
#pragma unroll
    for (int i = 0; i < STEPS + 2 * HALO; i++) {
        int x = x0 + i * TW;
        bool in = x >= 0 && x < w && y0 < h;
        t[threadIdx.y][threadIdx.x + i * TW] = in ? src[i * TW] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = HALO; i < HALO + STEPS; i++) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -RAD; j <= RAD; j++)
            sum += t[threadIdx.y][threadIdx.x + i * TW + j] * k[RAD + j];
        int x = x0 + i * TW;
        if (x >= 0 && x < w && y0 < h)
            dst[i * TW] = sum;
    }
}

__global__ void colsteps(float *src, float *dst, int w, int h, const float *k)
{
    __shared__ float t[TW][(STEPS + 2 * HALO) * TW + 1];
    const int x0 = blockIdx.x * TW + threadIdx.x;
    const int y0 = (blockIdx.y * STEPS - HALO) * TW + threadIdx.y;
    src += y0 * w + x0;
    dst += y0 * w + x0;
#pragma unroll
    for (int i = 0; i < STEPS + 2 * HALO; i++) {
        int y = y0 + i * TW;
        t[threadIdx.x][threadIdx.y + i * TW] = (y >= 0 && y < h && x0 < w) ? src[i * TW * w] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = HALO; i < HALO + STEPS; i++) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -RAD; j <= RAD; j++)
            sum += t[threadIdx.x][threadIdx.y + i * TW + j] * k[RAD + j];
        int y = y0 + i * TW;
        if (y >= 0 && y < h && x0 < w)
            dst[i * TW * w] = sum;
    }
}

extern "C" void sep_steps(float *in, float *out, int w, int h, const float *kx, const float *ky)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(TW, TW);
    dim3 grow((w + TW * STEPS - 1) / (TW * STEPS), (h + TW - 1) / TW);
    dim3 gcol((w + TW - 1) / TW, (h + TW * STEPS - 1) / (TW * STEPS));
    rowsteps<<<grow, block>>>(in, tmp, w, h, kx);
    colsteps<<<gcol, block>>>(tmp, out, w, h, ky);
    cudaFree(tmp);
}

// 2. The same fact spelled without a loop: each thread stores two results, at x and x + TW.
__global__ void rowpair(const float *src, float *dst, int w, int h)
{
    __shared__ float t[TW][2 * TW + 2 * RAD];
    const int bx = blockIdx.x * 2 * TW, y = blockIdx.y * TW + threadIdx.y;
    for (int c = threadIdx.x; c < 2 * TW + 2 * RAD; c += TW)
        t[threadIdx.y][c] = src[min(y, h - 1) * w + min(max(bx + c - RAD, 0), w - 1)];
    __syncthreads();
    float a = 0.0f, b = 0.0f;
    for (int j = -RAD; j <= RAD; j++) {
        a += t[threadIdx.y][threadIdx.x + RAD + j];
        b += t[threadIdx.y][threadIdx.x + TW + RAD + j];
    }
    const int x = bx + threadIdx.x;
    if (y < h && x < w) dst[y * w + x] = a;
    if (y < h && x + TW < w) dst[y * w + x + TW] = b;
}

__global__ void twice(const float *a, float *b, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) b[y * w + x] = 2.0f * a[y * w + x];
}

extern "C" void pair_pipe(const float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(TW, TW);
    rowpair<<<dim3((w + 2 * TW - 1) / (2 * TW), (h + TW - 1) / TW), block>>>(in, tmp, w, h);
    twice<<<dim3((w + TW - 1) / TW, (h + TW - 1) / TW), block>>>(tmp, out, w, h);
    cudaFree(tmp);
}

// 3. A table copied into shared memory and read through a helper (ferraiuolo's otsu): which
//    elements the helper reads is not followed. Launched as one block (otsu's shape) and with
//    a guarded 2-D mapping (the copy's own reason).
__device__ float prefix(const float *p, int lo, int hi)
{
    float s = 0.0f;
    for (int i = lo; i < hi; i++) s += p[i];
    return s;
}

__global__ void cumulate(const float *table, float *out)
{
    int i = threadIdx.x;
    __shared__ float s[64];
    s[threadIdx.x] = table[threadIdx.x];
    __syncthreads();
    float below = prefix(s, 0, i);
    out[i] = below + s[i];
}

__global__ void weigh(const float *img, const float *table, float *out, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    __shared__ float s[16];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        for (int k = 0; k < 16; k++) s[k] = table[k];
    __syncthreads();
    if (x >= w || y >= h) return;
    const float c = prefix(s, 0, 16);
    out[y * w + x] = img[y * w + x] * c;
}

extern "C" void table_pipe(const float *img, const float *table, float *out, float *acc,
                           float *res, int w, int h)
{
    cumulate<<<1, 64>>>(table, acc);
    twice<<<1, 64>>>(acc, res, 64, 1);
    dim3 block(TW, TW), grid((w + TW - 1) / TW, (h + TW - 1) / TW);
    weigh<<<grid, block>>>(img, table, out, w, h);
    twice<<<grid, block>>>(out, res, w, h);
}
