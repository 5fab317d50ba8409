// Stand-in for Boost's shared_ptr, which caffe/common.hpp includes for its host classes
// (benchmarks/hfuse_library_pairs.py builds caffe's kernel files alone).
#pragma once
#include <memory>
namespace boost {
using std::shared_ptr;
}
