// A three-stage pipeline: the JSON schema, launch configuration and typed edges.
// RUN: analyze %s --format json
__global__ void sq(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * a[i];
}
__global__ void inc(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.f;
}

void pipe(float *x, float *y, int n, cudaStream_t s) {
  sq<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
  inc<<<(n + 255) / 256, 256, 0, s>>>(x, n);
  inc<<<(n + 255) / 256, 256, 0, s>>>(y, n);
}

// CHECK: "schema": 1,
// CHECK-NEXT: "file": "{{.*}}pipeline_json.cu",
// CHECK: "name": "sq",
// CHECK: "class": "point",
// CHECK: "host_functions": [
// CHECK: "name": "pipe",
// CHECK: "kernel": "sq",
// CHECK: "grid": "(n + 255) / 256",
// CHECK-NEXT: "block": "256",
// CHECK-NEXT: "shared": "0",
// CHECK-NEXT: "stream": "s",
// CHECK: "edges": [
// CHECK: "src": 0,
// CHECK-NEXT: "dst": 1,
// CHECK-NEXT: "kind": "war",
// CHECK-NEXT: "buffer": "x"
// CHECK: "src": 0,
// CHECK-NEXT: "dst": 2,
// CHECK-NEXT: "kind": "raw",
// CHECK-NEXT: "buffer": "y"
// CHECK: "src": 0,
// CHECK-NEXT: "dst": 2,
// CHECK-NEXT: "kind": "waw",
// CHECK-NEXT: "buffer": "y"
// CHECK: "inputs": [
// CHECK-NEXT: "x"
// CHECK-NEXT: ],
