/* cudafuse stand-in for cufftXt.h: the multi-GPU descriptors, declared for the front end. */
#pragma once
#include "cufft.h"
// The types and host API, one declaration for the front end and the emulator.
#include "../../../cuda_api/cudafuse_cufftxt_api.h"
