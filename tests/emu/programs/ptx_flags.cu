// Flags between blocks through ld.acquire / st.release PTX, written as in multi-block
// barrier code: inside a struct's member functions (which the front end does not lower) and
// in a free function, one asm with its operands not separated by a comma (nvcc takes it).
#include <cuda_runtime.h>

struct Flags {
  unsigned char *flags;

  __device__ unsigned char get(int i) const {
    unsigned int r;
    asm volatile("ld.acquire.gpu.global.u8 %0, [%1];" : "=r"(r) : "l"(flags + i) : "memory");
    return (unsigned char)r;
  }

  __device__ void put(int i, unsigned char v) const {
    unsigned int r = v;
    asm volatile("st.release.gpu.global.u8 [%1], %0;" ::"r"(r) "l"(flags + i) : "memory");
  }
};

__device__ unsigned int load_word(const unsigned int *p) {
  unsigned int r;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}

__global__ void mark_then_read(unsigned char *flags, const unsigned int *words,
                               unsigned int *out, int n) {
  Flags f{flags};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    f.put(i, (unsigned char)(i * 7 + 1));
    out[i] = f.get(i) + load_word(words + i);
  }
}
