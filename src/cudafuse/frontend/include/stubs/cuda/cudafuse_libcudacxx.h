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
template <unsigned long long Align> struct aligned_size_t {
  static constexpr unsigned long long align = Align;
  unsigned long long value;
  __host__ __device__ explicit constexpr aligned_size_t(unsigned long long v) : value(v) {}
  __host__ __device__ constexpr operator unsigned long long() const { return value; }
};
template <thread_scope Scope> class barrier {
 public:
  struct arrival_token {};
  __host__ __device__ barrier() {}
  __host__ __device__ barrier(long long expected) {}
  friend __host__ __device__ void init(barrier *b, long long expected) {}
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
template <thread_scope Scope, unsigned char Stages = 2> class pipeline_shared_state {};
template <thread_scope Scope> class pipeline {
 public:
  __host__ __device__ void producer_acquire();
  __host__ __device__ void producer_commit();
  __host__ __device__ void consumer_wait();
  template <class Duration> __host__ __device__ bool consumer_wait_for(const Duration &d);
  template <class TimePoint> __host__ __device__ bool consumer_wait_until(const TimePoint &t);
  __host__ __device__ void consumer_release();
  __host__ __device__ bool quit();
};
__host__ __device__ pipeline<thread_scope_thread> make_pipeline();
template <class Group, thread_scope Scope, unsigned char Stages>
__host__ __device__ pipeline<Scope> make_pipeline(const Group &g,
                                                  pipeline_shared_state<Scope, Stages> *s);
template <class Group, thread_scope Scope, unsigned char Stages>
__host__ __device__ pipeline<Scope> make_pipeline(const Group &g,
                                                  pipeline_shared_state<Scope, Stages> *s,
                                                  pipeline_role role);
template <unsigned char Prior> __host__ __device__ void pipeline_consumer_wait_prior(
    pipeline<thread_scope_thread> &p);
template <class Shape, thread_scope Scope>
__host__ __device__ void memcpy_async(void *dst, const void *src, Shape size,
                                      pipeline<Scope> &p);
template <class Group, class Shape, thread_scope Scope>
__host__ __device__ void memcpy_async(const Group &g, void *dst, const void *src, Shape size,
                                      pipeline<Scope> &p);
template <class Shape, thread_scope Scope>
__host__ __device__ void memcpy_async(void *dst, const void *src, Shape size,
                                      barrier<Scope> &b);
template <class Group, class Shape, thread_scope Scope>
__host__ __device__ void memcpy_async(const Group &g, void *dst, const void *src, Shape size,
                                      barrier<Scope> &b);
template <class T, thread_scope Scope = thread_scope_system> struct atomic {
  __host__ __device__ atomic(T v = T());
  __host__ __device__ T load() const;
  __host__ __device__ void store(T v);
  __host__ __device__ T fetch_add(T v);
  __host__ __device__ T fetch_sub(T v);
  __host__ __device__ T exchange(T v);
  __host__ __device__ operator T() const;
};
template <class T, thread_scope Scope = thread_scope_system> struct atomic_ref {
  __host__ __device__ explicit atomic_ref(T &r);
  __host__ __device__ T load() const;
  __host__ __device__ void store(T v) const;
  __host__ __device__ T fetch_add(T v) const;
  __host__ __device__ T fetch_min(T v) const;
  __host__ __device__ T fetch_max(T v) const;
};
}  // namespace cuda
