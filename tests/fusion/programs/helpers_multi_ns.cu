// One-launch host wrappers declared in namespaces and called from elsewhere: unqualified
// through `using namespace img;`, through a namespace alias (`im::blur`), from a reopened
// `namespace img`, from the global namespace into a nested one (`detail::lift`, found
// through the using-directive) and into an anonymous namespace. The wrappers name what
// their namespace declares unqualified (`threads`, `rows`): a global `threads` of another
// value makes that name ambiguous outside `img`, so a copy of a wrapper must be written
// in the wrapper's own namespace to mean what the wrapper means.
#include <cuda_runtime.h>

namespace img {
const int threads = 64;
const int rows = 4;

__global__ void ns_blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = x > 0 ? x - 1 : 0, r = x < w - 1 ? x + 1 : w - 1;
  out[y * w + x] = 0.25f * in[y * w + l] + 0.5f * in[y * w + x] + 0.25f * in[y * w + r];
}

__global__ void ns_sharpen(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 1.5f * in[y * w + x] - 0.25f;
}

void blur(const float *in, float *out, int w, int h) {
  dim3 block(threads / rows, rows);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  ns_blur<<<grid, block>>>(in, out, w, h);
}

void sharpen(const float *src, float *dst, int width, int height) {
  dim3 block(threads / rows, rows);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  ns_sharpen<<<grid, block>>>(src, dst, width, height);
}

namespace detail {
__global__ void ns_lift(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * in[y * w + x] + 0.5f;
}
void lift(const float *in, float *out, int w, int h) {
  dim3 block(threads / rows, rows);
  ns_lift<<<dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y), block>>>(
      in, out, w, h);
}
}  // namespace detail
}  // namespace img

namespace {
const int threads = 96;
__global__ void ns_halve(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f + 1.0f;
}
__global__ void ns_offset(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - 0.75f;
}
void halve(const float *in, float *out, int w, int h) {
  ns_halve<<<(w * h + threads - 1) / threads, threads>>>(in, out, w * h);
}
void offset(const float *in, float *out, int w, int h) {
  ns_offset<<<(w * h + threads - 1) / threads, threads>>>(in, out, w * h);
}
}  // namespace

using namespace img;
namespace im = img;

void ns_using(const float *src, float *tmp, float *dst, int w, int h) {
  blur(src, tmp, w, h);
  sharpen(tmp, dst, w, h);
}

void ns_alias(const float *src, float *tmp, float *dst, int w, int h) {
  im::blur(src, tmp, w, h);
  im::sharpen(tmp, dst, w, h);
}

void ns_nested(const float *src, float *tmp, float *dst, int w, int h) {
  blur(src, tmp, w, h);
  detail::lift(tmp, dst, w, h);
}

void ns_anon(const float *src, float *tmp, float *dst, int w, int h) {
  halve(src, tmp, w, h);
  offset(tmp, dst, w, h);
}

namespace img {
void inside(const float *src, float *tmp, float *dst, int w, int h) {
  blur(src, tmp, w, h);
  sharpen(tmp, dst, w, h);
}
}  // namespace img

void ns_inside(const float *src, float *tmp, float *dst, int w, int h) {
  img::inside(src, tmp, dst, w, h);
}
