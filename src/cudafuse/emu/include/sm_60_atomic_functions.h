// Stand-in for <sm_60_atomic_functions.h> in cudafuse emulation builds: everything is in cudafuse_emu.h.
#pragma once
#include "cudafuse_emu.h"
