// Kernel facts by meaning on spellings seen in held-out programs (issue 25). Our own code,
// written in the styles the survey met: one thread per block (`<<<n, 1>>>`, the element
// is the block's index) and a grid-stride step left behind after a guarded body (a store
// to the coordinate that nothing reads).

// --- one thread per block ------------------------------------------------------------

__global__ void kh_lap(const float *m, float *l, int n)
{
    int i = blockIdx.x;  // one thread per block: the block is the element
    if (i < n) {
        float v = -2.0f * m[i];
        if (i > 0) v += m[i - 1]; else v += m[n - 1];
        if (i < n - 1) v += m[i + 1]; else v += m[0];
        l[i] = v;
    }
}

__global__ void kh_step(const float *l, const float *m, float *d, float dt, int n)
{
    int i = blockIdx.x;
    if (i < n) d[i] = m[i] + dt * l[i];
}

void kh_one(const float *m, float *l, float *d, float dt, int n)
{
    kh_lap<<<n, 1>>>(m, l, n);
    kh_step<<<n, 1>>>(l, m, d, dt, n);
}

// The same meaning spelled otherwise: 2-D, both coordinates from the grid, the block a
// dim3 of one thread, threadIdx added (it is 0 there).
__global__ void kh_box2(const float *in, float *out, int w, int h)
{
    int x = threadIdx.x + blockIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
    out[y * w + x] = (in[y * w + xl] + in[y * w + x] + in[y * w + xr]) / 3.0f;
}

__global__ void kh_scale2(const float *in, float *out, float k, int w, int h)
{
    int y = blockIdx.y;
    int x = blockIdx.x;
    if (x < w && y < h) out[x + y * w] = k * in[x + y * w] + 1.0f;
}

void kh_one_2d(const float *in, float *t, float *out, float k, int w, int h)
{
    dim3 grid(w, h);
    dim3 one(1, 1);
    kh_box2<<<grid, one>>>(in, t, w, h);
    kh_scale2<<<grid, one>>>(t, out, k, w, h);
}

// Refused: blocks of `threads` threads, which need not be one.
__global__ void kh_lap3(const float *m, float *l, int n)
{
    int i = blockIdx.x;
    if (i < n) l[i] = m[i] - 0.5f * (i > 0 ? m[i - 1] : 0.0f);
}

__global__ void kh_step3(const float *l, float *d, int n)
{
    int i = blockIdx.x;
    if (i < n) d[i] = 2.0f * l[i];
}

void kh_threads(const float *m, float *l, float *d, int n, int threads)
{
    kh_lap3<<<n, threads>>>(m, l, n);
    kh_step3<<<n, threads>>>(l, d, n);
}

// --- a store nothing reads ---------------------------------------------------------------

__global__ void kh_diff(const float *m, float *l, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        l[tid] = m[tid] - (tid > 0 ? m[tid - 1] : m[n - 1]);
        tid += blockDim.x * gridDim.x;  // a grid-stride step with no loop around it
    }
}

__global__ void kh_add(float *acc, const float *l, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        acc[tid] += l[tid];
        tid += blockDim.x * gridDim.x;
    }
}

void kh_dead(const float *m, float *l, float *acc, int n)
{
    kh_diff<<<(n + 15) / 16, 16>>>(m, l, n);
    kh_add<<<(n + 15) / 16, 16>>>(acc, l, n);
}

// The same spelled otherwise: 2-D, an increment and a plain assignment, a local of its own.
__global__ void kh_grad2(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int steps = 0;
    if (x < w && y < h) {
        out[y * w + x] = in[y * w + x] - in[y * w + (x > 0 ? x - 1 : x)];
        ++x;
        y = y + gridDim.y * blockDim.y;
        steps = gridDim.x;
    }
}

__global__ void kh_abs2(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float v = in[y * w + x];
        out[y * w + x] = v < 0.0f ? -v : v;
        x += blockDim.x * gridDim.x;
    }
}

void kh_dead_2d(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(8, 4);
    dim3 grid((w + 7) / 8, (h + 3) / 4);
    kh_grad2<<<grid, block>>>(in, t, w, h);
    kh_abs2<<<grid, block>>>(t, out, w, h);
}

// Refused: the moved index IS read again (each thread stores a second element there).
__global__ void kh_twice(const float *m, float *l, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        l[tid] = 2.0f * m[tid];
        tid += blockDim.x * gridDim.x;
        if (tid < n) l[tid] = 3.0f * m[tid];
    }
}

void kh_live(const float *m, float *l, float *acc, int n)
{
    kh_twice<<<(n + 31) / 64, 32>>>(m, l, n);
    kh_add<<<(n + 15) / 16, 16>>>(acc, l, n);
}

// Kept: a reference reads the moved index again.
__global__ void kh_alias(const float *m, float *l, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int &at = tid;
    if (tid < n) {
        l[tid] = 2.0f * m[tid];
        tid += blockDim.x * gridDim.x;
        if (at < n) l[at] = 3.0f * m[at];
    }
}

void kh_aliased(const float *m, float *l, float *acc, int n)
{
    kh_alias<<<(n + 31) / 64, 32>>>(m, l, n);
    kh_add<<<(n + 15) / 16, 16>>>(acc, l, n);
}
