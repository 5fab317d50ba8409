// Forced into the emulator's builds of caffe's layer files only (benchmarks/
// hfuse_library_pairs.py, EMU_INCLUDES): caffe defines Blob's data accessors and its math
// helpers in other files (src/caffe/blob.cpp, util/math_functions.cu), which a build of one
// .cu file does not link. The layers' host functions (Forward_gpu...) name them; the runs
// launch the kernels alone and never call those functions, so each stand-in stops the run.
#ifndef CUDAFUSE_CAFFE_EMU_H
#define CUDAFUSE_CAFFE_EMU_H
#include <cstdlib>

#include "caffe/blob.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
template <typename Dtype>
const Dtype *Blob<Dtype>::cpu_data() const { std::abort(); }
template <typename Dtype>
const Dtype *Blob<Dtype>::gpu_data() const { std::abort(); }
template <typename Dtype>
const Dtype *Blob<Dtype>::cpu_diff() const { std::abort(); }
template <typename Dtype>
const Dtype *Blob<Dtype>::gpu_diff() const { std::abort(); }
template <typename Dtype>
Dtype *Blob<Dtype>::mutable_cpu_data() { std::abort(); }
template <typename Dtype>
Dtype *Blob<Dtype>::mutable_gpu_data() { std::abort(); }
template <typename Dtype>
Dtype *Blob<Dtype>::mutable_cpu_diff() { std::abort(); }
template <typename Dtype>
Dtype *Blob<Dtype>::mutable_gpu_diff() { std::abort(); }
template <typename Dtype>
void caffe_copy(const int, const Dtype *, Dtype *) { std::abort(); }
template <typename Dtype>
void caffe_gpu_set(const int, const Dtype, Dtype *) { std::abort(); }
template <typename Dtype>
void caffe_gpu_rng_uniform(const int, const Dtype, const Dtype, Dtype *) { std::abort(); }
void caffe_gpu_rng_uniform(const int, unsigned int *) { std::abort(); }
}  // namespace caffe
#endif
