// Kernels whose threads work together, in the shapes course and benchmark code writes them
// (block reductions, histograms, scans, tiles staged in shared memory, warp shuffles), each
// followed by a consumer of what it writes. None is a value at the thread's own element:
// the refusal must say what the threads do together, not blame the spelling of a mapping
// or guard. The last pipeline is a per-element kernel whose guard is spelled in a way the
// view does not read: its refusal keeps blaming the spelling.
#define BLOCK 128
#define TILE 16
#define R 1

// ---- a block reduction: one element per block, written by thread 0 -------------------------
__global__ void block_sum(const float *in, float *partial, int n)
{
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK * 2 + threadIdx.x;
    float v = 0.f;
    if (i < n) v = in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[tid] = v;
    __syncthreads();
    for (unsigned int k = BLOCK / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

__global__ void halve(const float *partial, float *out, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    out[i] = 0.5f * partial[i];
}

void p_block_sum(const float *in, float *partial, float *out, int n)
{
    int blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
    block_sum<<<blocks, BLOCK>>>(in, partial, n);
    halve<<<(blocks + 63) / 64, 64>>>(partial, out, blocks);
}

// ---- a histogram: atomics at a data-dependent bin, no guard (n a multiple of 256) --------
__global__ void histo(const unsigned char *img, unsigned int *bins, int n)
{
    int myId = threadIdx.x + blockDim.x * blockIdx.x;
    int bin = img[myId] % 256;
    atomicAdd(&bins[bin], 1u);
}

__global__ void normalise(const unsigned int *bins, float *pdf, int n)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 256) return;
    pdf[b] = (float)bins[b] / (float)n;
}

void p_histogram(const unsigned char *img, unsigned int *bins, float *pdf, int n)
{
    histo<<<n / 256, 256>>>(img, bins, n);
    normalise<<<1, 256>>>(bins, pdf, n);
}

// ---- a scan in global memory, one block: values combined in rounds ------------------------
__global__ void scan_rounds(unsigned int *data)
{
    int t = threadIdx.x;
    for (int step = 1; step < blockDim.x; step *= 2) {
        unsigned int prev = t >= step ? data[t - step] : 0u;
        __syncthreads();
        data[t] += prev;
        __syncthreads();
    }
}

__global__ void offset_by(const unsigned int *data, unsigned int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = data[i] + 1u;
}

void p_scan(unsigned int *data, unsigned int *out, int n)
{
    scan_rounds<<<1, n>>>(data);
    offset_by<<<1, n>>>(data, out, n);
}

// ---- an overlapped tile staged in shared memory (blocks overlap by the halo) -------------
__global__ void box_tiled(const float *in, float *out, int w, int h)
{
    __shared__ float tile[TILE][TILE];
    int px = blockIdx.x * (TILE - 2 * R) + threadIdx.x - R;
    int py = blockIdx.y * (TILE - 2 * R) + threadIdx.y - R;
    int cx = min(max(px, 0), w - 1);
    int cy = min(max(py, 0), h - 1);
    tile[threadIdx.y][threadIdx.x] = in[cy * w + cx];
    __syncthreads();
    if (threadIdx.x < R || threadIdx.y < R || threadIdx.x >= TILE - R ||
        threadIdx.y >= TILE - R || px >= w || py >= h)
        return;
    float s = 0.f;
    for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx)
            s += tile[threadIdx.y + dy][threadIdx.x + dx];
    out[py * w + px] = s / 9.f;
}

__global__ void twice(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = 2.f * t[y * w + x];
}

void p_tile(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(TILE, TILE);
    dim3 g((w + TILE - 2 * R - 1) / (TILE - 2 * R), (h + TILE - 2 * R - 1) / (TILE - 2 * R));
    box_tiled<<<g, b>>>(in, t, w, h);
    dim3 g2((w + 15) / 16, (h + 15) / 16);
    twice<<<g2, b>>>(t, out, w, h);
}

// ---- a warp reduction through shuffles ---------------------------------------------------
__global__ void warp_sums(const float *in, float *sums, int n)
{
    int lane = threadIdx.x & 31;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0 && i < n) sums[i / 32] = v;
}

void p_warp(const float *in, float *sums, float *out, int n)
{
    warp_sums<<<(n + 127) / 128, 128>>>(in, sums, n);
    halve<<<(n / 32 + 63) / 64, 64>>>(sums, out, n / 32);
}

// ---- per element, its guard a comparison with the block's index --------------------------
__global__ void add_prefix(const unsigned int *prefix, unsigned int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || blockIdx.x == 0) return;
    data[i] = data[i] + prefix[blockIdx.x - 1];
}

void p_guard_spelling(unsigned int *data, const unsigned int *prefix, unsigned int *out,
                      int n)
{
    add_prefix<<<(n + 63) / 64, 64>>>(prefix, data, n);
    offset_by<<<(n + 63) / 64, 64>>>(data, out, n);
}

// ---- the usual mapping and guard, then a scan of the block in shared memory ----------------
__global__ void block_scan(unsigned int *vals, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    int lane = threadIdx.x;
    __shared__ unsigned int acc[BLOCK];
    acc[lane] = vals[gid];
    __syncthreads();
    for (int d = 1; d < BLOCK; d *= 2) {
        unsigned int left = lane >= d ? acc[lane - d] : 0u;
        __syncthreads();
        acc[lane] += left;
        __syncthreads();
    }
    vals[gid] = acc[lane];
}

void p_block_scan(unsigned int *vals, unsigned int *out, int n)
{
    block_scan<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(vals, n);
    offset_by<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(vals, out, n);
}
