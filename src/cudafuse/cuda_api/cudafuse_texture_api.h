// cudafuse_texture_api.h: texture fetches and surface accesses (texture_indirect_functions.h,
// surface_indirect_functions.h) as the one place cudafuse declares them, default arguments
// included: the value-returning templates and the out-parameter overloads. The front end's
// shim includes it; the emulator's textures (emu/include/cudafuse_emu_texture.h) include it
// and define every one (without the default arguments, which stay here).
//
// Before including: __device__ is a macro, float2 is defined, and cudafuse_cuda_api.h is
// included (cudaTextureObject_t, cudaSurfaceObject_t, cudaSurfaceBoundaryMode).
#pragma once

// A fetch, as a value (T named: tex2D<float>(t, x, y)) and into *r (T deduced).
#define __CUDAFUSE_TEX(name, ...)                                                          \
  template <class T> __device__ T name(cudaTextureObject_t t, __VA_ARGS__);               \
  template <class T> __device__ void name(T *r, cudaTextureObject_t t, __VA_ARGS__);
__CUDAFUSE_TEX(tex1Dfetch, int x)
__CUDAFUSE_TEX(tex1D, float x)
__CUDAFUSE_TEX(tex2D, float x, float y)
__CUDAFUSE_TEX(tex3D, float x, float y, float z)
__CUDAFUSE_TEX(tex1DLayered, float x, int layer)
__CUDAFUSE_TEX(tex2DLayered, float x, float y, int layer)
__CUDAFUSE_TEX(texCubemap, float x, float y, float z)
__CUDAFUSE_TEX(texCubemapLayered, float x, float y, float z, int layer)
__CUDAFUSE_TEX(tex1DLod, float x, float level)
__CUDAFUSE_TEX(tex2DLod, float x, float y, float level)
__CUDAFUSE_TEX(tex3DLod, float x, float y, float z, float level)
__CUDAFUSE_TEX(tex2DGrad, float x, float y, float2 dx, float2 dy)
#undef __CUDAFUSE_TEX
template <class T> __device__ T tex2Dgather(cudaTextureObject_t t, float x, float y, int comp = 0);

// Surface reads (as a value and into *r) and writes; x is in bytes.
#define __CUDAFUSE_SURF(suffix, ...)                                                       \
  template <class T>                                                                       \
  __device__ T surf##suffix##read(cudaSurfaceObject_t s, __VA_ARGS__,                     \
                                  cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);       \
  template <class T>                                                                       \
  __device__ void surf##suffix##read(T *r, cudaSurfaceObject_t s, __VA_ARGS__,            \
                                     cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);    \
  template <class T>                                                                       \
  __device__ void surf##suffix##write(T v, cudaSurfaceObject_t s, __VA_ARGS__,            \
                                      cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
__CUDAFUSE_SURF(1D, int x)
__CUDAFUSE_SURF(2D, int x, int y)
__CUDAFUSE_SURF(3D, int x, int y, int z)
__CUDAFUSE_SURF(1DLayered, int x, int layer)
__CUDAFUSE_SURF(2DLayered, int x, int y, int layer)
#undef __CUDAFUSE_SURF
