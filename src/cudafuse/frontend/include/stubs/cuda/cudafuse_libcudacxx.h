/* cudafuse stand-in for the parts of libcu++ (<cuda/barrier>, <cuda/pipeline>,
   <cuda/atomic>) that kernels use: declarations for the front end, never compiled. */
#pragma once
// CUDA 13's header brings __half and __nv_bfloat16 with it (through libcu++'s type traits);
// code that uses them without including cuda_bf16.h compiles with nvcc.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "../../../../cuda_api/cudafuse_std.h"
namespace cuda {
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2,
                    thread_scope_thread = 3 };
template <unsigned long long __cf_Align> struct aligned_size_t {
  static constexpr unsigned long long align = __cf_Align;
  unsigned long long value;
  __host__ __device__ explicit constexpr aligned_size_t(unsigned long long v) : value(v) {}
  __host__ __device__ constexpr operator unsigned long long() const { return value; }
};
template <thread_scope __cf_Scope> class barrier {
 public:
  struct arrival_token {};
  __host__ __device__ barrier() {}
  __host__ __device__ barrier(long long expected) {}
  friend __host__ __device__ void init(barrier *__cf_b, long long expected) {}
  __host__ __device__ arrival_token arrive(long long update = 1);
  __host__ __device__ void wait(arrival_token &&t) const;
  __host__ __device__ void arrive_and_wait();
  __host__ __device__ void arrive_and_drop();
  __host__ __device__ bool try_wait(arrival_token &&t) const;
  __host__ __device__ void wait_parity(bool parity) const;
  __host__ __device__ bool try_wait_parity(bool parity) const;
  static constexpr long long max() { return 0x7fffffff; }
};
enum class pipeline_role { producer, consumer };
template <thread_scope __cf_Scope, unsigned char __cf_Stages = 2> class pipeline_shared_state {};
template <thread_scope __cf_Scope> class pipeline {
 public:
  __host__ __device__ void producer_acquire();
  __host__ __device__ void producer_commit();
  __host__ __device__ void consumer_wait();
  template <class Duration> __host__ __device__ bool consumer_wait_for(const Duration &__cf_d);
  template <class __cf_TimePoint> __host__ __device__ bool consumer_wait_until(const __cf_TimePoint &t);
  __host__ __device__ void consumer_release();
  __host__ __device__ bool quit();
};
__host__ __device__ pipeline<thread_scope_thread> make_pipeline();
template <class __cf_Group, thread_scope __cf_Scope, unsigned char __cf_Stages>
__host__ __device__ pipeline<__cf_Scope> make_pipeline(const __cf_Group &__cf_g,
                                                  pipeline_shared_state<__cf_Scope, __cf_Stages> *s);
template <class __cf_Group, thread_scope __cf_Scope, unsigned char __cf_Stages>
__host__ __device__ pipeline<__cf_Scope> make_pipeline(const __cf_Group &__cf_g,
                                                  pipeline_shared_state<__cf_Scope, __cf_Stages> *s,
                                                  pipeline_role role);
template <unsigned char __cf_Prior> __host__ __device__ void pipeline_consumer_wait_prior(
    pipeline<thread_scope_thread> &__cf_p);
template <class __cf_Shape, thread_scope __cf_Scope>
__host__ __device__ void memcpy_async(void *dst, const void *src, __cf_Shape size,
                                      pipeline<__cf_Scope> &__cf_p);
template <class __cf_Group, class __cf_Shape, thread_scope __cf_Scope>
__host__ __device__ void memcpy_async(const __cf_Group &__cf_g, void *dst, const void *src, __cf_Shape size,
                                      pipeline<__cf_Scope> &__cf_p);
template <class __cf_Shape, thread_scope __cf_Scope>
__host__ __device__ void memcpy_async(void *dst, const void *src, __cf_Shape size,
                                      barrier<__cf_Scope> &__cf_b);
template <class __cf_Group, class __cf_Shape, thread_scope __cf_Scope>
__host__ __device__ void memcpy_async(const __cf_Group &__cf_g, void *dst, const void *src, __cf_Shape size,
                                      barrier<__cf_Scope> &__cf_b);
template <class __cf_T, thread_scope __cf_Scope = thread_scope_system> struct atomic {
  __host__ __device__ atomic(__cf_T v = __cf_T());
  __host__ __device__ __cf_T load() const;
  __host__ __device__ void store(__cf_T v);
  __host__ __device__ __cf_T fetch_add(__cf_T v);
  __host__ __device__ __cf_T fetch_sub(__cf_T v);
  __host__ __device__ __cf_T exchange(__cf_T v);
  __host__ __device__ operator __cf_T() const;
};
template <class __cf_T, thread_scope __cf_Scope = thread_scope_system> struct atomic_ref {
  __host__ __device__ explicit atomic_ref(__cf_T &r);
  __host__ __device__ __cf_T load() const;
  __host__ __device__ void store(__cf_T v) const;
  __host__ __device__ __cf_T fetch_add(__cf_T v) const;
  __host__ __device__ __cf_T fetch_min(__cf_T v) const;
  __host__ __device__ __cf_T fetch_max(__cf_T v) const;
};
}  // namespace cuda
