"""Horizontal fusion of kernels as libraries write them: per pair and mode, whether hfuse
fuses (its output compiled again before it is written: codegen/compile_check.py), refuses
(with its located reason) or writes an output that does not compile (which would be a bug:
it is an error, exit 1), and whether `verify --hfuse` finds the fused launcher exact against
the original kernels under the CPU emulator.

The corpus is tests/hfuse/programs/aten/ and crypto/: kernels written for cudafuse's tests
in the style of PyTorch ATen (templates in at::native and at::cuda, an anonymous namespace
with the file's own min, an enum template parameter, a template template parameter) and of
ccminer (global kernels, commented-out launch bounds, a helper header pasted under its
include guard).

Then kernels of two more libraries as their repositories write them, not in this repository
(their licences): pjreddie/darknet (C with CUDA kernels, cuDNN off: im2col, maxpool,
activation, a per-filter mean) and karpathy/llm.c (train_gpt2_fp32.cu: layernorm with
cooperative groups, GELU, residual). They are read from a cache folder, one folder per
repository `owner+name` holding the commit named below (--cache DIR, else
$CUDAFUSE_SURVEY_CACHE, else ~/.cache/cudafuse-survey, as benchmarks/survey.py):

    git clone https://github.com/OWNER/NAME CACHE/OWNER+NAME
    git -C CACHE/OWNER+NAME checkout COMMIT

Their files are copied into a work folder with one change, host-side: `#include`s of cuBLAS
and cuRAND (which the kernels do not use and the emulator does not have) name our stand-in
header instead (benchmarks/hfuse_library/standins.h); the kernels are as written. The run
specs (benchmarks/hfuse_library/*.toml) are ours. Run from the repository root:

    .venv/bin/python benchmarks/hfuse_library_pairs.py [--nvcc] [--cache DIR] [--only C]

Then the HFuse paper's own corpus (PAPER below, same cache convention): the ten ML pairs of
PyTorch ATen kernels (aoli-al/TorchKernel, the paper's copy of aten/src/ATen/native/cuda) and
the ccminer hash pairs (tpruvot/ccminer), files as written; their PyTorch includes and
ccminer's generated/host-only headers find our stand-ins (benchmarks/hfuse_library/aten/,
.../ccminer/). ccminer's kernels are verified with run specs that set their
`__device__`/`__constant__` arrays ([[symbols]]) and give `uint2 target2` as its members;
the blake2b kernels' target is the smallest hash of the nonce range (hashlib's BLAKE2b-256
of the header the kernel hashes), which exactly one nonce meets (_targeted).
Kernels that take a PackedTensorAccessor by value are verified with run specs
that describe it (`tensor`); kernelHistogram1D, launched with a host lambda that no run spec
can give, is verified through drivers the script writes (DRIVERS below).

Then three libraries tried by no one here before (LIBS below): ggml's CUDA kernels in
ggerganov/llama.cpp, BVLC/caffe's im2col and solver kernels, open-mmlab/mmcv's op headers,
same cache convention, host stand-ins in benchmarks/hfuse_library/caffe/ and .../mmcv/
(docs/benchmarks.md, "Libraries no one here had tried"); caffe's layer kernels (ReLU,
Sigmoid, TanH, Dropout, max/average pooling) with a stand-in for its protobuf-generated
caffe.pb.h and, in emulator builds, for the Blob accessors other files define. Then
openmm/openmm's kernels in its common compute dialect (PRELUDE: each kernel file staged with
our header of the defines OpenMM's runtime compiler puts before it).

(--nvcc: cudafuse's own compile check on, and every output compiled again with nvcc as the
library builds (--extended-lambda); off by default here. --only ours|third|aten|crypto or
llama|caffe|mmcv: one corpus; --pair A+B: that pair of it.)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "hfuse" / "programs"

# (file, kernel as --kernels names it, its run spec, its block)
KERNELS = {
    "im2col": ("aten/im2col.cu", "at::native::im2col_kernel<float>", "aten/im2col.toml", 128),
    "maxpool": ("aten/maxpool.cu", "max_pool_forward_nchw<float, float>", "aten/maxpool.toml",
                256),
    "histogram": ("aten/histogram.cu", "at::cuda::kernelHistogram1D<int, float, int>",
                  "aten/histogram.toml", 256),
    "batchnorm": ("aten/batchnorm.cu",
                  "batch_norm_collect_statistics_kernel<InvStd, float, float, int>",
                  "aten/batchnorm.toml", 128),
    "blake": ("crypto/blakeish.cu", "blake_hash", "crypto/blake.toml", 128),
    "sha256d": ("crypto/shaish.cu", "sha256d_hash", "crypto/sha.toml", 128),
}
PAIRS = [("im2col", "maxpool"), ("im2col", "histogram"), ("batchnorm", "histogram"),
         ("maxpool", "histogram"), ("batchnorm", "maxpool"), ("blake", "sha256d"),
         ("blake", "maxpool"), ("sha256d", "im2col"), ("histogram", "blake")]
MODES = ("thread", "block")

LIBRARY = ROOT / "benchmarks" / "hfuse_library"
# repository -> (commit, -I dirs from its root, -D defines)
REPOS = {
    "pjreddie/darknet": ("f6afaabcdf85f77e7aff2ec55c020c0e297c77f9", ("include",), ("GPU",)),
    "karpathy/llm.c": ("f1e2ace651495b74ae22d45d1723443fd00ecd3a", (), ()),
}
# (repository, file, kernel, its run spec, its block as the library launches it)
THIRD = {
    "dk_im2col": ("pjreddie/darknet", "src/im2col_kernels.cu", "im2col_gpu_kernel",
                  "dk_im2col.toml", 512),
    "dk_maxpool": ("pjreddie/darknet", "src/maxpool_layer_kernels.cu",
                   "forward_maxpool_layer_kernel", "dk_maxpool.toml", 512),
    "dk_activate": ("pjreddie/darknet", "src/activation_kernels.cu", "activate_array_kernel",
                    "dk_activate.toml", 512),
    "dk_fast_mean": ("pjreddie/darknet", "src/blas_kernels.cu", "fast_mean_kernel",
                     "dk_fast_mean.toml", 512),
    "lc_layernorm": ("karpathy/llm.c", "train_gpt2_fp32.cu", "layernorm_forward_kernel3",
                     "lc_layernorm.toml", 512),
    "lc_gelu": ("karpathy/llm.c", "train_gpt2_fp32.cu", "gelu_forward_kernel", "lc_gelu.toml",
                128),
    "lc_residual": ("karpathy/llm.c", "train_gpt2_fp32.cu", "residual_forward_kernel",
                    "lc_residual.toml", 256),
}
THIRD_PAIRS = [("dk_im2col", "dk_maxpool"), ("dk_maxpool", "dk_activate"),
               ("dk_fast_mean", "dk_im2col"), ("lc_layernorm", "lc_gelu"),
               ("lc_gelu", "lc_residual"), ("dk_maxpool", "lc_gelu")]

# The HFuse paper's own corpus. PyTorch's ATen CUDA kernels as the paper fused them: the
# copy of aten/src/ATen/native/cuda (PyTorch of October 2019) in the paper's artifact
# repository, at its first commit (later commits edit the files for fusion). ccminer's hash
# kernels (blake2b, sha256d, sia) from tpruvot/ccminer. Their includes of PyTorch and of
# ccminer's generated/host-only headers find our stand-ins (benchmarks/hfuse_library/aten,
# .../ccminer); the files are as written. Kernels, instantiations and blocks as the paper's
# configs (aoli-al/HFuse configs/ml_kernels.yaml, crypto_kernels.yaml) name them.
REPOS.update({
    "aoli-al/TorchKernel": ("6053ccb122c8e3d1005edffe5f4e462ad536900c", (), ()),
    "tpruvot/ccminer": ("6ff4e50987e59a70056324a94ed8667cc0bf598d", (".", "compat/jansson"),
                        ()),
})
STANDINS = {"aoli-al/TorchKernel": LIBRARY / "aten", "tpruvot/ccminer": LIBRARY / "ccminer"}

# Libraries tried by no one here before (issue 26: "the same holds on kernels you do not
# see"), in other styles: ggml's CUDA backend in ggerganov/llama.cpp (`static __global__`
# templates with non-type parameters, `if constexpr`, warp reductions through helpers of
# common.cuh), BVLC/caffe (`template <typename Dtype> __global__` in `namespace caffe`,
# CUDA_KERNEL_LOOP, launched through CAFFE_GET_BLOCKS) and open-mmlab/mmcv's ops
# (`*_cuda_kernel.cuh` templates included by .cu files, CUDA_1D_KERNEL_LOOP).
REPOS.update({
    "ggerganov/llama.cpp": ("c392e5094deaf2d1a7c18683214f007fad3fe42b",
                            ("ggml/include", "ggml/src"), ()),
    "BVLC/caffe": ("9b891540183ddc834a02b2bd81b31afae71b2153", ("include",), ()),
    "open-mmlab/mmcv": ("a8073c74bf83d62ec36a103f835faa4837fb6585",
                        ("mmcv/ops/csrc/common", "mmcv/ops/csrc/common/cuda"), ()),
})
# OpenMM compiles its kernels at run time from texts it concatenates (CudaContext::
# createModule): defines and typedefs for the precision, platforms/cuda/src/kernels/common.cu
# (the common compute dialect: KERNEL, GLOBAL_ID, SYNC_THREADS...), vectorOps.cu, then the
# kernel file (platforms/common/src/kernels/*.cc, written in that dialect). The staged copy of
# each kernel file is that text: a first line including our header of those defines
# (openmm/cudafuse_openmm.h, single precision), which includes OpenMM's two files; `.cc`
# files staged as `.cu`. The defines some kernel files expect from their host code, -D.
REPOS["openmm/openmm"] = ("1a47c2f68439c579e27666e5f985ea1a46dd105a", ("platforms/cuda/src",),
                          ("COMPONENTS=1", "INVERSE_TOTAL_MASS=0.25f", "THREAD_BLOCK_SIZE=128",
                           "WORK_GROUP_SIZE=64", "PADDED_NUM_ATOMS=512"))
STANDINS["openmm/openmm"] = LIBRARY / "openmm"
# repository -> (header, the paths whose files are kernel sources that get it as line 1)
PRELUDE = {"openmm/openmm": ("cudafuse_openmm.h", ("platforms/common/src/kernels/",
                                                   "platforms/cuda/src/kernels/utilities.cu"))}
# caffe's headers (include/caffe/common.hpp, util/math_functions.hpp) are its own; what they
# include of Boost, gflags, glog and CBLAS (host code only) finds our stand-ins.
STANDINS["BVLC/caffe"] = LIBRARY / "caffe"
# mmcv's ops include PyTorch (ATen, c10, THC) through pytorch_cuda_helper.hpp: the ATen
# stand-ins of the paper's corpus, and two more headers it names (.../mmcv/).
STANDINS["open-mmlab/mmcv"] = LIBRARY / "mmcv"
MORE_STANDINS = {"open-mmlab/mmcv": (LIBRARY / "aten",)}
# What the emulator's builds (verify) of a repository's files need beyond the -I/-D: headers
# given with -include, and the environment. ggml's common.cuh names the driver API in host
# code (CUresult), which the emulator's <cuda.h> lacks. (Its warp reductions, helpers in that
# header, are read by the emulator's choice of fibers: emu/fibers.py; no environment needed.)
# caffe's layer files name Blob's accessors and math helpers that other files define
# (caffe/cudafuse_caffe_emu.h: stand-ins that stop a run reaching them).
EMU_INCLUDES = {"ggerganov/llama.cpp": (str(LIBRARY / "driver_api.h"),),
                "BVLC/caffe": (str(LIBRARY / "caffe" / "cudafuse_caffe_emu.h"),)}
EMU_ENV: dict[str, dict[str, str]] = {}
# (kernel as --kernels names it, file, run spec, block as the library launches it)
GGML = "ggml/src/ggml-cuda/"
MMCV = "mmcv/ops/csrc/common/cuda/"
OMM = "platforms/common/src/kernels/"  # staged as .cu (PRELUDE)
LIBS: dict[str, dict[str, tuple]] = {
    "llama": {
        "rms_norm": ("ggerganov/llama.cpp", GGML + "norm.cu", "rms_norm_f32<32>",
                     "ll_rms_norm.toml", 32),
        "gelu": ("ggerganov/llama.cpp", GGML + "unary.cu", "gelu_f32", "ll_gelu.toml", 256),
        "pool2d": ("ggerganov/llama.cpp", GGML + "pool2d.cu",
                   "pool2d_nchw_kernel<float, float>", "ll_pool2d.toml", 256),
        "silu": ("ggerganov/llama.cpp", GGML + "unary.cu", "silu_f32", "ll_silu.toml", 256),
        "softmax": ("ggerganov/llama.cpp", GGML + "softmax.cu",
                    "soft_max_f32<true, 128, 128, float>", "ll_softmax.toml", 128),
        "im2col": ("ggerganov/llama.cpp", GGML + "im2col.cu", "im2col_kernel<float>",
                   "ll_im2col.toml", 256),
        "sum_rows": ("ggerganov/llama.cpp", GGML + "sumrows.cu", "k_sum_rows_f32",
                     "ll_sum_rows.toml", 32),
        "scale": ("ggerganov/llama.cpp", GGML + "scale.cu", "scale_f32", "ll_scale.toml", 256),
    },
    "caffe": {
        "im2col": ("BVLC/caffe", "src/caffe/util/im2col.cu", "caffe::im2col_gpu_kernel<float>",
                   "cf_im2col.toml", 512),
        "im2col_d": ("BVLC/caffe", "src/caffe/util/im2col.cu",
                     "caffe::im2col_gpu_kernel<double>", "cf_im2col_d.toml", 512),
        "col2im": ("BVLC/caffe", "src/caffe/util/im2col.cu", "caffe::col2im_gpu_kernel<float>",
                   "cf_col2im.toml", 512),
        "adam": ("BVLC/caffe", "src/caffe/solvers/adam_solver.cu", "caffe::AdamUpdate<float>",
                 "cf_adam.toml", 512),
        "rmsprop": ("BVLC/caffe", "src/caffe/solvers/rmsprop_solver.cu",
                    "caffe::RMSPropUpdate<float>", "cf_rmsprop.toml", 512),
        "adadelta": ("BVLC/caffe", "src/caffe/solvers/adadelta_solver.cu",
                     "caffe::AdaDeltaUpdate<float>", "cf_adadelta.toml", 512),
        "nesterov": ("BVLC/caffe", "src/caffe/solvers/nesterov_solver.cu",
                     "caffe::NesterovUpdate<float>", "cf_nesterov.toml", 512),
        "adagrad_d": ("BVLC/caffe", "src/caffe/solvers/adagrad_solver.cu",
                      "caffe::AdaGradUpdate<double>", "cf_adagrad_d.toml", 512),
        # The N-d im2col (3-d here), its shapes read from int arrays (values(...) in the spec).
        "im2col_nd": ("BVLC/caffe", "src/caffe/util/im2col.cu",
                      "caffe::im2col_nd_gpu_kernel<float, 3>", "cf_im2col_nd.toml", 512),
        # Layer kernels: the files include their layer's header (caffe/layers/*.hpp), which
        # includes the protobuf-generated caffe.pb.h: a stand-in (.../caffe/caffe/proto/).
        "relu": ("BVLC/caffe", "src/caffe/layers/relu_layer.cu", "caffe::ReLUForward<float>",
                 "cf_relu.toml", 512),
        "sigmoid": ("BVLC/caffe", "src/caffe/layers/sigmoid_layer.cu",
                    "caffe::SigmoidForward<float>", "cf_sigmoid.toml", 512),
        "maxpool": ("BVLC/caffe", "src/caffe/layers/pooling_layer.cu",
                    "caffe::MaxPoolForward<float>", "cf_maxpool.toml", 512),
        "dropout": ("BVLC/caffe", "src/caffe/layers/dropout_layer.cu",
                    "caffe::DropoutForward<float>", "cf_dropout.toml", 512),
        "avepool": ("BVLC/caffe", "src/caffe/layers/pooling_layer.cu",
                    "caffe::AvePoolForward<float>", "cf_avepool.toml", 512),
        "tanh": ("BVLC/caffe", "src/caffe/layers/tanh_layer.cu", "caffe::TanHForward<float>",
                 "cf_tanh.toml", 512),
    },
    # mmcv's kernels are fused from the headers that define them (hfuse analyses a file's own
    # kernels: the .cu launchers include them).
    "mmcv": {
        "sigmoid_focal": ("open-mmlab/mmcv", MMCV + "sigmoid_focal_loss_cuda_kernel.cuh",
                          "sigmoid_focal_loss_forward_cuda_kernel<float>",
                          "mm_sigmoid_focal.toml", 512),
        "masked_im2col": ("open-mmlab/mmcv", MMCV + "masked_conv2d_cuda_kernel.cuh",
                          "MaskedIm2colForward<float>", "mm_masked_im2col.toml", 512),
        "roi_align": ("open-mmlab/mmcv", MMCV + "roi_align_cuda_kernel.cuh",
                      "roi_align_forward_cuda_kernel<float>", "mm_roi_align.toml", 512),
        "softmax_focal": ("open-mmlab/mmcv", MMCV + "softmax_focal_loss_cuda_kernel.cuh",
                          "softmax_focal_loss_forward_cuda_kernel<float>",
                          "mm_softmax_focal.toml", 512),
        # The `template <>` specialization for phalf (passes/horizontal/specializations.py).
        "syncbn_mean_h": ("open-mmlab/mmcv", MMCV + "sync_bn_cuda_kernel.cuh",
                          "sync_bn_forward_mean_cuda_kernel<phalf>", "mm_syncbn_mean_h.toml",
                          512),
        "three_nn": ("open-mmlab/mmcv", MMCV + "three_nn_cuda_kernel.cuh",
                     "three_nn_forward_cuda_kernel<float>", "mm_three_nn.toml", 512),
    },
    # OpenMM's kernels in its common compute dialect (KERNEL, GLOBAL_ID, SYNC_THREADS...),
    # `extern "C"`, types and macros its runtime defines (the staged files' first line), at
    # OpenMM's default block of 64 (reductions at the blocks their LOCAL arrays are sized for).
    "openmm": {
        "cm_momentum": ("openmm/openmm", OMM + "removeCM.cu", "calcCenterOfMassMomentum",
                        "om_cm_momentum.toml", 64),
        "langevin1": ("openmm/openmm", OMM + "langevinMiddle.cu",
                      "integrateLangevinMiddlePart1", "om_langevin1.toml", 64),
        "brownian1": ("openmm/openmm", OMM + "brownian.cu", "integrateBrownianPart1",
                      "om_brownian1.toml", 64),
        "scale_positions": ("openmm/openmm", OMM + "monteCarloBarostat.cu", "scalePositions",
                            "om_scale_positions.toml", 64),
        "center": ("openmm/openmm", OMM + "rg.cu", "computeCenterPosition", "om_center.toml",
                   128),
        "verlet1": ("openmm/openmm", OMM + "verlet.cu", "integrateVerletPart1",
                    "om_verlet1.toml", 64),
        "clear2": ("openmm/openmm", "platforms/cuda/src/kernels/utilities.cu", "clearTwoBuffers",
                   "om_clear2.toml", 64),
        "reduce_energy": ("openmm/openmm", "platforms/cuda/src/kernels/utilities.cu",
                          "reduceEnergy", "om_reduce_energy.toml", 128),
    },
}
LIB_PAIRS = {
    "llama": [("rms_norm", "gelu"), ("pool2d", "silu"), ("softmax", "im2col"),
              ("sum_rows", "scale")],
    "caffe": [("im2col", "adam"), ("col2im", "rmsprop"), ("adadelta", "nesterov"),
              ("im2col_d", "adagrad_d"), ("relu", "sigmoid"), ("maxpool", "dropout"),
              ("avepool", "tanh"), ("im2col_nd", "relu")],
    "mmcv": [("sigmoid_focal", "masked_im2col"), ("roi_align", "softmax_focal"),
             ("syncbn_mean_h", "three_nn")],
    "openmm": [("cm_momentum", "langevin1"), ("brownian1", "scale_positions"),
               ("center", "verlet1"), ("clear2", "reduce_energy")],
}
# Why a kernel cannot be verified under the emulator (None: it can, with the spec named).
UNVERIFIABLE = {
    "lambda": "takes a functor whose type its launch deduces from a host lambda, which a run "
              "spec cannot give",
}
# Repositories whose files the emulator runs (their pairs verified here) but the GPU cannot
# load: bench_hfuse.py does not time their pairs (it says why) and gpu_session.py --prepare
# does not carry their files. None since 359d1ef: ccminer's kernel files hold host code
# (scanhash_*) naming what its other files define (work_restart, cuda_get_arch), which nvcc
# builds (the emulator's front end skips it); the nvcc backend links stand-ins for such
# symbols, as the emulator's build does (src/cudafuse/runtime/standins.py, emu/undefined.py),
# where it finds the files that define them (--prepare carries those).
NOT_LOADABLE: dict[str, str] = {}
PAPER = {
    "im2col": ("aoli-al/TorchKernel", "cuda/im2col.cuh", "at::native::im2col_kernel<float>",
               "tk_im2col.toml", 512),
    "maxpool": ("aoli-al/TorchKernel", "cuda/DilatedMaxPool2d.cu",
                "at::native::MaxPoolForward<float, float>", "tk_maxpool.toml", 256),
    # Their PackedTensorAccessors are given by value: the specs describe each as the array
    # it views (`tensor`, runtime/spec_struct.py).
    "upsample": ("aoli-al/TorchKernel", "cuda/UpSampleBilinear2d.cu",
                 "at::native::upsample_bilinear2d_out_frame<float, float>", "tk_upsample.toml",
                 512),
    "batchnorm": ("aoli-al/TorchKernel", "cuda/Normalization.cuh",
                  "at::native::batch_norm_collect_statistics_kernel<InvStd, float, float, "
                  "float, int>", "tk_batchnorm.toml", "32x16"),
    # histc of floats as SummaryOps.cu's host code launches it for fewer than 100 bins
    # (shared-memory bins). Its last template argument, the type of the lambda the launch
    # passes (getDummyOp), is left to the launch to deduce: the fused kernel and launcher are
    # templates over it.
    "histogram": ("aoli-al/TorchKernel", "cuda/SummaryOps.cu",
                  "at::cuda::kernelHistogram1D<float, float, int64_t, 1, 2, -1, "
                  "at::cuda::CUDAHistogramMemoryType::SHARED>", "lambda", 512),
    # ccminer's files as written: their host code, which nvcc compiles in its host pass, is
    # skipped (cuda_swab32 is a __device__ function where __CUDA_ARCH__ is defined), their
    # inline PTX translated (emu/ptx_block.py), their calls into ccminer's other files
    # stubbed (emu/undefined.py). The blake2b targets are set by _targeted (below).
    "blake2b": ("tpruvot/ccminer", "blake2b.cu", "blake2b_gpu_hash", "cc_blake2b.toml", 128),
    "sha256d": ("tpruvot/ccminer", "sha256/cuda_sha256d.cu", "sha256d_gpu_hash_shared",
                "cc_sha256d.toml", 128),
    "sia": ("tpruvot/ccminer", "sia/sia.cu", "sia_blake2b_gpu_hash", "cc_sia.toml", 128),
}
# A pair with a kernel a run spec cannot launch (kernelHistogram1D: its launch passes a host
# lambda) is run through drivers of ours instead: a host function cf_run taking plain arrays, which
# builds the accessors over them and launches both kernels (the originals as the fused file
# holds them), or the fused launcher; `cudafuse verify` compares the two drivers under the
# emulator, every element. Per kernel: its arrays (name, dtype, count, init, role), the
# setup, the launch and its arguments ({n}: the element count); P_/Q_ name the first and the
# second kernel's; smem: the launch's dynamic shared memory (default 0). Sizes as the specs':
# im2col 3x11x9 (3x3, pad 1, stride 2); MaxPool 2x3x12x10 (3, stride 2, pad 1); upsample
# 2x3x7x9 -> 11x16, align_corners; batch-norm 4x5x37; histogram 1000 values in [-1.2, 1.2)
# into 10 bins over [-1, 1] (values outside left out, as histc), launched with the file's
# getDummyOp lambda over 2 blocks (each its shared-memory bins, then atomics to the output).
DRIVERS: dict[str, dict] = {
    "im2col": dict(
        arrays=[("X_im", "float32", 297, "uniform(-1, 1)", None),
                ("X_col", "float32", 810, "const(-7)", "out")],
        setup="dim3 gX((90 + 511) / 512);",
        launch="at::native::im2col_kernel<float><<<gX, 512>>>",
        args="90, X_im, 11, 9, 3, 3, 1, 1, 2, 2, 1, 1, 6, 5, X_col"),
    "maxpool": dict(
        arrays=[("X_in", "float32", 720, "uniform(-1, 1)", None),
                ("X_out", "float32", 180, "const(-7)", "out"),
                ("X_mask", "int64", 180, "const(-7)", "out")],
        setup="dim3 gX((180 + 255) / 256);",
        launch="at::native::MaxPoolForward<float, float><<<gX, 256>>>",
        args="180, X_in, 2, 3, 12, 10, 6, 5, 3, 3, 2, 2, 1, 1, 1, 1, X_out, X_mask"),
    "upsample": dict(
        arrays=[("X_up_in", "float32", 378, "uniform(-1, 1)", None),
                ("X_up_out", "float32", 1056, "const(-7)", "out")],
        setup="const int64_t X_isz[4] = {2, 3, 7, 9}, X_ist[4] = {189, 63, 9, 1};\n"
              "  const int64_t X_osz[4] = {2, 3, 11, 16}, X_ost[4] = {528, 176, 16, 1};\n"
              "  at::PackedTensorAccessor<float, 4> X_i(const_cast<float *>(X_up_in), X_isz, "
              "X_ist), X_o(X_up_out, X_osz, X_ost);\n  dim3 gX((176 + 511) / 512);",
        launch="at::native::upsample_bilinear2d_out_frame<float, float><<<gX, 512>>>",
        args="176, 6.0f / 10, 8.0f / 15, true, X_i, X_o"),
    "batchnorm": dict(
        arrays=[("X_bn_in", "float32", 740, "uniform(-2, 2)", None),
                ("X_rmean", "float32", 5, "uniform(-1, 1)", "inout"),
                ("X_rvar", "float32", 5, "uniform(1, 2)", "inout"),
                ("X_smean", "float32", 5, "const(-7)", "out"),
                ("X_svar", "float32", 5, "const(-7)", "out")],
        setup="const int X_sz[3] = {4, 5, 37}, X_st[3] = {185, 37, 1}, X_c[1] = {5}, "
              "X_one[1] = {1};\n  at::PackedTensorAccessor<float, 3, at::RestrictPtrTraits, "
              "int> X_x(const_cast<float *>(X_bn_in), X_sz, X_st);\n"
              "  at::PackedTensorAccessor<float, 1, at::RestrictPtrTraits, int> "
              "X_rm(X_rmean, X_c, X_one), X_rv(X_rvar, X_c, X_one), X_sm(X_smean, X_c, X_one), "
              "X_sv(X_svar, X_c, X_one);\n  dim3 gX(5);",
        launch="at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, "
               "float, float, int><<<gX, dim3(32, 16)>>>",
        args="X_x, 1e-5f, 0.1f, X_rm, X_rv, X_sm, X_sv"),
    "histogram": dict(
        arrays=[("X_h_in", "float32", 1000, "uniform(-1.2, 1.2)", None),
                ("X_h_out", "float32", 10, "const(0)", "inout")],
        setup="int64_t X_asz[1] = {10}, X_ast[1] = {1}, X_bsz[1] = {1000}, X_bst[1] = {1};\n"
              "  at::cuda::detail::TensorInfo<float, int64_t> X_a(X_h_out, 1, X_asz, X_ast), "
              "X_p, X_b(const_cast<float *>(X_h_in), 1, X_bsz, X_bst);\n"
              "  const auto X_one = [] __device__(int64_t) { return 1L; };\n"
              "  const size_t X_smem = 10 * sizeof(float) + 8;\n  dim3 gX(2);",
        launch="at::cuda::kernelHistogram1D<float, float, int64_t, 1, 2, -1, "
               "at::cuda::CUDAHistogramMemoryType::SHARED><<<gX, 512, X_smem>>>",
        args="X_a, X_p, X_b, 10, -1.0f, 1.0f, (int64_t)1000, X_one", smem="X_smem"),
}

ATEN_PAIRS = [("im2col", "maxpool"), ("im2col", "batchnorm"), ("im2col", "histogram"),
              ("im2col", "upsample"), ("maxpool", "batchnorm"), ("maxpool", "upsample"),
              ("histogram", "maxpool"), ("histogram", "upsample"), ("upsample", "batchnorm"),
              ("histogram", "batchnorm")]
CRYPTO_PAIRS = [("blake2b", "sha256d"), ("blake2b", "sia"), ("sha256d", "sia")]
_HOST_LIBRARY = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](?:cublas_v2|curand)\.h[>"]', re.M)


def _targeted(key: str, spec: Path, tmp: Path) -> Path:
    """ccminer's blake2b kernels' spec with the target that exactly one nonce of the range
    meets (the smallest hash, from hashlib's BLAKE2b-256 of the 80-byte header the kernel
    hashes), written beside the outputs; other specs as they are."""
    if key not in ("blake2b", "sia"):
        return spec
    import hashlib

    import numpy as np

    from cudafuse.runtime.spec import load_spec
    from cudafuse.runtime.spec_values import make_value

    loaded = load_spec(str(spec))
    data = [int(v) for v in make_value(loaded.symbols[0])]
    start, count = loaded.args[1].value, loaded.args[0].value
    best: tuple[int, int] | None = None
    for nonce in range(start, start + count):
        if key == "blake2b":  # m[0..8], the low word of d_data[9], the nonce
            words = np.array(data[:9], "<u8").tobytes() + (data[9] & 0xFFFFFFFF).to_bytes(4,
                                                                                  "little")
            digest = hashlib.blake2b(words + nonce.to_bytes(4, "little"), digest_size=32)
            value = int.from_bytes(digest.digest()[24:32], "little")  # v[3] ^ v[11] ^ IV[3]
            rank = ((value >> 32) << 32) | (value & 0xFFFFFFFF)  # y first, then x
        else:  # sia: the nonce ORed into m[4]; the first word, byte-swapped
            words = list(data)
            words[4] |= nonce
            digest = hashlib.blake2b(np.array(words, "<u8").tobytes(), digest_size=32)
            value = rank = int.from_bytes(digest.digest()[:8], "big")
        if best is None or rank < best[0]:
            best = (rank, value)
    assert best is not None
    x, y = best[1] & 0xFFFFFFFF, best[1] >> 32
    out = tmp / f"{key}_target.toml"
    out.write_text(spec.read_text().replace("value = [0, 0]", f"value = [{x}, {y}]"))
    return out


def run_pair(a: str, b: str, mode: str, tmp: Path) -> str:
    (fa, ka, sa, ba), (fb, kb, sb, bb) = KERNELS[a], KERNELS[b]
    return _run(((PROGRAMS / fa, ka, PROGRAMS / sa, ba), (PROGRAMS / fb, kb, PROGRAMS / sb, bb)),
                f"{a}_{b}_{mode}", mode, tmp, (), ())


def _stage(cache: Path, repo: str, work: Path) -> Path:
    """The repository's text files copied to `work`, cuBLAS/cuRAND includes naming the
    stand-in header; the copy's root."""
    commit = REPOS[repo][0]
    src = cache / repo.replace("/", "+")
    if not src.is_dir():
        raise FileNotFoundError(f"{src} (git clone https://github.com/{repo} {src} && "
                                f"git -C {src} checkout {commit})")
    root = work / repo.replace("/", "+")
    if root.is_dir():
        return root
    header, sources = PRELUDE.get(repo, ("", ()))
    for path in src.rglob("*"):
        rel = path.relative_to(src)
        kernel_source = bool(header) and str(rel).startswith(sources)
        if path.is_file() and (path.suffix in (".cu", ".cuh", ".h", ".hpp", ".c") or
                               kernel_source and path.suffix == ".cc"):
            dest = root / (rel.with_suffix(".cu") if kernel_source else rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            text = _HOST_LIBRARY.sub(b'#include "cudafuse_standins.h"', path.read_bytes())
            dest.write_bytes(f'#include "{header}"\n'.encode() + text if kernel_source
                             else text)
    for folder in {p.parent for p in root.rglob("*") if p.is_file()}:
        shutil.copy(LIBRARY / "standins.h", folder / "cudafuse_standins.h")
    return root


def run_third(a: str, b: str, mode: str, tmp: Path, cache: Path,
              table: dict | None = None) -> str:
    sides, dirs, defines, why, forced = [], [], [], [], []
    env: dict[str, str] = {}
    # A pair with a kernel no run spec can launch is verified through drivers of ours.
    driven = table is PAPER and a in DRIVERS and b in DRIVERS and \
        any(PAPER[k][3] in UNVERIFIABLE for k in (a, b))
    for key in (a, b):
        repo, path, kernel, spec, block = (table or THIRD)[key]
        root = _stage(cache, repo, tmp / "libraries")
        if spec in UNVERIFIABLE and not driven:
            why.append(f"{key} {UNVERIFIABLE[spec]}")
        sides.append((root / path, kernel, None if spec in UNVERIFIABLE else
                      _targeted(key, LIBRARY / spec, tmp), block))
        dirs += [str(root / d) for d in REPOS[repo][1]]
        if repo in STANDINS:
            dirs.append(str(STANDINS[repo]))
        dirs += [str(d) for d in MORE_STANDINS.get(repo, ())]
        defines += REPOS[repo][2]
        forced += EMU_INCLUDES.get(repo, ())
        env.update(EMU_ENV.get(repo, {}))
    return _run(tuple(sides), f"{a}_{b}_{mode}", mode, tmp, tuple(dict.fromkeys(dirs)),
                tuple(dict.fromkeys(defines)), "; ".join(why), (a, b) if driven else None,
                tuple(dict.fromkeys(forced)), env)


def _side(key: str, prefix: str) -> dict:
    return {k: [(n.replace("X_", prefix), *rest) for n, *rest in v] if k == "arrays"
            else v.replace("X_", prefix).replace("gX", "g" + prefix) for k, v in
            DRIVERS[key].items()}


def _space(pair: tuple[str, str]) -> str:
    """The namespaces hfuse puts the fused launcher in (the first kernel's, or the second's
    when they lie inside the first's), as a qualifier."""
    first, second = (PAPER[k][2].split("<")[0].rpartition("::")[0] for k in pair)
    return (second if second.startswith(first) else first) + "::"


def _write_drivers(out: Path, launcher: str, pair: tuple[str, str]) -> tuple[Path, Path, Path]:
    """The two drivers (the original kernels, the fused launcher) and their run spec,
    written beside the output."""
    p, q = _side(pair[0], "P_"), _side(pair[1], "Q_")
    params = ", ".join(f"{'int64_t' if dt == 'int64' else 'float'} *{n}"
                       for side in (p, q) for n, dt, *_ in side["arrays"])
    head = (f'// Driver written by benchmarks/hfuse_library_pairs.py.\n#include "{out.name}"\n'
            f"void cf_run({params}) {{\n  {p['setup']}\n  {q['setup']}\n")
    orig, fused = out.with_name(out.stem + "_orig.cu"), out.with_name(out.stem + "_drv.cu")
    orig.write_text(head + f"  {p['launch']}({p['args']});\n  {q['launch']}({q['args']});\n}}\n")
    fused.write_text(head + f"  {_space(pair)}{launcher}({p['args']}, {q['args']}, gP_, gQ_, "
                     f"{p.get('smem', '0')}, {q.get('smem', '0')}, 0);\n}}\n")
    spec = out.with_suffix(".toml")
    spec.write_text('entry = "cf_run"\n' + "".join(
        f'[[args]]\nname = "{n}"\ndtype = "{dt}"\ncount = {count}\ninit = "{init}"\n'
        + (f'role = "{role}"\n' if role else "")
        for side in (p, q) for n, dt, count, init, role in side["arrays"]))
    return orig, fused, spec


def _verify_driven(orig: Path, fused: Path, spec: Path, include_dirs: tuple[str, ...]) -> str:
    """The drivers compared by `cudafuse verify` under the emulator: '' when every element
    matches, else verify's last line."""
    done = subprocess.run([sys.executable, "-m", "cudafuse", "verify", str(orig), str(fused),
                           "--spec", str(spec), "--backend", "emu",
                           *(f"-I{d}" for d in include_dirs)],
                          capture_output=True, text=True, timeout=900)
    last = (done.stdout + done.stderr).strip().splitlines()
    return "" if done.returncode == 0 else (last[-1] if last else "verify failed")


def _nvcc(out: Path, include_dirs: tuple[str, ...], defines: tuple[str, ...]) -> str:
    """'' when nvcc compiles the output (or a driver including it, which instantiates a
    fused kernel that is a template over a lambda's type) as the libraries build theirs
    (PyTorch's extended lambdas on), else nvcc's first error."""
    flags = ["-arch=sm_90", "-std=c++17", "--extended-lambda", f"-I{out.parent}",
             *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines)]
    done = subprocess.run(["nvcc", *flags, "-c", str(out), "-o", str(out.with_suffix(".o"))],
                          capture_output=True, text=True)
    if done.returncode == 0:
        return ""
    errors = [line for line in done.stdout.splitlines() + done.stderr.splitlines()
              if "error" in line]
    return (errors or ["nvcc failed"])[0].replace(str(out.parent) + "/", "")


