#include <cuda_runtime.h>
// A launch inside the lambda a dispatch macro expands once per type, as PyTorch's
// AT_DISPATCH_* do: one launch in the text, listed once per expansion (test_emu_macro_launch.py).
#define DISPATCH_TYPES(t, ...)                               \
  switch (t) {                                               \
    case 0: { using scalar_t = float; __VA_ARGS__(); break; }  \
    default: { using scalar_t = double; __VA_ARGS__(); break; } \
  }
template <class T>
__global__ void fill(T *p, int n, T v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + (T)i;
}
extern "C" void run(float *out, int n, int t) {
  DISPATCH_TYPES(t, [&] {
    fill<float><<<(n + 127) / 128, 128>>>(out, n, (float)sizeof(scalar_t));
  });
}
