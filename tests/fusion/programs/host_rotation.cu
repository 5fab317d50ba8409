// Pointer variables rotated between the launches of a pipeline (issue 25, host code by
// meaning: passes/vertical/host/pointervalues.py): exchanged with std::swap, by hand through
// a temporary, by helpers of the program taking pointers by address or by reference, copied
// after their declaration, chosen in an if/else, and rotated inside a time loop. Each entry
// fuses across the rotation, the fused launch naming each buffer by the variable that holds
// it there.
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define HR_BLOCK 64
#define HR_GRID(n) (((n) + HR_BLOCK - 1) / HR_BLOCK)

__global__ void hr_ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 0.5f;
}
__global__ void hr_kb(const float *t, const float *aux, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * aux[i] + 1.0f;
}
__global__ void hr_kc(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i] - 0.25f;
}

static void exchange(float **x, float **y) {
  float *t = *x;
  *x = *y;
  *y = t;
}
template <typename T>
void swap_refs(T *&x, T *&y) {
  T *t = x;
  x = y;
  y = t;
}

// std::swap between producer and consumer: the consumer reads the producer's buffer as b.
// (The rotated buffers are the caller's, so that each one's contents are compared.)
void hr_std_swap(const float *in, const float *aux, float *out, float *a, float *b, int n) {
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, a, n);
  std::swap(a, b);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(b, aux, out, n);
}

// Three stages through two buffers rotated by hand (t = cur; cur = nxt; nxt = t;).
void hr_triple(const float *in, const float *aux, float *out, float *x, float *y, int n) {
  float *cur = x, *nxt = y;
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, cur, n);
  float *t = cur;
  cur = nxt;
  nxt = t;
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(nxt, aux, cur, n);
  t = cur;
  cur = nxt;
  nxt = t;
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(nxt, out, n);
}

// A helper of the program exchanging through the addresses, one through references.
void hr_helpers(const float *in, const float *aux, float *out, float *keep, float *p,
                float *q, int n) {
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, p, n);
  exchange(&p, &q);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(q, aux, p, n);
  swap_refs(p, q);
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(q, keep, n);
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(p, out, n);
}

// A pointer given its buffer after its declaration, then moved on to another one.
void hr_assigned(const float *in, const float *aux, float *out, float *spare, float *buf,
                 int n) {
  float *p;
  p = buf;
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, p, n);
  float *src = p;
  p = spare;
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(src, aux, p, n);
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(p, out, n);
}

// Source and destination chosen together by a run-time flag: distinct either way.
void hr_select(float *u, float *v, const float *aux, int n, int flip) {
  float *tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  float *src, *dst;
  if (flip) {
    src = u;
    dst = v;
  } else {
    src = v;
    dst = u;
  }
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(src, tmp, n);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(tmp, aux, dst, n);
  cudaFree(tmp);
}

// A helper of the program pointing a variable at a buffer through its address.
static void point_at(float **p, float *q) { *p = q; }
void hr_point_at(const float *in, const float *aux, float *t, float *out, int n) {
  float *v;
  point_at(&v, t);
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, v, n);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(t, aux, out, n);
}

// p keeps the first buffer of t, which is then allocated again: two distinct buffers.
void hr_stale(const float *in, const float *aux, float *out, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  float *p = t;
  cudaMalloc(&t, n * sizeof(float));
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, p, n);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(p, aux, t, n);
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(t, out, n);
  cudaFree(p);
  cudaFree(t);
}

// A helper that allocates a buffer through the address it is given and fills it (host work
// on a std::vector of its own, a host global set): a fresh buffer for the caller.
static int g_listed = 0;
static void build_list(const float *d_src, float **d_list, int n) {
  std::vector<float2> items;
  float *h;
  cudaMallocHost(&h, n * sizeof(float));
  cudaMemcpy(h, d_src, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) items.push_back(make_float2(h[i], 1.0f));
  g_listed = (int)items.size();
  cudaMalloc(d_list, n * sizeof(float));
  for (int i = 0; i < n; ++i) h[i] = items[i].x * 0.5f + items[i].y;
  cudaMemcpy(*d_list, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaFreeHost(h);
}
void hr_alloc_fill(const float *src, const float *aux, float *t, float *out, int n) {
  float *list;
  build_list(src, &list, n);
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(list, t, n);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(t, aux, out, n);
  cudaFree(list);
}

// A helper allocating through a reference to the caller's pointer: a fresh buffer.
static void alloc_ref(float *&p, int n) { cudaMalloc(&p, n * sizeof(float)); }
void hr_alloc_ref(const float *in, const float *aux, float *out, int n) {
  float *t;
  alloc_ref(t, n);
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, t, n);
  hr_kb<<<HR_GRID(n), HR_BLOCK>>>(t, aux, out, n);
  cudaFree(t);
}

// Two independent launches with an exchange between them: siblings fused at the second,
// where the first's output is called c.
void hr_siblings(const float *in, const float *aux, float *a, float *c, float *d, int n) {
  hr_ka<<<HR_GRID(n), HR_BLOCK>>>(in, a, n);
  std::swap(a, c);
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(aux, d, n);
}

// A time loop whose body exchanges its buffers between its two launches.
void hr_loop(float *a, float *b, const float *aux, float *out, int n, int steps) {
  float *tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    hr_ka<<<HR_GRID(n), HR_BLOCK>>>(a, tmp, n);
    std::swap(a, b);
    hr_kb<<<HR_GRID(n), HR_BLOCK>>>(tmp, aux, a, n);
  }
  hr_kc<<<HR_GRID(n), HR_BLOCK>>>(a, out, n);
  cudaFree(tmp);
}
