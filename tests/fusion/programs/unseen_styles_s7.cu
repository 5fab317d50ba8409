// Pipelines in host and kernel styles our other programs do not have (issue 25): kernels
// in a namespace and static in an anonymous one, templates instantiated at the launch, a
// dim3 from a helper, `__restrict__` everywhere, a 3-D grid over a volume, uchar4 / float2
// / __half elements, cudaLaunchKernel with an argument array, a stream created and passed,
// a CUDA graph captured around the launches, cudaMallocAsync/cudaFreeAsync between them, a
// kernel bound held in a local of the kernel, cudaPeekAtLastError after every launch, and
// pointers in a std::vector set once (followed) or from a helper (not followed). Each
// entry is `entry(<in>, <t>, [<u>,] <out>, int w, int h)` (a volume's adds `int d`).
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

// ---- kernels in a namespace, launched by qualified name ----------------------------------
namespace img {
__global__ void brighten(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    t[y * w + x] = in[y * w + x] * 1.5f + 0.25f;
}

__global__ void box3(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int d = -1; d <= 1; ++d)
        s += t[y * w + min(max(x + d, 0), w - 1)];
    out[y * w + x] = s * (1.f / 3.f);
}
}  // namespace img

void p_namespace(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b>>>(in, t, w, h);
    img::box3<<<g, b>>>(t, out, w, h);
}

// ---- static kernels in an anonymous namespace (nvcc refuses static member kernels) --------
namespace {
static __global__ void square(const float *in, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = in[i] * in[i];
}

static __global__ void plus_one(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t[i] + 1.0f;
}
}  // namespace

void p_static_anon(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    square<<<(n + 127) / 128, 128>>>(in, t, n);
    plus_one<<<(n + 127) / 128, 128>>>(t, out, n);
}

// ---- templates instantiated at the launch ------------------------------------------------
template <typename T, int R>
__global__ void blur_t(const T *in, T *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    T s = 0;
    for (int d = -R; d <= R; ++d)
        s += in[min(max(y + d, 0), h - 1) * w + x];
    out[y * w + x] = s / (2 * R + 1);
}

template <typename T>
__global__ void scale_t(const T *in, T *out, T k, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = in[y * w + x] * k;
}

void p_template(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    scale_t<float><<<g, b>>>(in, t, 0.75f, w, h);
    blur_t<float, 2><<<g, b>>>(t, out, w, h);
}

// ---- a dim3 built by a helper function ---------------------------------------------------
static dim3 grid_for(int w, int h, dim3 block)
{
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

__global__ void invert(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) t[y * w + x] = 1.0f - in[y * w + x];
}

__global__ void diff_x(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = t[y * w + min(x + 1, w - 1)] - t[y * w + x];
}

void p_dim3_helper(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(8, 8);
    dim3 grid = grid_for(w, h, block);
    invert<<<grid, block>>>(in, t, w, h);
    diff_x<<<grid, block>>>(t, out, w, h);
}

// ---- __restrict__ const everywhere -------------------------------------------------------
__global__ void axpb(const float *__restrict__ const in, float *__restrict__ const t,
                     const int w, const int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    t[y * w + x] = 2.0f * in[y * w + x] - 1.0f;
}

__global__ void cross5(const float *__restrict__ const t, float *__restrict__ const out,
                       const int w, const int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    const int i = y * w + x;
    out[i] = t[i] + t[i - 1] + t[i + 1] + t[i - w] + t[i + w];
}

void p_restrict(const float *__restrict__ in, float *__restrict__ t, float *__restrict__ out,
                int w, int h)
{
    const dim3 b(16, 16);
    const dim3 g((w + b.x - 1) / b.x, (h + b.y - 1) / b.y);
    axpb<<<g, b>>>(in, t, w, h);
    cross5<<<g, b>>>(t, out, w, h);
}

// ---- a 3-D grid over a volume ------------------------------------------------------------
__global__ void vol_scale(const float *in, float *t, int w, int h, int d)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= w || y >= h || z >= d) return;
    int i = (z * h + y) * w + x;
    t[i] = in[i] * 0.5f;
}

