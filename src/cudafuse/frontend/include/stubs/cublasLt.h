/* cudafuse stand-in for cublasLt.h: cuBLASLt's types and host API, for the front end (the
   emulator's emu/include/cublasLt.h defines the functions). */
#pragma once
#include "cublas_api.h"
#include <cstdint>
#include <cstring>

// The types and the host API: one declaration for the front end and the emulator.
#include "../../../cuda_api/cudafuse_cublaslt_api.h"
