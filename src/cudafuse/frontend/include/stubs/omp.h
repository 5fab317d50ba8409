/* cudafuse stand-in for omp.h (a compiler's own header, which the front end's libclang does
   not ship): the OpenMP runtime calls, declared once for the front end and the emulator
   (cuda_api/cudafuse_omp_api.h). */
#pragma once
#include "../../../cuda_api/cudafuse_omp_api.h"
