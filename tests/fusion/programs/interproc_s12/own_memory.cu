// Host helpers that launch and also work on memory of their own (issue 25, session 12):
// scratch buffers allocated, cleared, copied and freed around their launches, host
// buffers, printing, synchronisation. Nothing they do touches the buffers the launches
// share, so the launches fuse across their calls; the refusals at the end copy the
// intermediate back to the host, or give a launch a buffer of the helper's own.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "own_stages.cuh"

static void om_stage_scale(const float *in, float *t, int n) {
  float *scratch;
  cudaMalloc(&scratch, 64 * sizeof(float));
  cudaMemset(scratch, 0, 64 * sizeof(float));
  printf("om_stage_scale: n = %d\n", n);
  os_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaDeviceSynchronize();
  cudaFree(scratch);
}

static void om_stage_offset(const float *t, float *out, int n) {
  float *h = (float *)malloc(8 * sizeof(float));
  float *d_copy;
  cudaMalloc(&d_copy, 8 * sizeof(float));
  for (int k = 0; k < 8; k++) h[k] = (float)k;
  cudaMemcpy(d_copy, h, 8 * sizeof(float), cudaMemcpyHostToDevice);
  os_offset<<<(n + 127) / 128, 128>>>(t, out, n);
  cudaMemcpy(h, d_copy, 8 * sizeof(float), cudaMemcpyDeviceToHost);
  if (h[7] != 7.0f) printf("om_stage_offset: copy lost\n");
  cudaFree(d_copy);
  free(h);
}

void om_stage_square(const float *t, float *u, int n) {
  os_square<<<(n + 127) / 128, 128>>>(t, u, n);
}

// Two levels: a helper with a scratch buffer of its own that calls helpers.
static void om_outer(const float *in, float *t, float *u, int n) {
  float *w = NULL;
  cudaMalloc((void **)&w, n * sizeof(float));
  om_stage_scale(in, t, n);
  cudaMemset(w, 0, n * sizeof(float));
  om_stage_square(t, u, n);
  cudaFree(w);
}

void om_pipeline(const float *in, float *t, float *out, int n) {
  om_stage_scale(in, t, n);
  om_stage_offset(t, out, n);
}

void om_nested(const float *in, float *t, float *u, float *out, int n) {
  om_outer(in, t, u, n);
  om_stage_offset(u, out, n);
}

// Declared in the header: timed with events, clearing a buffer of its own.
void om_scale_timed(const float *in, float *t, int n) {
  float *flags = NULL;
  cudaMalloc((void **)&flags, 16 * sizeof(float));
  cudaMemset(flags, 0, 16 * sizeof(float));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  os_scale<<<(n + 63) / 64, 64>>>(in, t, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  if (ms < 0.0f) fprintf(stderr, "om_scale_timed: %f ms\n", ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(flags);
}

void om_header(const float *in, float *t, float *out, int n) {
  om_scale_timed(in, t, n);
  om_stage_offset(t, out, n);
}

// The buffers carried in a struct taken by value: its fields are given to the helpers
// (om_struct_stages fuses; its call in om_struct is not followed: it passes fields).
struct OmBuffers {
  const float *in;
  float *t;
  float *out;
};

void om_struct_stages(OmBuffers b, int n) {
  om_stage_scale(b.in, b.t, n);
  om_stage_offset(b.t, b.out, n);
}

void om_struct(const float *in, float *t, float *out, int n) {
  OmBuffers b = {in, t, out};
  om_struct_stages(b, n);
}

// Refused: the helper copies the intermediate back to the host after its launch (a fused
// launch would run after the copy, which would then read what 't' held before).
static void om_scale_peek(const float *in, float *t, float *peek, int n) {
  os_scale<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(peek, t, n * sizeof(float), cudaMemcpyDeviceToHost);
}

void om_copy_back(const float *in, float *t, float *peek, float *out, int n) {
  om_scale_peek(in, t, peek, n);
  om_stage_offset(t, out, n);
}

// Refused: the intermediate of the helper's two launches is a buffer it allocates and frees
// itself (cle3_canny's and kltccp_pyramid's shape).
static void om_two_scratch(const float *in, float *out, int n) {
  float *s;
  cudaMalloc(&s, n * sizeof(float));
  os_scale<<<(n + 127) / 128, 128>>>(in, s, n);
  os_offset<<<(n + 127) / 128, 128>>>(s, out, n);
  cudaFree(s);
}

void om_given(const float *in, float *out, float *y, int n) {
  om_two_scratch(in, out, n);
  om_stage_square(out, y, n);
}
