// Host code in C++ member functions: kernel launches in an out-of-line method, an inline
// method of a struct and a static member are analysed and fused like a free function's;
// data members passed to launches are buffers and values of their own. Each entry is a free
// function (inputs..., outputs..., int w, int h) that builds the object and calls the method.
#include <cuda_runtime.h>

__global__ void hm_blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}

__global__ void hm_scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * 0.75f + 0.125f;
}

__global__ void hm_offset(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] - 0.25f;
}

// An out-of-line method: a three-kernel chain through two member buffers.
class Pipeline {
 public:
  Pipeline(float *a, float *b, int w, int h) : a_(a), b_(b), w_(w), h_(h) {}
  void run(const float *in, float *out);

 private:
  float *a_;
  float *b_;
  int w_, h_;
};

void Pipeline::run(const float *in, float *out) {
  dim3 block(16, 16);
  dim3 grid((w_ + 15) / 16, (h_ + 15) / 16);
  hm_blur<<<grid, block>>>(in, a_, w_, h_);
  hm_scale<<<grid, block>>>(a_, this->b_, w_, h_);
  hm_offset<<<grid, block>>>(b_, out, this->w_, h_);
}

void class_chain(const float *in, float *out, float *a, float *b, int w, int h) {
  Pipeline p(a, b, w, h);
  p.run(in, out);
}

// A method defined in the struct's body.
struct Stage {
  float *tmp;
  int w, h;
  void launch(const float *in, float *out) const {
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    hm_scale<<<grid, block>>>(in, tmp, w, h);
    hm_blur<<<grid, block>>>(tmp, out, w, h);
  }
};

void struct_inline(const float *in, float *out, float *tmp, int w, int h) {
  Stage s{tmp, w, h};
  s.launch(in, out);
}

// A static member function: its parameters are the buffers, as in a free function.
struct Kernels {
  static void chain(const float *in, float *tmp, float *out, int w, int h) {
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    hm_blur<<<grid, block>>>(in, tmp, w, h);
    hm_offset<<<grid, block>>>(tmp, out, w, h);
  }
};

void static_member(const float *in, float *out, float *tmp, int w, int h) {
  Kernels::chain(in, tmp, out, w, h);
}

// Members that change between launches: no sequence spans the change.
class Swapper {
 public:
  Swapper(float *a, float *b, int w, int h) : a_(a), b_(b), w_(w), h_(h) {}
  void assigned(const float *in, float *out);
  void called(const float *in, float *out);

 private:
  void flip() {
    float *t = a_;
    a_ = b_;
    b_ = t;
  }
  float *a_;
  float *b_;
  int w_, h_;
};

void Swapper::assigned(const float *in, float *out) {
  dim3 block(16, 16);
  dim3 grid((w_ + 15) / 16, (h_ + 15) / 16);
  hm_blur<<<grid, block>>>(in, a_, w_, h_);
  b_ = a_;
  hm_scale<<<grid, block>>>(b_, out, w_, h_);
}

void Swapper::called(const float *in, float *out) {
  dim3 block(16, 16);
  dim3 grid((w_ + 15) / 16, (h_ + 15) / 16);
  hm_blur<<<grid, block>>>(in, a_, w_, h_);
  flip();
  hm_scale<<<grid, block>>>(b_, out, w_, h_);
}

void member_assigned(const float *in, float *out, float *a, float *b, int w, int h) {
  Swapper s(a, b, w, h);
  s.assigned(in, out);
}

void member_called(const float *in, float *out, float *a, float *b, int w, int h) {
  Swapper s(a, b, w, h);
  s.called(in, out);
}

// Launches in a lambda: its body is a sequence of its own, run at each call.
void lambda_chain(const float *in, float *out, float *tmp, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  auto run = [&]() {
    hm_blur<<<grid, block>>>(in, tmp, w, h);
    hm_offset<<<grid, block>>>(tmp, out, w, h);
  };
  run();
  run();
}

// A lambda's pointer parameters may name any buffer: its launches are left alone.
void lambda_params(const float *in, float *out, float *tmp, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  auto twice = [&](const float *src, float *mid, float *dst) {
    hm_blur<<<grid, block>>>(src, mid, w, h);
    hm_scale<<<grid, block>>>(mid, dst, w, h);
  };
  twice(in, tmp, out);
}
