// Written for cudafuse's tests in the style of small-vector libraries (OpenCV's cv::Vec3f,
// Eigen's Vector3f): a class template for fixed-size vectors, typedefs naming its
// specializations, a kernel template over the vector type with an explicit specialization
// for one of them, and a kernel whose signature is written with a typedef.
#include <cuda_runtime.h>

namespace geo {
template <typename T, int N>
struct Vec {
  T v[N];
};
typedef Vec<float, 3> Vec3f;
typedef Vec<float, 2> Vec2f;
using Point3 = Vec3f;

// Squared length of each vector.
template <typename V>
__global__ void sq_norm(const V *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int k = 0; k < int(sizeof(in[i].v) / sizeof(in[i].v[0])); ++k) s += in[i].v[k] * in[i].v[k];
    out[i] = s;
  }
}

// The 3-vector version is unrolled and scaled by 0.5 (other code, so that a test can tell
// which one ran).
template <>
__global__ void sq_norm(const Vec<float, 3> *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * (in[i].v[0] * in[i].v[0] + in[i].v[1] * in[i].v[1] +
                              in[i].v[2] * in[i].v[2]);
}

__global__ void translate(Point3 *p, const Vec3f d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 3; ++k) p[i].v[k] += d.v[k];
}
}  // namespace geo

extern "C" void norms3(const float *in, float *out, int n) {
  geo::sq_norm<geo::Vec3f><<<(n + 127) / 128, 128>>>((const geo::Vec3f *)in, out, n);
}
extern "C" void norms2(const float *in, float *out, int n) {
  geo::sq_norm<geo::Vec2f><<<(n + 127) / 128, 128>>>((const geo::Vec2f *)in, out, n);
}
extern "C" void shift(float *p, float dx, float dy, float dz, int n) {
  geo::translate<<<(n + 63) / 64, 64>>>((geo::Point3 *)p, geo::Vec3f{{dx, dy, dz}}, n);
}
