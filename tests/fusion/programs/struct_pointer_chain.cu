// A small network layer whose buffers live in a struct the host functions are given a
// pointer to (`Layer *l`: l->w, l->b, l->act), with an error check after every launch that
// resets the device and ends the process on failure, as ML code written from scratch often
// does. Written for cudafuse's tests (tests/fusion/test_fuse_struct_pointer.py).
#include <cstdio>
#include <cstdlib>

typedef struct {
    float *w;
    float *b;
    float *act;
    float *tmp;
} Layer;

#define CHECK(call)                                                             \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA error %s at %d\n", cudaGetErrorString(err_),  \
                    __LINE__);                                                  \
            cudaDeviceReset();                                                  \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

__global__ void scale_bias(float *out, const float *x, const float *w, const float *b,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] * w[i] + b[i];
}

__global__ void leaky(float *y, const float *x, float slope, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] > 0.0f ? x[i] : slope * x[i];
}

__global__ void residual(float *y, const float *a, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a[i] + x[i];
}

// Fuses: l is only read for its fields.
void layer_forward(Layer *l, const float *x, float *y, int n) {
    int blocks = (n + 127) / 128;
    scale_bias<<<blocks, 128>>>(l->tmp, x, l->w, l->b, n);
    CHECK(cudaGetLastError());
    leaky<<<blocks, 128>>>(l->act, l->tmp, 0.1f, n);
    CHECK(cudaGetLastError());
    residual<<<blocks, 128>>>(y, l->act, x, n);
    CHECK(cudaGetLastError());
}

void retarget(Layer *l, float *buf) { l->act = buf; }

// Does not fuse across the call: it may change l->act.
void layer_retargeted(Layer *l, const float *x, float *y, float *other, int n) {
    int blocks = (n + 127) / 128;
    leaky<<<blocks, 128>>>(l->act, x, 0.1f, n);
    retarget(l, other);
    residual<<<blocks, 128>>>(y, l->act, x, n);
}

// Does not fuse: a write through another pointer to a Layer (which may be l itself).
void layer_aliased(Layer *l, Layer *m, const float *x, float *y, int n) {
    int blocks = (n + 127) / 128;
    leaky<<<blocks, 128>>>(l->act, x, 0.1f, n);
    m->act = m->tmp;
    residual<<<blocks, 128>>>(y, l->act, x, n);
}

// Does not fuse: the reset is followed by a return, not by the end of the process.
void layer_reset_returns(Layer *l, const float *x, float *y, int n) {
    int blocks = (n + 127) / 128;
    leaky<<<blocks, 128>>>(l->act, x, 0.1f, n);
    if (cudaGetLastError() != cudaSuccess) {
        cudaDeviceReset();
        return;
    }
    residual<<<blocks, 128>>>(y, l->act, x, n);
}

// The entry the differential test calls (the struct is built here, from its buffers).
void run_layer(float *w, float *b, float *act, float *tmp, const float *x, float *y, int n) {
    Layer l = {w, b, act, tmp};
    layer_forward(&l, x, y, n);
}
