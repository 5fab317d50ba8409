"""Registers, spills, shared memory and occupancy of each fused kernel next to the kernels
it replaces (passes/vertical/plan/resources.py): from ptxas where nvcc is on PATH, estimated
(and said so) where not, with the cost model's charge for what the group loses."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from equivalence import run_both

from cudafuse import api
from cudafuse.analysis.occupancy import DeviceLimits, occupancy
from cudafuse.passes.vertical.emit.render import resource_lines
from cudafuse.passes.vertical.plan.arch import arch_params
from cudafuse.passes.vertical.plan.charge import occupancy_charge
from cudafuse.passes.vertical.plan.resources import (
    GroupResources,
    KernelFigures,
    weigh_blocks,
    with_note,
)

ROOT = Path(__file__).parents[2]
# A sample whose default plan fuses one group (sobel_x, sobel_y, magnitude). Canny's default
# group (sobel_grad + non_max_suppression, 48-50 registers) served here until the cost model
# was calibrated on an H200: it measured 1.7x slower than unfused, and is no longer chosen.
SOBEL = ROOT / "samples" / "sobel.cu"
SM90 = DeviceLimits.for_arch("sm_90")


def figures(name: str, regs: int, spills: int = 0, threads: int = 256) -> KernelFigures:
    return KernelFigures(name, regs, spills, 0, threads,
                         occupancy(SM90, threads, regs).fraction, "ptxas")


def test_estimates_say_so_and_agree_with_the_occupancy_arithmetic() -> None:
    fused = api.fuse(str(SOBEL))  # the suite sets CUDAFUSE_NO_PTXAS: estimates
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    for fig in [res["fused"], *res["members"]]:
        assert fig["source"] == "estimate (CUDAFUSE_NO_PTXAS is set)"
        expect = occupancy(SM90, fig["threads"], fig["registers"], fig["shared_bytes"])
        assert fig["occupancy"] == round(expect.fraction, 4)
    assert [m["name"] for m in res["members"]] == group["kernels"]
    assert res["redundant_work"] == group["traffic"]["redundant_work"]
    assert res["dram_bytes_per_element"]["fused"] == group["traffic"]["dram_bytes"]["fused"]
    assert res["net_benefit"] == pytest.approx(res["estimated_benefit"] -
                                               res["resource_charge"])
    lines = fused.explain.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("    fused kernel: "))
    assert "[estimate (CUDAFUSE_NO_PTXAS is set)]" in lines[at]
    assert lines[at + 1].startswith("    replaces: sobel_x ")


def test_a_group_that_loses_occupancy_or_spills_says_the_models_figure() -> None:
    arch = arch_params("sm_90")
    members = (figures("a", 28), figures("b", 18))
    kept = with_note(GroupResources(figures("f", 32), members, 1.0, (24, 16), 1e9, 0.0, ""),
                      "cycles")
    assert kept.note == "no spills, occupancy kept"
    low = figures("f", 128)  # 0.25 of the warps: below the 0.5 knee
    charge = occupancy_charge(1e9, low.occupancy, 1.0, arch)
    assert charge == pytest.approx(1e9 * (arch.occupancy_knee / low.occupancy - 1))
    wins = with_note(GroupResources(low, members, 1.0, (24, 16), 5e9, charge, ""), "cycles")
    assert "lowers occupancy to 0.25 from its members' 1.00" in wins.note
    assert f"still wins: benefit 5e+09 - charge {charge:.4g} = {5e9 - charge:.4g}" in wins.note
    assert "more than twice its members' largest (28)" in wins.note
    loses = with_note(GroupResources(figures("f", 32, spills=64), members, 1.0, (24, 16),
                                      1e6, 5e6, ""), "cycles")
    assert loses.note.startswith("spills 64 bytes; the model says it loses: ")
    everything = with_note(GroupResources(low, members, 1.0, (24, 16), 2.0, charge, ""),
                            "edge(s)")
    assert "--fuse-all fused it without the cost model" in everything.note
    text = "\n".join(resource_lines(wins))
    assert "fused kernel: 128 regs, occupancy 0.25 at 256 threads" in text
    assert "replaces: a 28 regs, occupancy 1.00; b 18 regs, occupancy 1.00" in text
    assert "redundant work x1.00, DRAM bytes per element 24 -> 16" in text


def test_occupancy_charge_counts_only_what_the_members_did_not_already_lack() -> None:
    arch = arch_params("sm_90")
    assert occupancy_charge(1e9, 0.5, 1.0, arch) == 0.0  # at the knee: latency still hidden
    assert occupancy_charge(1e9, 0.25, 0.25, arch) == 0.0
    assert occupancy_charge(1e9, 0.0, 1.0, arch) == float("inf")  # a block does not fit


def _ptxas_registers(source: Path) -> dict[str, tuple[int, int]]:
    """Registers and spill bytes per kernel, read straight from nvcc's own output (one
    compile)."""
    res = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-std=c++17", "--resource-usage",
                          str(source), "-o", str(source.with_suffix(".cubin")),
                          f"-I{ROOT / 'samples'}"], capture_output=True, text=True, check=True)
    out = {}
    for part in re.split(r"Compiling entry function ", res.stdout + res.stderr)[1:]:
        symbol = part[1:part.index("'", 1)]
        mangled = re.match(r"_Z(\d+)", symbol)  # _Z<length><name><parameter types>
        name = symbol[mangled.end():mangled.end() + int(mangled.group(1))] if mangled \
            else symbol
        regs = re.search(r"Used (\d+) registers", part)
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", part)
        assert regs and spills, part
        out[name] = (int(regs.group(1)), int(spills.group(1)) + int(spills.group(2)))
    return out


@pytest.mark.nvcc
def test_ptxas_figures_of_the_emitted_kernels(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    fused = api.fuse(str(SOBEL))
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    out = tmp_path / "sobel.fused.cu"
    out.write_text(fused.text)
    by_nvcc = _ptxas_registers(out)
    regs, spills = by_nvcc[group["name"]]
    assert (res["fused"]["registers"], res["fused"]["spill_bytes"]) == (regs, spills)
    assert res["fused"]["source"] == "ptxas"
    for m in res["members"]:
        assert m["source"] == "ptxas"
        assert m["registers"] == by_nvcc[m["name"]][0]
    lost = res["fused"]["occupancy"] < min(m["occupancy"] for m in res["members"])
    assert ("lowers occupancy" in res["note"]) == lost
    if lost:  # the default plan says what the model thinks of it
        assert re.search(r"the model says it (still wins|loses): benefit \S+ - charge \S+ = ",
                         res["note"])
    cap = res["register_cap"]
    if cap is not None:  # emitted, met by ptxas without spills, occupancy raised
        assert f"__global__ void __maxnreg__({cap}) {group['name']}(" in fused.text
        assert regs <= cap and spills == 0
        assert res["fused"]["occupancy"] > res["uncapped"]["occupancy"]
        assert f"emitted with __maxnreg__({cap}): ptxas meets it with no spills" in res["note"]


@pytest.mark.parametrize(("regs", "spills", "said"), [
    (200, 0, "200 regs, occupancy 0.12"),  # an eighth of the warps at 256 threads
    (32, 2048, "32 regs, 2048 B spilled, occupancy 1.00"),  # occupancy kept, but spills
])
def test_a_group_ptxas_makes_lose_is_planned_again(monkeypatch: pytest.MonkeyPatch,
                                                   regs: int, spills: int, said: str) -> None:
    """Stand-in figures (no nvcc needed): every fused kernel gets `regs` registers and
    `spills` bytes of spill traffic; the cost model's charge then exceeds unsharp's benefit,
    and the search, told those figures, gives the group up for smaller ones."""
    import cudafuse.analysis.ptxas as ptxas
    from cudafuse.passes.horizontal.regbound import Resources

    def fake(source: bytes, arch: str, flags: tuple[str, ...] = (), name: str = "") -> dict:
        names = re.findall(r"__global__\s+void\s+(\w+)", source.decode())
        return {n: Resources(regs, 0, spills // 2, spills // 2) if n.startswith("cf_") else
                Resources(20, 0) for n in names}

    unsharp = str(ROOT / "samples" / "unsharp.cu")
    first = api.fuse(unsharp).report["sequences"][0]["fused"][0]["kernels"]  # estimates
    assert len(first) == 4
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", fake)
    fused = api.fuse(unsharp)
    notes = [n for n in fused.report["notes"] if "planned again" in n]
    assert notes[0].startswith(f"unsharp_pipeline: group {', '.join(first)} planned again: "
                               f"ptxas gives its fused kernel {said}")
    assert re.search(r"the model says it loses: benefit \S+ - charge \S+ = -", notes[0])
    final = fused.report["sequences"][0]["fused"]
    assert first not in [g["kernels"] for g in final]
    for group in final:  # what is still fused says what the figures mean for it
        assert group["resources"]["fused"]["registers"] == regs
        assert "the model says it" in group["resources"]["note"]


def _capped_ptxas(spills: int):
    """Stand-in ptxas: the fused kernel takes 50 registers (as canny's did, occupancy 0.50 at
    32x8 threads); capped at R it takes R and spills `spills` bytes; originals take 20."""
    from cudafuse.passes.horizontal.regbound import Resources

    def fake(source: bytes, arch: str, flags: tuple[str, ...] = (), name: str = "") -> dict:
        text = source.decode()
        out = {n: Resources(20, 0) for n in re.findall(r"__global__\s+void\s+(\w+)", text)}
        out.update({n: Resources(50, 0) for n in out if n.startswith("cf_")})
        for cap, n in re.findall(r"__global__\s+void\s+__maxnreg__\((\d+)\)\s+(\w+)", text):
            out[n] = Resources(int(cap), 0, spills // 2, spills - spills // 2)
        return out

    return fake


def test_a_register_cap_that_spills_is_weighed_not_emitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first cap of the ladder (48: occupancy 0.62) spills: ptxas is asked no further
    (a tighter cap spills more) and the kernel is emitted as it was."""
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _capped_ptxas(48))
    fused = api.fuse(str(SOBEL))
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert res["fused"]["registers"] == 50 and res["fused"]["occupancy"] == 0.5
    assert res["register_caps"] == [{"cap": 48, "spill_bytes": 48, "occupancy": 0.625}]
    assert res["register_cap"] is None and "__maxnreg__" not in fused.text
    assert "; a __maxnreg__(48) cap (occupancy 0.62): ptxas spills 48 bytes to meet it; no " \
        "other block does better at the same registers (32x8: occupancy 0.50, charge 0" \
        in res["note"]


