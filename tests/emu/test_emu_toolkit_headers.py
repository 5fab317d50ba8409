"""Every header of the CUDA toolkit's include folder a program may name directly builds under
the emulator (a stand-in, or the toolkit's own host-only header), or is refused at the
include with the name of what the emulator lacks (issue 31)."""

from __future__ import annotations

import numpy as np
import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.emu import include_dir
from cudafuse.emu.toolkit import AS_IS, toolkit_include
from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, prepare

STAND_INS = ("builtin_types.h", "channel_descriptor.h", "common_functions.h",
             "cuda_device_runtime_api.h", "cuda_runtime_api.h", "cuda_runtime.h", "cuda.h",
             "device_atomic_functions.h", "device_double_functions.h", "device_functions.h",
             "device_launch_parameters.h", "device_types.h", "driver_functions.h",
             "driver_types.h", "host_config.h", "host_defines.h", "math_functions.h",
             "math_constants.h", "library_types.h", "vector_types.h", "vector_functions.h",
             "sm_20_atomic_functions.h", "sm_20_intrinsics.h", "sm_30_intrinsics.h",
             "sm_32_atomic_functions.h", "sm_32_intrinsics.h", "sm_35_atomic_functions.h",
             "sm_35_intrinsics.h", "sm_60_atomic_functions.h", "sm_61_intrinsics.h",
             "surface_types.h", "texture_types.h", "surface_indirect_functions.h",
             "texture_indirect_functions.h", "cuda_fp16.h", "cuda_bf16.h",
             "cuda_profiler_api.h", "cooperative_groups.h", "cuda_awbarrier.h",
             "cuda_pipeline.h", "mma.h",
             # the parts the toolkit splits those into, and its internal crt/ headers (nvcc
             # warns at a direct include, and builds)
             "cuda_awbarrier_helpers.h", "cuda_awbarrier_primitives.h",
             "cuda_pipeline_helpers.h", "cuda_pipeline_primitives.h", "vector_functions.hpp",
             *(f"crt/{h}" for h in (
                 "common_functions.h", "cudacc_ext.h", "device_double_functions.h",
                 "device_double_functions.hpp", "device_functions.h", "device_functions.hpp",
                 "host_config.h", "host_defines.h", "host_runtime.h", "math_functions.h",
                 "math_functions.hpp", "mma.h", "sm_70_rt.h", "sm_80_rt.h", "sm_90_rt.h",
                 "sm_100_rt.h", "storage_class.h")))


def test_every_stand_in_exists():
    missing = [h for h in STAND_INS if not (include_dir() / h).is_file()]
    assert not missing


@pytest.mark.skipif(toolkit_include() is None, reason="no CUDA toolkit installed")
def test_each_header_named_directly_builds_and_runs(tmp_path):
    headers = [*STAND_INS, *(h for h in AS_IS if (toolkit_include() / h).is_file())]
    src = tmp_path / "all_headers.cu"
    src.write_text("".join(f"#include <{h}>\n" for h in headers) + """#include <nv/target>
__global__ void rot(float2 *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // nv/target: the device branch, and sm_90 provides sm_80
  NV_IF_ELSE_TARGET(NV_IS_HOST, (return;), (
    NV_IF_TARGET(NV_PROVIDES_SM_80, (
      if (i < n) z[i] = cuCmulf(z[i], make_cuFloatComplex(0.0f, 1.0f));  // cuComplex.h
    ))
  ))
}
int occupancy_blocks() {  // cuda_occupancy.h, host only
  cudaOccDeviceProp prop; prop.computeMajor = 9; prop.computeMinor = 0;
  prop.maxThreadsPerBlock = 1024; prop.maxThreadsPerMultiprocessor = 2048;
  prop.regsPerBlock = 65536; prop.regsPerMultiprocessor = 65536; prop.warpSize = 32;
  prop.sharedMemPerBlock = 49152; prop.sharedMemPerMultiprocessor = 233472;
  prop.numSms = 132; prop.sharedMemPerBlockOptin = 232448; prop.reservedSharedMemPerBlock = 1024;
  cudaOccFuncAttributes attr; attr.maxThreadsPerBlock = 1024; attr.numRegs = 32;
  attr.sharedSizeBytes = 0; attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT; attr.maxDynamicSharedSizeBytes = 0;
  attr.numBlockBarriers = 1;
  cudaOccDeviceState state;
  cudaOccResult result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, 256, 0) !=
      CUDA_OCC_SUCCESS) return -1;
  return result.activeBlocksPerMultiprocessor;
}
""")
    z = (np.arange(8) + 1j * np.arange(8)[::-1]).astype(np.complex64)
    with load(src, opt="-O0") as lib:
        got = z.copy()
        lib.launch("rot", 1, 32, args=(got.view(np.float32).reshape(-1), 8))
        np.testing.assert_array_equal(got, z * 1j)
        assert lib.call("occupancy_blocks") == 8  # 2048 threads / 256


@pytest.mark.parametrize(("header", "named"), [("cuda_fp8.h", "FP8/FP6/FP4"),
                                               ("cupti.h", "CUPTI"),
                                               ("cudaProfiler.h", "driver API's profiler"),
                                               ("cudaProfilerTypedefs.h", "driver API's"),
                                               ("cudaGL.h", "OpenGL"),
                                               ("cudaEGLTypedefs.h", "EGL"),
                                               ("crt/cuda_tile.h", "CUDA Tile")])
def test_headers_needing_what_the_emulator_lacks_are_refused_at_the_include(tmp_path, header,
                                                                              named):
    src = tmp_path / "p.cu"
    src.write_text(f"// uses {header}\n#include <{header}>\nint main() {{ return 0; }}\n")
    with pytest.raises(CudafuseError, match=named) as exc:
        prepare(str(src), "emu", BuildOptions())
    assert exc.value.diagnostics[0].line == 2
