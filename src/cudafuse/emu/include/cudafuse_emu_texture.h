// cudafuse_emu_texture.h: CUDA arrays, texture objects and surface objects for the emulator
// (see docs/emulation.md, "Textures and surfaces").
//
// Included by cudafuse_emu_runtime.h before its API functions. A CUDA array is
// host memory holding its elements row after row, slice after slice (layers and cubemap
// faces are slices); a texture or surface object is a pointer to a heap record describing
// the memory it reads, cast to the 64-bit handle. Fetches follow the CUDA programming guide's
// texture-fetching appendix: point sampling takes the texel at floor(x); linear filtering
// blends the texels around x - 0.5 with weights rounded to the hardware's 9-bit fixed-point
// format (1.8: eight fractional bits), so results match the GPU's steps of 1/256, not a float
// lerp. Texture references (`texture<T, ...>`, removed in CUDA 12) are refused at build time.
#pragma once

#include "cudafuse_emu_device.h"  // memory, errors, the thread now running (surface traps)
// The fetches' and surface accesses' declarations (default arguments there), shared with the
// front end; defined below.
#include "../../cuda_api/cudafuse_texture_api.h"

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
template <class T>
inline cudaChannelFormatDesc cudaCreateChannelDesc() {
  return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define CF_CHANNEL(T, bits, n, kind)                                                        \
  template <>                                                                               \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<T>() {                                 \
    return cudaCreateChannelDesc(bits, (n) > 1 ? (bits) : 0, (n) > 2 ? (bits) : 0,          \
                                 (n) > 3 ? (bits) : 0, cudaChannelFormatKind##kind);        \
  }
#define CF_CHANNELS(S, V, bits, kind)                                                       \
  CF_CHANNEL(S, bits, 1, kind) CF_CHANNEL(V##1, bits, 1, kind) CF_CHANNEL(V##2, bits, 2, kind) \
  CF_CHANNEL(V##4, bits, 4, kind)
CF_CHANNEL(char, 8, 1, Signed)
CF_CHANNELS(signed char, char, 8, Signed)
CF_CHANNELS(unsigned char, uchar, 8, Unsigned)
CF_CHANNELS(short, short, 16, Signed)
CF_CHANNELS(unsigned short, ushort, 16, Unsigned)
CF_CHANNELS(int, int, 32, Signed)
CF_CHANNELS(unsigned int, uint, 32, Unsigned)
CF_CHANNELS(float, float, 32, Float)
#undef CF_CHANNELS
#undef CF_CHANNEL

// ---- arrays -----------------------------------------------------------------------------
struct cudaArray {
  cudaChannelFormatDesc desc;
  cudaExtent extent;  // as allocated: 0 for the dimensions the array does not have
  unsigned flags;
  size_t elem;        // bytes per element
  size_t w, h, d;     // at least 1 each; d counts slices (depth, layers, 6 x cubemap layers)
  char *data;
  size_t pitch() const { return w * elem; }
  size_t slice() const { return w * elem * h; }
};
namespace cudafuse_emu {

inline int channel_bits(const cudaChannelFormatDesc &d, int c) {
  return c == 0 ? d.x : c == 1 ? d.y : c == 2 ? d.z : d.w;
}
// Bytes per element, or 0 for a format the emulator does not model (the channels must be
// 8, 16 or 32 bits, present from x on; floats 16 or 32 bits).
inline size_t format_bytes(const cudaChannelFormatDesc &d) {
  if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
      d.f != cudaChannelFormatKindFloat)
    return 0;
  int bits = 0;
  bool ended = false;
  for (int c = 0; c < 4; ++c) {
    int b = channel_bits(d, c);
    if (b == 0) {
      ended = true;
      continue;
    }
    if (ended || (b != 8 && b != 16 && b != 32)) return 0;
    if (d.f == cudaChannelFormatKindFloat && b == 8) return 0;
    bits += b;
  }
  return bits / 8;
}

inline float half_bits_to_float(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0) v = ldexpf(float(man), -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexpf(float(man | 1024), exp - 25);
  return sign ? -v : v;
}

// Channel c of the element at p, as a number (integers exactly: doubles hold 32 bits).
inline double channel_value(const char *p, const cudaChannelFormatDesc &d, int c) {
  int bits = channel_bits(d, c);
  if (bits == 0) return 0;
  for (int k = 0; k < c; ++k) p += channel_bits(d, k) / 8;
  if (d.f == cudaChannelFormatKindFloat) {
    if (bits == 16) {
      uint16_t h;
      memcpy(&h, p, 2);
      return half_bits_to_float(h);
    }
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  bool sign = d.f == cudaChannelFormatKindSigned;
  if (bits == 8) return sign ? double(*reinterpret_cast<const int8_t *>(p))
                             : double(*reinterpret_cast<const uint8_t *>(p));
  if (bits == 16) {
    uint16_t u;
    memcpy(&u, p, 2);
    return sign ? double(int16_t(u)) : double(u);
  }
  uint32_t u;
  memcpy(&u, p, 4);
  return sign ? double(int32_t(u)) : double(u);
}

// A texture's or surface's memory: elements row after row (pitch bytes), slices `slice`
// bytes apart.
struct Image {
  const cudaArray *array = nullptr;  // null for linear and pitch2D memory
  char *base = nullptr;
  cudaChannelFormatDesc fmt{};
  size_t elem = 0, w = 1, h = 1, d = 1, pitch = 0, slice = 0;
  bool layered = false, cubemap = false;
  const char *at(long i, long j, long k) const {
    return base + size_t(k) * slice + size_t(j) * pitch + size_t(i) * elem;
  }
};
inline Image image_of(const cudaArray *a) {
  Image m;
  m.array = a;
  m.base = a->data, m.fmt = a->desc, m.elem = a->elem;
  m.w = a->w, m.h = a->h, m.d = a->d, m.pitch = a->pitch(), m.slice = a->slice();
  m.layered = a->flags & cudaArrayLayered;
  m.cubemap = a->flags & cudaArrayCubemap;
  return m;
}

struct Texture {
  cudaResourceDesc res;
  cudaTextureDesc desc;
  Image img;
  bool normalize;  // readMode normalizedFloat on an 8- or 16-bit integer format
};
struct Surface {
  cudaResourceDesc res;
  Image img;
};
inline const Texture &texture_of(cudaTextureObject_t t) {
  if (!t) fail("texture fetch from texture object 0 (not created, or creation failed)");
  return *reinterpret_cast<const Texture *>(uintptr_t(t));
}
inline const Surface &surface_of(cudaSurfaceObject_t s) {
  if (!s) fail("surface access through surface object 0 (not created, or creation failed)");
  return *reinterpret_cast<const Surface *>(uintptr_t(s));
}

// ---- fetching (the programming guide's texture-fetching appendix) ------------------------
// floor() as an index; NaN reads texel 0 and huge coordinates stay far outside any texture.
inline long tex_floor(float u) {
  if (!(u == u)) return 0;
  u = fminf(fmaxf(u, -1e9f), 1e9f);
  return long(floorf(u));
}
// The coordinate in texels. With normalized coordinates, wrap replaces x by frac(x) and
// mirror by frac(x) or 1 - frac(x) as floor(x) is even or odd, before scaling by the size.
inline float tex_coord(float x, size_t n, cudaTextureAddressMode m, bool normalized) {
  if (!normalized) return x;
  if (m == cudaAddressModeWrap) {
    x -= floorf(x);
  } else if (m == cudaAddressModeMirror) {
    float f = floorf(x);
    x = fmodf(f, 2.0f) == 0.0f ? x - f : 1.0f - (x - f);
  }
  return x * float(n);
}
// A texel index in range, or -1 for the border. Wrap and mirror apply to normalized
// coordinates only (the guide); with unnormalized ones the hardware clamps.
inline long tex_address(long i, size_t n_, cudaTextureAddressMode m, bool normalized) {
  long n = long(n_);
  if (!normalized && (m == cudaAddressModeWrap || m == cudaAddressModeMirror))
    m = cudaAddressModeClamp;
  switch (m) {
    case cudaAddressModeWrap:
      i %= n;
      return i < 0 ? i + n : i;
    case cudaAddressModeMirror: {
      long p = 2 * n;
      i %= p;
      if (i < 0) i += p;
      return i < n ? i : p - 1 - i;
    }
    case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
  }
}
// Linear filtering's weight: frac(x - 0.5) held in 1.8 fixed point, i.e. rounded to a
// multiple of 1/256 (to nearest, ties to even; 1.0 is representable, hence the 9th bit).
inline float tex_weight(float ub, long &i) {
  i = tex_floor(ub);
  float a = ub - floorf(ub);
  if (!(a == a)) a = 0;
  return rintf(a * 256.0f) / 256.0f;
}

// One texel's channels: raw numbers (integer element type) or floats as read
// (normalizedFloat maps unsigned n-bit integers v to v / (2^n - 1) and signed ones to
// max(v / (2^(n-1) - 1), -1)). A border texel is the border color.
inline void tex_texel(const Texture &t, long i, long j, long k, double out[4]) {
  if (i < 0 || j < 0 || k < 0) {
    for (int c = 0; c < 4; ++c) out[c] = t.desc.borderColor[c];
    return;
  }
  const char *p = t.img.at(i, j, k);
  for (int c = 0; c < 4; ++c) {
    double v = channel_value(p, t.img.fmt, c);
    if (t.normalize) {
      int bits = channel_bits(t.img.fmt, c);
      if (t.img.fmt.f == cudaChannelFormatKindUnsigned) v = v / double((1L << bits) - 1);
      else if (bits) v = fmax(v / double((1L << (bits - 1)) - 1), -1.0);
      v = float(v);
    }
    out[c] = v;
  }
}

// Samples dims (1-3) coordinates of slice `slice` (a layer or cubemap face; -1: the
// border). Linear filtering blends the 2^dims texels around the point in float.
inline void tex_sample(const Texture &t, const float *x, int dims, long slice, bool linear,
                       bool normalized, const cudaTextureAddressMode *modes, double out[4]) {
  size_t n[3] = {t.img.w, t.img.h, t.img.d};
  long idx[3][2] = {{0, 0}, {0, 0}, {slice, slice}};
  float a[3] = {0, 0, 0};
  for (int k = 0; k < dims; ++k) {
    float u = tex_coord(x[k], n[k], modes[k], normalized);
    if (!linear) {
      idx[k][0] = tex_address(tex_floor(u), n[k], modes[k], normalized);
      continue;
    }
    long i;
    a[k] = tex_weight(u - 0.5f, i);
    idx[k][0] = tex_address(i, n[k], modes[k], normalized);
    idx[k][1] = tex_address(i + 1, n[k], modes[k], normalized);
  }
  if (!linear) {
    tex_texel(t, idx[0][0], idx[1][0], idx[2][0], out);
    return;
  }
  float acc[4] = {0, 0, 0, 0};
  for (int corner = 0; corner < (1 << dims); ++corner) {
    float wgt = 1.0f;
    long at[3] = {idx[0][0], idx[1][0], idx[2][0]};
    for (int k = 0; k < dims; ++k) {
      int hi = (corner >> k) & 1;
      wgt *= hi ? a[k] : 1.0f - a[k];
      at[k] = idx[k][hi];
    }
    double v[4];
    tex_texel(t, at[0], at[1], at[2], v);
    for (int c = 0; c < 4; ++c) acc[c] += wgt * float(v[c]);
  }
  for (int c = 0; c < 4; ++c) out[c] = acc[c];
}

template <class T> struct __cf_TexVec { using S = T; static constexpr int n = 1; };
#define CF_TEXVEC(V, Sc, N) \
  template <> struct __cf_TexVec<V> { using S = Sc; static constexpr int n = N; };
#define CF_TEXVECS(V, Sc) \
  CF_TEXVEC(V##1, Sc, 1) CF_TEXVEC(V##2, Sc, 2) CF_TEXVEC(V##3, Sc, 3) CF_TEXVEC(V##4, Sc, 4)
CF_TEXVECS(float, float)
CF_TEXVECS(char, signed char)
CF_TEXVECS(uchar, unsigned char)
CF_TEXVECS(short, short)
CF_TEXVECS(ushort, unsigned short)
CF_TEXVECS(int, int)
CF_TEXVECS(uint, unsigned int)
#undef CF_TEXVECS
#undef CF_TEXVEC

template <class T>
inline T tex_pack(const double v[4]) {
  using S = typename __cf_TexVec<T>::S;
  static_assert(sizeof(T) == sizeof(S) * __cf_TexVec<T>::n, "a texel type of 1-4 scalars");
  S c[4];
  for (int k = 0; k < 4; ++k) c[k] = S(v[k]);
  T r;
  memcpy(&r, c, sizeof(T));
  return r;
}

// A fetch returning T: floats are filtered as the descriptor says; integer element types
// are point sampled (CUDA filters only fetches that return floats).
template <class T>
inline T tex_fetch(cudaTextureObject_t obj, const float *x, int dims, long layer, int face) {
  const Texture &t = texture_of(obj);
  using S = typename __cf_TexVec<T>::S;
  bool linear = t.desc.filterMode == cudaFilterModeLinear && std::is_floating_point<S>::value;
  long slice = 0;
  if (t.img.layered || layer > 0) {
    long layers = long(t.img.d) / (t.img.cubemap ? 6 : 1);
    slice = std::min(std::max(layer, 0L), layers - 1);
  }
  if (face >= 0) slice = slice * 6 + face;
  double v[4];
  static const cudaTextureAddressMode clamp[3] = {cudaAddressModeClamp, cudaAddressModeClamp,
                                                  cudaAddressModeClamp};
  if (face >= 0)  // a face is addressed in [0, 1], clamped to its edges (no seamless filtering)
    tex_sample(t, x, 2, slice, linear, true, clamp, v);
  else
    tex_sample(t, x, dims, slice, linear, t.desc.normalizedCoords, t.desc.addressMode, v);
  return tex_pack<T>(v);
}

// The cubemap face a direction selects and its coordinates in [0, 1] (the guide's table;
// ties, which the table leaves open, go to x, then y).
inline int cube_face(float x, float y, float z, float st[2]) {
  float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
  int face;
  if (ax >= ay && ax >= az) {
    face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  } else if (ay >= az) {
    face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  } else {
    face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  }
  if (m == 0) m = 1;
  st[0] = (s / m + 1.0f) * 0.5f;
  st[1] = (t / m + 1.0f) * 0.5f;
  return face;
}

// ---- surfaces ----------------------------------------------------------------------------
// The address of a surface access of `bytes` bytes at byte x, rows y and slice k, or null
// (cudaBoundaryModeZero out of range). Trap reports the access and ends the program.
inline char *surf_address(const char *fn, cudaSurfaceObject_t obj, long x, long y, long k,
                          int dims, size_t bytes, cudaSurfaceBoundaryMode mode) {
  const Surface &s = surface_of(obj);
  const Image &m = s.img;
  long row = long(m.w * m.elem), last_x = row - long(bytes);
  bool ok = x >= 0 && x <= last_x && y >= 0 && y < long(m.h) && k >= 0 && k < long(m.d);
  if (!ok) {
    if (mode == cudaBoundaryModeZero) return nullptr;
    if (mode == cudaBoundaryModeClamp) {
      x = std::min(std::max(x, 0L), std::max(last_x, 0L));
      y = std::min(std::max(y, 0L), long(m.h) - 1);
      k = std::min(std::max(k, 0L), long(m.d) - 1);
    } else {
      char where[96];
      if (dims == 1) snprintf(where, sizeof where, "byte x %ld", x);
      else if (dims == 2) snprintf(where, sizeof where, "byte x %ld, y %ld", x, y);
      else snprintf(where, sizeof where, "byte x %ld, y %ld, %s %ld", x, y,
                    m.layered ? "layer" : "z", k);
      fail("thread (%u,%u,%u): %s at %s (%zu bytes) is out of the surface's range (%zu x %zu x "
           "%zu elements of %zu bytes, rows of %ld bytes) with cudaBoundaryModeTrap",
           threadIdx.x, threadIdx.y, threadIdx.z, fn, where, bytes, m.w, m.h, m.d, m.elem,
           row);
    }
  }
  return const_cast<char *>(m.at(0, y, k)) + x;
}
template <class T>
inline T surf_load(const char *fn, cudaSurfaceObject_t s, long x, long y, long k, int dims,
                   cudaSurfaceBoundaryMode mode) {
  T r;
  memset(static_cast<void *>(&r), 0, sizeof r);
  if (const char *p = surf_address(fn, s, x, y, k, dims, sizeof(T), mode)) memcpy(&r, p, sizeof r);
  return r;
}
template <class T>
inline void surf_store(const char *fn, const T &v, cudaSurfaceObject_t s, long x, long y,
                       long k, int dims, cudaSurfaceBoundaryMode mode) {
  if (char *p = surf_address(fn, s, x, y, k, dims, sizeof(T), mode)) memcpy(p, &v, sizeof v);
}

// ---- runtime-side helpers -----------------------------------------------------------------
cudaError_t image_of_resource(const cudaResourceDesc *r, Image &m);

// One side of a copy: an array (positions in elements) or memory with a pitch (x in bytes).
struct CopySide {
  char *base;
  size_t pitch, rows;  // rows per slice
};
cudaError_t array_side(const cudaArray *a, size_t x, size_t y, size_t z, size_t wbytes,
                       size_t h, size_t d, CopySide &side);
void copy_rows(const CopySide &dst, const CopySide &src, size_t wbytes, size_t h,
               size_t d);
cudaError_t array_copy3d(const cudaMemcpy3DParms *p);
}  // namespace cudafuse_emu

// ---- the array API -----------------------------------------------------------------------
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *desc,
                              cudaExtent e, unsigned flags);
cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, size_t w,
                            size_t h, unsigned flags);
cudaError_t cudaFreeArray(cudaArray_t a);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *e, unsigned *flags,
                             cudaArray_t a);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t a);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                                size_t spitch, size_t w, size_t h, cudaMemcpyKind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOff, size_t hOff,
                                     const void *src, size_t spitch, size_t w, size_t h,
                                     cudaMemcpyKind k, cudaStream_t);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOff, size_t hOff, size_t w, size_t h,
                                  cudaMemcpyKind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOff, size_t hOff, size_t w, size_t h,
                                       cudaMemcpyKind k, cudaStream_t = nullptr);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffDst, size_t hOffDst,
                                     cudaArray_const_t src, size_t wOffSrc,
                                     size_t hOffSrc, size_t w, size_t h,
                                     cudaMemcpyKind);
