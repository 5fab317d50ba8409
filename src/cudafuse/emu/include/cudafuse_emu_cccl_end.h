// cudafuse_emu_cccl_end.h: force-included after cudafuse_emu_cccl.h and the program's Thrust
// headers (emu/cccl.py). A build that defines __CUDA_ARCH__ defines it here, after Thrust,
// whose headers would otherwise take their device paths; the program's own code sees it.
#pragma once
#if defined(CUDAFUSE_EMU_CUDA_ARCH) && !defined(__CUDA_ARCH__)
#define __CUDA_ARCH__ CUDAFUSE_EMU_CUDA_ARCH
#endif
