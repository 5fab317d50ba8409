/* cudafuse stand-in for cuda_profiler_api.h: cudaProfilerStart/Stop are in the shim. */
#pragma once
