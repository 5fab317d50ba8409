// Stand-in for cuFFT (<cufft.h>) in cudafuse emulation builds: plans of rank 1 to 3, batched,
// basic or advanced data layout, computed on the host in double: radix-2 for powers of two, a
// direct DFT otherwise. cuFFT's conventions: unnormalised in both directions, R2C writes
// n/2+1 complex values along the last dimension (in-place real data padded to 2*(n/2+1)).
// Work on a captured stream becomes a graph node. docs/emulation.md, "Libraries".
#pragma once
#define _CUFFT_H_ 1  // the real header's guard, which helper_cuda.h tests
#include "library_types.h"
#include <cmath>
#include <complex>
#include <map>
#include <vector>

// The types and declarations, shared with the front end: this header defines the functions.
#include "../../cuda_api/cudafuse_cufft_api.h"

namespace cudafuse_emu {
namespace fft {
typedef std::complex<double> cd;
enum __cf_Callback { __cf_LOAD, __cf_STORE };
struct __cf_Plan {
  bool made = false;
  int rank = 0, n[3] = {1, 1, 1}, batch = 1;
  cufftType type = CUFFT_C2C;
  int inembed[3] = {0, 0, 0}, onembed[3] = {0, 0, 0};  // 0: the basic layout
  long istride = 1, idist = 0, ostride = 1, odist = 0;
  cudaStream_t stream = 0;
  void *callback[2] = {nullptr, nullptr}, *callback_info[2] = {nullptr, nullptr};
  int callback_kind[2] = {0, 0};
  int gpus = 1;
};
inline std::map<cufftHandle, __cf_Plan> &plans() { static std::map<cufftHandle, __cf_Plan> p; return p; }
inline __cf_Plan *plan_of(cufftHandle h) {
  auto it = plans().find(h);
  return it == plans().end() ? nullptr : &it->second;
}
inline bool real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
inline bool real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }
inline bool is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
inline size_t elem_in(cufftType t) { return (real_in(t) ? 1 : 2) * (is_double(t) ? 8 : 4); }
inline size_t elem_out(cufftType t) { return (real_out(t) ? 1 : 2) * (is_double(t) ? 8 : 4); }
// The logical extent of the complex side's last dimension: n/2+1 for real transforms.
inline int half(const __cf_Plan &p) { return p.n[p.rank - 1] / 2 + 1; }
inline long count(const __cf_Plan &p, int last) {
  long c = last;
  for (int d = 0; d + 1 < p.rank; d++) c *= p.n[d];
  return c;
}
// Unnormalised DFT of v in place; sign -1 forward, +1 inverse.
inline void dft(std::vector<cd> &v, int sign) {
  size_t n = v.size();
  if (n <= 1) return;
  const double pi = 3.14159265358979323846;
  if ((n & (n - 1)) == 0) {
    for (size_t i = 1, j = 0; i < n; i++) {  // bit-reversal permutation
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(v[i], v[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      for (size_t k = 0; k < len / 2; k++) {
        cd w = std::polar(1.0, sign * 2 * pi * (double)k / (double)len);
        for (size_t i = k; i < n; i += len) {
          cd a = v[i], b = v[i + len / 2] * w;
          v[i] = a + b;
          v[i + len / 2] = a - b;
        }
      }
    }
    return;
  }
  std::vector<cd> w(n), out(n);
  for (size_t k = 0; k < n; k++) w[k] = std::polar(1.0, sign * 2 * pi * (double)k / (double)n);
  for (size_t k = 0; k < n; k++) {
    cd s = 0;
    for (size_t j = 0; j < n; j++) s += v[j] * w[(j * k) % n];
    out[k] = s;
  }
  v.swap(out);
}
// Transform the array a (row-major, extents dims) along axis ax.
inline void along(std::vector<cd> &a, const std::vector<int> &dims, int ax, int sign) {
  long inner = 1, outer = 1;
  for (size_t d = ax + 1; d < dims.size(); d++) inner *= dims[d];
  for (int d = 0; d < ax; d++) outer *= dims[d];
  std::vector<cd> line(dims[ax]);
  for (long o = 0; o < outer; o++)
    for (long i = 0; i < inner; i++) {
      long base = o * dims[ax] * inner + i;
      for (int k = 0; k < dims[ax]; k++) line[k] = a[base + k * inner];
      dft(line, sign);
      for (int k = 0; k < dims[ax]; k++) a[base + k * inner] = line[k];
    }
}
// Offset of logical element e (row-major in extents dims) in a layout with embed and stride.
inline long offset(long e, const std::vector<int> &dims, const int *embed, long stride) {
  long off = 0, rest = e;
  std::vector<long> idx(dims.size());
  for (int d = (int)dims.size() - 1; d >= 0; d--) { idx[d] = rest % dims[d]; rest /= dims[d]; }
  for (size_t d = 0; d < dims.size(); d++) off = off * (d && embed[d] ? embed[d] : dims[d]) + idx[d];
  return off * stride;
}
template <class __cf_R> cd load(const __cf_Plan &p, const void *base, long off, bool real) {
  const __cf_R *b = static_cast<const __cf_R *>(base);
  if (p.callback[__cf_LOAD]) {
    void *info = p.callback_info[__cf_LOAD];
    size_t o = (size_t)off;
    if (real) return cd(((__cf_R(*)(void *, size_t, void *, void *))p.callback[__cf_LOAD])((void *)base, o, info, nullptr), 0);
    typedef typename std::conditional<sizeof(__cf_R) == 4, float2, double2>::type __cf_C;
    __cf_C c = ((__cf_C(*)(void *, size_t, void *, void *))p.callback[__cf_LOAD])((void *)base, o, info, nullptr);
    return cd(c.x, c.y);
  }
  return real ? cd(b[off], 0) : cd(b[2 * off], b[2 * off + 1]);
}
template <class __cf_R> void store(const __cf_Plan &p, void *base, long off, bool real, cd v) {
  __cf_R *b = static_cast<__cf_R *>(base);
  if (p.callback[__cf_STORE]) {
    void *info = p.callback_info[__cf_STORE];
    size_t o = (size_t)off;
    if (real) { ((void (*)(void *, size_t, __cf_R, void *, void *))p.callback[__cf_STORE])(base, o, (__cf_R)v.real(), info, nullptr); return; }
    typedef typename std::conditional<sizeof(__cf_R) == 4, float2, double2>::type __cf_C;
    __cf_C c; c.x = (__cf_R)v.real(); c.y = (__cf_R)v.imag();
    ((void (*)(void *, size_t, __cf_C, void *, void *))p.callback[__cf_STORE])(base, o, c, info, nullptr);
    return;
  }
  if (real) { b[off] = (__cf_R)v.real(); return; }
  b[2 * off] = (__cf_R)v.real();
  b[2 * off + 1] = (__cf_R)v.imag();
}
template <class __cf_R> void exec(const __cf_Plan &p, const void *in, void *out, int sign) {
  bool rin = real_in(p.type), rout = real_out(p.type), inplace = in == out;
  int last = p.n[p.rank - 1], h = half(p);
  std::vector<int> full(p.n, p.n + p.rank), hdims = full;
  hdims.back() = h;
  const std::vector<int> &idims = rout ? hdims : full, &odims = rin ? hdims : full;
  int ipad[3] = {0, 0, 0}, opad[3] = {0, 0, 0};  // in-place real data is padded to 2*(n/2+1)
  if (inplace && rin) ipad[p.rank - 1] = 2 * h;
  if (inplace && rout) opad[p.rank - 1] = 2 * h;
  const int *iemb = p.inembed[0] || p.inembed[p.rank - 1] ? p.inembed : ipad;
  const int *oemb = p.onembed[0] || p.onembed[p.rank - 1] ? p.onembed : opad;
  long ni = count(p, rout ? h : last), no = count(p, rin ? h : last);
  long idist = p.idist ? p.idist : (rin && inplace ? count(p, 2 * h) : ni);
  long odist = p.odist ? p.odist : (rout && inplace ? count(p, 2 * h) : no);
  for (int b = 0; b < p.batch; b++) {
    std::vector<cd> a(ni);
    for (long e = 0; e < ni; e++)
      a[e] = load<__cf_R>(p, in, b * idist + offset(e, idims, iemb, p.istride), rin);
    if (rin) {  // the real rows transformed whole, then the half spectrum along the rest
      std::vector<cd> half_spec(no), row(last);
      for (long r = 0; r < ni / last; r++) {
        for (int k = 0; k < last; k++) row[k] = a[r * last + k];
        dft(row, -1);
        for (int k = 0; k < h; k++) half_spec[r * h + k] = row[k];
      }
      a.swap(half_spec);
      for (int d = 0; d + 1 < p.rank; d++) along(a, hdims, d, -1);
    } else if (rout) {  // the rest first, then each Hermitian row completed and transformed
      for (int d = 0; d + 1 < p.rank; d++) along(a, hdims, d, +1);
      std::vector<cd> real(no), row(last);
      for (long r = 0; r < no / last; r++) {
        for (int k = 0; k < last; k++)
          row[k] = k < h ? a[r * h + k] : std::conj(a[r * h + (last - k)]);
        dft(row, +1);
        for (int k = 0; k < last; k++) real[r * last + k] = row[k].real();
      }
      a.swap(real);
    } else {
      for (int d = 0; d < p.rank; d++) along(a, full, d, sign);
    }
    for (long e = 0; e < no; e++)
      store<__cf_R>(p, out, b * odist + offset(e, odims, oemb, p.ostride), rout, a[e]);
  }
}
inline cufftResult run(cufftHandle h, const void *in, void *out, int sign, cufftType want) {
  __cf_Plan *p = plan_of(h);
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_TYPE;
  if (!real_in(want) && !real_out(want) && sign != CUFFT_FORWARD && sign != CUFFT_INVERSE)
    return CUFFT_INVALID_VALUE;
  __cf_Plan copy = *p;
  library_run(p->stream, [=] {
    if (is_double(copy.type)) exec<double>(copy, in, out, sign);
    else exec<float>(copy, in, out, sign);
  });
  return CUFFT_SUCCESS;
}
inline cufftResult make(cufftHandle h, int rank, const int *n, const int *inembed, long istride,
                        long idist, const int *onembed, long ostride, long odist,
                        cufftType type, int batch, size_t *work) {
  __cf_Plan *p = plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (rank < 1 || rank > 3 || batch < 1 || !n) return CUFFT_INVALID_SIZE;
  for (int d = 0; d < rank; d++) if (n[d] < 1) return CUFFT_INVALID_SIZE;
  if (type != CUFFT_C2C && type != CUFFT_Z2Z && !real_in(type) && !real_out(type))
    return CUFFT_INVALID_TYPE;
  p->rank = rank;
  p->type = type;
  p->batch = batch;
  for (int d = 0; d < 3; d++) {
    p->n[d] = d < rank ? n[d] : 1;
    p->inembed[d] = inembed && onembed && d < rank ? inembed[d] : 0;  // both, or neither
    p->onembed[d] = inembed && onembed && d < rank ? onembed[d] : 0;
  }
  bool advanced = inembed && onembed;
  p->istride = advanced ? istride : 1;
  p->ostride = advanced ? ostride : 1;
  p->idist = advanced ? idist : 0;
  p->odist = advanced ? odist : 0;
  p->made = true;
  if (work) *work = 0;  // no work area: the host computes in its own buffers
  return CUFFT_SUCCESS;
}
inline cufftResult create(cufftHandle *h) {
  if (!h) return CUFFT_INVALID_VALUE;
  static cufftHandle next = 1;
  *h = next++;
  plans()[*h] = __cf_Plan();
  return CUFFT_SUCCESS;
}
}  // namespace fft
}  // namespace cudafuse_emu

inline cufftResult cufftCreate(cufftHandle *h) { return ::cudafuse_emu::fft::create(h); }
inline cufftResult cufftDestroy(cufftHandle h) {
  return ::cudafuse_emu::fft::plans().erase(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}
inline cufftResult cufftMakePlanMany(cufftHandle h, int rank, int *n, int *inembed, int istride,
                                     int idist, int *onembed, int ostride, int odist,
                                     cufftType type, int batch, size_t *work) {
  return ::cudafuse_emu::fft::make(h, rank, n, inembed, istride, idist, onembed, ostride, odist,
                                   type, batch, work);
}
inline cufftResult cufftMakePlanMany64(cufftHandle h, int rank, long long *n,
                                       long long *inembed, long long istride, long long idist,
                                       long long *onembed, long long ostride, long long odist,
                                       cufftType type, long long batch, size_t *work) {
  int n32[3] = {1, 1, 1}, ie[3] = {0, 0, 0}, oe[3] = {0, 0, 0};
  for (int d = 0; d < rank && d < 3; d++) {
    n32[d] = (int)n[d];
    if (inembed) ie[d] = (int)inembed[d];
    if (onembed) oe[d] = (int)onembed[d];
  }
  return ::cudafuse_emu::fft::make(h, rank, n32, inembed ? ie : nullptr, (long)istride,
                                   (long)idist, onembed ? oe : nullptr, (long)ostride,
                                   (long)odist, type, (int)batch, work);
}
inline cufftResult cufftMakePlan1d(cufftHandle h, int nx, cufftType type, int batch, size_t *work) {
  return ::cudafuse_emu::fft::make(h, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch, work);
}
inline cufftResult cufftMakePlan2d(cufftHandle h, int nx, int ny, cufftType type, size_t *work) {
  int n[2] = {nx, ny};
  return ::cudafuse_emu::fft::make(h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}
inline cufftResult cufftMakePlan3d(cufftHandle h, int nx, int ny, int nz, cufftType type,
                                   size_t *work) {
  int n[3] = {nx, ny, nz};
  return ::cudafuse_emu::fft::make(h, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}
// cufftPlan*: create and make in one call; a failed make leaves no plan behind.
#define CF_FFT_PLAN(call)                                       \
  cufftResult r = ::__cf_emu::fft::create(plan);            \
  if (r != CUFFT_SUCCESS) return r;                             \
  r = call;                                                     \
  if (r != CUFFT_SUCCESS) ::__cf_emu::fft::plans().erase(*plan); \
  return r;
inline cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch) {
  CF_FFT_PLAN(cufftMakePlan1d(*plan, nx, type, batch, nullptr))
}
inline cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type) {
  CF_FFT_PLAN(cufftMakePlan2d(*plan, nx, ny, type, nullptr))
}
inline cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type) {
  CF_FFT_PLAN(cufftMakePlan3d(*plan, nx, ny, nz, type, nullptr))
}
inline cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                                 int idist, int *onembed, int ostride, int odist, cufftType type,
                                 int batch) {
  CF_FFT_PLAN(cufftMakePlanMany(*plan, rank, n, inembed, istride, idist, onembed, ostride, odist,
                                type, batch, nullptr))
}
#undef CF_FFT_PLAN
// Sizes: the emulator needs no work area; the estimates say so too.
inline cufftResult cufftEstimate1d(int, cufftType, int, size_t *w) { if (w) *w = 0; return CUFFT_SUCCESS; }
inline cufftResult cufftEstimate2d(int, int, cufftType, size_t *w) { if (w) *w = 0; return CUFFT_SUCCESS; }
inline cufftResult cufftEstimate3d(int, int, int, cufftType, size_t *w) { if (w) *w = 0; return CUFFT_SUCCESS; }
inline cufftResult cufftEstimateMany(int, int *, int *, int, int, int *, int, int, cufftType, int,
                                     size_t *w) { if (w) *w = 0; return CUFFT_SUCCESS; }