def test_a_register_cap_ptxas_meets_without_spills_is_emitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cap of the ladder (48, 40, 32 registers: occupancy 0.62, 0.75, 1.00) compiles
    without spills: the highest occupancy is emitted on the fused kernel, the pass is run
    again with it, and the figures are the capped kernel's, next to the uncapped ones."""
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _capped_ptxas(0))
    fused = api.fuse(str(SOBEL))
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert [c["cap"] for c in res["register_caps"]] == [48, 40, 32]
    assert res["register_cap"] == 32
    assert f"__global__ void __maxnreg__(32) {group['name']}(" in fused.text
    # Only fused kernels carry a cap: sobel_pipeline's group, and main's (main calls
    # sobel_pipeline, whose launches stand for main's own and fuse in a copy at the call).
    capped = [g["name"] for q in fused.report["sequences"] for g in q["fused"]
              if g["resources"]["register_cap"] == 32]
    assert len(capped) == 2 and fused.text.count("__maxnreg__") == len(capped)
    assert all(f"__global__ void __maxnreg__(32) {name}(" in fused.text for name in capped)
    assert (res["fused"]["registers"], res["fused"]["occupancy"]) == (32, 1.0)
    assert (res["uncapped"]["registers"], res["uncapped"]["occupancy"]) == (50, 0.5)
    assert "lowers occupancy" not in res["note"]
    assert "emitted with __maxnreg__(32): ptxas meets it with no spills, occupancy 0.50 -> " \
        "1.00 (without the cap: 50 regs" in res["note"]
    assert "also weighed: __maxnreg__(48): no spills, occupancy 0.62; __maxnreg__(40)" \
        in res["note"]
    assert "emitted with __maxnreg__(32)" in fused.explain


