// Launch chevrons split by spaces, as code formatters leave them: nvcc accepts them, and so
// must the front end (clang needs them whole). A `>> >` that closes nested templates
// elsewhere is left alone.
// EXPECT-KERNEL: twice 3
// EXPECT-KERNEL: plus1 3
// EXPECT-LAUNCH: pipeline -> twice 3
// EXPECT-LAUNCH: pipeline -> plus1 3
template <class T> struct Box { T v; };
template <class T> struct Outer { Box<Box<T> > inner; };

__global__ void twice(const float *in, float *tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = 2.0f * in[i];
}

__global__ void plus1(const float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tmp[i] + 1.0f;
}

extern "C" void pipeline(const float *in, float *tmp, float *out, int n) {
  Outer<float> unused;
  (void)unused;
  twice << < (n + 127) / 128, 128 >> > (in, tmp, n);
  plus1 <<<(n + 127) / 128, dim3(128, 1) >> > (tmp, out, n);
}
