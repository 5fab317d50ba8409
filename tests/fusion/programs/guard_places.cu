// Bounds guards and coordinates where other people put them (issue 25): after statements
// that compute locals, through a bool local, joined with a test of data, coordinates from
// a helper. Each producer feeds a 3x3 box (borders clamped) that recomputes it at its
// neighbours. Every entry is `entry(const float *in, float *t, float *out, int w, int h)`.

__global__ void box3(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            s += t[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
    out[y * w + x] = s / 9.f;
}

// ---- the guard after statements that only compute locals -----------------------------------
__global__ void gain_late_guard(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float gain = 0.5f;
    if (w > 24) gain = 2.0f;
    gain += sqrtf((float)h);
    if (x >= w || y >= h) return;
    t[y * w + x] = gain * in[y * w + x];
}

void p_late_guard(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    gain_late_guard<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- the same statements before a guard that encloses the rest -----------------------------
__global__ void gain_late_enclose(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int idx = y * w + x;
    float bias = 1.0f;
    if (x == 0) bias = -1.0f;
    if (x < w && y < h) {
        t[idx] = in[idx] * in[idx] + bias;
    }
}

void p_late_enclose(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    gain_late_enclose<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- the guard through a bool local ----------------------------------------------------------
__global__ void square_flagged(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    const bool outside = x >= w || y >= h;
    if (outside) return;
    t[y * w + x] = in[y * w + x] * in[y * w + x];
}

void p_flag(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    square_flagged<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- a test of data joined to the bounds: elsewhere t keeps what it held -------------------
__global__ void positive_only(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h && in[y * w + x] > 0.f && in[y * w + x] < 3.f)
        t[y * w + x] = 2.f * in[y * w + x];
}

void p_data_test(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    positive_only<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- coordinates from device helpers -------------------------------------------------------
__device__ int col() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int row() { return blockIdx.y * blockDim.y + threadIdx.y; }

__global__ void negate_helpers(const float *in, float *t, int w, int h)
{
    int x = col(), y = row();
    if (x >= w || y >= h) return;
    t[y * w + x] = -in[y * w + x];
}

void p_helpers(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    negate_helpers<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- not moved: a store before the guard ---------------------------------------------------
__global__ void store_before_guard(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x == 0 && y == 0) t[0] = 7.f;
    if (x >= w || y >= h) return;
    t[y * w + x] += in[y * w + x];
}

void p_store_first(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    store_before_guard<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- not moved: the guard reads a local the statements before it write --------------------
__global__ void narrowed(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int lim = w;
    if (h > 10) lim = w - 1;
    if (x >= lim || y >= h) return;
    t[y * w + x] = in[y * w + x] + 1.f;
}

void p_narrowed(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    narrowed<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- both: statements computing a local, then bounds joined with a test of data ------------
__global__ void masked_late(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int i = y * w + x;
    float bias = 0.f;
    if (x == 0) bias = 1.f;
    if (y == h - 1) bias -= 0.5f;
    if (x < w && y < h && in[i] > -1.f) {
        t[i] = in[i] + bias;
    }
}

void p_masked_late(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    masked_late<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- a test of data joined to an early return's bounds -------------------------------------
__global__ void skip_negative(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h || in[y * w + x] < 0.f) return;
    float v = in[y * w + x];
    t[y * w + x] = v * v - 1.f;
}

void p_skip_negative(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    skip_negative<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- an early return after the guard and a local -------------------------------------------
__global__ void skip_large(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const int i = y * w + x;
    if (in[i] > 2.5f) return;
    t[i] = 3.f * in[i];
}

void p_skip_large(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    skip_large<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- C89 style: coordinates declared first, given their value after -----------------------
__global__ void declared_first(const float *in, float *t, int w, int h)
{
    unsigned int i, j, k;
    i = threadIdx.x + blockIdx.x * blockDim.x;
    j = threadIdx.y + blockIdx.y * blockDim.y;
    float scale = 0.25f;
    k = j * w + i;
    if (i < w && j < h) {
        t[k] = scale * in[k] + 0.5f;
    }
}

void p_declared_first(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    declared_first<<<g, b>>>(in, t, w, h);
    box3<<<g, b>>>(t, out, w, h);
}

// ---- guard-free kernels (each launch covers exactly its buffers: NB blocks of 64 threads)
// that choose what to store with an if/else, as radix-sort homework writes its digit flags
#define NB 5

__global__ void flags(const unsigned int *vals, unsigned int *zeros, unsigned int *ones, int bit)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int b = (vals[i] >> bit) & 1u;
    if (b) {
        ones[i] = 1u;
        zeros[i] = 0u;
    } else {
        zeros[i] = 1u;
        ones[i] = 0u;
    }
}

__global__ void combine(const unsigned int *zeros, const unsigned int *ones, unsigned int *out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = zeros[i] * 2u + ones[i];
}

void p_flags(const unsigned int *vals, unsigned int *zeros, unsigned int *ones,
             unsigned int *out, int bit)
{
    flags<<<NB, 64>>>(vals, zeros, ones, bit);
    combine<<<NB, 64>>>(zeros, ones, out);
}

// An if with no else may be a guard the reading did not take: left as written.
__global__ void ones_only(const unsigned int *vals, unsigned int *zeros, unsigned int *ones, int bit)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((vals[i] >> bit) & 1u)
        ones[i] = 1u;
    zeros[i] = 0u;
}

void p_ones_only(const unsigned int *vals, unsigned int *zeros, unsigned int *ones,
                 unsigned int *out, int bit)
{
    ones_only<<<NB, 64>>>(vals, zeros, ones, bit);
    combine<<<NB, 64>>>(zeros, ones, out);
}