def _run(sides: tuple, name: str, mode: str, tmp: Path, include_dirs: tuple[str, ...],
         defines: tuple[str, ...], unverifiable: str = "",
         driven: tuple[str, str] | None = None, forced: tuple[str, ...] = (),
         env: dict[str, str] | None = None) -> str:
    import cudafuse
    from cudafuse.cli.verify_hfuse import verify_hfuse
    from cudafuse.diagnostics import CudafuseError
    from cudafuse.frontend import ParseOptions

    (fa, ka, sa, ba), (fb, kb, sb, bb) = sides
    out = tmp / f"{name}.cu"
    files = (str(fa),) if fa == fb else (str(fa), str(fb))
    try:
        fused = cudafuse.hfuse(*files, kernels=(ka, kb), block1=ba, block2=bb, mode=mode,
                               output=str(out), include_dirs=include_dirs, defines=defines)
    except CudafuseError as exc:
        first = exc.diagnostics[0].format(caret=False).replace(str(PROGRAMS) + "/", "")
        first = first.replace(str(tmp / "libraries") + "/", "")
        kind = "output does not compile" if "does not compile" in first else "refused"
        return f"{kind}: {first.replace(str(tmp) + '/', '')}"
    out.write_text(fused.text)
    drivers = _write_drivers(out, fused.name + "_launch", driven) if driven else None
    compiled = ""
    if NVCC:
        bad = _nvcc(out, include_dirs, defines)
        if bad:
            return f"output does not compile (exit 0): {bad}"
        if drivers and _nvcc(drivers[1], include_dirs, defines):
            return f"driver does not compile: {_nvcc(drivers[1], include_dirs, defines)}"
        compiled = ", compiles with nvcc"
    if unverifiable:
        return f"fused{compiled}; not verified: {unverifiable}"
    if drivers:
        bad = _verify_driven(*drivers, include_dirs)
        where = str(out.parent) + "/"
        return (f"fused{compiled}, verified exact (driver)" if not bad else
                f"fused{compiled}; driver verify failed: {bad.replace(where, '')}")
    saved = {k: os.environ.get(k) for k in env or {}}
    os.environ.update(env or {})
    try:
        ok = verify_hfuse((str(fa), str(fb), str(out)), None, None, str(sa), str(sb), "emu",
                          300.0, False, ParseOptions(include_dirs, defines, forced))
    except CudafuseError as exc:
        return f"fused{compiled}; verify failed: {exc.diagnostics[0].format(caret=False)}"
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return f"fused{compiled}, verified exact" if ok else "fused, OUTPUTS DIFFER"