@pytest.mark.slow
def test_the_capped_kernel_equals_the_original(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """The emitted program, cap and all, against the original on every element (the
    emulator's build of it is what takes the time)."""
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _capped_ptxas(0))
    fused = api.fuse(str(SOBEL))
    assert "__maxnreg__(32)" in fused.text
    out = tmp_path / "sobel.capped.cu"
    out.write_text(fused.text)
    for w, h in [(37, 23), (5, 3)]:
        run_both(SOBEL, out, "sobel_pipeline", w, h)


def test_an_arch_without_built_in_sm_limits_says_whose_it_uses() -> None:
    (group,) = api.fuse(str(SOBEL), arch="sm_75").report["sequences"][0]["fused"]
    assert group["resources"]["note"].endswith(
        "; occupancy with sm_80's SM limits (none built in for sm_75)")


def test_blocks_are_weighed_by_the_models_charge_then_occupancy() -> None:
    """40 registers at 32x32 threads: one block per SM (0.50, at the knee: no charge);
    every narrower block gives 0.75 at the same (zero) charge, and 32x16, nearest the
    original's threads, is chosen. 72 registers at 32x8 (0.375, below the knee): 32x2 fits
    0.4375 as 32x4 does, both charged less; 32x4, nearer the original's threads, is chosen
although it adds less than BLOCK_GAIN. 40 registers
    at 32x8 (0.75): no block does better, and the note says what each gives."""
    members = (figures("a", 28, threads=1024), figures("b", 18, threads=1024))
    big = with_note(GroupResources(figures("f", 40, threads=1024), members, 1.0, (24, 16),
                                   1e9, 0.0, "", cycles=1e9), "cycles")
    chosen = weigh_blocks(big, "sm_90", (32, 32))
    assert chosen.block == (32, 16)
    assert chosen.note.startswith(big.note + "; a 32x16 block gives occupancy 0.75 at the "
                                  "same registers, model charge 0 cycles (32x32: occupancy "
                                  "0.50, charge 0, 32x2: occupancy 0.75, charge 0, ")
    arch = arch_params("sm_90")
    low = figures("f", 72)
    members = (figures("a", 28),)
    charge = occupancy_charge(1e9, low.occupancy, 1.0, arch)
    dear = GroupResources(low, members, 1.0, (24, 16), 1e10, charge, "", cycles=1e9)
    cheaper = weigh_blocks(dear, "sm_90", (32, 8))
    assert (low.occupancy, cheaper.block) == (0.375, (32, 4))
    priced = {(x, y): c for x, y, _, c in cheaper.blocks}
    assert priced[(32, 2)] == priced[(32, 4)] == pytest.approx(
        occupancy_charge(1e9, 0.4375, 1.0, arch))
    assert priced[(32, 4)] < priced[(32, 8)] == pytest.approx(charge)
    small = GroupResources(figures("f", 40), (figures("a", 28),), 1.0, (24, 16), 1e9, 0.0, "")
    kept = weigh_blocks(small, "sm_90", (32, 8))
    assert kept.block is None and kept.note.startswith("; no other block does better at the "
                                                       "same registers (32x8: occupancy 0.75")
    assert weigh_blocks(small, "sm_90", None) == small  # a block that is not a constant


