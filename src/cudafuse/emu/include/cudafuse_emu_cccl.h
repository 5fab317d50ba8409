// cudafuse_emu_cccl.h: force-included before cudafuse_emu.h in programs that use Thrust (see
// emu/cccl.py and docs/emulation.md, "Thrust").
//
// CCCL fixes at its first configuration header whether a CUDA compiler is compiling. Here
// it must see a host compiler (no __CUDACC__ yet), so that Thrust's device system is the
// C++ one the build selects (THRUST_DEVICE_SYSTEM_CPP): device_vector in host memory,
// algorithms run on the calling thread. The configuration includes <cuda_runtime_api.h>,
// which is the emulator's stand-in, so cudafuse_emu.h is read from here, after it.
#pragma once
#include <thrust/version.h>
// thrust::system_error: with the CUDA device system every container brings it in (programs
// catch it around device_vector allocations); the C++ system's containers do not.
#include <thrust/system_error.h>