NVCC = False


def main() -> int:
    global NVCC
    parser = argparse.ArgumentParser(
        description="hfuse on kernel pairs as libraries write them: fused / refused / "
                    "does not compile / verified, per pair and mode (a Markdown table).")
    parser.add_argument("--nvcc", action="store_true",
                        help="compile every output with nvcc too (when nvcc is on PATH)")
    parser.add_argument("--only", default="",
                        help="one corpus: ours, third, aten, crypto, " + ", ".join(LIB_PAIRS))
    parser.add_argument("--cache", type=Path, default=None,
                        help="the folder of OWNER+NAME checkouts (else $CUDAFUSE_SURVEY_CACHE, "
                             "else ~/.cache/cudafuse-survey)")
    parser.add_argument("--pair", default="", help="A+B: that pair only (both modes)")
    args = parser.parse_args()
    NVCC = args.nvcc and shutil.which("nvcc") is not None
    if not args.nvcc:
        os.environ["CUDAFUSE_NO_NVCC_CHECK"] = "1"
    only = args.only
    cache = args.cache or Path(os.environ.get("CUDAFUSE_SURVEY_CACHE") or
                               os.path.expanduser("~/.cache/cudafuse-survey"))
    bad = 0
    print("| pair | mode | result | s |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="cudafuse-libpairs-") as tmp:
        jobs = [(a, b, m, run_pair) for a, b in PAIRS for m in MODES] \
            if only in ("", "ours") else []
        if only in ("", "third"):
            jobs += [(a, b, m, lambda a, b, m, t: run_third(a, b, m, t, cache))
                     for a, b in THIRD_PAIRS for m in MODES]
        for corpus, pairs in (("aten", ATEN_PAIRS), ("crypto", CRYPTO_PAIRS)):
            if only in ("", corpus):
                jobs += [(a, b, m, lambda a, b, m, t: run_third(a, b, m, t, cache, PAPER))
                         for a, b in pairs for m in MODES]
        for lib, pairs in LIB_PAIRS.items():
            if only in ("", lib):
                jobs += [(a, b, m, lambda a, b, m, t, lib=lib:
                          run_third(a, b, m, t, cache, LIBS[lib]))
                         for a, b in pairs for m in MODES]
        if args.pair:
            wanted = tuple(args.pair.split("+"))
            jobs = [j for j in jobs if j[:2] == wanted]
        for a, b, mode, run in jobs:
            t0 = time.perf_counter()
            got = run(a, b, mode, Path(tmp))
            bad += got.startswith(("output does not compile", "fused, OUTPUTS", "fused;"))
            print(f"| {a} + {b} | {mode} | {got} | {time.perf_counter() - t0:.0f} |",
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
