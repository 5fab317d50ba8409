// <nvToolsExt.h> (NVTX 2 path) for cudafuse emulation builds: see nvtx3/nvToolsExt.h.
#pragma once
#include "nvtx3/nvToolsExt.h"
