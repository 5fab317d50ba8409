// Written for cudafuse's tests in the style of OpenMM's kernels (platforms/common/src/
// kernels/*.cc): KERNEL/GLOBAL_ID/SYNC_THREADS from the dialect's header, a per-block sum
// through a helper with barriers, and a kinetic-energy kernel with them in its own body.
#include "compute_dialect.h"

DEVICE real blockSum(real value, LOCAL_ARG volatile real* temp) {
    const int thread = LOCAL_ID;
    SYNC_THREADS;
    temp[thread] = value;
    SYNC_THREADS;
    for (int step = 1; step < LOCAL_SIZE; step *= 2) {
        if (thread+step < LOCAL_SIZE && thread%(2*step) == 0)
            temp[thread] = temp[thread] + temp[thread+step];
        SYNC_THREADS;
    }
    return temp[0];
}

KERNEL void sumSquares(int n, GLOBAL const real* RESTRICT x, GLOBAL real* RESTRICT partial) {
    LOCAL volatile real temp[64];
    real s = 0;
    for (int i = GLOBAL_ID; i < n; i += GLOBAL_SIZE)
        s += x[i]*x[i];
    s = blockSum(s, temp);
    if (LOCAL_ID == 0)
        partial[GROUP_ID] = s;
}

KERNEL void kineticEnergy(int n, GLOBAL const float4* RESTRICT velm, GLOBAL real* RESTRICT energy) {
    LOCAL real temp[64];
    real e = 0;
    for (int i = GLOBAL_ID; i < n; i += GLOBAL_SIZE) {
        float4 v = velm[i];
        if (v.w != 0)
            e += 0.5f*(v.x*v.x+v.y*v.y+v.z*v.z)/v.w;
    }
    temp[LOCAL_ID] = e;
    SYNC_THREADS;
    for (int step = 32; step > 0; step /= 2) {
        if (LOCAL_ID < step)
            temp[LOCAL_ID] += temp[LOCAL_ID+step];
        SYNC_THREADS;
    }
    if (LOCAL_ID == 0)
        energy[GROUP_ID] = temp[0];
}

// A macro that is more than a barrier: not the barrier alone, so not rewritten.
#define SYNC_AND_COUNT __syncthreads(); ++rounds
KERNEL void countedSum(int n, GLOBAL real* RESTRICT data, GLOBAL int* RESTRICT count) {
    int rounds = 0;
    for (int i = GLOBAL_ID; i < n; i += GLOBAL_SIZE)
        data[i] *= 2;
    SYNC_AND_COUNT;
    if (GLOBAL_ID == 0)
        count[0] = rounds;
}

extern "C" void run_sum_squares(int n, const real* x, real* partial, int blocks) {
    sumSquares<<<blocks, 64>>>(n, x, partial);
}
extern "C" void run_kinetic(int n, const float4* velm, real* energy, int blocks) {
    kineticEnergy<<<blocks, 64>>>(n, velm, energy);
}
