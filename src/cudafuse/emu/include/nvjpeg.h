/* cudafuse emulator stand-in for nvjpeg.h. The emulator has no nvJPEG: this declares only the
   opaque handles, the status type (without enumerators) and the image struct, so that a
   program which includes the header (and names them in signatures or members) builds and
   runs. Every function and constant is left undeclared: emu/libraries.py refuses the
   program at its first use of one ("nvJPEG is not supported by the emulator"), and a use its
   scan misses fails g++ with "not declared", which the build reports as the same refusal. */
#pragma once
typedef enum nvjpegStatus_t {} nvjpegStatus_t;
typedef struct nvjpegHandle *nvjpegHandle_t;
typedef struct nvjpegJpegState *nvjpegJpegState_t;
typedef struct { unsigned char *channel[4]; unsigned int pitch[4]; } nvjpegImage_t;
