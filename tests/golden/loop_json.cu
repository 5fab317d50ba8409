// A time-step loop in the JSON: each launch's loops, the host's loops, the carried edges.
// RUN: analyze %s --format json
__global__ void k1(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 0.5f;
}
void steps(float *a, float *tmp, int n, int t) {
  int s = 0;
  while (s < t) {
    k1<<<1, 32>>>(a, tmp, n);
    k1<<<1, 32>>>(tmp, a, n);
    ++s;
  }
}
// CHECK: "host_functions": [
// CHECK: "index": 0,
// CHECK: "resolved": true,
// CHECK-NEXT: "loops": [
// CHECK-NEXT: 9
// CHECK-NEXT: ],
// CHECK: "temporaries": [],
// CHECK-NEXT: "loops": [
// CHECK-NEXT: {
// CHECK-NEXT: "line": 9,
// CHECK-NEXT: "kind": "while",
// CHECK-NEXT: "launches": [
// CHECK-NEXT: 0,
// CHECK-NEXT: 1
// CHECK-NEXT: ],
// CHECK-NEXT: "parent": null
// CHECK-NEXT: }
// CHECK-NEXT: ],
// CHECK-NEXT: "carried_edges": [
// CHECK: "src": 1,
// CHECK-NEXT: "dst": 0,
// CHECK-NEXT: "kind": "raw",
// CHECK-NEXT: "buffer": "a",
// CHECK-NEXT: "loop": 9
// CHECK-NEXT: },
