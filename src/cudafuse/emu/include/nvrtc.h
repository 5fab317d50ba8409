/* cudafuse emulator stand-in for nvrtc.h. The emulator compiles no code at run time: this
   declares only the opaque program handle and the result type (without enumerators), so that
   a program which includes the header builds and runs. Every function and constant is left
   undeclared: emu/libraries.py refuses the program at its first use of one ("NVRTC is not
   supported by the emulator"), and a use its scan misses fails g++ with "not declared",
   which the build reports as the same refusal (runtime/build.py). */
#pragma once
typedef enum nvrtcResult {} nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
