// Whole struct elements stored member by member (issue 25, kinap's canny pixel_t; issue 31:
// a one-member struct). Each producer stores every member of its element once, so its
// element is a value a consumer can recompute; the refusals at the end each leave part of
// an element to memory, or let a read between the member stores see it half written.
#include <cstdint>

struct rgb { float red, green, blue; };         // 3 x 4 bytes, no padding
struct luma { float y; };                       // one member
struct rgba8 { uint8_t r, g, b, a; };           // 4 bytes, RGBA as a struct, not uchar4
struct padded { char tag; float v; };           // padding: a copy writes bytes stores did not

// Tone-map an RGB image, members stored in another order than declared, with locals
// computed between the stores.
__global__ void tone(const float *raw, rgb *img, int w, int h, float gain)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= w || row >= h) return;
    const int at = row * w + col;
    float v = raw[at] * gain;
    img[at].blue = v * 0.25f;
    float u = fminf(v, 1.0f);
    img[at].red = u;
    img[at].green = v - u * 0.5f;
}

// A 3x3 box over the RGB image (clamped) to a one-member luma.
__global__ void box_luma(const rgb *img, luma *out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) {
        float s = 0.0f;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int x = min(max(col + dx, 0), w - 1), y = min(max(row + dy, 0), h - 1);
                s += 0.299f * img[y * w + x].red + 0.587f * img[y * w + x].green +
                     0.114f * img[y * w + x].blue;
            }
        out[row * w + col].y = s / 9.0f;
    }
}

// A one-member struct stored in a branch of one statement, then read by a 1-D consumer.
__global__ void threshold(const luma *in, luma *mask, int n, float t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (in[i].y > t) mask[i].y = 1.0f;
    else mask[i].y = 0.0f;
}

__global__ void apply(const luma *mask, const float *raw, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mask[i].y * raw[i];
}

// RGBA bytes: members from an in-place read of the same element type, each read before
// its own member is stored (an in-place launch would read the same values).
__global__ void invert(const rgba8 *src, rgba8 *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i].r = 255 - src[i].r;
        dst[i].g = 255 - src[i].g;
        dst[i].b = 255 - src[i].b;
        dst[i].a = src[i].a;
    }
}

__global__ void gray8(const rgba8 *px, uint8_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = i > 0 ? i - 1 : 0;
        out[i] = (uint8_t)((px[i].r + px[i].g + px[i].b + px[j].a) / 4);
    }
}

// cs344 style: CUDA's uchar4 stored member by member from three planes, coordinates in an
// int2 (respelled first). The planes are __restrict__: a char pointer may otherwise alias
// the element, whose half-written bytes a read between the stores would then see.
__global__ void recombine(const unsigned char *__restrict__ red,
                          const unsigned char *__restrict__ green,
                          const unsigned char *__restrict__ blue, uchar4 *rgba, int cols,
                          int rows)
{
    const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
    if (p.x >= cols || p.y >= rows) return;
    const int at = p.y * cols + p.x;
    rgba[at].x = red[at];
    rgba[at].y = green[at];
    rgba[at].z = blue[at];
    rgba[at].w = 255;
}

__global__ void shade(const uchar4 *rgba, unsigned char *out, int cols, int rows)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) {
        uchar4 next = rgba[y * cols + min(x + 1, cols - 1)];
        out[y * cols + x] = (unsigned char)((next.x + next.y + rgba[y * cols + x].z) / 3);
    }
}

// Left as written: the same with planes that are not __restrict__.
__global__ void recombine_any(const unsigned char *red, const unsigned char *green,
                              const unsigned char *blue, uchar4 *rgba, int cols, int rows)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    rgba[y * cols + x].x = red[y * cols + x];
    rgba[y * cols + x].y = green[y * cols + x];
    rgba[y * cols + x].z = blue[y * cols + x];
    rgba[y * cols + x].w = 255;
}

// A grid-stride loop storing a mixed struct (a float and an int: no padding), its value
// from a helper.
struct tagged { float x; int tag; };

__device__ float halve(float v) { return v * 0.5f; }

__global__ void tag_all(const float *in, tagged *o, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        o[i].tag = i & 3;
        o[i].x = halve(in[i]);
    }
}