__global__ void vol_add(const float *t, float *out, int w, int h, int d)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= w || y >= h || z >= d) return;
    int i = (z * h + y) * w + x;
    out[i] = t[i] + 3.0f;
}

void p_volume(const float *in, float *t, float *out, int w, int h, int d)
{
    dim3 b(8, 8, 4), g((w + 7) / 8, (h + 7) / 8, (d + 3) / 4);
    vol_scale<<<g, b>>>(in, t, w, h, d);
    vol_add<<<g, b>>>(t, out, w, h, d);
}

// ---- uchar4 pixels -----------------------------------------------------------------------
__global__ void to_gray(const uchar4 *in, unsigned char *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = in[y * w + x];
    t[y * w + x] = (unsigned char)((p.x * 77 + p.y * 150 + p.z * 29) >> 8);
}

__global__ void threshold(const unsigned char *t, uchar4 *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned char v = t[y * w + x] > 100 ? 255 : 0;
    out[y * w + x] = make_uchar4(v, v, v, 255);
}

void p_uchar4(const uchar4 *in, unsigned char *t, uchar4 *out, int w, int h)
{
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    to_gray<<<g, b>>>(in, t, w, h);
    threshold<<<g, b>>>(t, out, w, h);
}

// ---- float2 (complex) elements -----------------------------------------------------------
__global__ void cmul(const float2 *in, float2 *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 a = in[i];
    t[i] = make_float2(a.x * a.x - a.y * a.y, 2.0f * a.x * a.y);
}

__global__ void cabs2(const float2 *t, float2 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 a = t[i];
    out[i] = make_float2(a.x * a.x + a.y * a.y, 0.0f);
}

void p_float2(const float2 *in, float2 *t, float2 *out, int w, int h)
{
    int n = w * h;
    cmul<<<(n + 255) / 256, 256>>>(in, t, n);
    cabs2<<<(n + 255) / 256, 256>>>(t, out, n);
}

// ---- __half elements ---------------------------------------------------------------------
__global__ void h_scale(const __half *in, __half *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = __hmul(in[i], __float2half(0.5f));
}

__global__ void h_relu(const __half *t, __half *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __hgt(t[i], __float2half(0.0f)) ? t[i] : __float2half(0.0f);
}

void p_half(const __half *in, __half *t, __half *out, int w, int h)
{
    int n = w * h;
    h_scale<<<(n + 255) / 256, 256>>>(in, t, n);
    h_relu<<<(n + 255) / 256, 256>>>(t, out, n);
}

// ---- cudaLaunchKernel with an argument array ---------------------------------------------
__global__ void lk_square(const float *in, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = in[i] * in[i];
}

__global__ void lk_half(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t[i] * 0.5f;
}

void p_launch_kernel(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    dim3 b(128), g((n + 127) / 128);
    void *args1[] = {(void *)&in, (void *)&t, (void *)&n};
    CHECK(cudaLaunchKernel((const void *)lk_square, g, b, args1, 0, 0));
    void *args2[] = {(void *)&t, (void *)&out, (void *)&n};
    CHECK(cudaLaunchKernel((const void *)lk_half, g, b, args2, 0, 0));
}

// ---- a stream created, used and destroyed ------------------------------------------------
void p_stream(const float *in, float *t, float *out, int w, int h)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b, 0, s>>>(in, t, w, h);
    img::box3<<<g, b, 0, s>>>(t, out, w, h);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
}

// ---- a CUDA graph captured around the launches -------------------------------------------
void p_graph(const float *in, float *t, float *out, int w, int h)
{
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamCreate(&s));
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    img::brighten<<<g, b, 0, s>>>(in, t, w, h);
    img::box3<<<g, b, 0, s>>>(t, out, w, h);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s));
}

