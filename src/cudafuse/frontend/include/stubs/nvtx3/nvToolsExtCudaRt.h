// <nvtx3/nvToolsExtCudaRt.h> for the cudafuse front end: the emulator's stand-in, which only declares
// and ignores, so that both read one definition.
#pragma once
#include "../../../../emu/include/nvtx3/nvToolsExtCudaRt.h"
