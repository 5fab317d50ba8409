// Stand-in for <cuda_profiler_api.h> in cudafuse emulation builds: cudaProfilerStart/Stop are
// in cudafuse_emu_runtime.h (no-ops).
#pragma once
#include "cudafuse_emu.h"
