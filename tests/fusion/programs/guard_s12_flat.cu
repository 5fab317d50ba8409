// Guards over a flat index's quotient and remainder (issue 25, kernel/guard_flat.py): a bias
// added to each row of a batch, its guard a test of the row (i / cols) and the column
// (i % cols), and a point-wise consumer. Written for cudafuse's tests.

__global__ void add_bias(const float *in, const float *bias, float *t, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = i / cols;
    int c = i % cols;
    if (r < rows && c < cols) {
        t[i] = in[i] + bias[c];
    }
}

// The same guard as an early return, tested on the quotient directly, the remainder
// through a copy of it and the divisor a constant.
__global__ void add_bias8(const float *in, const float *bias, float *t, int rows) {
    const int i = threadIdx.x + blockDim.x * blockIdx.x;
    const int col = i % 8;
    const int c = col;
    if (i / 8 >= rows || !(c < 8)) return;
    t[i] = in[i] * 0.5f + bias[c];
}

// In place, as a batch's bias is usually added: nested ifs.
__global__ void bias_inplace(float *x, const float *bias, int batch, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int b = idx / size;
    if (b < batch) {
        if (idx % size < size) {
            x[idx] += bias[idx % size];
        }
    }
}

// Leaves the last column of every row unstored: no bound on i means that guard.
__global__ void add_bias_skip_last(const float *in, const float *bias, float *t, int rows,
                                   int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = i / cols;
    int c = i % cols;
    if (r < rows && c < cols - 1) {
        t[i] = in[i] + bias[c];
    }
}

// Tests only the row, dividing by a parameter: for cols < 0 the row i / cols is <= 0 at
// every i, and no bound on i means that.
__global__ void add_bias_rows_only(const float *in, const float *bias, float *t, int rows,
                                   int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = i / cols;
    if (r < rows) {
        t[i] = in[i] + bias[i % cols];
    }
}

// Its only stores are CUDA's atomics (a reduction): no helper of ours holds its stores.
__global__ void least(const float *in, int *lo, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(lo, (int)in[i]);
    }
}

__global__ void relu2(const float *t, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = fmaxf(t[i], 0.0f) * 2.0f;
    }
}

// The producer's bound, spelled alike: only the bound's looseness keeps add_bias's guard.
__global__ void relu_rc(const float *t, float *out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cols * rows) {
        out[i] = fmaxf(t[i], 0.0f) - 1.0f;
    }
}

void p_bias(const float *in, const float *bias, float *t, float *out, int rows, int cols) {
    int n = rows * cols;
    add_bias<<<(n + 127) / 128, 128>>>(in, bias, t, rows, cols);
    relu2<<<(n + 127) / 128, 128>>>(t, out, n);
}

void p_bias8(const float *in, const float *bias, float *t, float *out, int rows, int cols) {
    int n = rows * 8;
    add_bias8<<<(n + 63) / 64, 64>>>(in, bias, t, rows);
    relu2<<<(n + 63) / 64, 64>>>(t, out, n);
}

void p_inplace(float *x, const float *bias, float *unused, float *out, int rows, int cols) {
    bias_inplace<<<(rows * cols + 255) / 256, 256>>>(x, bias, rows, cols);
    relu2<<<(rows * cols + 255) / 256, 256>>>(x, out, rows * cols);
}

void p_skip_last(const float *in, const float *bias, float *t, float *out, int rows, int cols) {
    int n = rows * cols;
    add_bias_skip_last<<<(n + 127) / 128, 128>>>(in, bias, t, rows, cols);
    relu2<<<(n + 127) / 128, 128>>>(t, out, n);
}

void p_rows_only(const float *in, const float *bias, float *t, float *out, int rows,
                 int cols) {
    int n = rows * cols;
    add_bias_rows_only<<<(n + 127) / 128, 128>>>(in, bias, t, rows, cols);
    relu2<<<(n + 127) / 128, 128>>>(t, out, n);
}

void p_bias_same(const float *in, const float *bias, float *t, float *out, int rows, int cols) {
    add_bias<<<(rows * cols + 31) / 32, 32>>>(in, bias, t, rows, cols);
    relu_rc<<<(rows * cols + 31) / 32, 32>>>(t, out, rows, cols);
}
