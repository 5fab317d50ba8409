"""What hfuse refuses: a `file:line:col: error:` naming the construct, exit status 1, and no
output written (an existing output is left as it was)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "refusals.cu"


def _line(pattern: str) -> int:
    lines = SRC.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if pattern in text)


CASES = [
    # (kernels, extra options, where (a line's text), what the message says)
    ("plain,return_then_barrier", (), "if (i >= n) return;",
     "returns early and waits at __syncthreads() after"),
    ("return_then_helper_barrier,plain", (), "if (i >= 2 * n) return;",
     "returns early and waits at __syncthreads() after"),
    ("plain,return_in_barrier_loop", (), "if (threadIdx.x + k * 64 >= n) return;",
     "after that (line"),
    ("count_in_macro,plain", (), "int c = COUNT_BELOW(i, n);",
     "__syncthreads_count() inside a macro expansion"),
    ("plain,own_named_barrier", (), 'asm volatile("bar.sync 1, 64;")', "inline assembly"),
    ("template_helper,plain", (), "__device__ int lane_in(int base)",
     "helper 'lane_in' reads threadIdx and is a template"),
    ("plain,helper_call_in_macro", (), "void helper_call_in_macro", "inside a macro expansion"),
    ("plain,barrier_in_macro", (), "  SYNC();", "inside a macro expansion"),
    ("scratch_a,scratch_b", (), "__shared__ int g_scratch[64];", "g_scratch"),
    ("uses_cooperative_groups,plain", (), "cooperative_groups::this_grid();",
     "cooperative groups' this_grid() is the whole fused grid"),
    ("with_label,with_label", (), "done:", "label 'done' is defined in both kernels"),
    ("plain,plain", ("--block1", "48"), "__global__ void plain", "not a multiple of 32"),
]


@pytest.mark.parametrize("kernels,extra,where,what", CASES, ids=[c[0] for c in CASES])
def test_refused(tmp_path: Path, kernels: str, extra: tuple[str, ...], where: str,
                 what: str) -> None:
    out = tmp_path / "out.cu"
    out.write_text("previous output\n")
    opts = {"--block1": "64", "--block2": "64"}
    for k, v in zip(extra[::2], extra[1::2], strict=True):
        opts[k] = v
    res = hfuse(str(SRC), "--kernels", kernels, *(x for kv in opts.items() for x in kv),
                "-o", str(out))
    assert res.exit_code == 1, res.output
    assert f"{SRC}:{_line(where)}:" in res.output and ": error: " in res.output, res.output
    assert what in res.output, res.output
    assert out.read_text() == "previous output\n"


def test_block_mode_accepts_what_only_thread_mode_refuses(tmp_path: Path) -> None:
    # A block runs one part only there: block-wide barriers, reductions and early returns
    # keep their meaning, and shared arrays are not shared between parts.
    for kernels in ("plain,return_then_barrier", "count_barrier,plain", "scratch_a,scratch_b"):
        res = hfuse(str(SRC), "--kernels", kernels, "--block1", "64", "--block2", "64",
                    "--mode", "block", "-o", str(tmp_path / "out.cu"))
        assert res.exit_code == 0, (kernels, res.output)


def test_block_too_large(tmp_path: Path) -> None:
    res = hfuse(str(SRC), "--kernels", "plain,plain", "--block1", "768", "--block2", "512",
                "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 1 and "1280 threads" in res.output
    assert not (tmp_path / "out.cu").exists()


def test_regcap_too_small_for_the_block(tmp_path: Path) -> None:
    res = hfuse(str(SRC), "--kernels", "plain,plain", "--block1", "512", "--block2", "512",
                "--regcap", "128", "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 1 and "65536 registers" in res.output


@pytest.mark.parametrize("args,what", [
    (("--kernels", "plain"), "--kernels takes two kernel names"),
    (("--kernels", "plain,nope"), "no kernel named 'nope'"),
    ((), "name the two kernels with --kernels"),
    (("--kernels", "plain,plain", "--regcap", "8"), "--regcap must be"),
    (("--kernels", "plain,plain", "--block2", "3x"), "--block2 takes a block shape"),
])
def test_usage_errors(tmp_path: Path, args: tuple[str, ...], what: str) -> None:
    res = hfuse(str(SRC), "--block1", "64", "--block2", "64", *args,
                "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 2 and what in res.output, res.output
    assert not (tmp_path / "out.cu").exists()


def test_two_files_with_clashing_names(tmp_path: Path) -> None:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    (tmp_path / "w.h").write_text("__device__ inline int widen(int v) { return v * W; }\n")
    a.write_text("#define W 4\n__device__ int g(int);\n__device__ int f(int v) { return v; }\n"
                 "struct S { int a; };\n"
                 "__global__ void ka(int *o) { o[threadIdx.x] = f(W); }\n")
    b.write_text("#define W 8\n#include \"w.h\"\n__device__ int g(int);\n"
                 "__device__ int f(int v) { return -v; }\nstruct S { int b; };\n"
                 "__global__ void kb(int *o) { o[threadIdx.x] = widen(f(W)); }\n")
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "-o",
                str(tmp_path / "out.cu"))
    assert res.exit_code == 1
    # Functions, types and macros are renamed apart (test_hfuse_rename.py), but not a macro
    # that a header of the second file uses: the header would expand the other macro.
    assert "'f' is defined in both inputs: in the output, this file's is" not in res.output
    assert "'g'" not in res.output  # a prototype in both is no clash
    assert f"{b}:1:9: error: macro 'W' is defined differently in {a} and cannot be renamed in " \
        f"this file: the header {tmp_path / 'w.h'} uses it" in res.output, res.output
    assert not (tmp_path / "out.cu").exists()


def _macro_changed_after(tmp_path: Path, after: str, mode: str) -> Path:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_text("#define K 3.0f\n__global__ void ka(float *o) { o[threadIdx.x] = K; }\n"
                 + after)
    b.write_text("__global__ void kb(float *o) { o[threadIdx.x] = 1.0f; }\n")
    out = tmp_path / "out.cu"
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "--mode", mode, "-o",
                str(out))
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("after", ["#undef K\n", "#undef K\n#define K 4.0f\n"])
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_a_macro_changed_after_the_kernel_is_restored(tmp_path: Path, after: str,
                                                       mode: str) -> None:
    # The fused kernel follows the whole file: it would see K undefined (the output did not
    # compile) or redefined (it would silently compute with 4.0f). K is defined again
    # around the generated code as the kernel saw it, then given back its end state.
    out = _macro_changed_after(tmp_path, after, mode)
    tail = out.read_text().split("// ---- generated by cudafuse hfuse")[1]
    redefined = "#define K 4.0f" in after
    restore = ('#pragma push_macro("K")\n#undef K\n' if redefined else "") + "#define K 3.0f\n"
    assert restore in tail and tail.index(restore) < tail.index("__global__")
    assert tail.rstrip().endswith('#pragma pop_macro("K")' if redefined else "#undef K")


@pytest.mark.slow  # an emulator build
def test_a_restored_macro_is_what_the_fused_kernel_computes_with(tmp_path: Path) -> None:
    out = _macro_changed_after(tmp_path, "#undef K\n#define K 4.0f\n", "thread")
    o1, o2 = np.zeros(32, np.float32), np.zeros(32, np.float32)
    library(out).call("ka_kb_hfused_launch", o1, o2, (1,), (1,), 0, 0, None)
    assert (o1 == 3.0).all() and (o2 == 1.0).all()


def test_a_macro_the_kernel_saw_from_a_header_then_redefined_is_refused(
        tmp_path: Path) -> None:
    # The file's own text does not say what the kernel saw: refused, located.
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    (tmp_path / "k.h").write_text("#define K 3.0f\n")
    a.write_text('#include "k.h"\n__global__ void ka(float *o) { o[threadIdx.x] = K; }\n'
                 "#undef K\n#define K 4.0f\n")
    b.write_text("__global__ void kb(float *o) { o[threadIdx.x] = 1.0f; }\n")
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "-o",
                str(tmp_path / "out.cu"))
    assert res.exit_code == 1
    assert f"{a}:2:49: error: macro 'K' is defined after 'ka' (which sees another " \
           "definition)" in res.output, res.output
    assert not (tmp_path / "out.cu").exists()
    # Streams mode launches the kernels where they are: nothing to refuse.
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "--mode", "streams",
                "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 0, res.output
