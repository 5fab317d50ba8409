// <nvToolsExt.h> (NVTX 2 path) for the cudafuse front end: see nvtx3/nvToolsExt.h.
#pragma once
#include "nvtx3/nvToolsExt.h"
