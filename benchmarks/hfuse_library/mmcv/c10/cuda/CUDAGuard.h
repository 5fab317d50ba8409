// cudafuse stand-in for PyTorch's c10/cuda/CUDAGuard.h, which mmcv's pytorch_cuda_helper.hpp
// includes for its host launchers (benchmarks/hfuse_library_pairs.py; with ../../aten/).
#pragma once
#include <ATen/ATen.h>
namespace at {
namespace cuda {
struct CUDAGuard {
  explicit CUDAGuard(DeviceType) {}
};
}  // namespace cuda
}  // namespace at
