// Kernels whose own element is spelled through locals: what they store is read by
// evaluating the index, not by its text (issue 25). Written for cudafuse's tests in the
// style of course code (cs344, PolyBench): coordinates copied into locals, row offsets
// computed once, the terms in another order.
#include <cuda_runtime.h>

// A channel split: the element through copies of the coordinates.
__global__ void ef_split(const float *rgb, float *red, float *green, int numRows, int numCols) {
  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                           blockIdx.y * blockDim.y + threadIdx.y);
  if (p.y >= numRows || p.x >= numCols) return;
  int r = p.y;
  int c = p.x;
  red[r * numCols + c] = rgb[3 * (r * numCols + c)];
  green[c + numCols * r] = rgb[3 * (r * numCols + c) + 1];
}

// A 3x3 box read through clamped copies of the coordinates, stored at a row offset.
__global__ void ef_box(const float *in, float *out, int numRows, int numCols, int filterWidth) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= numCols || row >= numRows) return;
  int ci = row;
  int cj = col;
  const int half = filterWidth / 2;
  float acc = 0.f;
  for (int i = 0; i < filterWidth; i++) {
    int ri = min(numRows - 1, max(0, ci + i - half));
    for (int j = 0; j < filterWidth; j++) {
      int rj = min(numCols - 1, max(0, cj + j - half));
      acc += in[ri * numCols + rj];
    }
  }
  const int rowStart = ci * numCols;
  out[rowStart + cj] = acc / (filterWidth * filterWidth);
}

__global__ void ef_mix(const float *a, const float *b, float *out, int numRows, int numCols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= numCols || y >= numRows) return;
  out[y * numCols + x] = 0.75f * a[y * numCols + x] + 0.25f * b[y * numCols + x];
}

// Its index local is reassigned on some threads: the value it was declared with is not
// the element stored, so it is no producer (refused, with why).
__global__ void ef_moved(const float *in, float *out, int numRows, int numCols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= numCols || y >= numRows) return;
  int at = y * numCols + x;
  if (x == 0) at = y * numCols + numCols - 1;
  out[at] = in[y * numCols + x] * 2.f;
}

// Coordinates written with the 24-bit multiply of older CUDA code: the expression evaluates
// to blockIdx.x * blockDim.x + threadIdx.x, so it is the thread's coordinate.
__global__ void ef_scale24(const float *in, float *t, int n) {
  const int i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n) t[i] = 3.f * in[i] - 1.f;
}

__global__ void ef_shift24(const float *t, float *out, int n) {
  const int i = threadIdx.x + __mul24(blockDim.x, blockIdx.x);
  if (i >= n) return;
  out[i] = t[min(i + 1, n - 1)] - t[i];
}

extern "C" void ef_mul24(const float *in, float *t, float *out, int n) {
  ef_scale24<<<(n + 63) / 64, 64>>>(in, t, n);
  ef_shift24<<<(n + 63) / 64, 64>>>(t, out, n);
}

// A kernel that swaps its own copies of two pointers (course code): it touches no memory,
// so the launches around it fuse across it (it is still launched, in its place).
__global__ void ef_swap(const float *lhs, const float *rhs) {
  const float *temp;
  temp = lhs;
  lhs = rhs;
  rhs = temp;
}

extern "C" void ef_swapped(const float *in, float *t, float *other, float *out, int n) {
  ef_scale24<<<(n + 63) / 64, 64>>>(in, t, n);
  ef_swap<<<1, 1>>>(t, other);
  ef_shift24<<<(n + 63) / 64, 64>>>(t, out, n);
}

extern "C" void ef_copies(const float *rgb, float *red, float *green, float *blurred,
                          float *out, int numRows, int numCols, int filterWidth) {
  const dim3 block(16, 8);
  const dim3 grid((numCols + 15) / 16, (numRows + 7) / 8);
  ef_split<<<grid, block>>>(rgb, red, green, numRows, numCols);
  ef_box<<<grid, block>>>(red, blurred, numRows, numCols, filterWidth);
  ef_mix<<<grid, block>>>(blurred, green, out, numRows, numCols);
}

extern "C" void ef_reassigned(const float *in, float *t, float *out, int numRows, int numCols) {
  const dim3 block(16, 8);
  const dim3 grid((numCols + 15) / 16, (numRows + 7) / 8);
  ef_moved<<<grid, block>>>(in, t, numRows, numCols);
  ef_mix<<<grid, block>>>(t, in, out, numRows, numCols);
}
