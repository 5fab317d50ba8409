// Stand-in for <sm_35_intrinsics.h> in cudafuse emulation builds: everything is in cudafuse_emu.h.
#pragma once
#include "cudafuse_emu.h"
