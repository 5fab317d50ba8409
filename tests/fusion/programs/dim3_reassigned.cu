// Two independent launches sharing one `dim3 grid(...)`, declared with its constructor and
// given new sizes through its fields between them (as Infatoshi/mnist-cuda's backward does):
// fused side by side, the first launch's grid is the value the variable held at it.
// Written for cudafuse's tests (tests/fusion/test_fuse_dim3_reassigned.py).

__global__ void add_one(float *y, const float *x, int w, int h) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < w && r < h)
        y[r * w + c] = x[r * w + c] + 1.0f;
}

__global__ void twice_transposed(float *z, const float *x, int w, int h) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < h && c < w)
        z[c * h + r] = 2.0f * x[r * w + c];
}

void two_shapes(const float *x, float *y, float *z, int w, int h) {
    dim3 block(16, 16);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    add_one<<<grid, block>>>(y, x, w, h);
    grid.x = (h + block.x - 1) / block.x;
    grid.y = (w + block.y - 1) / block.y;
    twice_transposed<<<grid, block>>>(z, x, w, h);
}

__global__ void triple(float *y, const float *t, int w, int h) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < w && r < h)
        y[r * w + c] = 3.0f * t[r * w + c];
}

// A producer -> consumer chain across the resizing: the consumer's grid has spare blocks.
void chain_resized(const float *x, float *t, float *y, int w, int h) {
    dim3 block(16, 16);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    add_one<<<grid, block>>>(t, x, w, h);
    grid.x = (w + block.x - 1) / block.x + 2;
    grid.y = (h + 15) / 16 + 1;
    triple<<<grid, block>>>(y, t, w, h);
}

// The consumer's grid covers one row of blocks only: what it does not reach, the producer
// still stored in the original.
void chain_shrunk(const float *x, float *t, float *y, int w, int h) {
    dim3 block(16, 16);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    add_one<<<grid, block>>>(t, x, w, h);
    grid.y = 1;
    triple<<<grid, block>>>(y, t, w, h);
}
