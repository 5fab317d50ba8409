// Element layouts (issue 25): a struct stored member by member is one store of the element
// (respell/member_stores.py: a local copy built member by member, returned by the value
// function, rounded member by member), and a channel stored on some paths only falls back
// to that channel of the element in memory (channels.Channels.partial, codegen._own_load).
// RUN: fuse %s -o - --scratch t,q
// CODE: pix cf_t; cf_t.lo = (in[i] * 0.5f);
// CODE: cf_t.hi = (in[i] + lo_off); return [&]() { pix cf1_v = (cf_t); cf1_v.lo = cf1_round(cf1_v.lo); cf1_v.hi = cf1_round(cf1_v.hi); return cf1_v; }();
// CODE: __global__ void cf1_pairs_fused0(
// CODE: float cf1_masked_fused1_0_gate_q_c1_xy(
// CODE: if (i >= n) return q[(i) * 2 + 1];
// CODE: if (m[i] > 0.0f) {
// CODE-NEXT: (void)0;
// CODE-NEXT: return cf1_round(q[i * 2 + 1] + 1.0f);
// CODE-NEXT: }
// CODE-NEXT: return q[(i) * 2 + 1];
// CODE: __global__ void cf1_masked_fused1(
// DIAG: element_layouts.cu:{{[0-9]+}}:{{[0-9]+}}: note: kernel 'halves': stores each member of its element of 't' in turn: respelled as one store of the element
// DIAG-NOT: not fused
struct pix { float lo, hi; };

__global__ void halves(const float *in, pix *t, int n, float lo_off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[i].lo = in[i] * 0.5f;
  t[i].hi = in[i] + lo_off;
}
__global__ void spread(const pix *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i].hi - t[i > 0 ? i - 1 : 0].lo;
}
void pairs(const float *in, pix *t, float *out, int n) {
  halves<<<(n + 127) / 128, 128>>>(in, t, n, 0.25f);
  spread<<<(n + 127) / 128, 128>>>(t, out, n);
}

__global__ void gate(const float *m, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (m[i] > 0.0f) {
    q[i * 2] = m[i];
    q[i * 2 + 1] = q[i * 2 + 1] + 1.0f;
  }
}
__global__ void both(const float *q, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = q[2 * i] * q[2 * i + 1];
}
void masked(const float *m, float *q, float *out, int n) {
  gate<<<(n + 127) / 128, 128>>>(m, q, n);
  both<<<(n + 127) / 128, 128>>>(q, out, n);
}
