// <cuda_pipeline.h> for cudafuse emulation builds: the C-style pipeline primitives. A copy
// is done at the call, so commits and waits have nothing left to wait for.
#pragma once
#include "cuda_awbarrier.h"

// Copies size_and_align - zfill bytes and zeroes the zfill bytes after them.
inline void __pipeline_memcpy_async(void *dst, const void *src, size_t size_and_align,
                                    size_t zfill = 0) {
  size_t n = zfill < size_and_align ? size_and_align - zfill : 0;
  memcpy(dst, src, n);
  memset(static_cast<char *>(dst) + n, 0, size_and_align - n);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}
// cp.async.mbarrier.arrive.noinc's net effect once the copies are done: none.
inline void __pipeline_arrive_on(__mbarrier_t *) {}
