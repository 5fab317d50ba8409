/* cudafuse stand-in for <cuda_awbarrier.h>: the C-style arrive-wait barrier's declarations,
   to parse kernels that use them. */
#pragma once
typedef unsigned long long __mbarrier_t;
typedef unsigned long long __mbarrier_token_t;
__device__ unsigned __mbarrier_maximum_count();
__device__ void __mbarrier_init(__mbarrier_t *bar, unsigned expected_count);
__device__ void __mbarrier_inval(__mbarrier_t *bar);
__device__ __mbarrier_token_t __mbarrier_arrive(__mbarrier_t *bar);
__device__ __mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t *bar);
__device__ bool __mbarrier_test_wait(__mbarrier_t *bar, __mbarrier_token_t token);
__device__ unsigned __mbarrier_token_pending_count(__mbarrier_token_t token);
