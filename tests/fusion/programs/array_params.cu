// Kernels whose buffer parameters are declared as arrays, as n-body and solver codes often
// write them (`double vx[]`, `const double ax[]`, `double e[4]`): C adjusts each to a pointer
// to its element, so they are buffers like `double *vx`. A leapfrog step (kick then drift,
// grid-stride while loops over coordinates kept as separate arrays) in a time loop, then a
// producer whose output is declared with a size smaller than the count it is given (the size
// means nothing) and its consumer, which declares its input the same way.
// Written for cudafuse's tests (tests/fusion/test_fuse_array_params.py).

__global__ void kick(double vx[], double vy[], const double ax[], const double ay[],
                     const double h, const int n) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    while (tid < n) {
        vx[tid] += 0.5 * h * ax[tid];
        vy[tid] += 0.5 * h * ay[tid];
        tid += blockDim.x * gridDim.x;
    }
}

__global__ void drift(double x[], double y[], const double vx[], const double vy[],
                      const double h, const int n) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    while (tid < n) {
        x[tid] += h * vx[tid];
        y[tid] += h * vy[tid];
        tid += blockDim.x * gridDim.x;
    }
}

__global__ void energy(double e[4], const double vx[], const double vy[], const int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        e[i] = 0.5 * (vx[i] * vx[i] + vy[i] * vy[i]);
}

__global__ void relative(double r[], const double e[4], const int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        r[i] = e[i] / (1.0 + e[i]);
}

// One block of 32 threads: each thread walks its stride loop more than once when n > 32.
void leapfrog(double x[], double y[], double vx[], double vy[], const double ax[],
              const double ay[], double e[], double r[], int n, int steps) {
    for (int t = 0; t < steps; t++) {
        kick<<<1, 32>>>(vx, vy, ax, ay, 0.01, n);
        drift<<<1, 32>>>(x, y, vx, vy, 0.01, n);
    }
    energy<<<(n + 31) / 32, 32>>>(e, vx, vy, n);
    relative<<<(n + 31) / 32, 32>>>(r, e, n);
}
