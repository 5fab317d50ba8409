// A 3x3 box blur through a two-level index macro, with a clamp border and an early-return
// guard; the host launches it twice through a temporary.
// RUN: analyze %s
#define IDX(x, y, w) ((y) * (w) + (x))
#define AT(img, x, y) (img)[IDX((x), (y), w)]

__global__ void box3(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += AT(in, min(max(x + dx, 0), w - 1), max(0, min(y + dy, h - 1)));
  AT(out, x, y) = s / 9.f;
}

void twice(const float *src, float *dst, int w, int h) {
  float *tmp;
  cudaMalloc(&tmp, w * h * sizeof(float));
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  box3<<<g, b>>>(src, tmp, w, h);
  box3<<<g, b>>>(tmp, dst, w, h);
  cudaFree(tmp);
}

// CHECK-LABEL: kernel box3 (line 7)
// CHECK: in: const float *__restrict [const restrict reads]
// CHECK: out: float *__restrict [restrict writes]
// CHECK: mapping: 2D x = X, y = Y
// CHECK: guard: x >= w || y >= h (return) -> x < w, y < h
// CHECK: early returns: line 10
// CHECK: loads:
// CHECK-NEXT: in: stencil layout x*1 y*w window (-1,-1) (0,-1) (1,-1) (-1,0) (0,0) (1,0) (-1,1) (0,1) (1,1) extent x[-1,1] y[-1,1] border x=clamp(w) y=clamp(h)
// CHECK: stores:
// CHECK-NEXT: out: point
// CHECK-NOT: other:
// CHECK-LABEL: host twice (line 18)
// CHECK: launch 0: box3<<<g, b>>> (line 22)
// CHECK: out = tmp [tmp: w]
// CHECK: launch 1: box3<<<g, b>>> (line 23)
// CHECK: in = tmp [tmp: r]
// CHECK: edges:
// CHECK-NEXT: 0 -> 1 raw tmp
// CHECK: inputs: src
// CHECK: outputs: dst
// CHECK: temporaries: tmp
