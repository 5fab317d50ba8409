// Kernels launched as one block (`k<<<1, n>>>`), whose threadIdx.x is then the thread's
// global coordinate: the style of histogram post-processing (Otsu's threshold over 256
// bins) and of small per-bin or per-item steps. Host functions take the sizes as the tests
// pass them (w, h).

// The usual coordinate and guard: a bin's probability.
__global__ void probs_ob(const float *hist, float *p, int len, float total)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < len)
        p[x] = hist[x] / total;
}

// One block of 64 threads: the bin is threadIdx.x; the probabilities staged in shared
// memory, each thread summing those below its bin (Otsu's class weight).
__global__ void between_ob(const float *p, float *sig)
{
    int index = threadIdx.x;
    __shared__ float sp[64];
    sp[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    float w0 = 0.f;
    for (int i = 0; i < index; i++)
        w0 += sp[i];
    sig[index] = w0 * (1.f - w0);
}

void p_otsu(const float *hist, float *p, float *sig, int w, int h)
{
    probs_ob<<<1, 64>>>(hist, p, w, (float)h);
    between_ob<<<1, 64>>>(p, sig);
}

// The item is threadIdx.x, the block n threads.
__global__ void gain_ob(const float *in, float *a, int n)
{
    const int i = threadIdx.x;
    a[i] = in[i] * 3.f - 1.f;
}

// A clamped neighbour in a one-block kernel: threadIdx.x spelled in a subscript, blockIdx.x
// (0 there) in its test.
__global__ void left_ob(const float *a, float *out, int n)
{
    const unsigned t = threadIdx.x;
    int l = t > blockIdx.x ? (int)t - 1 : 0;
    out[t] = a[threadIdx.x] + 0.5f * a[l] + (float)n;
}

void p_items(const float *in, float *a, float *out, int w, int h)
{
    dim3 one(1);
    gain_ob<<<one, w>>>(in, a, w);
    left_ob<<<1, w>>>(a, out, w);
}

// Launched with one block here and two blocks in p_two: threadIdx.x is no global
// coordinate at every launch, so these stay as they are.
__global__ void gain2_ob(const float *in, float *a)
{
    int i = threadIdx.x;
    a[i] = in[i] + 2.f;
}

__global__ void half2_ob(const float *a, float *out)
{
    out[threadIdx.x] = a[threadIdx.x] * 0.5f;
}

void p_mixed(const float *in, float *a, float *out, int w, int h)
{
    gain2_ob<<<1, w>>>(in, a);
    half2_ob<<<1, w>>>(a, out);
}

void p_two(const float *in, float *a, float *out, int w, int h)
{
    gain2_ob<<<2, w / 2>>>(in, a);
    half2_ob<<<1, w>>>(a, out);
}

// The producer reads threadIdx.x past its declarations: code generation does not print the
// one-block reading of it in a recomputed value, so the group stays unfused (a note).
__global__ void gain3_ob(const float *in, float *a, int n)
{
    const int i = threadIdx.x;
    a[i] = in[threadIdx.x] * 3.f - 1.f;
}

void p_tid_read(const float *in, float *a, float *out, int w, int h)
{
    gain3_ob<<<1, w>>>(in, a, w);
    left_ob<<<1, w>>>(a, out, w);
}
