/* cudafuse stand-in for <cuda_pipeline.h>: the C-style pipeline primitives' declarations, to
   parse kernels that use them. */
#pragma once
#include "cuda_awbarrier.h"
__device__ void __pipeline_memcpy_async(void *dst, const void *src, unsigned long size_and_align,
                                        unsigned long zfill = 0);
__device__ void __pipeline_commit();
__device__ void __pipeline_wait_prior(unsigned long prior);
__device__ void __pipeline_arrive_on(__mbarrier_t *bar);
