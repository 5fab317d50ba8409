// Grid-stride loops written as ATen's kernels of 2019 write them (a macro for the loop),
// some of which carry state from one iteration into the next. Launched with a grid that
// covers n at their own block size, each thread runs one iteration and all are right; with
// fewer threads per block under that grid (what profiling tries for a part judged free to
// change size), a thread runs a second iteration, which starts from the first one's values.
#define GS_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// Splits each row of w values into a pair of rows (value, negated value), im2col's way:
// the loop variable is divided in place and the pointer parameters are advanced, so a
// second iteration indexes from the advanced pointers and writes past `pairs`.
__global__ void split_rows(const int n, const float *rows, const int w, float *pairs) {
  GS_LOOP(index, n) {
    int col = index % w;
    index /= w;
    pairs += (index * 2) * w + col;
    rows += index * w + col;
    pairs[0] = rows[0];
    pairs[w] = -rows[0];
  }
}

// MaxPoolForward's way: only a pointer parameter advances (to the start of a row).
__global__ void row_max(const int n, const float *x, const int w, float *out) {
  GS_LOOP(r, n) {
    x += r * w;
    float m = x[0];
    for (int j = 1; j < w; ++j) m = fmaxf(m, x[j]);
    out[r] = m;
  }
}

// A sum per thread: what each thread adds up is set by the number of threads.
__global__ void thread_sums(const float *x, float *sums, int n) {
  float acc = 0.0f;
  GS_LOOP(i, n) acc += x[i];
  sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The while form, the stride through a local: the sum is carried all the same.
__global__ void thread_sums_while(const float *x, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = blockDim.x * gridDim.x;
  float acc = 0.0f;
  while (i < n) {
    acc += x[i];
    i += stride;
  }
  sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Independent iterations: a variable set first in each iteration and read only there is
// no state; neither is the loop's own step.
__global__ void squares(const float *x, float *y, int n) {
  float v;
  GS_LOOP(i, n) {
    v = x[i];
    y[i] = v * v;
  }
}

__global__ void squares_while(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    y[i] = x[i] * x[i];
    i = i + blockDim.x * gridDim.x;
  }
}

// A helper that advances the caller's pointer through a reference: state all the same.
__device__ void step_to(const float *&p, int k) { p += k; }

__global__ void by_reference(const float *x, float *y, int n) {
  GS_LOOP(i, n) {
    step_to(x, i);
    y[i] = x[0];
  }
}

// A variable declared before the loop that an inner loop's init sets afresh: no state.
__global__ void spread4(const float *x, float *y, int n) {
  int j;
  GS_LOOP(i, n) {
    for (j = 0; j < 4; ++j) y[i * 4 + j] = x[i] + j;
  }
}
