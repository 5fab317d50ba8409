// Stand-in for glog's LOG and CHECK macros, which caffe's host code and headers use: the
// message is discarded (the benchmark runs the kernels, never a failing check).
#pragma once
namespace cudafuse_glog {
struct Sink {
  template <class T>
  Sink &operator<<(const T &) { return *this; }
};
}  // namespace cudafuse_glog
#define LOG(severity) ::cudafuse_glog::Sink()
#define CHECK(condition) \
  if (condition) {       \
  } else                 \
    ::cudafuse_glog::Sink()
#define CHECK_EQ(a, b) CHECK((a) == (b))
#define CHECK_NE(a, b) CHECK((a) != (b))
#define CHECK_GT(a, b) CHECK((a) > (b))
#define CHECK_GE(a, b) CHECK((a) >= (b))
#define CHECK_LT(a, b) CHECK((a) < (b))
#define CHECK_LE(a, b) CHECK((a) <= (b))
#define DCHECK_LT(a, b) CHECK_LT(a, b)
