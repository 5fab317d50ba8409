// Written for cudafuse's tests in the style of OpenMM's common compute dialect
// (platforms/cuda/src/kernels/common.cu): kernels written once for CUDA and OpenCL through
// macros, which this header defines for CUDA.
#define KERNEL extern "C" __global__
#define DEVICE __device__
#define LOCAL __shared__
#define LOCAL_ARG
#define GLOBAL
#define RESTRICT __restrict__
#define LOCAL_ID threadIdx.x
#define LOCAL_SIZE blockDim.x
#define GLOBAL_ID (blockIdx.x*blockDim.x+threadIdx.x)
#define GLOBAL_SIZE (blockDim.x*gridDim.x)
#define GROUP_ID blockIdx.x
#define SYNC_THREADS __syncthreads();
typedef float real;
