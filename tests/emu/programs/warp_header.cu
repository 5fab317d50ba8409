// Kernels whose warp collectives live in an included header's helpers (tests/emu/
// test_emu_header_collectives.py): the emulator must run them with fibers.
#include "warp_header.cuh"

__global__ void row_sum(const float *x, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = warp_reduce_sum(x[i]);
}

__global__ void segment_sums(const int *x, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = segment_sum<int>(x[i]);
    if (threadIdx.x % 16 == 0) {
        out[i / 16] = s;
    }
}

__global__ void row_max(const float *x, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = WARP_MAX(x[i]);
}

// The call depends on T: the front end leaves it unresolved (a name, no declaration).
template <typename T>
__device__ T reduce_any(T v) {
    return warp_reduce_sum(v);
}

__global__ void row_sum_int(const int *x, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = reduce_any<int>(x[i]);
}
