/* cudafuse emulator stand-in for curand_kernel.h: cuRAND's device API is not emulated. Its
   state types (curandState, ...) and functions (curand_init, curand_uniform, ...) are left
   undeclared, so their first use is refused (emu/libraries.py); the host API's handle and
   enums come from curand.h, as with the real header. */
#pragma once
#include "curand.h"
#define CURAND_KERNEL_H_ 1
