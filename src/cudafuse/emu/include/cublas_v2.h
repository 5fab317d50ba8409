// Stand-in for <cublas_v2.h> in cudafuse emulation builds: the API is in cublas_api.h.
#pragma once
#include "cublas_api.h"