BIG_BLOCKS = """
__global__ void scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void shift(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] + 1.0f;
}
void big_pipeline(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(32, 32), grid((w + 31) / 32, (h + 31) / 32);
  scale<<<grid, block>>>(in, tmp, w, h);
  shift<<<grid, block>>>(tmp, out, w, h);
}
"""


def test_a_fused_kernel_whose_block_would_not_fit_takes_the_largest_cap_that_fits(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Stand-in figures: launched at 32x32 threads, the fused kernel takes 72 registers,
    more than the SM's 64K registers hold for one block: the launch would fail. The cap
    that fits (64) is emitted although ptxas spills to meet it (fuse-all: no replanning)."""
    import cudafuse.analysis.ptxas as ptxas

    src = tmp_path / "big.cu"
    src.write_text(BIG_BLOCKS)
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    fake = _capped_ptxas(16)
    monkeypatch.setattr(ptxas, "compile_figures", lambda *a, **k: {
        n: replace(r, registers=72) if n.startswith("cf_") and r.registers == 50 else r
        for n, r in fake(*a, **k).items()})
    fused = api.fuse(str(src), fuse_all=True)
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert res["uncapped"]["occupancy"] == 0 and res["register_cap"] == 64
    assert f"__maxnreg__(64) {group['name']}(" in fused.text
    assert (res["fused"]["registers"], res["fused"]["spill_bytes"]) == (64, 16)
    assert "occupancy 0.00 -> 0.50 (a block did not fit: the launch would have failed)" \
        in res["note"]


def _blocked_ptxas(regs: int):
    """Stand-in ptxas: fused kernels take `regs` registers whatever their bounds, the
    originals 20."""
    from cudafuse.passes.horizontal.regbound import Resources

    def fake(source: bytes, arch: str, flags: tuple[str, ...] = (), name: str = "") -> dict:
        heads = re.findall(r"__global__\s+void\s+(?:__launch_bounds__\(\d+\)\s+)?(\w+)",
                           source.decode())
        return {n: Resources(regs if n.startswith("cf_") else 20, 0) for n in heads}

    return fake


def test_a_fused_launch_takes_the_block_the_model_prices_best(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Stand-in figures: at 40 registers and 32x32 threads the fused kernel fits one block
    per SM (0.50, its members 1.00); the model charges nothing at or above the knee, so the
    blocks that raise occupancy an eighth or more tie on the charge, and the one nearest the
    original's threads (32x16: 0.75) is chosen: the pass runs again with it, the grid covers
    the image, and the figures are those at the new block."""
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _blocked_ptxas(40))
    src = tmp_path / "big.cu"
    src.write_text(BIG_BLOCKS)
    fused = api.fuse(str(src), fuse_all=True)
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert group["launch_block"] == [32, 16] and res["chosen_block"] == [32, 16]
    assert f"__global__ void __launch_bounds__(512) {group['name']}(" in fused.text
    assert "dim3(32, 16)>>>" in fused.text and "(h) + 15) / 16" in fused.text
    assert (res["fused"]["threads"], res["fused"]["occupancy"]) == (512, 0.75)
    assert (res["at_original_block"]["threads"], res["at_original_block"]["occupancy"]) == \
        (1024, 0.5)
    assert {tuple(b["block"]): b["occupancy"] for b in res["blocks_weighed"]} == {
        (32, 32): 0.5, (32, 2): 0.75, (32, 4): 0.75, (32, 8): 0.75, (32, 16): 0.75}
    assert "launched with a 32x16 block chosen by the plan: occupancy 0.50 at 1024 threads " \
        "-> 0.75 at 512" in res["note"]
    assert "launched with a 32x16 block (chosen by the plan for occupancy)" in fused.explain


