// A consumer whose threads are not one per element: overlapping tiles, each block's patch
// origin at blockIdx * (B - 2) and its threads one element to the left and above, every
// thread loading the element at its clamped position into shared memory, as course blurs
// write it. Its reads fall at run-time positions in no coordinate of its own; a producer
// that keeps its guard is exact at any element, so a dead intermediate is recomputed there.

#define BW 16
#define BH 8

__global__ void mix(const float *a, const float *b, float *m, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    m[y * w + x] = 0.5f * a[y * w + x] + b[y * w + x];
}

__global__ void box3(const float *in, float *out, int w, int h)
{
    __shared__ float tile[BH][BW];
    int px = blockIdx.x * (BW - 2) + threadIdx.x - 1;
    int py = blockIdx.y * (BH - 2) + threadIdx.y - 1;
    int cx = min(max(px, 0), w - 1);
    int cy = min(max(py, 0), h - 1);
    tile[threadIdx.y][threadIdx.x] = in[cy * w + cx];
    __syncthreads();
    if (threadIdx.x < 1 || threadIdx.y < 1 || threadIdx.x >= BW - 1 || threadIdx.y >= BH - 1)
        return;
    if (px >= w || py >= h)
        return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            s += tile[threadIdx.y + dy][threadIdx.x + dx];
    out[py * w + px] = s / 9.0f;
}

// The mix is the host's own, freed after: fused.
void p_tiles(const float *a, const float *b, float *out, int w, int h)
{
    float *m;
    cudaMalloc(&m, (size_t)w * h * sizeof(float));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    mix<<<grid, block>>>(a, b, m, w, h);
    dim3 tiles((w + BW - 3) / (BW - 2), (h + BH - 3) / (BH - 2));
    box3<<<tiles, dim3(BW, BH)>>>(m, out, w, h);
    cudaFree(m);
}

// The mix is the caller's: the fused kernel stores it at every element, where the tiles
// load it (each element is some thread's clamped position; checked at the launch).
void p_tiles_live(const float *a, const float *b, float *m, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    mix<<<grid, block>>>(a, b, m, w, h);
    dim3 tiles((w + BW - 3) / (BW - 2), (h + BH - 3) / (BH - 2));
    box3<<<tiles, dim3(BW, BH)>>>(m, out, w, h);
}
