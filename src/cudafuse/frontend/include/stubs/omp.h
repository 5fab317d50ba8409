/* cudafuse stand-in for omp.h (a compiler's own header, which the front end's libclang does
   not ship): the OpenMP runtime calls host code commonly makes, declared for parsing. */
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
