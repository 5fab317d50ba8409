"""HFuse's register bound (--regcap auto): the formula, ptxas parsing, and end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hfuse_helpers import PROGRAMS, hfuse

from cudafuse.passes.horizontal.regbound import (
    SMS,
    Resources,
    kernel_name,
    parse_ptxas,
    register_bound,
)

PTXAS = """\
ptxas info    : Compiling entry function '_Z6sum_sqPiPKii' for 'sm_90'
ptxas info    : Function properties for _Z6sum_sqPiPKii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 128 bytes smem
ptxas info    : Compiling entry function '_ZN2ns4gainEPfi' for 'sm_90'
ptxas info    : Used 40 registers
ptxas info    : Compiling entry function 'plain_c' for 'sm_90'
ptxas info    : Used 8 registers, 4096 bytes smem
"""


def test_parse_ptxas() -> None:
    assert parse_ptxas(PTXAS) == {"sum_sq": Resources(14, 128), "gain": Resources(40, 0),
                                  "plain_c": Resources(8, 4096)}
    assert kernel_name("_ZN2ns4gainEPfi") == "gain"


def test_bound_follows_the_paper() -> None:
    sm = SMS["sm_90"]
    # b1 = 65536 / (128 * 14) = 36, b2 = 65536 / (64 * 14) = 73, threads: 2048 / 192 = 10,
    # shared: 233472 / 256 = 912 -> b0 = 10; r0 = 65536 / (10 * 192) = 34 -> 32 (granule 8).
    assert register_bound(Resources(14, 128), 128, Resources(14, 128), 64, 192, sm) == 32
    # Register-limited originals: b1 = 65536 / (256 * 64) = 4 -> r0 = 65536 / (4 * 512) = 32.
    assert register_bound(Resources(64, 0), 256, Resources(20, 0), 256, 512, sm) == 32
    # Shared-memory-limited: 233472 / (2 * 60000) = 1 block -> 65536 / 1024 = 64.
    assert register_bound(Resources(20, 60000), 512, Resources(20, 60000), 512, 1024, sm) == 64


def test_auto_needs_thread_mode(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "pairs.cu"), "--kernels", "saxpy,histogram", "--block1", "64",
                "--block2", "64", "--mode", "block", "--regcap", "auto", "-o",
                str(tmp_path / "o.cu"))
    assert res.exit_code == 2 and "thread split" in res.output


@pytest.mark.nvcc
def test_auto_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(PROGRAMS / "pairs.cu"), "--kernels", "sum_abs,sum_sq", "--block1", "128",
                "--block2", "64", "--regcap", "auto", "--explain", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    # 192 threads of few registers: threads limit the blocks per SM, no cap adds one.
    assert "regcap none (auto from ptxas: uncapped: " in text
    assert "no cap gains an occupancy step (threads limit the blocks per SM, not " \
        "registers), so none" in text
    # --explain: the table of what ptxas made of it, one compile, the uncapped one chosen.
    lines = res.output.splitlines()
    head = next(i for i, ln in enumerate(lines) if "register caps from ptxas (sm_90, 192 " in ln)
    assert lines[head + 1].split()[:2] == ["cap", "registers"]
    row = lines[head + 2].split()
    assert row[0] == "none" and row[2] == "0/0" and row[-2:] == ["<-", "chosen"], row
    assert lines[head + 3].strip().endswith(": no cap")
    assert "__global__ void __launch_bounds__(192) sum_abs_sum_sq_hfused(" in text


TEMPLATE_PTXAS = """\
ptxas info    : Compiling entry function '_Z5box1dIfLi2EEvPKT_PS0_i' for 'sm_90'
ptxas info    : Used 12 registers, 368 bytes cmem[0]
ptxas info    : Compiling entry function '_Z5box1dIiLi1EEvPKT_PS0_i' for 'sm_90'
ptxas info    : Used 10 registers, 368 bytes cmem[0]
ptxas info    : Compiling entry function '_ZN2ns5scaleIiiEEvPT_T0_i' for 'sm_90'
ptxas info    : Used 8 registers, 368 bytes cmem[0]
"""


def test_template_instantiations_are_told_apart() -> None:
    from cudafuse.analysis.ptxas import _instance_name, lookup, parse_ptxas

    assert _instance_name("void ns::box1d<float, 2>(float const*, float*, int)") == \
        "box1d<float,2>"
    assert _instance_name("void f<(char)97>(int)") == "f<(char)97>"
    assert _instance_name("void plain(int*)") == ""
    found = parse_ptxas(TEMPLATE_PTXAS)
    assert lookup(found, "box1d<float, 2>").registers == 12
    assert lookup(found, "box1d<int, 1>").registers == 10
    assert lookup(found, "box1d") is None  # two instantiations: ambiguous
    assert lookup(found, "box1d<double, 3>") is None
    assert lookup(found, "scale<int>") is None  # ptxas spells it scale<int, int>
    assert lookup(found, "scale<int, int>").registers == 8
    assert lookup(found, "scale").registers == 8  # one instantiation: unambiguous


@pytest.mark.nvcc
def test_auto_regcap_for_one_of_two_instantiations(tmp_path: Path) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(PROGRAMS / "templates.cu"), "--kernels", "box1d<int, 1>,add_bias<int, 7>",
                "--block1", "128", "--block2", "64", "--regcap", "auto", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "(auto from ptxas: uncapped: " in out.read_text()


TILE_KERNEL = """\
template <int B> __global__ void tile_shift(float *a, int n) {
  __shared__ float s[B];
  s[threadIdx.x % B] = a[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < n) a[threadIdx.x] = s[(threadIdx.x + 1) % B] * B;
}
"""
PLAIN_KERNEL = ("__global__ void twice(float *p, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) p[i] *= 2.0f;\n}\n")


@pytest.mark.nvcc
def test_auto_regcap_for_a_template_the_file_never_instantiates(tmp_path: Path) -> None:
    # A file of kernels only: nothing instantiates tile_shift<16>, so ptxas had nothing to
    # report; the instantiation --kernels names is compiled for the figures.
    (tmp_path / "t.cu").write_text(TILE_KERNEL)
    (tmp_path / "p.cu").write_text(PLAIN_KERNEL)
    out = tmp_path / "o.cu"
    res = hfuse(str(tmp_path / "t.cu"), str(tmp_path / "p.cu"), "--kernels",
                "tile_shift<16>,twice", "--block1", "64", "--block2", "64", "--regcap", "auto",
                "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "(auto from ptxas: uncapped: " in out.read_text()


def _fake_ptxas(monkeypatch: pytest.MonkeyPatch, figures: dict[int | None, Resources]) -> list:
    """choose() over a fake emitter and ptxas: the cap is written into the source."""
    from cudafuse.passes.horizontal import regcap_auto

    seen: list[int | None] = []

    def compile_figures(source: bytes, arch: str, flags: tuple, name: str) -> dict:
        cap = None if source == b"none" else int(source)
        seen.append(cap)
        return {"fused": figures[cap]}

    monkeypatch.setattr(regcap_auto, "compile_figures", compile_figures)
    return seen


def test_auto_takes_the_highest_step_without_spills(monkeypatch: pytest.MonkeyPatch) -> None:
    from cudafuse.passes.horizontal.regcap_auto import choose

    def emit(cap: int | None) -> tuple[bytes, str]:
        return (b"none" if cap is None else str(cap).encode()), "fused"

    # 256 threads at 128 registers: 2 blocks/SM; 80 gives 3, 64 gives 4, 48 spills.
    seen = _fake_ptxas(monkeypatch, {None: Resources(128, 0), 80: Resources(80, 0),
                                     64: Resources(64, 0), 48: Resources(48, 0, 8, 8)})
    cap, how = choose(emit, 256, "sm_90", (), jobs=1)
    assert cap == 64 and seen == [None, 80, 64, 48]  # stops at the first spilling cap
    assert "__maxnreg__(48): 48 registers, spills 8/8 bytes" in how and how.endswith("chose 64")
    # The first step already spills: no cap, and the reason.
    seen = _fake_ptxas(monkeypatch, {None: Resources(128, 0), 80: Resources(80, 0, 724, 816)})
    cap, how = choose(emit, 256, "sm_90", (), jobs=1)
    assert cap is None and seen == [None, 80] and "without spills" in how


def test_step_caps_are_the_largest_cap_of_each_occupancy() -> None:
    from cudafuse.analysis.occupancy import DeviceLimits, occupancy
    from cudafuse.passes.horizontal.regcap_auto import step_caps

    limits = DeviceLimits.for_arch("sm_90")
    caps = step_caps(limits, 256, 128, 0)
    blocks = [occupancy(limits, 256, c, 0).blocks_per_sm for c in [128, *caps]]
    assert blocks == sorted(set(blocks)) and len(caps) >= 3  # each a step up
    for c in caps:  # 8 registers more would not reach that step
        assert occupancy(limits, 256, c + 8, 0).blocks_per_sm < \
            occupancy(limits, 256, c, 0).blocks_per_sm
    assert step_caps(limits, 192, 20, 0) == []  # threads limit it: no cap helps


@pytest.mark.slow  # two compiles of a fully unrolled hash: about 40 s without the cache
@pytest.mark.nvcc
def test_auto_on_a_register_heavy_hash_beside_a_light_one(tmp_path: Path) -> None:
    # The case: blake2b (two nonces a thread, ~100 registers) with sha256d at
    # 128 + 128 threads. HFuse's bound would cap at 48, where ptxas spills; auto compiles
    # the fused kernel at each occupancy step and keeps a cap only without spills.
    crypto = PROGRAMS / "crypto"
    res = hfuse(str(crypto / "blake2b.cu"), str(crypto / "shaish.cu"), "--kernels",
                "blake2b_gpu_hash,sha256d_hash", "--block1", "128", "--block2", "128",
                "--regcap", "auto", "--explain", "-o", str(tmp_path / "o.cu"))
    assert res.exit_code == 0, res.output
    line = res.output.splitlines()[0]
    tried = re.findall(r"(uncapped|__maxnreg__\((\d+)\)): (\d+) registers, (no spills|spills)",
                       line)
    assert tried[0][0] == "uncapped" and int(tried[0][2]) > 80, line
    assert len(tried) >= 2  # at least the first step was compiled
    chosen = re.search(r"chose (\d+)$", line.rstrip(")"))
    if chosen:
        assert (f"__maxnreg__({chosen.group(1)})", chosen.group(1)) in \
            {(t[0], t[1]) for t in tried if t[3] == "no spills"}
    else:
        assert "regcap none" in line and tried[-1][3] == "spills"


@pytest.mark.nvcc
def test_a_namespaced_template_is_instantiated_by_its_qualified_name(tmp_path: Path) -> None:
    # PyTorch's im2col_kernel<float> lives in at::native (its header instantiates nothing):
    # the wrapper that makes nvcc compile it must name it at::native::im2col_kernel<float>,
    # and ptxas' figures (keyed by the plain name) are found by either spelling.
    from cudafuse.analysis.ptxas import lookup
    from cudafuse.frontend import parse_file
    from cudafuse.passes.horizontal.driver import find_kernel
    from cudafuse.passes.horizontal.regbound import native_resources

    path = tmp_path / "k.cuh"
    path.write_text("namespace at { namespace native { namespace {\n" + TILE_KERNEL +
                    "} } }\n")
    ref = find_kernel(parse_file(str(path)).unit, "at::native::tile_shift<16>")
    assert ref.qualified == "at::native::tile_shift<16>"
    assert ref.display == "tile_shift<16>"
    found = native_resources([str(path)], (ref.qualified,), "sm_90", (), ())
    assert lookup(found, ref.qualified) is not None
    assert lookup(found, ref.qualified) == lookup(found, ref.display)


def test_a_pair_spec_may_name_a_kernel_with_its_namespaces(tmp_path: Path) -> None:
    # The paper's ATen pair spec names at::native::im2col_kernel<float> as --kernels does:
    # accepted (profiling then stops where this machine has no GPU, after the check); a
    # qualified name of another kernel is still refused.
    src = tmp_path / "k.cuh"
    src.write_text("namespace at { namespace native {\n" + TILE_KERNEL + PLAIN_KERNEL +
                   "} }\n")
    for spec, pointer in (("t.toml", "a"), ("p.toml", "p")):
        (tmp_path / spec).write_text(
            f'entry = "x"\n[sizes]\nn = 64\n[[args]]\nname = "{pointer}"\ndtype = "float32"\n'
            'count = "n"\ninit = "const(1)"\nrole = "inout"\n[[args]]\nname = "n"\n'
            'value = "n"\n')
    for name, refused in (("at::native::tile_shift<16>", False),
                          ("at::other::tile_shift<16>", True)):
        (tmp_path / "pair.toml").write_text(
            f'kernel1 = "{name}"\nspec1 = "t.toml"\ngrid1 = [1]\nblock1 = [64]\n'
            'kernel2 = "at::native::twice"\nspec2 = "p.toml"\ngrid2 = [1]\nblock2 = [64]\n')
        res = hfuse(str(src), "--kernels", "at::native::tile_shift<16>,at::native::twice",
                    "--profile", "--spec", str(tmp_path / "pair.toml"), "--backend", "nvcc",
                    "-o", str(tmp_path / "o.cu"))
        assert ("but the kernel being fused is" in res.output) is refused, res.output
        assert "error: args" not in res.output and "missing" not in res.output, res.output