// The deprecated linear forms: n bytes from row hOff, byte wOff on, continuing row after row.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                              size_t n, cudaMemcpyKind);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOff, size_t hOff,
                                   const void *src, size_t n, cudaMemcpyKind k,
                                   cudaStream_t = nullptr);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOff, size_t hOff,
                                size_t n, cudaMemcpyKind);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOff,
                                     size_t hOff, size_t n, cudaMemcpyKind k,
                                     cudaStream_t = nullptr);

// ---- texture and surface objects -----------------------------------------------------------
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                    const cudaTextureDesc *d,
                                    const cudaResourceViewDesc *v);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *r, cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *d, cudaTextureObject_t t);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s);
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *r, cudaSurfaceObject_t s);

// ---- fetches (texture_indirect_functions.h) ---------------------------------------------------
// tex1Dfetch: an integer index into linear memory, no filtering and no address modes (an
// index out of range reads zeros).
template <class T>
inline T tex1Dfetch(cudaTextureObject_t obj, int x) {
  using namespace ::cudafuse_emu;
  const Texture &t = texture_of(obj);
  double v[4] = {0, 0, 0, 0};
  if (x >= 0 && size_t(x) < t.img.w) tex_texel(t, x, 0, 0, v);
  return tex_pack<T>(v);
}
template <class T>
inline T tex1D(cudaTextureObject_t t, float x) {
  return ::cudafuse_emu::tex_fetch<T>(t, &x, 1, 0, -1);
}
template <class T>
inline T tex2D(cudaTextureObject_t t, float x, float y) {
  float c[2] = {x, y};
  return ::cudafuse_emu::tex_fetch<T>(t, c, 2, 0, -1);
}
template <class T>
inline T tex3D(cudaTextureObject_t t, float x, float y, float z) {
  float c[3] = {x, y, z};
  return ::cudafuse_emu::tex_fetch<T>(t, c, 3, 0, -1);
}
template <class T>
inline T tex1DLayered(cudaTextureObject_t t, float x, int layer) {
  return ::cudafuse_emu::tex_fetch<T>(t, &x, 1, layer, -1);
}
template <class T>
inline T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer) {
  float c[2] = {x, y};
  return ::cudafuse_emu::tex_fetch<T>(t, c, 2, layer, -1);
}
template <class T>
inline T texCubemapLayered(cudaTextureObject_t t, float x, float y, float z, int layer) {
  float c[2];
  int face = ::cudafuse_emu::cube_face(x, y, z, c);
  return ::cudafuse_emu::tex_fetch<T>(t, c, 2, layer, face);
}
template <class T>
inline T texCubemap(cudaTextureObject_t t, float x, float y, float z) {
  return texCubemapLayered<T>(t, x, y, z, 0);
}
// Level of detail and gradients: the emulator has no mipmaps, so level 0 is read.
template <class T>
inline T tex1DLod(cudaTextureObject_t t, float x, float) { return tex1D<T>(t, x); }
template <class T>
inline T tex2DLod(cudaTextureObject_t t, float x, float y, float) { return tex2D<T>(t, x, y); }
template <class T>
inline T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float) {
  return tex3D<T>(t, x, y, z);
}
template <class T>
inline T tex2DGrad(cudaTextureObject_t t, float x, float y, float2, float2) {
  return tex2D<T>(t, x, y);
}
// tex2Dgather: component comp of the four texels bilinear filtering would blend, in the
// order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
template <class T>
inline T tex2Dgather(cudaTextureObject_t obj, float x, float y, int comp) {
  using namespace ::cudafuse_emu;
  const Texture &t = texture_of(obj);
  bool nc = t.desc.normalizedCoords;
  const cudaTextureAddressMode *m = t.desc.addressMode;
  long i, j;
  tex_weight(tex_coord(x, t.img.w, m[0], nc) - 0.5f, i);
  tex_weight(tex_coord(y, t.img.h, m[1], nc) - 0.5f, j);
  long i0 = tex_address(i, t.img.w, m[0], nc), i1 = tex_address(i + 1, t.img.w, m[0], nc);
  long j0 = tex_address(j, t.img.h, m[1], nc), j1 = tex_address(j + 1, t.img.h, m[1], nc);
  long at[4][2] = {{i0, j1}, {i1, j1}, {i1, j0}, {i0, j0}};
  double out[4];
  for (int k = 0; k < 4; ++k) {
    double v[4];
    tex_texel(t, at[k][0], at[k][1], 0, v);
    out[k] = v[comp & 3];
  }
  return tex_pack<T>(out);
}
#define CF_TEX_OUT(name, params, args) \
  template <class T> inline void name(T *r, cudaTextureObject_t t, CF_UNPAREN params) { \
    *r = name<T>(t, CF_UNPAREN args); \
  }
