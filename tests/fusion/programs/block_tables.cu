// Producers that read their block's entry of a per-block table, as the last step of a
// multi-block scan adds each block's offset to its elements (`scan[i] += sums[blockIdx.x]`
// in course radix sorts): at element i the block index is i / blockDim.x and the thread
// index i % blockDim.x, so the value is one of the element wherever the fused kernel runs
// with the producer's block.

__global__ void add_block_sums(const float *part, const float *sums, float *scan, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    scan[i] = part[i] + sums[blockIdx.x] + 0.25f * threadIdx.x;
}

__global__ void twice(const float *scan, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = 2.0f * scan[i] - 1.0f;
}

// reads its left neighbour too: an element of the block before at each block's first thread
__global__ void difference(const float *scan, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = scan[i] - scan[max(i - 1, 0)];
}

// The scan is the host's own, freed after: fused.
void p_block_sums(const float *part, const float *sums, float *out, int n)
{
    float *scan;
    cudaMalloc(&scan, (size_t)n * sizeof(float));
    add_block_sums<<<(n + 127) / 128, 128>>>(part, sums, scan, n);
    twice<<<(n + 127) / 128, 128>>>(scan, out, n);
    cudaFree(scan);
}

void p_block_sums_neighbour(const float *part, const float *sums, float *out, int n)
{
    float *scan;
    cudaMalloc(&scan, (size_t)n * sizeof(float));
    const int block = 64;
    add_block_sums<<<(n + block - 1) / block, block>>>(part, sums, scan, n);
    difference<<<(n + block - 1) / block, block>>>(scan, out, n);
    cudaFree(scan);
}

// The consumer runs with blocks twice as wide: the producer's block index is not the fused
// kernel's. Refused.
void p_other_block(const float *part, const float *sums, float *out, int n)
{
    float *scan;
    cudaMalloc(&scan, (size_t)n * sizeof(float));
    add_block_sums<<<(n + 127) / 128, 128>>>(part, sums, scan, n);
    twice<<<(n + 255) / 256, 256>>>(scan, out, n);
    cudaFree(scan);
}

// The last step of a multi-block scan as cs344 sorts write it: block 0 has no sums before
// it and returns in the guard (`|| blockIdx.x == 0`), its elements keeping their contents.
__global__ void add_previous_sums(const float *sums, float *scan, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || blockIdx.x == 0)
        return;
    float before = sums[blockIdx.x - 1];
    scan[i] += before;
}

void p_skip_first_block(const float *part, const float *sums, float *out, int n)
{
    float *scan;
    cudaMalloc(&scan, (size_t)n * sizeof(float));
    cudaMemcpy(scan, part, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice);
    add_previous_sums<<<(n + 31) / 32, 32>>>(sums, scan, n);
    difference<<<(n + 31) / 32, 32>>>(scan, out, n);
    cudaFree(scan);
}
