#include "scan_blocks.cuh"

void run_add_all(float *out, const float *in, float *sums, int n) { add_all(out, in, sums, n); }
