// Host helpers of one launch that also print, check errors or record an event (issue 25/27,
// session 12). Each helper's launch fuses into the next helper's launch; what else the
// helper does must still happen at its call: the fused program prints, warns and times as
// the original does. Written for cudafuse's tests.
#include <cstdio>
#include <cuda_runtime.h>

// Warns and goes on (no exit): the message is the check's only effect.
#define EF_WARN(call, where)                                                   \
  do {                                                                         \
    cudaError_t ef_e = (call);                                                 \
    if (ef_e != cudaSuccess)                                                   \
      printf("ef warning in %s: %s\n", where, cudaGetErrorName(ef_e));         \
  } while (0)

__global__ void ef_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 0.5f;
}

__global__ void ef_offset(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i] + 1.0f;
}

static int ef_blocks(int n, int b) { return (n + b - 1) / b; }

static void ef_stage_offset(const float *t, float *out, int n) {
  ef_offset<<<ef_blocks(n, 128), 128>>>(t, out, n);
}

// Prints after its launch.
static void ef_stage_print(const float *in, float *t, int n) {
  const int blocks = ef_blocks(n, 128);
  ef_scale<<<blocks, 128>>>(in, t, n);
  printf("ef_stage_print: %d blocks of 128\n", blocks);
}

void ef_printf(const float *in, float *t, float *out, int n) {
  ef_stage_print(in, t, n);
  ef_stage_offset(t, out, n);
}

// Checks the launch's status with a macro: it reports the error still pending from the
// caller's cudaSetDevice of a device that does not exist.
static void ef_stage_checked(const float *in, float *t, int n) {
  ef_scale<<<ef_blocks(n, 128), 128>>>(in, t, n);
  EF_WARN(cudaGetLastError(), "ef_stage_checked");
}

void ef_checked(const float *in, float *t, float *out, int n) {
  cudaSetDevice(7);
  ef_stage_checked(in, t, n);
  ef_stage_offset(t, out, n);
  EF_WARN(cudaGetLastError(), "ef_checked");
}

// Times its launch with events of its own and says whether it could.
static void ef_stage_timed(const float *in, float *t, int n) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  ef_scale<<<ef_blocks(n, 128), 128>>>(in, t, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = -1.0f;
  cudaError_t st = cudaEventElapsedTime(&ms, start, stop);
  printf("ef_stage_timed: %s\n", st == cudaSuccess && ms >= 0.0f ? "timed" : "not timed");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void ef_timed(const float *in, float *t, float *out, int n) {
  ef_stage_timed(in, t, n);
  ef_stage_offset(t, out, n);
}

// Computes its configuration only: its call may go with its launch.
static void ef_stage_quiet(const float *in, float *t, int n) {
  dim3 block(128), grid(ef_blocks(n, block.x));
  ef_scale<<<grid, block>>>(in, t, n);
}

void ef_quiet(const float *in, float *t, float *out, int n) {
  ef_stage_quiet(in, t, n);
  ef_stage_offset(t, out, n);
}

// A helper of another namespace, called qualified: a copy of it cannot be written at the
// call (its body's names would not mean there what they mean in it).
namespace ef_other {
static const int kThreads = 128;
void stage(const float *in, float *t, int n) {
  ef_scale<<<(n + kThreads - 1) / kThreads, kThreads>>>(in, t, n);
  printf("ef_other::stage\n");
}
}  // namespace ef_other

void ef_namespaced(const float *in, float *t, float *out, int n) {
  ef_other::stage(in, t, n);
  ef_stage_offset(t, out, n);
}

// Prints its own name: a copy of it at the call, a lambda, would print another.
static void ef_stage_named(const float *in, float *t, int n) {
  ef_scale<<<ef_blocks(n, 128), 128>>>(in, t, n);
  printf("%s: launched\n", __func__);
}

void ef_named(const float *in, float *t, float *out, int n) {
  ef_stage_named(in, t, n);
  ef_stage_offset(t, out, n);
}

// Counts its calls in a static local: a copy of it would count in a variable of its own.
static void ef_stage_counted(const float *in, float *t, int n) {
  static int ef_calls = 0;
  ef_scale<<<ef_blocks(n, 128), 128>>>(in, t, n);
  printf("ef_stage_counted: call %d\n", ++ef_calls);
}

void ef_counted(const float *in, float *t, float *out, int n) {
  ef_stage_counted(in, t, n);
  ef_stage_offset(t, out, n);
}
