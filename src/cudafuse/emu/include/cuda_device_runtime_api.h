// Stand-in for <cuda_device_runtime_api.h> in cudafuse emulation builds: everything is in cudafuse_emu.h.
#pragma once
#include "cudafuse_emu.h"
