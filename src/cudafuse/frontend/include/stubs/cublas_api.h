/* cudafuse stand-in for cublas_api.h: cuBLAS's types and host API, declared for the front end. */
#pragma once
#define CUBLAS_API_H_ 1  /* the real header's guard, which users test (helper_cuda.h) */
#include <library_types.h>
#include <cuda_fp16.h>  // the real header includes both
#include <cuda_bf16.h>
// The types and host API, one declaration for the front end and the emulator.
#include "../../../cuda_api/cudafuse_cublas_api.h"
