// The header of hosthelp_header.cu (issue 25, session 11): the program's kernels and host
// functions are declared here and defined in the .cu, so a call's declaration is this
// prototype; the filter taps live in constant memory, declared here too.
#pragma once
#include <cuda_runtime.h>

#define HH_TAPS 5
__constant__ float hh_taps[HH_TAPS];
__constant__ float hh_gain[2];

__global__ void hh_rows(const float *in, float *out, int w, int h);
__global__ void hh_cols(const float *in, float *out, int w, int h);
void hh_load_taps();
void hh_blur_rows(const float *in, float *out, int w, int h);
void hh_blur_cols(const float *in, float *out, int w, int h, cudaStream_t s);
void hh_separable(const float *in, float *tmp, float *out, int w, int h);
void hh_sharpen(const float *in, float *tmp, float *out, int w, int h);
void hh_pipeline(const float *in, float *tmp, float *out, int w, int h);
void hh_smooth(const float *in, float *tmp, float *out, int w, int h);
