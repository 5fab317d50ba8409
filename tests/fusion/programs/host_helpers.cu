// Helpers the program defines, called between the launches of a pipeline and judged by
// what their bodies touch (passes/vertical/host/effects.py): transfers, memsets, scratch
// allocations, host computation on host buffers, kernels launched on other buffers,
// error checks as templates and functions, counters passed by reference, host globals.
// Every entry fuses ka -> kb.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 0.5f;
}
__global__ void kb(const float *t, const float *aux, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * aux[i] + 1.0f;
}
__global__ void fill(float *p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + (float)i;
}

template <typename T>
void check(T err, const char *what, int line) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s at %d: %s\n", what, line, cudaGetErrorString(err));
    exit(1);
  }
}
#define CHECK(x) check((x), #x, __LINE__)

static int g_steps = 0;

void upload(float *d, const float *h, int n) {
  CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
}
void prepare(float *d, const float *h, int n) { upload(d, h, n); g_steps++; }
void halve_on_host(float *h, int n) {
  for (int i = 0; i < n; ++i) h[i] = h[i] * 0.5f;
  memset(h, 0, sizeof(float));
}
void reset(float *p, int n) {
  fill<<<(n + 63) / 64, 64>>>(p, 0.25f, n);
  fill<<<1, 1>>>(p, 3.0f, 1);
  CHECK(cudaGetLastError());
}
void scratch_round_trip(int n) {
  float *s;
  CHECK(cudaMalloc(&s, n * sizeof(float)));
  CHECK(cudaMemset(s, 0, n * sizeof(float)));
  cudaFree(s);
}
void tick(int &count) { count += 1; }
void download(float *h, const float *d, int n) {
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
}

// aux is uploaded by a helper between the launches: kb reads it after, as before.
void hh_upload_aux(const float *in, float *t, float *aux, const float *h_aux, float *out,
                   int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  prepare(aux, h_aux, n);
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
}

// Host work on a host buffer, a kernel helper on another device buffer, a scratch buffer,
// a counter by reference: none touches ka's buffers.
void hh_mixed(const float *in, float *t, const float *aux, float *out, float *other,
              float *h_work, float *h_count, int n) {
  int count = 0;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  CHECK(cudaGetLastError());
  halve_on_host(h_work, n);
  reset(other, n);
  scratch_round_trip(n);
  tick(count);
  kb<<<(n + 127) / 128, 128>>>(t, in, out, n);
  h_count[0] = (float)(count + g_steps);
}

// The helper reads back a buffer the earlier launch does not use (the previous output).
void hh_download_other(const float *in, float *t, const float *aux, float *out,
                       float *h_prev, const float *prev, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  download(h_prev, prev, n);
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
}

// Buffers allocated by a helper given their address, through two levels of helpers.
template <typename T>
void alloc_dev(T **p, int n) { CHECK(cudaMalloc((void **)p, n * sizeof(T))); }
void alloc_pair(float **a, float **b, int n) { alloc_dev(a, n); alloc_dev(b, n); }
void hh_alloc_by_address(const float *in, const float *aux, float *out, float *out2, int n) {
  float *t, *u;
  alloc_pair(&t, &u, n);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  ka<<<(n + 127) / 128, 128>>>(in, u, n);
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
  kb<<<(n + 127) / 128, 128>>>(u, aux, out2, n);
  cudaFree(t);
  cudaFree(u);
}

// Streams and events created, queried and destroyed between the launches.
void hh_streams(const float *in, float *t, const float *aux, float *out, int n) {
  cudaStream_t side;
  cudaEvent_t done;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  CHECK(cudaStreamCreate(&side));
  CHECK(cudaEventCreate(&done));
  int dev = 0;
  cudaGetDevice(&dev);
  CHECK(cudaStreamDestroy(side));
  cudaEventDestroy(done);
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
}

// The host writes (managed) memory only the later launch reads.
void hh_host_poke(const float *in, float *t, float *aux, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaDeviceSynchronize();
  aux[0] = 5.0f;
  aux[n - 1] += 1.0f;
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
}

// An output reference parameter assigned between the launches (cs344's min_logLum).
void hh_ref_out(const float *in, float *t, const float *aux, float *out, float &lo, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(&lo, aux, sizeof(float), cudaMemcpyDeviceToHost);
  lo = lo * 0.5f;
  kb<<<(n + 127) / 128, 128>>>(t, aux, out, n);
}
void hh_ref_entry(const float *in, float *t, const float *aux, float *out, float *h_lo,
                  int n) {
  float lo = 0.0f;
  hh_ref_out(in, t, aux, out, lo, n);
  h_lo[0] = lo;
}
