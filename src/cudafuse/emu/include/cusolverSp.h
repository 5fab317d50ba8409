/* cudafuse emulator stand-in for cusolverSp.h: cuSOLVER's handles and status only (see
   cusolver_common.h); its functions are refused at their first use (emu/libraries.py). */
#pragma once
#include "cusolver_common.h"
