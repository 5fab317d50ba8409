// Stand-in for the toolkit's internal <crt/host_defines.h> in cudafuse emulation builds (nvcc
// accepts a direct include with a warning): what it declares is in cudafuse_emu.h.
#pragma once
#include "../cudafuse_emu.h"
