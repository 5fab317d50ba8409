/* cudafuse stub: the CUDA declarations come from the force-included shim. */
#pragma once
