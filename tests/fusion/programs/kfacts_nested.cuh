// Kernels in a header of our own (respellings reach only the main file: these are read as
// written), their bounds guards written as nested ifs (issue 25, the survey's
// mimnagh_unsharp style). Included by kfacts_nested.cu.

__global__ void kn_blur(const float *in, float *out, const unsigned w, const unsigned h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w)
    {
        if (row < h)
        {
            int l = col > 0 ? col - 1 : 0, r = col + 1 < (int)w ? col + 1 : (int)w - 1;
            int u = row > 0 ? row - 1 : 0, d = row + 1 < (int)h ? row + 1 : (int)h - 1;
            out[row * w + col] = (in[u * w + col] + in[d * w + col] + in[row * w + l] +
                                  in[row * w + r] + in[row * w + col]) * 0.2f;
        }
    }
}

__global__ void kn_weigh(const float *a, const float *b, float *out, float alpha,
                         const unsigned w, const unsigned h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w) {
        if (row < h) {
            unsigned at = row * w + col;
            out[at] = alpha * a[at] + (1.0f - alpha) * b[at];
        }
    }
}

// The same meaning spelled otherwise: rows tested first, no braces, a scaled test, signed
// bounds, three levels (the middle one a lower bound that always holds).
__global__ void kn_sharp(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (2 * y < 2 * h)
        if (x >= 0)
            if (x < w) out[y * w + x] = 2.0f * in[y * w + x] - in[y * w + (x > 0 ? x - 1 : x)];
}

// Refused: both tests bound x; nothing bounds y.
__global__ void kn_leak(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) {
        if (x < h) {
            out[y * w + x] = in[y * w + x] + 1.0f;
        }
    }
}

// Refused with what stands in the way: its store is the helper's (a header kernel's call
// is not respelled into the helper's body).
__device__ void kn_store(float *out, const float *in, int x, int y, int w)
{
    out[y * w + x] = 0.5f * in[y * w + x];
}

__global__ void kn_helper(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) {
        if (y < h) {
            kn_store(out, in, x, y, w);
        }
    }
}
