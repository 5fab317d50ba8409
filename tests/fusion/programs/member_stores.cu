// Stores through a member of a pointer's element (p[i].r = v, p[i].x += v, (p + i)->g = v,
// an element handed to a helper's reference parameter): each is a write of the pointer, so
// the launches after it that read the buffer depend on it (not siblings), and a kernel that
// writes part of an element is no producer a consumer could recompute.
struct px { float r; float g; };

__device__ void put(px &q, float v)
{
    q.r = v * 3.0f;
    q.g = -v;
}

__global__ void ms_paint(const float *in, px *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].r = in[i] * 2.0f;
        p[i].g = in[i] + 1.0f;
    }
}

__global__ void ms_diff(const px *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = i + 1 < n ? i + 1 : n - 1;
        out[i] = p[j].r - p[i].g;
    }
}

__global__ void ms_vpaint(const float *in, float2 *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x = in[i] * 2.0f;
        p[i].y += in[i] + 1.0f;
    }
}

__global__ void ms_vdiff(const float2 *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = i + 1 < n ? i + 1 : n - 1;
        out[i] = p[j].x - p[i].y;
    }
}

__global__ void ms_put(const float *in, px *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put(p[i], in[i]);
}

// Reads s, then 'ms_clear' overwrites a member of s: a write after read.
__global__ void ms_scale(const px *s, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = s[i].r * 2.0f + s[i].g;
}

__global__ void ms_clear(px *s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i].r = 0.0f;
}

__global__ void ms_shift(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = i + 1 < n ? i + 1 : n - 1;
        out[i] = t[j] + t[i];
    }
}

// A producer of t with a plain own-element store that also writes a member of p's element
// (directly, or through a helper's reference parameter): recomputing it in the consumer
// would lose those writes.
__global__ void ms_both(const float *in, px *p, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        (p + i)->g = in[i] - 1.0f;
        t[i] = in[i] * 4.0f;
    }
}

__global__ void ms_both_helper(const float *in, px *p, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        put(p[i], in[i]);
        t[i] = in[i] * 4.0f;
    }
}

void struct_pair(const float *in, px *p, float *out, int n)
{
    int b = 128;
    ms_paint<<<(n + b - 1) / b, b>>>(in, p, n);
    ms_diff<<<(n + b - 1) / b, b>>>(p, out, n);
}

void vector_pair(const float *in, float2 *p, float *out, int n)
{
    int b = 128;
    ms_vpaint<<<(n + b - 1) / b, b>>>(in, p, n);
    ms_vdiff<<<(n + b - 1) / b, b>>>(p, out, n);
}

void helper_pair(const float *in, px *p, float *out, int n)
{
    int b = 128;
    ms_put<<<(n + b - 1) / b, b>>>(in, p, n);
    ms_diff<<<(n + b - 1) / b, b>>>(p, out, n);
}

void write_after_read(px *s, float *t, float *out, int n)
{
    int b = 128;
    ms_scale<<<(n + b - 1) / b, b>>>(s, t, n);
    ms_clear<<<(n + b - 1) / b, b>>>(s, n);
    ms_shift<<<(n + b - 1) / b, b>>>(t, out, n);
}

void producer_member(const float *in, px *p, float *t, float *out, int n)
{
    int b = 128;
    ms_both<<<(n + b - 1) / b, b>>>(in, p, t, n);
    ms_shift<<<(n + b - 1) / b, b>>>(t, out, n);
}

void producer_helper(const float *in, px *p, float *t, float *out, int n)
{
    int b = 128;
    ms_both_helper<<<(n + b - 1) / b, b>>>(in, p, t, n);
    ms_shift<<<(n + b - 1) / b, b>>>(t, out, n);
}
