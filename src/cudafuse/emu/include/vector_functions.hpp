// Stand-in for <vector_functions.hpp> in cudafuse emulation builds: the definitions that
// <vector_functions.h> declares are in cudafuse_emu.h.
#pragma once
#include "cudafuse_emu.h"
