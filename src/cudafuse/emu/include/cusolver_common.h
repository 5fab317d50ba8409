/* cudafuse emulator stand-in for cusolver_common.h. The emulator has no cuSOLVER: this
   declares only the status enum and the opaque handles, so that a program which includes a
   cuSOLVER header (and names a handle in a signature) builds and runs. Every function is
   left undeclared: emu/libraries.py refuses the program at its first use of one ("cuSOLVER
   is not supported by the emulator"), and a use its scan misses fails g++ with "not
   declared", which the build reports as the same refusal (runtime/build.py). */
#pragma once
#define CUSOLVER_COMMON_H_ 1
typedef enum {
  CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2, CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4, CUSOLVER_STATUS_MAPPING_ERROR = 5,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6, CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8, CUSOLVER_STATUS_NOT_SUPPORTED = 9,
  CUSOLVER_STATUS_ZERO_PIVOT = 10, CUSOLVER_STATUS_INVALID_LICENSE = 11
} cusolverStatus_t;
typedef struct cusolverDnContext *cusolverDnHandle_t;
typedef struct cusolverDnParams *cusolverDnParams_t;
typedef struct cusolverSpContext *cusolverSpHandle_t;
typedef struct cusolverRfCommon *cusolverRfHandle_t;
typedef struct cusolverMgContext *cusolverMgHandle_t;
typedef struct syevjInfo *syevjInfo_t;
typedef struct gesvdjInfo *gesvdjInfo_t;
