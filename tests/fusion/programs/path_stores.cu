// Stores read by the paths that run them. Producers that store their element and then
// return (a zero border, a mask, llm.c's causal mask: `if (t2 > t) { preatt[idx] =
// -INFINITY; return; }`), or return before storing anything: on every path one store at most
// runs, so the element's value is that store's, or what memory held where none ran. And
// channels stored in the branches of an if/else, each channel once whichever branch runs.

// 2D, a zero border stored then left: the interior's gradient after it.
__global__ void grad(const float *in, float *g, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        g[y * w + x] = 0.0f;
        return;
    }
    float gx = in[y * w + x + 1] - in[y * w + x - 1];
    float gy = in[(y + 1) * w + x] - in[(y - 1) * w + x];
    g[y * w + x] = gx * gx + gy * gy;
}

// Reads the gradient at clamped neighbours.
__global__ void smooth(const float *g, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
        out[y * w + x] = 0.25f * g[y * w + xl] + 0.5f * g[y * w + x] + 0.25f * g[y * w + xr];
    }
}

// 1D, two exits in a row each storing its own value, then the general case.
__global__ void clip(const float *in, float *t, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) {
        float v = in[i];
        if (v < 0.2f) { t[i] = -1.0f; return; }
        if (v > 0.8f) {
            t[i] = 1.0f;
            return;
        }
        t[i] = v * v * v;
    }
}

__global__ void twice(const float *t, float *out, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    out[i] = 2.0f * t[i] + 1.0f;
}

// A masked element is left as memory holds it (no store on that path).
__global__ void masked(const float *in, const float *m, float *t, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    if (m[i] < 0.3f) return;
    t[i] = in[i] + m[i];
}

// Two outputs stored on the exit and after it.
__global__ void pair(const float *in, float *a, float *b, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const int i = y * w + x;
    if (in[i] > 0.7f) {
        a[i] = 1.0f;
        b[i] = -1.0f;
        return;
    } else {
        a[i] = in[i] * 0.5f;
    }
    b[i] = in[i] - 1.0f;
}

__global__ void sum2(const float *a, const float *b, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = a[y * w + x] * 3.0f + b[y * w + x];
}

// The store on the exit path and one after an if that does not always leave: a path
// (c && !d) stores twice, the later store's value counts. Refused.
__global__ void both(const float *in, float *t, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    if (in[i] > 0.3f) {
        if (in[i] > 0.6f) {
            t[i] = 0.0f;
            return;
        }
        t[i] = 1.0f;
    }
    t[i] = in[i];
}

// Interleaved channels, each branch of an if / else if / else storing all three (in its
// own order).
__global__ void tint(const float *in, const float *m, float *rgb, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (m[i] > 0.6f) {
        rgb[i * 3 + 0] = in[i];
        rgb[i * 3 + 1] = in[i] * 0.5f;
        rgb[i * 3 + 2] = 1.0f - in[i];
    } else if (m[i] < 0.3f) {
        rgb[i * 3 + 2] = 0.25f;
        rgb[i * 3 + 0] = -in[i];
        rgb[i * 3 + 1] = m[i];
    } else {
        rgb[3 * i] = 0.0f;
        rgb[3 * i + 1] = 0.0f;
        rgb[3 * i + 2] = in[i] + m[i];
    }
}

__global__ void luma(const float *rgb, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    out[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
}

// Planar channels: the plain element (channel 0) before the if, the others in its branches.
__global__ void planes(const float *in, float *p, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        p[y * w + x] = in[y * w + x];
        if (in[y * w + x] > 0.5f) {
            p[w * h + y * w + x] = 1.0f;
            p[2 * w * h + y * w + x] = in[y * w + x] * 2.0f;
        } else {
            p[2 * w * h + y * w + x] = -1.0f;
            p[w * h + y * w + x] = 0.0f;
        }
    }
}

__global__ void mix(const float *p, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = p[y * w + x] - p[w * h + y * w + x] + 3.0f * p[2 * w * h + y * w + x];
}

// Channel 2 only where the mask holds: elsewhere memory keeps it (its function falls back
// to that channel of the element in memory).
__global__ void some(const float *in, const float *m, float *rgb, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    rgb[i * 3 + 0] = in[i];
    rgb[i * 3 + 1] = m[i];
    if (m[i] > 0.0f) {
        rgb[i * 3 + 2] = in[i] * m[i];
    }
}

void p_border(const float *in, float *g, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    grad<<<grid, block>>>(in, g, w, h);
    smooth<<<grid, block>>>(g, out, w, h);
}

void p_clip(const float *in, float *t, float *out, int w, int h)
{
    clip<<<(w * h + 127) / 128, 128>>>(in, t, w, h);
    twice<<<(w * h + 127) / 128, 128>>>(t, out, w, h);
}

void p_masked(const float *in, const float *m, float *t, float *out, int w, int h)
{
    masked<<<(w * h + 127) / 128, 128>>>(in, m, t, w, h);
    twice<<<(w * h + 127) / 128, 128>>>(t, out, w, h);
}

void p_pair(const float *in, float *a, float *b, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    pair<<<grid, block>>>(in, a, b, w, h);
    sum2<<<grid, block>>>(a, b, out, w, h);
}

void p_both(const float *in, float *t, float *out, int w, int h)
{
    both<<<(w * h + 127) / 128, 128>>>(in, t, w, h);
    twice<<<(w * h + 127) / 128, 128>>>(t, out, w, h);
}

void p_tint(const float *in, const float *m, float *rgb, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    tint<<<grid, block>>>(in, m, rgb, w, h);
    luma<<<grid, block>>>(rgb, out, w, h);
}

void p_planes(const float *in, float *p, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    planes<<<grid, block>>>(in, p, w, h);
    mix<<<grid, block>>>(p, out, w, h);
}

void p_some(const float *in, const float *m, float *rgb, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    some<<<grid, block>>>(in, m, rgb, w, h);
    luma<<<grid, block>>>(rgb, out, w, h);
}
