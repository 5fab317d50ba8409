// Texture and surface objects in the emulator (test_emu_textures.py): every fetch kind,
// address mode, filter mode and read mode on small arrays, surfaces with their boundary modes,
// layered and cubemap lookups. Host entry points take the data and the coordinates, build the
// array and the texture object and write what a kernel fetched.
#include <cuda_runtime.h>

template <class T>
static T *to_device(const T *h, size_t n) {
  T *d = nullptr;
  cudaMalloc(&d, n * sizeof(T));
  cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
static void to_host(T *h, const T *d, size_t n) {
  cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost);
}

static cudaTextureDesc tex_desc(int mode0, int mode1, int mode2, int linear, int normalized,
                                int read_normalized) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = (cudaTextureAddressMode)mode0;
  td.addressMode[1] = (cudaTextureAddressMode)mode1;
  td.addressMode[2] = (cudaTextureAddressMode)mode2;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = read_normalized ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  td.normalizedCoords = normalized;
  td.borderColor[0] = 7.5f;
  return td;
}
static cudaTextureObject_t array_texture(cudaArray_t a, const cudaTextureDesc &td) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureObject_t t = 0;
  cudaCreateTextureObject(&t, &rd, &td, nullptr);
  return t;
}

__global__ void sample1d(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, c[i]);
}
__global__ void sample2d(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tex2D(&out[i], t, c[2 * i], c[2 * i + 1]);  // the out-parameter form
}
__global__ void sample2d_lod(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, c[2 * i], c[2 * i + 1], 0.0f);
}
__global__ void sample3d(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
__global__ void fetch_linear(cudaTextureObject_t t, const int *idx, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, idx[i]);
}
__global__ void sample_layered(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, c[3 * i], c[3 * i + 1], (int)c[3 * i + 2]);
}
__global__ void sample_layered1d(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DLayered<float>(t, c[2 * i], (int)c[2 * i + 1]);
}
__global__ void sample_cube(cudaTextureObject_t t, const float *c, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
__global__ void gather2d(cudaTextureObject_t t, const float *c, int n, float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, c[2 * i], c[2 * i + 1], 0);
}
__global__ void read_rgba(cudaTextureObject_t norm, cudaTextureObject_t raw,
                          cudaTextureObject_t s16, int n, float4 *out, uchar4 *out_raw,
                          float *out_s16) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = tex1D<float4>(norm, i + 0.5f);
    out_raw[i] = tex1D<uchar4>(raw, i + 0.5f);
    out_s16[i] = tex1Dfetch<float>(s16, i);
  }
}

// tex1D on a 1D array of w floats.
void fetch1d(const float *data, int w, const float *coords, int n, int mode, int linear,
             int normalized, float *out) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, w);
  cudaMemcpyToArray(a, 0, 0, data, w * sizeof(float), cudaMemcpyHostToDevice);
  cudaTextureObject_t t = array_texture(a, tex_desc(mode, mode, mode, linear, normalized, 0));
  float *c = to_device(coords, n), *o = to_device(out, n);
  sample1d<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
  cudaFree(c);
  cudaFree(o);
}

// tex2D on a w x h float array (lod: through tex2DLod at level 0). info: cudaArrayGetInfo's
// width, height, depth, flags, channel bits and kind.
void fetch2d(const float *data, int w, int h, const float *coords, int n, int mode0, int mode1,
             int linear, int normalized, int lod, float *out, long long *info) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t a;
  cudaMallocArray(&a, &cd, w, h, cudaArrayTextureGather);
  cudaMemcpy2DToArray(a, 0, 0, data, w * sizeof(float), w * sizeof(float), h,
                      cudaMemcpyHostToDevice);
  cudaChannelFormatDesc got;
  cudaExtent e;
  unsigned flags;
  info[0] = cudaArrayGetInfo(&got, &e, &flags, a);
  info[1] = (long long)e.width, info[2] = (long long)e.height, info[3] = (long long)e.depth;
  info[4] = flags, info[5] = got.x, info[6] = got.f;
  cudaTextureObject_t t = array_texture(a, tex_desc(mode0, mode1, 0, linear, normalized, 0));
  cudaResourceDesc back;
  info[7] = cudaGetTextureObjectResourceDesc(&back, t);
  info[8] = back.res.array.array == a;
  float *c = to_device(coords, 2 * n), *o = to_device(out, n);
  if (lod) sample2d_lod<<<(n + 63) / 64, 64>>>(t, c, n, o);
  else sample2d<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
  cudaFree(c);
  cudaFree(o);
}

