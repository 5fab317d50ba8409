/* cudafuse stand-in for cufft.h: cuFFT's types and host API, declared for the front end. */
#pragma once
#define _CUFFT_H_ 1  /* the real header's guard, which users test (helper_cuda.h) */
#include <library_types.h>  /* as the real header does (cudaDataType) */
// The types and host API, one declaration for the front end and the emulator.
#include "../../../cuda_api/cudafuse_cufft_api.h"
