// Stand-in for <texture_indirect_functions.h> in cudafuse emulation builds: everything is in cudafuse_emu.h.
#pragma once
#include "cudafuse_emu.h"
