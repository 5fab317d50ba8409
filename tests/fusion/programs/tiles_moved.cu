// Tiles loaded through a pointer parameter the kernel moves to the thread's element first
// (`src += y * w + x;`, ferraiuolo's style), then subscripted relative to it. The tile
// readers (kernel/tile_writers.py) follow the pointer's offset per thread, so these row
// passes are recomputed where they are read, halo included. R = 2, zero padding.
#define B 8
#define R 2

// The tile and halo loaded by a loop over the tile's columns.
__global__ void rowloop(const float *src, float *dst, int w, int h)
{
    __shared__ float t[B][B + 2 * R];
    const int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    src += y * w + x;
    for (int i = threadIdx.x; i < B + 2 * R; i += B) {
        int gx = x - (int)threadIdx.x + i - R;
        t[threadIdx.y][i] = (gx >= 0 && gx < w && y < h) ? src[i - R - (int)threadIdx.x] : 0.0f;
    }
    __syncthreads();
    if (x < w && y < h) {
        float s = 0.0f;
        for (int k = -R; k <= R; k++)
            s += t[threadIdx.y][threadIdx.x + R + k] * (k + 3);
        dst[y * w + x] = s;
    }
}

// The same tile spelled as a centre load and halo loads by the first R threads, the
// pointer moved in two steps, its guard an early return after the barrier.
__global__ void rowhalo(const float *src, float *dst, int w, int h)
{
    __shared__ float t[B][B + 2 * R];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * B + tx, y = blockIdx.y * B + ty;
    src += y * w;
    src += x;
    t[ty][tx + R] = (x < w && y < h) ? src[0] : 0.0f;
    if (tx < R) {
        t[ty][tx] = (x - R >= 0 && y < h) ? src[-R] : 0.0f;
        t[ty][tx + B + R] = (x + B < w && y < h) ? src[B] : 0.0f;
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int k = -R; k <= R; k++)
        s += t[ty][tx + R + k] * (k + 3);
    dst[y * w + x] = s;
}

__global__ void twice(const float *a, float *b, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) b[y * w + x] = 2.0f * a[y * w + x] + 1.0f;
}

// A column pass staging its own tile (clamped rows): the last kernel, keeping its tile.
__global__ void colclamp(const float *src, float *dst, int w, int h)
{
    __shared__ float t[B + 2 * R][B];
    const int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    const int xc = min(max(x, 0), w - 1);
    for (int j = threadIdx.y; j < B + 2 * R; j += B)
        t[j][threadIdx.x] = src[min(max((int)(blockIdx.y * B) + j - R, 0), h - 1) * w + xc];
    __syncthreads();
    if (x < w && y < h) {
        float s = 0.0f;
        for (int k = -R; k <= R; k++)
            s += t[threadIdx.y + R + k][threadIdx.x];
        dst[y * w + x] = s;
    }
}

extern "C" void loop_pipe(const float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(B, B), grid((w + B - 1) / B, (h + B - 1) / B);
    rowloop<<<grid, block>>>(in, tmp, w, h);
    twice<<<grid, block>>>(tmp, out, w, h);
    cudaFree(tmp);
}

extern "C" void halo_pipe(const float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(B, B), grid((w + B - 1) / B, (h + B - 1) / B);
    rowhalo<<<grid, block>>>(in, tmp, w, h);
    colclamp<<<grid, block>>>(tmp, out, w, h);
    cudaFree(tmp);
}

// Refused: the moved pointer is read after the barrier too (its element there is the
// thread's own, which the value function would have to follow as well).
__global__ void rowafter(const float *src, float *dst, int w, int h)
{
    __shared__ float t[B][B + 2 * R];
    const int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    src += y * w + x;
    for (int i = threadIdx.x; i < B + 2 * R; i += B) {
        int gx = x - (int)threadIdx.x + i - R;
        t[threadIdx.y][i] = (gx >= 0 && gx < w && y < h) ? src[i - R - (int)threadIdx.x] : 0.0f;
    }
    __syncthreads();
    if (x < w && y < h)
        dst[y * w + x] = t[threadIdx.y][threadIdx.x + R + 1] - src[0];
}

// Refused: an update in place through the moved pointer (other blocks' halos race with it).
__global__ void rowinplace(float *img, int w, int h)
{
    __shared__ float t[B][B + 2 * R];
    const int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    img += y * w + x;
    for (int i = threadIdx.x; i < B + 2 * R; i += B) {
        int gx = x - (int)threadIdx.x + i - R;
        t[threadIdx.y][i] = (gx >= 0 && gx < w && y < h) ? img[i - R - (int)threadIdx.x] : 0.0f;
    }
    __syncthreads();
    if (x < w && y < h)
        img[0] = t[threadIdx.y][threadIdx.x + R + 1];
}

extern "C" void refused_pipe(float *in, float *out, int w, int h)
{
    float *tmp;
    cudaMalloc(&tmp, (size_t)w * h * sizeof(float));
    dim3 block(B, B), grid((w + B - 1) / B, (h + B - 1) / B);
    rowafter<<<grid, block>>>(in, tmp, w, h);
    twice<<<grid, block>>>(tmp, out, w, h);
    rowinplace<<<grid, block>>>(out, w, h);
    twice<<<grid, block>>>(out, tmp, w, h);
    cudaFree(tmp);
}

// Moved by `src = src + ...` (not launched: analysis/kernel_facts.py counts that assignment
// as a store to the buffer, so its group would be refused as reading what it writes).
__global__ void rowassign(const float *src, float *dst, int w, int h)
{
    __shared__ float t[B][B + 2 * R];
    const int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    src = src + y * w + x;
    t[threadIdx.y][threadIdx.x + R] = (x < w && y < h) ? src[0] : 0.0f;
    if (threadIdx.x < R) {
        t[threadIdx.y][threadIdx.x] = (x - R >= 0 && y < h) ? src[-R] : 0.0f;
        t[threadIdx.y][threadIdx.x + B + R] = (x + B < w && y < h) ? src[B] : 0.0f;
    }
    __syncthreads();
    if (x < w && y < h)
        dst[y * w + x] = t[threadIdx.y][threadIdx.x] + t[threadIdx.y][threadIdx.x + 2 * R];
}
