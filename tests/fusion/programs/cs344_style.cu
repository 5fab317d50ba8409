// Coordinates and pixels as the Udacity cs344 course writes them (int2 positions,
// uchar4 pixels, a blur whose filter width is a run-time argument, clamped to the image),
// and a Rodinia-style 1-D chain whose index is built from copies of the built-ins.
#define BLOCK 128

__global__ void separate(const uchar4* const rgba, int numRows, int numCols,
                         unsigned char* const red, unsigned char* const green)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  const int m = pos.y * numCols + pos.x;
  if (pos.x >= numCols || pos.y >= numRows)
  {
    return;
  }
  red[m] = rgba[m].x;
  green[m] = (unsigned char)(255 - rgba[m].y);
}

__global__ void gaussian_blur(const unsigned char* const in, unsigned char* const out,
                              int numRows, int numCols,
                              const float* const filter, const int filterWidth)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  const int m = pos.y * numCols + pos.x;
  if (pos.x >= numCols || pos.y >= numRows)
    return;
  float result = 0.f;
  for (int r = -filterWidth / 2; r <= filterWidth / 2; ++r) {
    for (int c = -filterWidth / 2; c <= filterWidth / 2; ++c) {
      int image_r = min(max(pos.y + r, 0), numRows - 1);
      int image_c = min(max(pos.x + c, 0), (int)(numCols - 1));
      float v = (float)in[image_r * numCols + image_c];
      result += v * filter[(r + filterWidth / 2) * filterWidth + c + filterWidth / 2];
    }
  }
  out[m] = (unsigned char)result;
}

__global__ void recombine(const unsigned char* const red, const unsigned char* const green,
                          uchar4* const rgba, int numRows, int numCols)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  const int m = pos.y * numCols + pos.x;
  if (pos.x >= numCols || pos.y >= numRows)
    return;
  uchar4 px = make_uchar4(red[m], green[m], 0, 255);
  rgba[pos.y * numCols + pos.x] = px;  // (the element is operator='s callee too)
}

// Clamps to another image's size: its reads may leave the image the producer wrote.
__global__ void blur_other(const unsigned char* const in, unsigned char* const out,
                           int numRows, int numCols, int otherCols, const int radius)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  if (pos.x >= numCols || pos.y >= numRows)
    return;
  int sum = 0;
  for (int c = -radius; c <= radius; ++c)
    sum += in[pos.y * numCols + min(max(pos.x + c, 0), otherCols - 1)];
  out[pos.y * numCols + pos.x] = (unsigned char)(sum / (2 * radius + 1));
}

__device__ int flat(int2 p, int cols) { int row = p.y * cols; return row + p.x; }

// The position is handed whole to a helper: left as written, and refused as a producer.
__global__ void separate_whole(const uchar4* const rgba, int numRows, int numCols,
                               unsigned char* const red, unsigned char* const green)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  if (pos.x >= numCols || pos.y >= numRows)
    return;
  red[flat(pos, numCols)] = rgba[flat(pos, numCols)].x;
  green[flat(pos, numCols)] = rgba[flat(pos, numCols)].z;
}

void your_gaussian_blur(const uchar4* d_in, uchar4* d_out, unsigned char* d_red,
                        unsigned char* d_green, unsigned char* d_redBlurred,
                        unsigned char* d_greenBlurred, const float* d_filter,
                        int filterWidth, int numRows, int numCols)
{
  const dim3 blockSize(16, 8, 1);
  const dim3 gridSize((numCols + 15) / 16, (numRows + 7) / 8, 1);
  separate<<<gridSize, blockSize>>>(d_in, numRows, numCols, d_red, d_green);
  gaussian_blur<<<gridSize, blockSize>>>(d_red, d_redBlurred, numRows, numCols, d_filter,
                                         filterWidth);
  gaussian_blur<<<gridSize, blockSize>>>(d_green, d_greenBlurred, numRows, numCols,
                                         d_filter, filterWidth);
  recombine<<<gridSize, blockSize>>>(d_redBlurred, d_greenBlurred, d_out, numRows, numCols);
}

void refused(const uchar4* d_in, unsigned char* d_red, unsigned char* d_green,
             unsigned char* d_out, int numRows, int numCols, int otherCols, int radius)
{
  const dim3 blockSize(16, 8, 1);
  const dim3 gridSize((numCols + 15) / 16, (numRows + 7) / 8, 1);
  separate_whole<<<gridSize, blockSize>>>(d_in, numRows, numCols, d_red, d_green);
  blur_other<<<gridSize, blockSize>>>(d_red, d_out, numRows, numCols, numCols, radius);
  separate<<<gridSize, blockSize>>>(d_in, numRows, numCols, d_red, d_green);
  blur_other<<<gridSize, blockSize>>>(d_green, d_out, numRows, numCols, otherCols, radius);
}

__global__ void scale(const float *in, float *out, int n, float k)
{
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int i = bx * BLOCK + tx;
  if (i < n)
    out[i] = in[i] * k;
}

__global__ void smooth(const float *in, float *out, int n)
{
  int tx = threadIdx.x, bx = blockIdx.x;
  int i = bx * BLOCK + tx;
  if (i >= n) return;
  float left = in[i > 0 ? i - 1 : 0];
  float right = in[i < n - 1 ? i + 1 : n - 1];
  out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}

void rodinia_chain(const float *d_in, float *d_tmp, float *d_out, int n, float k)
{
  int blocks = n / BLOCK;
  if (n % BLOCK != 0)
    blocks = blocks + 1;
  scale<<<blocks, BLOCK>>>(d_in, d_tmp, n, k);
  smooth<<<blocks, BLOCK>>>(d_tmp, d_out, n);
}

// The older SDK spelling: members of a dim3 set one by one, a block count rounded up after.
void sdk_chain(const float *d_in, float *d_tmp, float *d_out, int n, float k)
{
  dim3 threads;
  dim3 grid;
  int bx;
  threads.x = BLOCK;
  bx = n / threads.x;
  if (n % threads.x) bx++;
  grid.x = bx;
  scale<<<grid, threads>>>(d_in, d_tmp, n, k);
  smooth<<<grid, threads>>>(d_tmp, d_out, n);
}

// Rounded up on a flag: its value is settled, but not shown to cover the elements.
void unsettled_chain(const float *d_in, float *d_tmp, float *d_out, int n, float k, int flag)
{
  int blocks = n / BLOCK;
  if (flag)
    blocks = blocks + 1;
  scale<<<blocks, BLOCK>>>(d_in, d_tmp, n, k);
  smooth<<<blocks, BLOCK>>>(d_tmp, d_out, n);
}

// Launched before its block count is rounded up: that launch misses the last elements.
void early_read_chain(const float *d_in, float *d_tmp, float *d_out, int n, float k)
{
  int blocks = n / BLOCK;
  scale<<<blocks, BLOCK>>>(d_in, d_tmp, n, k);
  if (n % BLOCK != 0)
    blocks++;
  smooth<<<blocks, BLOCK>>>(d_tmp, d_out, n);
}