// ---- stream-ordered allocation between the launches --------------------------------------
__global__ void add_both(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

void p_malloc_async(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h;
    cudaStream_t s = 0;
    square<<<(n + 255) / 256, 256, 0, s>>>(in, t, n);
    float *scratch;
    CHECK(cudaMallocAsync((void **)&scratch, n * sizeof(float), s));
    CHECK(cudaMemsetAsync(scratch, 0, n * sizeof(float), s));
    add_both<<<(n + 255) / 256, 256, 0, s>>>(t, scratch, out, n);
    CHECK(cudaFreeAsync(scratch, s));
    CHECK(cudaStreamSynchronize(s));
}

// ---- the kernel's bound held in a local of the kernel ------------------------------------
__global__ void local_bound_scale(const float *in, float *t, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = w * h;
    if (i >= total) return;
    t[i] = in[i] * 3.0f;
}

__global__ void local_bound_shift(const float *t, float *out, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int total = w * h;
    if (i < total) out[i] = t[i] - 2.0f;
}

void p_local_bound(const float *in, float *t, float *out, int w, int h)
{
    int total_threads = w * h;
    int num_blocks = (total_threads + 63) / 64;
    local_bound_scale<<<num_blocks, 64>>>(in, t, w, h);
    local_bound_shift<<<num_blocks, 64>>>(t, out, w, h);
}

// ---- cudaPeekAtLastError after every launch ----------------------------------------------
void p_peek(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
    img::brighten<<<g, b>>>(in, t, w, h);
    CHECK(cudaPeekAtLastError());
    img::box3<<<g, b>>>(t, out, w, h);
    CHECK(cudaPeekAtLastError());
    CHECK(cudaDeviceSynchronize());
}

// ---- pointers held in a std::vector, or returned by a helper ----------------------------
// The middle launch reads `t` through bufs[0]: fusing the first and last launches around it
// (the fused kernel runs at the last one) would let it read `t` before the first launch
// wrote it. bufs, set once, is followed (all three fuse); a helper's result is not, and
// its launch splits its sequence.
void p_vector(const float *in, float *t, float *u, float *out, int w, int h)
{
    std::vector<float *> bufs = {t, u};
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b>>>(in, t, w, h);
    invert<<<g, b>>>(bufs[0], bufs[1], w, h);
    img::box3<<<g, b>>>(t, out, w, h);
}

static float *pick(float *a, float *b, int second) { return second ? b : a; }

void p_pick(const float *in, float *t, float *u, float *out, int w, int h)
{
    float *p = pick(t, u, 0);
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b>>>(in, t, w, h);
    invert<<<g, b>>>(p, u, w, h);
    img::box3<<<g, b>>>(t, out, w, h);
}

// ---- buffers from allocating helpers ------------------------------------------------------
// A helper that returns memory it allocated gives a buffer of its own at each call; one
// that returns a static buffer gives the same one each time (`t` and `t2` below alias), so
// the launch given `t2` splits the sequence.
static float *dev_alloc(int n)
{
    float *p = nullptr;
    CHECK(cudaMalloc((void **)&p, n * sizeof(float)));
    CHECK(cudaMemset(p, 0, n * sizeof(float)));
    return p;
}

static float *cached_buffer(int n)
{
    static float *buf = nullptr;
    if (!buf) CHECK(cudaMalloc((void **)&buf, 4096 * sizeof(float)));
    return n <= 4096 ? buf : nullptr;
}

void p_helper_alloc(const float *in, float *out, int w, int h)
{
    float *t = dev_alloc(w * h);
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b>>>(in, t, w, h);
    img::box3<<<g, b>>>(t, out, w, h);
    CHECK(cudaFree(t));
}

void p_static_buffer(const float *in, float *u, float *out, int w, int h)
{
    float *t = cached_buffer(w * h);
    float *t2 = cached_buffer(w * h);
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    img::brighten<<<g, b>>>(in, t, w, h);
    invert<<<g, b>>>(t2, u, w, h);
    img::box3<<<g, b>>>(t, out, w, h);
}
