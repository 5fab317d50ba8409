// Kernels that update an element the host prepared, each update a statement of its own
// under a condition (a von Neumann neighbour sum into a zeroed buffer, as course solutions
// write it): the element's first value is its contents in memory.

__global__ void fill_rows(float *s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    s[y * w + x] = (float)y;
}

__global__ void neighbours(const float *in, float *s, int w, int h)
{
    const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
    if (p.x >= w || p.y >= h)
        return;
    const int i = p.y * w + p.x;
    if (p.y)
        s[i] += in[(p.y - 1) * w + p.x];
    if (p.x < w - 1)
        s[i] += in[p.y * w + p.x + 1];
    if (p.y < h - 1)
        s[i] += in[(p.y + 1) * w + p.x];
    if (p.x)
        s[i] += in[p.y * w + p.x - 1];
}

__global__ void scale(const float *s, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = 0.25f * s[y * w + x] - 1.f;
}

// The sum's buffer is the host's own, zeroed, and freed after: fused.
void p_loaded_memset(const float *in, float *out, int w, int h)
{
    float *s;
    cudaMalloc(&s, (size_t)w * h * sizeof(float));
    cudaMemset(s, 0, (size_t)w * h * sizeof(float));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    neighbours<<<grid, block>>>(in, s, w, h);
    scale<<<grid, block>>>(s, out, w, h);
    cudaFree(s);
}

// Its first values come from a kernel: that one stays apart (both write the buffer), the
// sum reads what it stored.
void p_loaded_after_kernel(const float *in, float *out, int w, int h)
{
    float *s;
    cudaMalloc(&s, (size_t)w * h * sizeof(float));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    fill_rows<<<grid, block>>>(s, w, h);
    neighbours<<<grid, block>>>(in, s, w, h);
    scale<<<grid, block>>>(s, out, w, h);
    cudaFree(s);
}

// The sum is the caller's buffer, so the fused kernel would have to store it while other
// threads still load their elements' first values: refused.
void p_loaded_live(const float *in, float *s, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    neighbours<<<grid, block>>>(in, s, w, h);
    scale<<<grid, block>>>(s, out, w, h);
}
