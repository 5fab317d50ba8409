/* cudafuse emulator stand-in for curand_discrete.h, a part of cuRAND's device API: nothing of its own
   (see curand_kernel.h); its first use is refused (emu/libraries.py). */
#pragma once
#include "curand_kernel.h"
