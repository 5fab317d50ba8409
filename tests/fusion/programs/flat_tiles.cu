// Separable blur in two tiled passes: a row tile (16 x (16 + 2R)) then a column tile
// ((16 + 2R) x 16), both in dynamic shared memory sized at launch and laid out in rows of a
// 1-D array (s[ty * W + tx + c]), R = 2, replicate borders. The row pass is recomputed in
// the column pass's tile loads (kernel/tile_writers.py reads the flat tile as [.][W]).
#define T 16
#define R 2

__global__ void rowpass(const float *__restrict__ src, float *__restrict__ dst, int w, int h)
{
    extern __shared__ float s[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    const int yc = min(y, h - 1);
    for (int i = tx; i < T + 2 * R; i += T)
        s[ty * (T + 2 * R) + i] = src[yc * w + min(max((int)(blockIdx.x * T) + i - R, 0), w - 1)];
    __syncthreads();
    if (x >= w || y >= h) return;
    float acc = 0.f;
#pragma unroll
    for (int k = -R; k <= R; ++k)
        acc += s[ty * (T + 2 * R) + tx + R + k];
    dst[y * w + x] = acc * (1.0f / (2 * R + 1));
}

__global__ void colpass(const float *__restrict__ src, float *__restrict__ dst, int w, int h)
{
    extern __shared__ float s[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    const int xc = min(max(x, 0), w - 1);
    for (int j = ty; j < T + 2 * R; j += T)
        s[j * T + tx] = src[min(max((int)(blockIdx.y * T) + j - R, 0), h - 1) * w + xc];
    __syncthreads();
    if (x < w && y < h) {
        float acc = 0.f;
#pragma unroll
        for (int k = -R; k <= R; ++k)
            acc += s[(ty + R + k) * T + tx];
        dst[y * w + x] = acc * (1.0f / (2 * R + 1));
    }
}

extern "C" void sep_pipe(const float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(T, T), grid((w + T - 1) / T, (h + T - 1) / T);
    rowpass<<<grid, block, T * (T + 2 * R) * sizeof(float)>>>(in, tmp, w, h);
    colpass<<<grid, block, (T + 2 * R) * T * sizeof(float)>>>(tmp, out, w, h);
    cudaFree(tmp);
}

// A read past its row (the tile is T + 2R wide, the read reaches column T + 2R): refused.
__global__ void rowpast(const float *__restrict__ src, float *__restrict__ dst, int w, int h)
{
    extern __shared__ float s[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    const int yc = min(y, h - 1);
    for (int i = tx; i < T + 2 * R; i += T)
        s[ty * (T + 2 * R) + i] = src[yc * w + min(max((int)(blockIdx.x * T) + i - R, 0), w - 1)];
    __syncthreads();
    if (x >= w || y >= h) return;
    dst[y * w + x] = s[ty * (T + 2 * R) + tx + 2 * R + 1];
}

extern "C" void past_pipe(const float *in, float *tmp, float *out, int w, int h)
{
    dim3 block(T, T), grid((w + T - 1) / T, (h + T - 1) / T);
    rowpast<<<grid, block, T * (T + 2 * R) * sizeof(float)>>>(in, tmp, w, h);
    colpass<<<grid, block, (T + 2 * R) * T * sizeof(float)>>>(tmp, out, w, h);
}

// The column pass with its guard an early return after the barrier: the same last kernel.
__global__ void colret(const float *__restrict__ src, float *__restrict__ dst, int w, int h)
{
    extern __shared__ float s[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    const int xc = min(max(x, 0), w - 1);
    for (int j = ty; j < T + 2 * R; j += T)
        s[j * T + tx] = src[min(max((int)(blockIdx.y * T) + j - R, 0), h - 1) * w + xc];
    __syncthreads();
    if (x >= w || y >= h)
        return;
    float acc = 0.f;
    for (int k = -R; k <= R; ++k)
        acc += s[(ty + R + k) * T + tx];
    dst[y * w + x] = acc * (1.0f / (2 * R + 1));
}

extern "C" void ret_pipe(const float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(T, T), grid((w + T - 1) / T, (h + T - 1) / T);
    rowpass<<<grid, block, T * (T + 2 * R) * sizeof(float)>>>(in, tmp, w, h);
    colret<<<grid, block, (T + 2 * R) * T * sizeof(float)>>>(tmp, out, w, h);
    cudaFree(tmp);
}
