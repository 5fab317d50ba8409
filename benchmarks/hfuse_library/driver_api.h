// Stand-in for the CUDA driver API names ggml's common.cuh uses in host code
// (cu_get_error_str: CUresult, cuGetErrorString), which the CPU emulator's <cuda.h> does not
// declare. Given with -include to emulator builds only (benchmarks/hfuse_library_pairs.py);
// nvcc builds use the toolkit's <cuda.h>, cudafuse's front end its own declarations
// (__CUDAFUSE_SHIM__). Never called by the kernels that are run.
#if !defined(CUDAFUSE_DRIVER_API_STANDIN_H) && !defined(__CUDAFUSE_SHIM__)
#define CUDAFUSE_DRIVER_API_STANDIN_H
typedef enum cudafuse_cu_result { CUDA_SUCCESS = 0 } CUresult;
static inline CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "CUDA driver API stand-in";
  return CUDA_SUCCESS;
}
#endif
