// Kernel templates declared here, defined in template_styles.cu (a header of prototypes).
#pragma once

template <typename T> __global__ void offset_k(const T *in, T *out, T by, int n);
template <typename T, int STRIDE = 1> __global__ void twice_k(const T *in, T *out, int n);
template <typename T> __device__ T cube(T v);
