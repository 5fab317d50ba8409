// Stand-in for caffe's protobuf-generated caffe.pb.h (built from src/caffe/proto/caffe.proto,
// not in the repository): the messages caffe's Blob and Layer headers and the ReLU, Sigmoid,
// Pooling and Dropout layers' .cu files name, with the accessors they call, holding plain
// values. Host-side only: no kernel reads these types.
#pragma once
#include <string>

namespace caffe {

enum Phase { TRAIN = 0, TEST = 1 };

class BlobShape {
 public:
  int dim_size() const { return 0; }
  long long dim(int) const { return 0; }
};

class BlobProto {
 public:
  bool has_shape() const { return false; }
  const BlobShape &shape() const { return shape_; }

 private:
  BlobShape shape_;
};

class ReLUParameter {
 public:
  float negative_slope() const { return negative_slope_; }
  float negative_slope_ = 0;
};

enum PoolingParameter_PoolMethod {
  PoolingParameter_PoolMethod_MAX = 0,
  PoolingParameter_PoolMethod_AVE = 1,
  PoolingParameter_PoolMethod_STOCHASTIC = 2
};

enum PoolingParameter_RoundMode {
  PoolingParameter_RoundMode_CEIL = 0,
  PoolingParameter_RoundMode_FLOOR = 1
};

class PoolingParameter {
 public:
  PoolingParameter_PoolMethod pool() const { return pool_; }
  PoolingParameter_PoolMethod pool_ = PoolingParameter_PoolMethod_MAX;
};

class LayerParameter {
 public:
  const std::string &name() const { return name_; }
  const std::string &type() const { return type_; }
  Phase phase() const { return phase_; }
  int blobs_size() const { return 0; }
  const BlobProto &blobs(int) const { return blob_; }
  int loss_weight_size() const { return 0; }
  float loss_weight(int) const { return 0; }
  const ReLUParameter &relu_param() const { return relu_; }
  const PoolingParameter &pooling_param() const { return pooling_; }
  // Layer<Dtype>::ToProto's calls.
  void Clear() {}
  void CopyFrom(const LayerParameter &other) { *this = other; }
  void clear_blobs() {}
  BlobProto *add_blobs() { return &blob_; }

 private:
  std::string name_, type_;
  Phase phase_ = TRAIN;
  BlobProto blob_;
  ReLUParameter relu_;
  PoolingParameter pooling_;
};

}  // namespace caffe
