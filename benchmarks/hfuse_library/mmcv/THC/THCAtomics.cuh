// cudafuse stand-in for PyTorch's THC/THCAtomics.cuh, which mmcv's pytorch_cuda_helper.hpp
// includes: the atomicAdd overloads it adds for half and integer types (the float kernels
// the benchmark runs use CUDA's own).
#pragma once