LANE = "__device__ float lane() { return (float)(threadIdx.x % 32); }\n"


@pytest.mark.parametrize(("value", "why"), [
    ("threadIdx.y", "it reads 'threadIdx' outside its coordinate declarations (line 9)"),
    ("lane()", "it calls 'lane', which reads the thread's or block's index"),
])
def test_a_block_the_kernels_meaning_depends_on_is_not_changed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str, why: str) -> None:
    """The same pipeline, its last kernel adding its thread's index in the block, directly
    or through a helper: another block would change the output, and the driver's proof (as
    for --block) keeps the block, the note saying why."""
    import cudafuse.analysis.ptxas as ptxas

    src = tmp_path / "tied.cu"
    src.write_text(LANE + BIG_BLOCKS.replace("in[y * w + x] + 1.0f", f"in[y * w + x] + {value}"))
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _blocked_ptxas(40))
    fused = api.fuse(str(src), fuse_all=True)
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert group["launch_block"] is None and res["chosen_block"] is None
    assert "dim3 block(32, 32)" in fused.text and "__launch_bounds__" not in fused.text
    assert res["note"].endswith(f"; a 32x16 block would give occupancy 0.75 (not applied: "
                                f"{why})"), res["note"]
    assert any("keeps its launch's block" in n for n in fused.report["notes"])


def test_the_users_block_is_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import cudafuse.analysis.ptxas as ptxas

    src = tmp_path / "big.cu"
    src.write_text(BIG_BLOCKS)
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _blocked_ptxas(40))
    fused = api.fuse(str(src), fuse_all=True, block=(32, 32))
    (group,) = fused.report["sequences"][0]["fused"]
    assert group["launch_block"] == [32, 32] and group["resources"]["chosen_block"] is None
    assert "lowers occupancy to 0.50" in group["resources"]["note"]


@pytest.mark.slow
def test_the_reblocked_kernel_equals_the_original(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    """The program relaunched at 32x16 against the original at 32x32, every element, at
    sizes no block divides."""
    import cudafuse.analysis.ptxas as ptxas

    src = tmp_path / "big.cu"
    src.write_text(BIG_BLOCKS)
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _blocked_ptxas(40))
    fused = api.fuse(str(src), fuse_all=True)
    assert "dim3(32, 16)>>>" in fused.text
    out = tmp_path / "big.reblocked.cu"
    out.write_text(fused.text)
    for w, h in [(37, 23), (5, 3), (70, 33)]:
        run_both(src, out, "big_pipeline", w, h)


def test_a_group_the_search_priced_below_ptxas_is_planned_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-in figures: sobel's fused kernel takes 72 registers (0.38 at 32x8, below the
    knee) where the search's estimate (30) charged nothing. It still wins, but the search
    chose it at the wrong price: the pass plans again with ptxas's figures (the search then
    charges it) and keeps it, the note giving both charges."""
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _blocked_ptxas(72))
    fused = api.fuse(str(SOBEL))
    (group,) = fused.report["sequences"][0]["fused"]
    res = group["resources"]
    assert res["net_benefit"] > 0 and res["resource_charge"] > 0
    (note,) = [n for n in fused.report["notes"] if "planned again" in n and
               n.startswith("sobel_pipeline:")]
    assert re.fullmatch(r"sobel_pipeline: group sobel_x, sobel_y, magnitude planned again: "
                        r"ptxas gives its fused kernel 72 regs, occupancy \S+, and the model "
                        r"charges \S+ cycles for it where the search, from estimated "
                        r"registers, charged 0", note), note