inline cufftResult cufftGetSize(cufftHandle h, size_t *w) {
  if (!::cudafuse_emu::fft::plan_of(h)) return CUFFT_INVALID_PLAN;
  if (w) *w = 0;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftGetSize1d(cufftHandle h, int, cufftType, int, size_t *w) { return cufftGetSize(h, w); }
inline cufftResult cufftGetSize2d(cufftHandle h, int, int, cufftType, size_t *w) { return cufftGetSize(h, w); }
inline cufftResult cufftGetSize3d(cufftHandle h, int, int, int, cufftType, size_t *w) { return cufftGetSize(h, w); }
inline cufftResult cufftGetSizeMany(cufftHandle h, int, int *, int *, int, int, int *, int, int,
                                    cufftType, int, size_t *w) { return cufftGetSize(h, w); }
inline cufftResult cufftSetAutoAllocation(cufftHandle h, int) {
  return ::cudafuse_emu::fft::plan_of(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}
inline cufftResult cufftSetWorkArea(cufftHandle h, void *) {
  return ::cudafuse_emu::fft::plan_of(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}
inline cufftResult cufftSetStream(cufftHandle h, cudaStream_t s) {
  ::cudafuse_emu::fft::__cf_Plan *p = ::cudafuse_emu::fft::plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->stream = s;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftGetVersion(int *v) { *v = CUFFT_VERSION; return CUFFT_SUCCESS; }
inline cufftResult cufftExecC2C(cufftHandle h, cufftComplex *in, cufftComplex *out, int dir) {
  return ::cudafuse_emu::fft::run(h, in, out, dir, CUFFT_C2C);
}
inline cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex *in, cufftDoubleComplex *out,
                                int dir) {
  return ::cudafuse_emu::fft::run(h, in, out, dir, CUFFT_Z2Z);
}
inline cufftResult cufftExecR2C(cufftHandle h, cufftReal *in, cufftComplex *out) {
  return ::cudafuse_emu::fft::run(h, in, out, CUFFT_FORWARD, CUFFT_R2C);
}
inline cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal *in, cufftDoubleComplex *out) {
  return ::cudafuse_emu::fft::run(h, in, out, CUFFT_FORWARD, CUFFT_D2Z);
}
inline cufftResult cufftExecC2R(cufftHandle h, cufftComplex *in, cufftReal *out) {
  return ::cudafuse_emu::fft::run(h, in, out, CUFFT_INVERSE, CUFFT_C2R);
}
inline cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex *in, cufftDoubleReal *out) {
  return ::cudafuse_emu::fft::run(h, in, out, CUFFT_INVERSE, CUFFT_Z2D);
}
