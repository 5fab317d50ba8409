// Stand-in for <cufftXt.h> in cudafuse emulation builds: cufftXtMakePlanMany, load and store
// callbacks (called on the host, with no shared memory), and the multi-GPU descriptors over
// the emulator's single device (a plan set to more than one GPU is CUFFT_INVALID_DEVICE).
#pragma once
#include "cufft.h"
#include <cstdlib>
#include <cstring>

// The types and declarations, shared with the front end: this header defines the functions.
#include "../../cuda_api/cudafuse_cufftxt_api.h"

inline cufftResult cufftXtMakePlanMany(cufftHandle h, int rank, long long *n,
                                       long long *inembed, long long istride, long long idist,
                                       cudaDataType, long long *onembed, long long ostride,
                                       long long odist, cudaDataType, long long batch,
                                       size_t *work, cudaDataType exec) {
  cufftType t = exec == CUDA_C_32F ? CUFFT_C2C : exec == CUDA_C_64F ? CUFFT_Z2Z : CUFFT_C2C;
  if (exec != CUDA_C_32F && exec != CUDA_C_64F) return CUFFT_NOT_SUPPORTED;
  return cufftMakePlanMany64(h, rank, n, inembed, istride, idist, onembed, ostride, odist, t,
                             batch, work);
}
// One callback per plan and direction (load, store); cuFFT checks that its type fits the plan.
inline cufftResult cufftXtSetCallback(cufftHandle h, void **callbacks, cufftXtCallbackType type,
                                      void **info) {
  ::cudafuse_emu::fft::__cf_Plan *p = ::cudafuse_emu::fft::plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (!callbacks || type >= CUFFT_CB_UNDEFINED) return CUFFT_INVALID_VALUE;
  int slot = type >= CUFFT_CB_ST_COMPLEX ? ::cudafuse_emu::fft::__cf_STORE : ::cudafuse_emu::fft::__cf_LOAD;
  p->callback[slot] = callbacks[0];
  p->callback_info[slot] = info ? info[0] : nullptr;
  p->callback_kind[slot] = type;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtClearCallback(cufftHandle h, cufftXtCallbackType type) {
  ::cudafuse_emu::fft::__cf_Plan *p = ::cudafuse_emu::fft::plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->callback[type >= CUFFT_CB_ST_COMPLEX ? 1 : 0] = nullptr;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtSetCallbackSharedSize(cufftHandle h, cufftXtCallbackType, size_t) {
  return ::cudafuse_emu::fft::plan_of(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}
inline cufftResult cufftXtSetGPUs(cufftHandle h, int nGPUs, int *which) {
  ::cudafuse_emu::fft::__cf_Plan *p = ::cudafuse_emu::fft::plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (nGPUs != 1 || !which || which[0] != 0) return CUFFT_INVALID_DEVICE;
  p->gpus = 1;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtMalloc(cufftHandle h, cudaLibXtDesc **desc, cufftXtSubFormat format) {
  ::cudafuse_emu::fft::__cf_Plan *p = ::cudafuse_emu::fft::plan_of(h);
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  size_t bytes = std::max(::cudafuse_emu::fft::elem_in(p->type) * (size_t)::cudafuse_emu::fft::count(*p, p->n[p->rank - 1]),
                          ::cudafuse_emu::fft::elem_out(p->type) * (size_t)::cudafuse_emu::fft::count(*p, p->n[p->rank - 1])) * p->batch;
  cudaLibXtDesc *d = new cudaLibXtDesc();
  d->descriptor = new cudaXtDesc();
  d->descriptor->nGPUs = 1;
  d->descriptor->__cf_GPUs[0] = 0;
  d->descriptor->size[0] = bytes;
  if (cudaMalloc(&d->descriptor->data[0], bytes) != cudaSuccess) return CUFFT_ALLOC_FAILED;
  d->library = LIB_FORMAT_CUFFT;
  d->subFormat = format;
  *desc = d;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtFree(cudaLibXtDesc *d) {
  if (!d) return CUFFT_INVALID_VALUE;
  cudaFree(d->descriptor->data[0]);
  delete d->descriptor;
  delete d;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtMemcpy(cufftHandle h, void *dst, void *src, cufftXtCopyType type) {
  if (!::cudafuse_emu::fft::plan_of(h)) return CUFFT_INVALID_PLAN;
  cudaXtDesc *to = type == CUFFT_COPY_DEVICE_TO_HOST ? nullptr : ((cudaLibXtDesc *)dst)->descriptor;
  cudaXtDesc *from = type == CUFFT_COPY_HOST_TO_DEVICE ? nullptr : ((cudaLibXtDesc *)src)->descriptor;
  size_t bytes = to ? to->size[0] : from->size[0];
  std::memcpy(to ? to->data[0] : dst, from ? from->data[0] : src, bytes);
  return CUFFT_SUCCESS;
}
inline cufftResult cufftXtExecDescriptorC2C(cufftHandle h, cudaLibXtDesc *in, cudaLibXtDesc *out,
                                            int dir) {
  return cufftExecC2C(h, (cufftComplex *)in->descriptor->data[0],
                      (cufftComplex *)out->descriptor->data[0], dir);
}
inline cufftResult cufftXtExecDescriptorZ2Z(cufftHandle h, cudaLibXtDesc *in, cudaLibXtDesc *out,
                                            int dir) {
  return cufftExecZ2Z(h, (cufftDoubleComplex *)in->descriptor->data[0],
                      (cufftDoubleComplex *)out->descriptor->data[0], dir);
}