// tex2D on pitched linear memory (cudaResourceTypePitch2D); `back` is the data read back
// from a copy of the array through cudaMemcpy2DFromArray.
void fetch_pitch2d(const float *data, int w, int h, const float *coords, int n, int linear,
                   float *out, float *back) {
  float *d;
  size_t pitch;
  cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), h);
  cudaMemcpy2D(d, pitch, data, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = d;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rd.res.pitch2D.width = w;
  rd.res.pitch2D.height = h;
  rd.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td = tex_desc(cudaAddressModeClamp, cudaAddressModeClamp, 0, linear, 0, 0);
  cudaTextureObject_t t;
  cudaCreateTextureObject(&t, &rd, &td, nullptr);
  float *c = to_device(coords, 2 * n), *o = to_device(out, n);
  sample2d<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, w, h);
  cudaMemcpy2DToArray(a, 0, 0, d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToDevice);
  cudaMemcpy2DFromArray(back, w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                        cudaMemcpyDeviceToHost);
  cudaFreeArray(a);
  cudaDestroyTextureObject(t);
  cudaFree(d);
  cudaFree(c);
  cudaFree(o);
}

// tex1Dfetch on linear memory: integer indices, out-of-range ones read zero.
void fetch_linear_memory(const float *data, int w, const int *idx, int n, float *out) {
  float *d = to_device(data, w);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = d;
  rd.res.linear.desc = cudaCreateChannelDesc<float>();
  rd.res.linear.sizeInBytes = w * sizeof(float);
  cudaTextureDesc td = tex_desc(0, 0, 0, 0, 0, 0);
  cudaTextureObject_t t;
  cudaCreateTextureObject(&t, &rd, &td, nullptr);
  int *i = to_device(idx, n);
  float *o = to_device(out, n);
  fetch_linear<<<(n + 63) / 64, 64>>>(t, i, n, o);
  to_host(out, o, n);
  cudaDestroyTextureObject(t);
  cudaFree(d);
  cudaFree(i);
  cudaFree(o);
}

// tex3D on a w x h x d float array filled through cudaMemcpy3D.
void fetch3d(const float *data, int w, int h, int d, const float *coords, int n, int mode,
             int linear, int normalized, float *out) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, h, d));
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr((void *)data, w * sizeof(float), w, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, h, d);
  p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  cudaTextureObject_t t = array_texture(a, tex_desc(mode, mode, mode, linear, normalized, 0));
  float *c = to_device(coords, 3 * n), *o = to_device(out, n);
  sample3d<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
  cudaFree(c);
  cudaFree(o);
}

// tex2DLayered (layers x h x w) and tex1DLayered (layers x w, the first row of each layer).
void fetch_layered(const float *data, int w, int h, int layers, const float *coords, int n,
                   int linear, float *out, const float *coords1, float *out1) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a, a1;
  cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, h, layers), cudaArrayLayered);
  cudaMalloc3DArray(&a1, &cd, make_cudaExtent(w, 0, layers), cudaArrayLayered);
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr((void *)data, w * sizeof(float), w, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, h, layers);
  p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  p.dstArray = a1;
  p.extent = make_cudaExtent(w, 1, layers);  // one row from each layer of the source
  cudaMemcpy3D(&p);
  cudaTextureDesc td = tex_desc(cudaAddressModeWrap, cudaAddressModeClamp, 0, linear, 1, 0);
  cudaTextureObject_t t = array_texture(a, td), t1 = array_texture(a1, td);
  float *c = to_device(coords, 3 * n), *o = to_device(out, n);
  sample_layered<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  float *c1 = to_device(coords1, 2 * n), *o1 = to_device(out1, n);
  sample_layered1d<<<(n + 63) / 64, 64>>>(t1, c1, n, o1);
  to_host(out1, o1, n);
  cudaDestroyTextureObject(t);
  cudaDestroyTextureObject(t1);
  cudaFreeArray(a);
  cudaFreeArray(a1);
  cudaFree(c);
  cudaFree(o);
  cudaFree(c1);
  cudaFree(o1);
}

