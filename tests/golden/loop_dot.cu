// A time-step loop: its launches in a loop cluster, the carried edges dashed and blue.
// RUN: analyze %s --format dot
#include <utility>
__global__ void k1(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 0.5f;
}
void steps(float *a, float *b, float *c, int n, int t) {
  k1<<<1, 32>>>(a, c, n);
  for (int s = 0; s < t; ++s) {
    k1<<<1, 32>>>(a, b, n);
    k1<<<1, 32>>>(b, c, n);
    std::swap(a, c);
  }
}
// CHECK: subgraph cluster_0 {
// CHECK-NEXT: label="steps";
// CHECK-NEXT: h0_0 [label="0: k1"];
// CHECK-NEXT: h0_1 [label="1: k1"];
// CHECK-NEXT: h0_2 [label="2: k1"];
// CHECK-NEXT: subgraph cluster_0_loop10 { style=dashed; label="for loop, line 10"; h0_1; h0_2; }
// CHECK: h0_1 -> h0_2 [label="b"];
// CHECK: h0_2 -> h0_1 [label="a/c (carried)", style=dashed, color=blue, constraint=false];
// CHECK-NOT: cluster_1