__global__ void weigh(const tagged *o, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = o[i].x * o[i].tag;
}

// Each branch of an if/else stores every member of a double pair itself.
struct cplx { double re, im; };

__global__ void to_cplx(const double *a, cplx *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (a[i] > 0) { z[i].re = a[i]; z[i].im = 0; }
    else { z[i].im = -a[i]; z[i].re = 0; }
}

__global__ void norm2(const cplx *z, double *m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i] = z[i].re * z[i].re + z[i].im * z[i].im + z[min(i + 1, n - 1)].re;
}

// Refused: a member left to memory (alpha never stored).
__global__ void no_alpha(const rgba8 *src, rgba8 *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i].r = src[i].g;
        dst[i].g = src[i].b;
        dst[i].b = src[i].r;
    }
}

// Refused: g is read through a pointer of the element type after dst's g was stored (in
// place, the original reads the new g; a copy stored at the end would not).
__global__ void swizzle(const rgba8 *src, rgba8 *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i].g = src[i].r;
        dst[i].r = src[i].g;
        dst[i].b = src[i].b;
        dst[i].a = src[i].a;
    }
}

// Refused: a struct with padding (a copy would write the padding bytes).
__global__ void tag(const float *in, padded *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].tag = 1;
        p[i].v = in[i];
    }
}

__global__ void untag(const padded *p, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p[i].v + p[i].tag;
}

void rgb_pipeline(const float *raw, rgb *img, luma *l, luma *mask, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    tone<<<g, b>>>(raw, img, w, h, 1.5f);
    box_luma<<<g, b>>>(img, l, w, h);
    int n = w * h;
    threshold<<<(n + 127) / 128, 128>>>(l, mask, n, 0.5f);
    apply<<<(n + 127) / 128, 128>>>(mask, raw, out, n);
}

void rgba_pipeline(const rgba8 *src, rgba8 *tmp, uint8_t *out, int n)
{
    invert<<<(n + 63) / 64, 64>>>(src, tmp, n);
    gray8<<<(n + 63) / 64, 64>>>(tmp, out, n);
}

void partial_pipeline(const rgba8 *src, rgba8 *tmp, uint8_t *out, int n)
{
    no_alpha<<<(n + 63) / 64, 64>>>(src, tmp, n);
    gray8<<<(n + 63) / 64, 64>>>(tmp, out, n);
}

void swizzle_pipeline(const rgba8 *src, rgba8 *tmp, uint8_t *out, int n)
{
    swizzle<<<(n + 63) / 64, 64>>>(src, tmp, n);
    gray8<<<(n + 63) / 64, 64>>>(tmp, out, n);
}

void padded_pipeline(const float *in, padded *p, float *out, int n)
{
    tag<<<(n + 63) / 64, 64>>>(in, p, n);
    untag<<<(n + 63) / 64, 64>>>(p, out, n);
}

void planes_pipeline(const unsigned char *r, const unsigned char *g, const unsigned char *b,
                     uchar4 *rgba, unsigned char *out, int numCols, int numRows)
{
    dim3 block(16, 16), grid((numCols + 15) / 16, (numRows + 15) / 16);
    recombine<<<grid, block>>>(r, g, b, rgba, numCols, numRows);
    shade<<<grid, block>>>(rgba, out, numCols, numRows);
}

void planes_any_pipeline(const unsigned char *r, const unsigned char *g,
                         const unsigned char *b, uchar4 *rgba, unsigned char *out,
                         int numCols, int numRows)
{
    dim3 block(16, 16), grid((numCols + 15) / 16, (numRows + 15) / 16);
    recombine_any<<<grid, block>>>(r, g, b, rgba, numCols, numRows);
    shade<<<grid, block>>>(rgba, out, numCols, numRows);
}

void tagged_pipeline(const float *in, tagged *q, float *out, int n)
{
    tag_all<<<(n + 255) / 256, 256>>>(in, q, n);
    weigh<<<(n + 255) / 256, 256>>>(q, out, n);
}

void cplx_pipeline(const double *a, cplx *z, double *m, int n)
{
    to_cplx<<<(n + 255) / 256, 256>>>(a, z, n);
    norm2<<<(n + 255) / 256, 256>>>(z, m, n);
}
