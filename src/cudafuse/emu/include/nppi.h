/* cudafuse emulator stand-in for nppi.h. The emulator has no NPP: this declares nothing (NPP's
   types, Npp8u ... NppiSize, are its API too), so that a program which only includes the
   header builds and runs; emu/libraries.py refuses the program at its first use of NPP's API
   ("NPP is not supported by the emulator"), and a use its scan misses fails g++ with "not
   declared", which the build reports as the same refusal (runtime/build.py). */
#pragma once
