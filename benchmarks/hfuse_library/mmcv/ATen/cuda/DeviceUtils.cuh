// cudafuse stand-in for PyTorch's ATen/cuda/DeviceUtils.cuh, which mmcv's carafe kernels
// include (their warp reductions call CUDA's __shfl_down_sync themselves).
#pragma once
#include <ATen/ATen.h>
