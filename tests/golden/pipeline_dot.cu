// Two host functions: one cluster each, raw edges solid, war/waw dashed.
// RUN: analyze %s --format dot
__global__ void k1(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}
void first(float *a, float *b, float *c, int n) {
  k1<<<1, 32>>>(a, b, n);
  k1<<<1, 32>>>(b, c, n);
}
void second(float *a, float *b, int n) {
  k1<<<1, 32>>>(a, b, n);
  k1<<<1, 32>>>(b, a, n);
}
// CHECK: digraph pipelines {
// CHECK: subgraph cluster_0 {
// CHECK-NEXT: label="first";
// CHECK-NEXT: h0_0 [label="0: k1"];
// CHECK-NEXT: h0_1 [label="1: k1"];
// CHECK-NEXT: h0_0 -> h0_1 [label="b"];
// CHECK-NEXT: }
// CHECK: subgraph cluster_1 {
// CHECK-NEXT: label="second";
// CHECK: h1_0 -> h1_1 [label="b"];
// CHECK-NEXT: h1_0 -> h1_1 [label="a (war)", style=dashed];
// CHECK-NOT: cluster_2
