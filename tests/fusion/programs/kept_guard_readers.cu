// A 1-D producer over rows * cols (or fewer) read by a 2-D consumer that writes only the
// interior (cs344 Poisson blending's mask, then its interior/border split), in the course's
// style: `dim3 gridSize = (n + B - 1) / B;`, then a 2-D launch over the same image.
#include <cuda_runtime.h>

__global__ void get_mask(const float *const src, float *const mask, int size) {
  int id = threadIdx.x + blockDim.x * blockIdx.x;
  if (id >= size) {
    return;
  }
  mask[id] = (src[id] < 0.5f) ? 1.0f : 0.0f;
}

__global__ void region(const float *const mask, float *const border, float *const inner,
                       int numRow, int numCol) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if (x < 1 || x > numCol - 2 || y < 1 || y > numRow - 2) {
    return;
  }
  int id = x + y * numCol;
  if (mask[id] != 0.0f) {
    if (mask[(x - 1) + y * numCol] != 0.0f && mask[(x + 1) + y * numCol] != 0.0f &&
        mask[x + (y - 1) * numCol] != 0.0f && mask[x + (y + 1) * numCol] != 0.0f) {
      border[id] = 0.0f;
      inner[id] = 1.0f;
    } else {
      border[id] = 1.0f;
      inner[id] = 0.0f;
    }
  } else {
    border[id] = 0.0f;
    inner[id] = 0.0f;
  }
}

// The whole image masked, then its interior split.
void p_mask(const float *src, float *mask, float *border, float *inner, int rows, int cols) {
  int size = rows * cols;
  dim3 blockSize = 128;
  dim3 gridSize = (size + 128 - 1) / 128;
  get_mask<<<gridSize, blockSize>>>(src, mask, size);
  blockSize = dim3(8, 8);
  gridSize = dim3((cols + 8 - 1) / 8, (rows + 8 - 1) / 8);
  region<<<gridSize, blockSize>>>(mask, border, inner, rows, cols);
}

// Only the first rows * cols - (cols + 1) / 2 elements masked: the rest keeps what memory holds,
// and the consumer's reads of it must see that, not the mask's formula.
void p_short(const float *src, float *mask, float *border, float *inner, int rows, int cols) {
  int size = rows * cols - (cols + 1) / 2;
  get_mask<<<(size + 63) / 64, 64>>>(src, mask, size);
  dim3 block(16, 4);
  dim3 grid((cols + 15) / 16, (rows + 3) / 4);
  region<<<grid, block>>>(mask, border, inner, rows, cols);
}

// An interior stencil read by a last kernel that stores no element of its own (the
// image's minimum and maximum, with atomics: cle3's Gaussian then min/max), its reads
// spelled through a local, `int index = y * width + x; in[index]`.
__global__ void conv_interior(const int *in, int *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= width - 1 || y < 1 || y >= height - 1)
    return;
  out[y * width + x] = in[y * width + x - 1] + 2 * in[y * width + x] - in[(y + 1) * width + x];
}

__global__ void min_max(const int *in, int width, int height, int *lo, int *hi) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int index = y * width + x;
  int pixel = in[index];
  atomicMin(lo, pixel);
  atomicMax(hi, pixel);
}

void p_minmax(const int *in, int *out, int *lo, int *hi, int rows, int cols) {
  dim3 block(8, 4);
  dim3 grid((cols + 7) / 8, (rows + 3) / 4);
  conv_interior<<<grid, block>>>(in, out, cols, rows);
  min_max<<<grid, block>>>(out, cols, rows, lo, hi);
}

// A 2-D stage read by a 1-D kernel over fewer elements than the image (n not provably
// rows * cols): the stage is recomputed at (i % cols, i / cols).
__global__ void shift2(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = 2.0f * in[y * w + x] - in[y * w + min(x + 1, w - 1)];
}

__global__ void plus1(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}

void p_flat2(const float *in, float *t, float *res, float *unused, int rows, int cols) {
  dim3 block(8, 8);
  dim3 grid((cols + 7) / 8, (rows + 7) / 8);
  shift2<<<grid, block>>>(in, t, cols, rows);
  int n = rows * cols - cols / 2;
  plus1<<<(n + 63) / 64, 64>>>(t, res, n);
}
