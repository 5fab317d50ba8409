/* cudafuse stand-in for cusparse.h: cuSPARSE's types and host API, declared once for the front
   end and the emulator (cuda_api/cudafuse_cusparse_api.h). */
#pragma once
#include <library_types.h>
#include "../../../cuda_api/cudafuse_cusparse_api.h"
