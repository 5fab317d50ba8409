// Stand-in for the toolkit's internal <crt/mma.h> in cudafuse emulation builds: <mma.h>.
#pragma once
#include "../mma.h"