// texCubemap on 6 faces of w x w floats.
void fetch_cubemap(const float *faces, int w, const float *dirs, int n, int linear,
                   float *out) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, w, 6), cudaArrayCubemap);
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr((void *)faces, w * sizeof(float), w, w);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, w, 6);
  p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  cudaTextureObject_t t = array_texture(a, tex_desc(0, 0, 0, linear, 1, 0));
  float *c = to_device(dirs, 3 * n), *o = to_device(out, n);
  sample_cube<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host(out, o, n);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
  cudaFree(c);
  cudaFree(o);
}

// tex2Dgather of channel 0 on a w x h float array (unnormalized coordinates, clamp).
void gather(const float *data, int w, int h, const float *coords, int n, float *out) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, w, h, cudaArrayTextureGather);
  cudaMemcpy2DToArray(a, 0, 0, data, w * sizeof(float), w * sizeof(float), h,
                      cudaMemcpyHostToDevice);
  cudaTextureObject_t t = array_texture(a, tex_desc(1, 1, 1, 0, 0, 0));
  float *c = to_device(coords, 2 * n);
  float4 *o = to_device((const float4 *)out, n);
  gather2d<<<(n + 63) / 64, 64>>>(t, c, n, o);
  to_host((float4 *)out, o, n);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
  cudaFree(c);
  cudaFree(o);
}

// Read modes: n uchar4 texels read as normalized floats and as uchar4, n shorts read as
// normalized floats through tex1Dfetch.
void read_modes(const unsigned char *rgba, const short *s16, int n, float *out,
                unsigned char *out_raw, float *out_s16) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, n);
  cudaMemcpy2DToArray(a, 0, 0, rgba, n * 4, n * 4, 1, cudaMemcpyHostToDevice);
  cudaTextureObject_t norm = array_texture(a, tex_desc(1, 1, 1, 0, 0, 1));
  cudaTextureObject_t raw = array_texture(a, tex_desc(1, 1, 1, 0, 0, 0));
  short *ds = to_device(s16, n);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = ds;
  rd.res.linear.desc = cudaCreateChannelDesc<short>();
  rd.res.linear.sizeInBytes = n * sizeof(short);
  cudaTextureDesc td = tex_desc(0, 0, 0, 0, 0, 1);
  cudaTextureObject_t ts;
  cudaCreateTextureObject(&ts, &rd, &td, nullptr);
  float4 *o = to_device((const float4 *)out, n);
  uchar4 *r = to_device((const uchar4 *)out_raw, n);
  float *os = to_device(out_s16, n);
  read_rgba<<<1, n>>>(norm, raw, ts, n, o, r, os);
  to_host((float4 *)out, o, n);
  to_host((uchar4 *)out_raw, r, n);
  to_host(out_s16, os, n);
  cudaDestroyTextureObject(norm);
  cudaDestroyTextureObject(raw);
  cudaDestroyTextureObject(ts);
  cudaFreeArray(a);
  cudaFree(ds);
  cudaFree(o);
  cudaFree(r);
  cudaFree(os);
}

__global__ void surf_scale(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float v = surf2Dread<float>(s, x * 4, y);
    surf2Dwrite(v * 2.0f + 1.0f, s, x * 4, y);
  }
}
// Reads at x = -1 .. w (one element each side) of row y, with Zero and Clamp.
__global__ void surf_edges(cudaSurfaceObject_t s, int w, int y, float *zero, float *clamp) {
  int x = threadIdx.x - 1;
  if (x <= w) {
    surf2Dread(&zero[x + 1], s, x * 4, y, cudaBoundaryModeZero);
    clamp[x + 1] = surf2Dread<float>(s, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite(99.0f, s, x * 4, -1, cudaBoundaryModeZero);  // out of range: dropped
  }
}
__global__ void surf_layers(cudaSurfaceObject_t s, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers) surf2DLayeredwrite(float(l * 1000 + y * 10 + x), s, x * 4, y, l);
}
__global__ void surf_trap(cudaSurfaceObject_t s, int x) { surf2Dwrite(1.0f, s, x * 4, 0); }
__global__ void surf_1d3d(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, int w) {
  int x = threadIdx.x;
  if (x < w) {
    surf1Dwrite(surf1Dread<int>(s1, x * 4) + 5, s1, x * 4);
    surf3Dwrite(make_float2(x, 2 * x), s3, x * 8, 1, 1);
  }
}

