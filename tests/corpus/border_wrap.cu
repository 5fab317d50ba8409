// Wrap (periodic) border via %, as in a torus-shaped simulation grid.
// EXPECT-KERNEL: life_step 4
// EXPECT-LAUNCH: life -> life_step 4
// EXPECT-LAUNCH: life -> life_step 4
#include <cuda_runtime.h>

__global__ void life_step(const unsigned char *cur, unsigned char *next, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int alive = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      int xx = (x + dx + w) % w;
      int yy = (y + dy + h) % h;
      alive += cur[yy * w + xx];
    }
  unsigned char c = cur[y * w + x];
  next[y * w + x] = (alive == 3 || (alive == 2 && c)) ? 1 : 0;
}

extern "C" void life(unsigned char *a, unsigned char *b, int w, int h) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  life_step<<<grid, block>>>(a, b, w, h);
  life_step<<<grid, block>>>(b, a, w, h);
}
