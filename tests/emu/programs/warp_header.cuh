// Warp reductions written as helpers of an included header, as ggml's common.cuh writes them:
// the kernels of warp_header.cu reach __shfl_*_sync only through these.
#pragma once

#define WARP_SIZE 32

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, WARP_SIZE);
    }
    return x;
}

static __device__ __forceinline__ int warp_reduce_sum(int x) {
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, WARP_SIZE);
    }
    return x;
}

// Two levels of templates: the collective is in the inner one.
template <int width>
__device__ __forceinline__ int lane_sum(int x) {
    for (int offset = width / 2; offset > 0; offset >>= 1) {
        x += __shfl_down_sync(0xffffffffu, x, offset, width);
    }
    return x;
}

template <typename T>
__device__ T segment_sum(T v) {
    return (T)lane_sum<16>((int)v);
}

// A macro that expands to a call of an inline helper.
#define WARP_MAX(v) warp_max_impl(v)

inline __device__ float warp_max_impl(float v) {
    for (int o = WARP_SIZE / 2; o > 0; o /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    }
    return v;
}
