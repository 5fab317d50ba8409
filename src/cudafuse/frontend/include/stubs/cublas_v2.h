/* cudafuse stand-in for cublas_v2.h: see cublas_api.h. */
#pragma once
#include "cublas_api.h"
