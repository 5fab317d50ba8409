// Texture and surface objects (parsed, never emulated), arrays and channel descriptors.
// EXPECT-KERNEL: sample 5
// EXPECT-KERNEL: write_surface 4
// EXPECT-LAUNCH: run -> sample 5
// EXPECT-LAUNCH: run -> write_surface 4
#include <cuda_runtime.h>

__global__ void sample(cudaTextureObject_t tex, cudaTextureObject_t lin, float *out, int w,
                       int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = tex2D<float>(tex, x + 0.5f, y + 0.5f) + tex1Dfetch<float>(lin, x);
  float4 c = tex2DLayered<float4>(tex, x, y, 0);
  float4 cube = texCubemap<float4>(tex, 1.0f, 0.0f, 0.0f);
  out[y * w + x] = v + c.x + cube.y + tex3D<float>(tex, x, y, 0.5f) + tex1D<float>(tex, x);
}

__global__ void write_surface(cudaSurfaceObject_t surf, const uchar4 *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 old = surf2Dread<uchar4>(surf, x * 4, y);
  uchar4 v = in[y * w + x];
  v.x = (v.x + old.x) / 2;
  surf2Dwrite(v, surf, x * 4, y, cudaBoundaryModeClamp);
}

void run(const float *host, float *out, const uchar4 *in, int w, int h) {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  cudaArray_t arr, img;
  cudaMallocArray(&arr, &fd, w, h);
  cudaMallocArray(&img, &cd, w, h, cudaArraySurfaceLoadStore);
  cudaMemcpy2DToArray(arr, 0, 0, host, w * sizeof(float), w * sizeof(float), h,
                      cudaMemcpyHostToDevice);
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex = 0;
  cudaCreateTextureObject(&tex, &rd, &td, nullptr);
  cudaSurfaceObject_t surf = 0;
  rd.res.array.array = img;
  cudaCreateSurfaceObject(&surf, &rd);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  sample<<<grid, block>>>(tex, tex, out, w, h);
  write_surface<<<grid, block>>>(surf, in, w, h);
  cudaDestroyTextureObject(tex);
  cudaDestroySurfaceObject(surf);
  cudaFreeArray(arr);
  cudaFreeArray(img);
}
