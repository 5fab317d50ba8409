// 3D blocks and grids: a 7-point Laplacian on a volume.
// EXPECT-KERNEL: laplace3d 5
// EXPECT-LAUNCH: step -> laplace3d 5
#include <cuda_runtime.h>

__global__ void laplace3d(const float *u, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t sxy = (size_t)nx * ny;
  size_t c = z * sxy + y * nx + x;
  out[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - sxy] + u[c + sxy] - 6.0f * u[c];
}

extern "C" void step(const float *u, float *out, int nx, int ny, int nz) {
  dim3 block(8, 8, 4);
  dim3 grid((nx + 7) / 8, (ny + 7) / 8, (nz + 3) / 4);
  laplace3d<<<grid, block>>>(u, out, nx, ny, nz);
}
