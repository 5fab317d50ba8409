// A row-serial pair (passes/vertical/kernel/thread_private.py) whose consumer reads the shared
// rows in nested loops with run-time bounds, as llm.c's attention value kernel does; the first
// kernel's scores are read by the softmax in loops with run-time bounds too. The
// vertical planner's recomputation window for those reads must not count as the consumer's
// own loads when the pair is costed as siblings (plan/siblings.py registers).
__global__ void sl_scale(float *pre, const float *raw, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pre[i] = raw[i] * k;
}

__global__ void sl_softmax(float *att, const float *pre, int B, int T, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float *row_in = pre + b * NH * T * T + h * T * T + t * T;
        float *row = att + b * NH * T * T + h * T * T + t * T;
        float mx = -1e30f;
        // (row_in[t] read in the loop too: its index does not use the loop variable)
        for (int t2 = 0; t2 <= t; t2++) mx = fmaxf(mx, fmaxf(row_in[t2], row_in[t]));
        float sum = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) {
            float e = expf(row_in[t2] - mx);
            row[t2] = e;
            sum += e;
        }
        for (int t2 = 0; t2 < T; t2++) row[t2] = t2 <= t ? row[t2] / sum : 0.0f;
    }
}

__global__ void sl_value(float *out, const float *att, const float *val, int B, int T, int NH,
                         int HS) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * NH) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        const float *row = att + b * NH * T * T + h * T * T + t * T;
        float *o = out + b * T * NH * HS + t * NH * HS + h * HS;
        for (int i = 0; i < HS; i++) o[i] = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) {
            float a = row[t2];
            const float *v = val + b * T * NH * HS + t2 * NH * HS + h * HS;
            for (int i = 0; i < HS; i++) o[i] += a * v[i];
        }
    }
}

void attention_hs(float *att, float *pre, const float *raw, float *out, const float *val,
                  int B, int T, int NH, int HS) {
    int threads = B * T * NH;
    int n = B * NH * T * T;
    sl_scale<<<(n + 255) / 256, 256>>>(pre, raw, n, 0.125f);
    sl_softmax<<<(threads + 127) / 128, 128>>>(att, pre, B, T, NH);
    sl_value<<<(threads + 127) / 128, 128>>>(out, att, val, B, T, NH, HS);
}
