// Channels a producer does not store on every path (issue 25: felixchu's Poisson cloning
// stores its three interleaved channels only under a mask; PolyBench's adi updates one
// channel of its row in place): where no store runs, the element's channel keeps what
// memory holds, so each channel's value function falls back to memory there.

// Interleaved RGB in 2-D: bright pixels get their red and green channels boosted, the
// others keep theirs (an if without else); blue is stored everywhere.
__global__ void boost_rgb(const float *src, float *dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int p = y * w + x;
    if (src[p * 3 + 0] + src[p * 3 + 1] > 0.5f) {
        dst[p * 3 + 0] = 2.0f * src[p * 3 + 0];
        dst[p * 3 + 1] = src[p * 3 + 1] + 0.25f;
    }
    dst[p * 3 + 2] = src[p * 3 + 2];
}

// Reads each channel at its own pixel.
__global__ void luma_rgb(const float *rgb, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int p = y * w + x;
        out[p] = 0.25f * rgb[3 * p] + 0.5f * rgb[3 * p + 1] + 0.25f * rgb[3 * p + 2];
    }
}

// Masked update of two interleaved channels, in place (each read in its own store's value),
// with an else that stores only one of them.
__global__ void masked_gain(const float *mask, float *uv, int n, float g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask[i] > 0.0f) {
        uv[2 * i] = uv[2 * i] * g;
        uv[2 * i + 1] = uv[2 * i + 1] * g + 1.0f;
    } else {
        uv[2 * i + 1] = 0.0f;
    }
}

__global__ void uv_norm(const float *uv, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = uv[2 * i] * uv[2 * i] + uv[2 * i + 1] * uv[2 * i + 1];
}

// Planar channels behind an early return on data: pixels with a zero weight keep theirs.
__global__ void weigh_planes(const float *wt, float *planes, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = wt[i];
    if (k == 0.0f) return;
    planes[i] = planes[i] / k;
    planes[n + i] = planes[n + i] / k;
}

__global__ void planes_sum(const float *planes, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = planes[i] - planes[n + i];
}

// Interleaved RGB over the whole image, and a 3x3 clamped blur of its green channel: the
// reader reads channels at other pixels, so each channel's function keeps the guard (exact
// at any pixel).
__global__ void gain_rgb(const float *src, float *dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int p = y * w + x;
        dst[3 * p] = src[3 * p] * 1.5f;
        dst[3 * p + 1] = src[3 * p + 1] - 0.25f;
        dst[3 * p + 2] = src[3 * p + 2];
    }
}

__global__ void blur_green(const float *rgb, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            s += rgb[(yy * w + xx) * 3 + 1];
        }
    out[y * w + x] = s / 9.0f + rgb[(y * w + x) * 3 + 2];
}

// felixchu's neighbour index, reassigned at the border, into interleaved pairs.
__global__ void west_diff(const float *uv, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int Wi = i - 1; if (i == 0) Wi = i;
    if (i < n) out[i] = uv[2 * i] - uv[Wi * 2 + 1];
}

// Not recomputed: channel 0 read after it was stored (its value function would read memory).
__global__ void reuse(const float *src, float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[2 * i] = src[i] * 3.0f;
        dst[2 * i + 1] = dst[2 * i] + 1.0f;
    }
}

__global__ void pair_sum(const float *d, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = d[2 * i] + d[2 * i + 1];
}

void rgb_masked(const float *src, float *rgb, float *out, int w, int h)
{
    dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
    boost_rgb<<<g, b>>>(src, rgb, w, h);
    luma_rgb<<<g, b>>>(rgb, out, w, h);
}

void uv_masked(const float *mask, float *uv, float *out, int n)
{
    masked_gain<<<(n + 127) / 128, 128>>>(mask, uv, n, 1.5f);
    uv_norm<<<(n + 127) / 128, 128>>>(uv, out, n);
}

void planes_weighed(const float *wt, float *planes, float *out, int n)
{
    weigh_planes<<<(n + 63) / 64, 64>>>(wt, planes, n);
    planes_sum<<<(n + 63) / 64, 64>>>(planes, out, n);
}

void reused(const float *src, float *d, float *out, int n)
{
    reuse<<<(n + 63) / 64, 64>>>(src, d, n);
    pair_sum<<<(n + 63) / 64, 64>>>(d, out, n);
}

void rgb_blurred(const float *src, float *rgb, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    gain_rgb<<<g, b>>>(src, rgb, w, h);
    blur_green<<<g, b>>>(rgb, out, w, h);
}

void uv_west(const float *mask, float *uv, float *out, int n)
{
    masked_gain<<<(n + 127) / 128, 128>>>(mask, uv, n, 0.5f);
    west_diff<<<(n + 127) / 128, 128>>>(uv, out, n);
}
