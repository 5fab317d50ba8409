// cudafuse stand-in: see cudafuse_aten.h at the root of this folder.
#pragma once
#include "../../../cudafuse_aten.h"
