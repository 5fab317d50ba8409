// Stand-in for <library_types.h> in cudafuse emulation builds: the data type tags the CUDA
// libraries take (cudaDataType), and what the emulator's library stand-ins share.
#pragma once
#include "cudafuse_emu.h"
#include <functional>

// The tags, shared with the front end.
#include "../../cuda_api/cudafuse_library_types.h"

namespace cudafuse_emu {
// Library work on a stream runs at once (streams are synchronous), or is recorded as a node
// when the stream is being captured into a graph, like a kernel launch would be.
inline void library_run(cudaStream_t s, std::function<void()> op) {
  if (stream_capturing(s)) capture_op(s, 0, std::move(op));
  else op();
}
}  // namespace cudafuse_emu
