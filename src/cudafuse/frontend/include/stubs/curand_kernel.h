/* cudafuse stand-in for curand_kernel.h: cuRAND's device API, declared for the front end
   (never compiled). Kernels that draw random numbers parse and are analysed; fusion
   treats the generator state like any other memory the kernel reads and writes. */
#pragma once
#include "curand.h"
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag, boxmuller_flag_double;
                           float boxmuller_extra; double boxmuller_extra_double; };
typedef curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;
struct curandStatePhilox4_32_10 { uint4 ctr, output; uint2 key; unsigned int STATE;
                                  int boxmuller_flag, boxmuller_flag_double;
                                  float boxmuller_extra; double boxmuller_extra_double; };
typedef curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
struct curandStateMRG32k3a { double s1[3], s2[3]; int boxmuller_flag, boxmuller_flag_double;
                             float boxmuller_extra; double boxmuller_extra_double; };
typedef curandStateMRG32k3a curandStateMRG32k3a_t;
struct curandStateMtgp32 { int offset, pIdx; unsigned int s[1024]; void *k; };
typedef curandStateMtgp32 curandStateMtgp32_t;
struct curandStateSobol32 { unsigned int i, x, c, direction_vectors[32]; };
typedef curandStateSobol32 curandStateSobol32_t;
struct curandStateScrambledSobol32 { unsigned int i, x, c, direction_vectors[32]; };
typedef curandStateScrambledSobol32 curandStateScrambledSobol32_t;
struct curandStateSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
typedef curandStateSobol64 curandStateSobol64_t;
struct curandStateScrambledSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
typedef curandStateScrambledSobol64 curandStateScrambledSobol64_t;
typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW *state);
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStatePhilox4_32_10 *state);
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateMRG32k3a *state);
__device__ void curand_init(unsigned int *direction_vectors, unsigned int offset,
                            curandStateSobol32 *state);
__device__ void curand_init(unsigned int *direction_vectors, unsigned int scramble,
                            unsigned int offset, curandStateScrambledSobol32 *state);
__device__ void curand_init(unsigned long long *direction_vectors, unsigned long long offset,
                            curandStateSobol64 *state);
template <class __cf_S> __device__ unsigned int curand(__cf_S *state);
template <class __cf_S> __device__ float curand_uniform(__cf_S *state);
template <class __cf_S> __device__ double curand_uniform_double(__cf_S *state);
template <class __cf_S> __device__ float curand_normal(__cf_S *state);
template <class __cf_S> __device__ double curand_normal_double(__cf_S *state);
template <class __cf_S> __device__ float2 curand_normal2(__cf_S *state);
template <class __cf_S> __device__ double2 curand_normal2_double(__cf_S *state);
template <class __cf_S> __device__ float curand_log_normal(__cf_S *state, float mean, float stddev);
template <class __cf_S> __device__ double curand_log_normal_double(__cf_S *state, double mean,
                                                              double stddev);
template <class __cf_S> __device__ unsigned int curand_poisson(__cf_S *state, double lambda);
__device__ uint4 curand4(curandStatePhilox4_32_10 *state);
__device__ float4 curand_uniform4(curandStatePhilox4_32_10 *state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10 *state);
__device__ double2 curand_uniform2_double(curandStatePhilox4_32_10 *state);
__device__ void skipahead(unsigned long long n, curandStateXORWOW *state);
__device__ void skipahead_sequence(unsigned long long n, curandStateXORWOW *state);
