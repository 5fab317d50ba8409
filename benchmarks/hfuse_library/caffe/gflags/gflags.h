// Stand-in for gflags, which caffe/common.hpp includes (no flag is used by the kernels).
#pragma once
#define GFLAGS_GFLAGS_H_
namespace google {}
