// cudafuse emulator: OpenMP as one thread. Emulated programs are built without -fopenmp
// (the emulator runs one host thread), so `#pragma omp` is ignored and every parallel
// region runs once, on thread 0 of a team of 1, which OpenMP allows for any region.
// Declared (shared with the front end) in cuda_api/cudafuse_omp_api.h.
#pragma once
#include <chrono>
#include "../../cuda_api/cudafuse_omp_api.h"
inline int omp_get_thread_num(void) { return 0; }
inline int omp_get_num_threads(void) { return 1; }
inline int omp_get_max_threads(void) { return 1; }
inline void omp_set_num_threads(int) {}
inline int omp_get_num_procs(void) { return 1; }
inline int omp_in_parallel(void) { return 0; }
inline double omp_get_wtime(void) {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
inline double omp_get_wtick(void) { return 1e-9; }
