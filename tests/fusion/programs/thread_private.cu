// Producers that store several elements per thread in a loop, and consumers whose threads
// read only what the same thread stored: one thread of the fused kernel runs the producer's
// body, then the consumer's (passes/vertical/kernel/thread_private.py). Each entry is
// written in a style of its own; the last ones must stay apart, and say why.

// A recurrence along each row (an ADI-like sweep), then a reduction of the row over its end.
__global__ void tp_sweep(int n, int w, float *a, const float *b) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) {
        for (int j = 1; j < w; j++)
            a[r * w + j] = a[r * w + j] - 0.5f * a[r * w + j - 1] * b[r * w + j];
    }
}
__global__ void tp_finish(int n, int w, float *a, float *out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) {
        float s = 0.0f;
        for (int j = 0; j < w; j++) s += a[r * w + j];
        out[r] = s / (1.0f + fabsf(a[r * w + w - 1]));
        a[r * w] = s;  // the consumer writes its own row too
    }
}
void row_sweep(int n, int w, float *a, const float *b, float *out) {
    tp_sweep<<<(n + 127) / 128, 128>>>(n, w, a, b);
    tp_finish<<<(n + 127) / 128, 128>>>(n, w, a, out);
}

// The same sweep, its reduction, then a sweep back along the row scaled by the reduction:
// three launches, one thread running each in turn.
__global__ void tp_back(int n, int w, float *a, const float *out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    for (int j = w - 2; j >= 0; --j) a[r * w + j] -= 0.25f * a[r * w + j + 1] * out[r];
}
void row_chain(int n, int w, float *a, const float *b, float *out) {
    tp_sweep<<<(n + 127) / 128, 128>>>(n, w, a, b);
    tp_finish<<<(n + 127) / 128, 128>>>(n, w, a, out);
    tp_back<<<(n + 127) / 128, 128>>>(n, w, a, out);
}

// A colour-space pipeline over a run-time channel count: gamma per channel, then the
// channels' mean subtracted, each pixel's channels walked in a loop by its own thread.
__global__ void tp_gamma(const float *img, float *lin, int width, int height, int ch) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;
    int px = row * width + col;
    for (int c = 0; c < ch; ++c) {
        float v = img[px * ch + c];
        lin[px * ch + c] = v * v * (0.25f + 0.75f * v);
    }
}
__global__ void tp_center(float *lin, float *mean, int width, int height, int ch) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        float *p = lin + (row * width + col) * ch;
        float m = 0.0f;
        for (int c = 0; c < ch; ++c) m += p[c];
        m /= ch;
        for (int c = ch - 1; c >= 0; --c) p[c] -= m;
        mean[row * width + col] = m;
    }
}
void colour(const float *img, float *lin, float *mean, int width, int height, int ch) {
    dim3 block(16, 8);
    dim3 grid((width + 15) / 16, (height + 7) / 8);
    tp_gamma<<<grid, block>>>(img, lin, width, height, ch);
    tp_center<<<grid, block>>>(lin, mean, width, height, ch);
}

// Four pixels per thread, each under its own bound, then a threshold of the same four.
#define PER 4
__global__ void tp_scale4(const float *in, float *t, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER;
    for (int k = 0; k < PER; k++) {
        if (base + k < n) t[base + k] = 3.0f * in[base + k] - 1.0f;
    }
}
__global__ void tp_clip4(const float *t, float *out, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER;
    for (int k = 0; k < PER; k++) {
        if (base + k < n) out[base + k] = t[base + k] > 0.5f ? t[base + k] : 0.0f;
    }
}
void four_per_thread(const float *in, float *t, float *out, int n) {
    int threads = (n + PER - 1) / PER;
    tp_scale4<<<(threads + 63) / 64, 64>>>(in, t, n);
    tp_clip4<<<(threads + 63) / 64, 64>>>(t, out, n);
}

// One thread per (batch, time, head), its row of a causal score matrix laid out
// [batch][head][time][time]: the weights normalised along the row, then their use.
__global__ void tp_softmax(float *att, const float *pre, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float *pre_row = pre + b * NH * T * T + h * T * T + t * T;
        float *row = att + b * NH * T * T + h * T * T + t * T;
        float mx = -1e30f;
        for (int s = 0; s <= t; s++) mx = fmaxf(mx, pre_row[s]);
        float sum = 0.0f;
        for (int s = 0; s <= t; s++) {
            row[s] = expf(pre_row[s] - mx);
            sum += row[s];
        }
        for (int s = 0; s < T; s++) row[s] = s <= t ? row[s] / sum : 0.0f;
    }
}
__global__ void tp_weighted(float *out, const float *att, const float *val, int B, int T,
                            int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float *row = att + b * NH * T * T + h * T * T + t * T;
        float acc = 0.0f;
        for (int s = 0; s <= t; s++) acc += row[s] * val[(b * T + s) * NH + h];
        out[idx] = acc;
    }
}
void attention(float *att, const float *pre, float *out, const float *val, int B, int T,
               int NH) {
    int threads = B * T * NH;
    tp_softmax<<<(threads + 31) / 32, 32>>>(att, pre, B, T, NH);
    tp_weighted<<<(threads + 31) / 32, 32>>>(out, att, val, B, T, NH);
}

// Refused: the consumer reads the next row, which another thread's producer writes.
__global__ void tp_next_row(int n, int w, const float *a, float *out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r + 1 < n) out[r] = a[(r + 1) * w];
}
void neighbour_row(int n, int w, float *a, const float *b, float *out) {
    tp_sweep<<<(n + 127) / 128, 128>>>(n, w, a, b);
    tp_next_row<<<(n + 127) / 128, 128>>>(n, w, a, out);
}

// Refused: the producer's loop runs one element past its row (into the next thread's).
__global__ void tp_overrun(int n, int w, float *a) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) {
        for (int j = 0; j <= w; j++) a[r * w + j] += 1.0f;
    }
}
void overrun(int n, int w, float *a, const float *b, float *out) {
    tp_overrun<<<(n + 127) / 128, 128>>>(n, w, a);
    tp_finish<<<(n + 127) / 128, 128>>>(n, w, a, out);
}

// Refused: a 1-D kernel launched with two rows of threads per block (two threads per row).
void two_rows(int n, int w, float *a, const float *b, float *out) {
    dim3 block(64, 2);
    tp_sweep<<<(n + 63) / 64, block>>>(n, w, a, b);
    tp_finish<<<(n + 63) / 64, block>>>(n, w, a, out);
}
