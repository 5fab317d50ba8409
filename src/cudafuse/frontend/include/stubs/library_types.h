/* cudafuse stand-in for library_types.h: the data type tags, declared for the front end. */
#pragma once
#include "../../../cuda_api/cudafuse_library_types.h"
