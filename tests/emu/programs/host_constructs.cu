// Host code of the shapes third-party programs write around their kernels: accessors
// returning references, rvalue references, overloads, a name libm also declares, default
// arguments, templates and lambdas, a parameter no bytes can make, and main() with exit().
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime.h>

struct DeviceFloatBuffer { float *data; int count; };
struct Pixel { unsigned char r, g, b, a; };
struct Pinned {  // neither copyable nor movable: no trampoline can pass it by value
  Pinned() = default;
  Pinned(const Pinned &) = delete;
  Pinned(Pinned &&) = delete;
  int v = 0;
};

static bool g_verbose = false;
static DeviceFloatBuffer g_buffer = {nullptr, 0};
static float g_gain = 1.5f;

bool &verbose() { return g_verbose; }
DeviceFloatBuffer &buffer() { return g_buffer; }
const float &gain() { return g_gain; }
std::string label() { return "blur"; }          // not plain data: computed, not returned
std::vector<int> sizes() { return {1, 2, 3}; }

int bump(int &x) { x += 1; return x; }
int sink(int &&x) { return x * 2; }
float consume(std::vector<float> &&v) { return v.empty() ? 0.0f : v[0]; }
int pinned_value(Pinned p) { return p.v; }

int scale(int a) { return a * 10; }
float scale(float a) { return a * 0.5f; }
namespace img { Pixel grey(unsigned char v) { return {v, v, v, 255}; } }

double round(double x, int digits) { return std::floor(x * std::pow(10.0, digits)) / 100.0; }
int clamp_to(int v, int hi = 255) { return v > hi ? hi : v; }

template <class T> T twice(T x) { return x + x; }
auto offset = [](int x) { return x + 1; };
std::function<int(int)> tripler = [](int x) { return 3 * x; };

__global__ void scale_kernel(float *out, const float *in, float g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * g;
}

void apply_gain(float *out, const float *in, int n) {
  verbose() = true;
  buffer().data = out;
  buffer().count = n;
  scale_kernel<<<(n + 63) / 64, 64>>>(buffer().data, in, gain(), buffer().count);
}

int helpers() { return twice(2) + offset(1) + tripler(1) + clamp_to(300); }

int main(int argc, const char *argv[]) {  // const: argv converted to the declared type
  if (argc != 1 || argv[1] != nullptr) return 2;
  const int n = 100;
  float *d_in, *d_out, h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  apply_gain(d_out, d_in, n);
  cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (h[10] != 15.0f) exit(EXIT_FAILURE);
  exit(helpers() == 4 + 2 + 3 + 255 ? 0 : 3);
}