static cudaSurfaceObject_t array_surface(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaCreateSurfaceObject(&s, &rd);
  return s;
}

// A w x h float surface: scaled in place (read then write), read back; the edges of row 0
// read with Zero and Clamp; a 2D layered surface written per layer; 1D and 3D surfaces.
// status: cudaCreateSurfaceObject on an array without cudaArraySurfaceLoadStore.
void surfaces(const float *data, int w, int h, float *out, float *zero, float *clamp,
              float *layered, int layers, int *ints, float *vol, int *status) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, w, h, cudaArraySurfaceLoadStore);
  cudaMemcpy2DToArray(a, 0, 0, data, w * 4, w * 4, h, cudaMemcpyHostToDevice);
  cudaSurfaceObject_t s = array_surface(a);
  surf_scale<<<dim3((w + 31) / 32, h), 32>>>(s, w, h);
  surf_edges<<<1, w + 2>>>(s, w, 0, zero, clamp);
  cudaMemcpy2DFromArray(out, w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost);
  cudaDestroySurfaceObject(s);

  cudaArray_t l;
  cudaMalloc3DArray(&l, &cd, make_cudaExtent(w, h, layers),
                    cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t sl = array_surface(l);
  surf_layers<<<dim3(h, layers), w>>>(sl, w, h, layers);
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcArray = l;
  p.dstPtr = make_cudaPitchedPtr(layered, w * 4, w, h);
  p.extent = make_cudaExtent(w, h, layers);
  p.kind = cudaMemcpyDeviceToHost;
  cudaMemcpy3D(&p);
  cudaDestroySurfaceObject(sl);

  cudaChannelFormatDesc ci = cudaCreateChannelDesc<int>();
  cudaChannelFormatDesc c2 = cudaCreateChannelDesc<float2>();
  cudaArray_t a1, a3;
  cudaMallocArray(&a1, &ci, w, 0, cudaArraySurfaceLoadStore);
  cudaMalloc3DArray(&a3, &c2, make_cudaExtent(w, 2, 2), cudaArraySurfaceLoadStore);
  cudaMemcpyToArray(a1, 0, 0, ints, w * 4, cudaMemcpyHostToDevice);
  cudaSurfaceObject_t s1 = array_surface(a1), s3 = array_surface(a3);
  surf_1d3d<<<1, w>>>(s1, s3, w);
  cudaMemcpyFromArray(ints, a1, 0, 0, w * 4, cudaMemcpyDeviceToHost);
  p.srcArray = a3;
  p.dstPtr = make_cudaPitchedPtr(vol, w * 8, w, 2);
  p.extent = make_cudaExtent(w, 2, 2);
  cudaMemcpy3D(&p);
  cudaDestroySurfaceObject(s1);
  cudaDestroySurfaceObject(s3);

  cudaArray_t plain;
  cudaMallocArray(&plain, &cd, w, h);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = plain;
  cudaSurfaceObject_t bad = 0;
  status[0] = cudaCreateSurfaceObject(&bad, &rd);
  cudaFreeArray(plain);
  cudaFreeArray(a);
  cudaFreeArray(l);
  cudaFreeArray(a1);
  cudaFreeArray(a3);
}

// A write at element x of a 4 x 1 surface with cudaBoundaryModeTrap.
void surface_trap(int x) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, 4, 1, cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t s = array_surface(a);
  surf_trap<<<1, 1>>>(s, x);
  cudaDestroySurfaceObject(s);
  cudaFreeArray(a);
}