#define CF_UNPAREN(...) __VA_ARGS__
CF_TEX_OUT(tex1Dfetch, (int x), (x))
CF_TEX_OUT(tex1D, (float x), (x))
CF_TEX_OUT(tex2D, (float x, float y), (x, y))
CF_TEX_OUT(tex3D, (float x, float y, float z), (x, y, z))
CF_TEX_OUT(tex1DLayered, (float x, int l), (x, l))
CF_TEX_OUT(tex2DLayered, (float x, float y, int l), (x, y, l))
CF_TEX_OUT(texCubemap, (float x, float y, float z), (x, y, z))
CF_TEX_OUT(texCubemapLayered, (float x, float y, float z, int l), (x, y, z, l))
CF_TEX_OUT(tex1DLod, (float x, float lv), (x, lv))
CF_TEX_OUT(tex2DLod, (float x, float y, float lv), (x, y, lv))
CF_TEX_OUT(tex3DLod, (float x, float y, float z, float lv), (x, y, z, lv))
CF_TEX_OUT(tex2DGrad, (float x, float y, float2 dx, float2 dy), (x, y, dx, dy))
#undef CF_TEX_OUT
#undef CF_UNPAREN

// ---- surface accesses (surface_indirect_functions.h): x in bytes ----------------------------
#define CF_SURF(dims, suffix, params, xyz)                                                    \
  template <class T>                                                                        \
  inline T surf##suffix##read(cudaSurfaceObject_t s, CF_SURF_UNPAREN params,                \
                              cudaSurfaceBoundaryMode m) {                                  \
    return ::__cf_emu::surf_load<T>("surf" #suffix "read", s, CF_SURF_UNPAREN xyz, dims, m); \
  }                                                                                         \
  template <class T>                                                                        \
  inline void surf##suffix##read(T *r, cudaSurfaceObject_t s, CF_SURF_UNPAREN params,       \
                                 cudaSurfaceBoundaryMode m) {                               \
    *r = ::__cf_emu::surf_load<T>("surf" #suffix "read", s, CF_SURF_UNPAREN xyz, dims, m); \
  }                                                                                         \
  template <class T>                                                                        \
  inline void surf##suffix##write(T v, cudaSurfaceObject_t s, CF_SURF_UNPAREN params,       \
                                  cudaSurfaceBoundaryMode m) {                              \
    ::__cf_emu::surf_store<T>("surf" #suffix "write", v, s, CF_SURF_UNPAREN xyz, dims, m); \
  }
#define CF_SURF_UNPAREN(...) __VA_ARGS__
CF_SURF(1, 1D, (int x), (x, 0, 0))
CF_SURF(2, 2D, (int x, int y), (x, y, 0))
CF_SURF(3, 3D, (int x, int y, int z), (x, y, z))
CF_SURF(1, 1DLayered, (int x, int layer), (x, 0, layer))
CF_SURF(3, 2DLayered, (int x, int y, int layer), (x, y, layer))
#undef CF_SURF
#undef CF_SURF_UNPAREN
