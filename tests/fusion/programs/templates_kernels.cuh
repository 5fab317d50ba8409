// A kernel template in a header the pipeline includes (as Rodinia keeps its kernels):
// fused through its instantiation too (test_fuse_templates.py).
template <int R>
__global__ void hblur_t(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int d = -R; d <= R; ++d)
        s += in[y * w + min(max(x + d, 0), w - 1)];
    out[y * w + x] = s;
}
