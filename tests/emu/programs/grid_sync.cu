// Grid-wide synchronisation on the emulator (tests/emu/test_emu_grid_sync.py): a cooperative
// launch whose blocks exchange partial sums through global memory across grid.sync().
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
#ifdef __CUDAFUSE_SHIM__  // the front end's CUDA declarations lack the cooperative launch
cudaError_t cudaLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block, void **args,
                                        size_t shared, cudaStream_t stream);
#endif

// Every block reduces a grid-stride slice into partial[block]; after grid.sync() every block
// reads all the partials (so the barrier must cover every block), and the loop repeats the
// exchange `rounds` times, scaling by round: out[r * blocks + b] = (r + 1) * total.
__global__ void grid_reduce(const float *x, float *partial, float *out, int n, int rounds,
                            int *valid) {
  extern __shared__ float smem[];
  __shared__ float tile_total;
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  if (grid.thread_rank() == 0) *valid = grid.is_valid() && grid.size() ==
      (unsigned long long)gridDim.x * blockDim.x && grid.num_blocks() == gridDim.x;
  for (int r = 0; r < rounds; ++r) {
    float s = 0.f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
      s += x[i] * (r + 1);
    smem[block.thread_rank()] = s;
    block.sync();
    for (unsigned w = block.size() / 2; w > 0; w /= 2) {
      if (block.thread_rank() < w) smem[block.thread_rank()] += smem[block.thread_rank() + w];
      block.sync();
    }
    if (block.thread_rank() == 0) partial[grid.block_rank()] = smem[0];
    grid.sync();
    if (block.thread_rank() == 0) {
      float t = 0.f;
      for (unsigned b = 0; b < grid.num_blocks(); ++b) t += partial[b];
      tile_total = t;
    }
    block.sync();
    if (block.thread_rank() == 0) out[r * grid.num_blocks() + grid.block_rank()] = tile_total;
    cg::sync(grid);  // nobody overwrites partial[] before every block has read it
  }
}

// Returns the cudaError_t of the launch.
int coop_reduce(const float *x, float *out, int n, int blocks, int threads, int rounds,
                int *valid) {
  float *dx, *dp, *dout;
  int *dvalid;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dp, blocks * sizeof(float));
  cudaMalloc(&dout, rounds * blocks * sizeof(float));
  cudaMalloc(&dvalid, sizeof(int));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  void *args[] = {&dx, &dp, &dout, &n, &rounds, &dvalid};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)grid_reduce, dim3(blocks), dim3(threads),
                                              args, threads * sizeof(float), 0);
  cudaDeviceSynchronize();
  cudaMemcpy(out, dout, rounds * blocks * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(valid, dvalid, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dp);
  cudaFree(dout);
  cudaFree(dvalid);
  return (int)e;
}

// The largest cooperative grid (occupancy x 132 SMs) and the error one block more gives.
int coop_too_large(int threads, int *max_blocks) {
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_reduce, threads,
                                                threads * sizeof(float));
  *max_blocks = per_sm * 132;
  float *p = nullptr;
  int n = 0, rounds = 0, *v = nullptr;
  void *args[] = {&p, &p, &p, &n, &rounds, &v};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)grid_reduce, dim3(*max_blocks + 1),
                                              dim3(threads), args, threads * sizeof(float), 0);
  cudaGetLastError();
  return (int)e;
}

// grid.sync() in a kernel launched with <<<>>>: undefined on the GPU, reported here.
__global__ void plain_grid_sync(int *a) {
  cg::grid_group grid = cg::this_grid();
  a[grid.thread_rank()] = 1;
  grid.sync();
}
void launch_plain_grid_sync(int *a) {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  plain_grid_sync<<<2, 32>>>(d);
  cudaMemcpy(a, d, 64 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}

// A block that exits without reaching the grid barrier the others wait at.
__global__ void early_exit(int *a) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 1) return;
  a[grid.thread_rank()] = 1;
  grid.sync();
}
int launch_early_exit(int *a) {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  void *args[] = {&d};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)early_exit, 2, 32, args, 0, 0);
  cudaFree(d);
  return (int)e;
}

// A 64-thread tile's barrier, then grid.sync() while the block's other half forms a coalesced
// group: the block stalls with half its threads at the grid barrier, and the grid barrier must
// still hold them until every block has written its mark (the tile barrier's state once shared
// the grid barrier's value, so those threads left it early).
__global__ void tile_then_grid(int *mark, int *seen, int nblocks) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  tile.sync();
  if (threadIdx.x >= 64) {
    cg::coalesced_group g = cg::coalesced_threads();
    g.sync();
  }
  if (threadIdx.x == 0) mark[blockIdx.x] = blockIdx.x + 1;
  grid.sync();
  if (threadIdx.x == 0) seen[blockIdx.x] = mark[(blockIdx.x + 1) % nblocks];
}
int run_tile_then_grid(int *seen, int nblocks) {
  int *d_mark, *d_seen;
  cudaMalloc(&d_mark, nblocks * sizeof(int));
  cudaMalloc(&d_seen, nblocks * sizeof(int));
  cudaMemset(d_mark, 0, nblocks * sizeof(int));
  void *args[] = {&d_mark, &d_seen, &nblocks};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)tile_then_grid, dim3(nblocks), dim3(128),
                                              args, 0, 0);
  cudaMemcpy(seen, d_seen, nblocks * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_mark);
  cudaFree(d_seen);
  return (int)e;
}
