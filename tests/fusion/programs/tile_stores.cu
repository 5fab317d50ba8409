// Last kernels with overlapping tiles (no coordinates of their own) after a producer whose
// output the program still reads: the fused kernel stores it where the tiles load it
// (kernel/tile_stores.py), under a run-time check that the loads reach every element.

#define BW 16
#define BH 16

// cs344's style: an int2 position, two planes split off an uchar4 image; the blur's
// patch is BW - 2 * pad wide for a filter width passed at run time.
__global__ void split(const uchar4 *const rgba, int numRows, int numCols,
                      unsigned char *const r, unsigned char *const g)
{
  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                           blockIdx.y * blockDim.y + threadIdx.y);
  const int i = p.y * numCols + p.x;
  if (p.x >= numCols || p.y >= numRows) return;
  r[i] = rgba[i].x;
  g[i] = rgba[i].y / 2 + 7;
}

__global__ void blur(const unsigned char *const in, unsigned char *const out,
                     int numRows, int numCols, const float *const filter, const int fw)
{
  const int pad = fw / 2;
  const int pw = BW - 2 * pad;
  const int ph = BH - 2 * pad;
  __shared__ int smem[BW * BH];
  int px = blockIdx.x * pw + threadIdx.x - pad;
  int py = blockIdx.y * ph + threadIdx.y - pad;
  int cx = min(max(px, 0), numCols - 1);
  int cy = min(max(py, 0), numRows - 1);
  int idx = cy * numCols + cx;
  smem[threadIdx.y * BW + threadIdx.x] = in[idx];
  __syncthreads();
  if (threadIdx.x < pad || threadIdx.y < pad || threadIdx.x >= BW - pad ||
      threadIdx.y >= BH - pad)
    return;
  if (px >= numCols || py >= numRows)
    return;
  float s = 0.f;
  for (int x = -pad; x <= pad; x++)
    for (int y = -pad; y <= pad; y++)
      s += smem[(threadIdx.y + y) * BW + threadIdx.x + x] * filter[(y + pad) * fw + x + pad];
  out[idx] = (unsigned char)s;
}

// r and g are the caller's: both stored, g at the elements the tiles load r from.
extern "C" void planes_pipe(const uchar4 *rgba, unsigned char *r, unsigned char *g,
                            unsigned char *rb, int numRows, int numCols,
                            const float *filter, int fw)
{
  const dim3 block(BW, BH, 1);
  const dim3 grid(numCols / BW + 1, numRows / BH + 1, 1);
  split<<<grid, block>>>(rgba, numRows, numCols, r, g);
  const int pad = fw / 2;
  const dim3 tgrid(numCols / (BW - 2 * pad) + 1, numRows / (BH - 2 * pad) + 1, 1);
  blur<<<tgrid, block>>>(r, rb, numRows, numCols, filter, fw);
}

// 1-D, a window in dynamic shared memory sized at launch, the clamp written max(0, min()),
// the load inside the tile's value, the patch blockDim.x - 2 * r wide; y is read again by
// a later launch.
__global__ void level(const float *__restrict__ x, float *__restrict__ y, float gain, int n)
{
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    y[i] = gain * x[i] - 0.5f;
}

__global__ void smooth(const float *__restrict__ y, float *__restrict__ z, int n, int r)
{
  extern __shared__ float win[];
  const int span = blockDim.x - 2 * r;
  const int g = blockIdx.x * span + threadIdx.x - r;
  win[threadIdx.x] = 0.5f * y[max(0, min(g, n - 1))] + 0.25f;
  __syncthreads();
  if (threadIdx.x < r || threadIdx.x >= blockDim.x - r || g >= n)
    return;
  float acc = 0.0f;
  for (int k = -r; k <= r; ++k)
    acc += win[threadIdx.x + k];
  z[g] = acc / (2 * r + 1);
}

__global__ void twice(const float *y, float *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = 2.0f * y[i];
}

extern "C" void window_pipe(const float *x, float *z, float *w, int n, int r)
{
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  const int threads = 64;
  level<<<(n + 127) / 128, 128>>>(x, y, 1.5f, n);
  const int span = threads - 2 * r;
  smooth<<<(n + span - 1) / span, threads, threads * sizeof(float)>>>(y, z, n, r);
  twice<<<(n + 255) / 256, 256>>>(y, w, n);
  cudaFree(y);
}

// Too few tiles (n / span rounds down): the loads miss y's last elements, so the run-time
// check fails whenever span does not divide n and the original launches run.
extern "C" void short_pipe(const float *x, float *y, float *z, int n, int r)
{
  const int threads = 64;
  level<<<(n + 127) / 128, 128>>>(x, y, 1.5f, n);
  const int span = threads - 2 * r;
  smooth<<<n / span + (n < span), threads, threads * sizeof(float)>>>(y, z, n, r);
}

// Only the block's first rows load the tile: refused (no store reaches every element).
__global__ void half_tile(const float *in, float *out, int w, int h)
{
  __shared__ float t[BH][BW];
  int px = blockIdx.x * (BW - 2) + threadIdx.x - 1;
  int py = blockIdx.y * (BH - 2) + threadIdx.y - 1;
  if (threadIdx.y < BH / 2)
    t[threadIdx.y][threadIdx.x] = in[min(max(py, 0), h - 1) * w + min(max(px, 0), w - 1)];
  __syncthreads();
  if (threadIdx.x < 1 || threadIdx.y < 1 || threadIdx.x >= BW - 1 || threadIdx.y >= BH / 2 - 1)
    return;
  if (px >= w || py >= h)
    return;
  out[py * w + px] = t[threadIdx.y - 1][threadIdx.x] + t[threadIdx.y + 1][threadIdx.x];
}

__global__ void offset(const float *a, float *m, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    m[y * w + x] = a[y * w + x] + 1.0f;
}

extern "C" void half_pipe(const float *a, float *m, float *out, int w, int h)
{
  dim3 block(BW, BH), grid((w + BW - 1) / BW, (h + BH - 1) / BH);
  offset<<<grid, block>>>(a, m, w, h);
  dim3 tiles((w + BW - 3) / (BW - 2), (h + BH - 3) / (BH - 2));
  half_tile<<<tiles, block>>>(m, out, w, h);
}
