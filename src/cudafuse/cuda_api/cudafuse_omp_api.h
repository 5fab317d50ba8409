// cudafuse_omp_api.h: the OpenMP runtime calls host code commonly makes (omp.h), declared once
// for the front end (frontend/include/stubs/omp.h: libclang ships no omp.h) and the emulator
// (emu/include/omp.h, which defines them for a team of one thread).
#pragma once
extern "C" {
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
int omp_get_num_procs(void);
int omp_in_parallel(void);
double omp_get_wtime(void);
double omp_get_wtick(void);
}
