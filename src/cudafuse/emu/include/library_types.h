// Stand-in for <library_types.h> in cudafuse emulation builds: the data type tags the CUDA
// libraries take (cudaDataType), and what the emulator's library stand-ins share.
#pragma once
#include "cudafuse_emu.h"
#include <functional>

typedef enum cudaDataType_t {
  CUDA_R_16F = 2, CUDA_C_16F = 6, CUDA_R_16BF = 14, CUDA_C_16BF = 15, CUDA_R_32F = 0,
  CUDA_C_32F = 4, CUDA_R_64F = 1, CUDA_C_64F = 5, CUDA_R_8I = 3, CUDA_C_8I = 7,
  CUDA_R_8U = 8, CUDA_C_8U = 9, CUDA_R_32I = 10, CUDA_C_32I = 11, CUDA_R_32U = 12,
  CUDA_C_32U = 13
} cudaDataType;
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL }
    libraryPropertyType;

namespace cudafuse_emu {
// Library work on a stream runs at once (streams are synchronous), or is recorded as a node
// when the stream is being captured into a graph, like a kernel launch would be.
inline void library_run(cudaStream_t s, std::function<void()> op) {
  if (stream_capturing(s)) capture_op(s, 0, std::move(op));
  else op();
}
}  // namespace cudafuse_emu
