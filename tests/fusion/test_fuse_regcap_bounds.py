"""A fused kernel's register cap written as `__launch_bounds__(threads)` where ptxas gives
the kernel under them the cap's occupancy (passes/vertical/plan/resources.weigh_bounds):
the H200 timed shitomasi's fused kernel 5% faster under `__launch_bounds__(256)` than under
`__maxnreg__(32)` at the same 32 registers (docs/cost-model.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudafuse import api
from cudafuse.analysis.occupancy import DeviceLimits, occupancy
from cudafuse.analysis.ptxas import Resources, compile_figures
from cudafuse.passes.vertical.plan.resources import GroupResources, KernelFigures, weigh_bounds

ROOT = Path(__file__).parents[2]
SOBEL = ROOT / "samples" / "sobel.cu"  # one fused group, launched at a constant 32x8
SM90 = DeviceLimits.for_arch("sm_90")


def _stand_in(bounded_regs: int):
    """Stand-in ptxas: the fused kernel takes 50 registers (occupancy 0.50 at 32x8), R under
    __maxnreg__(R), `bounded_regs` under __launch_bounds__(256); the originals 20."""

    def fake(source: bytes, arch: str, flags: tuple[str, ...] = (), name: str = "") -> dict:
        out: dict[str, Resources] = {}
        for attr, n in re.findall(r"__global__\s+void\s+(__\w+\(\d+\)\s+)?(\w+)\(",
                                  source.decode()):
            if not n.startswith("cf_"):
                out[n] = Resources(20, 0)
            elif attr.startswith("__maxnreg__"):
                out[n] = Resources(int(attr[12:attr.index(")")]), 0)
            elif attr.startswith("__launch_bounds__(256)"):
                out[n] = Resources(bounded_regs, 0)
            else:
                out[n] = Resources(50, 0)
        return out

    return fake


def _group(monkeypatch: pytest.MonkeyPatch, bounded_regs: int) -> tuple[dict, str]:
    import cudafuse.analysis.ptxas as ptxas

    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", _stand_in(bounded_regs))
    fused = api.fuse(str(SOBEL))
    (group,) = fused.report["sequences"][0]["fused"]
    return group, fused.text


def test_launch_bounds_that_hold_the_caps_occupancy_replace_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    group, text = _group(monkeypatch, 32)
    res = group["resources"]
    assert res["register_cap"] == 32 and res["launch_bounds"] == {"threads": 256,
                                                                  "min_blocks": None}
    assert f"__global__ void __launch_bounds__(256) {group['name']}(" in text
    assert "__maxnreg__" not in text
    assert (res["fused"]["registers"], res["fused"]["occupancy"]) == (32, 1.0)
    assert "emitted with __launch_bounds__(256) in place of __maxnreg__(32): ptxas meets it " \
        "with no spills, occupancy 0.50 -> 1.00" in res["note"]


def test_launch_bounds_that_do_not_hold_it_leave_the_cap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    group, text = _group(monkeypatch, 40)  # 40 registers: occupancy 0.75, not the cap's 1.00
    res = group["resources"]
    assert res["register_cap"] == 32 and res["launch_bounds"] is None
    assert f"__global__ void __maxnreg__(32) {group['name']}(" in text
    assert "__launch_bounds__(256): 40 registers, no spills, occupancy 0.75, which does not " \
        "hold __maxnreg__(32)'s occupancy" in res["note"]


# Many values live at once: 56 taps loaded before any is used. sm_90, CUDA 13.0: 72
# registers uncapped (a block of 1,024 threads does not fit), 64 without spills under
# __maxnreg__(64) and under __launch_bounds__(1024) alike; at 256 threads the bounds leave
# it at 72, where the cap of the next occupancy step (56) is not held.
TAPS = """\
__global__ void taps(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[56];
#pragma unroll
  for (int t = 0; t < 56; ++t) v[t] = in[(i + t * 977) % n];
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < 56; ++t) acc += v[t] * v[55 - t] + v[(t * 7) % 56];
  out[i] = acc;
}
"""


def _ptxas(text: str) -> Resources:
    got = compile_figures(text.encode(), "sm_90", (), "taps.cu")
    assert isinstance(got, dict), got
    return got["taps"]


def _capped(threads: int, cap: int, cap_regs: int) -> GroupResources:
    """The group as annotate sees it once weigh_caps found ptxas meeting `cap` with
    `cap_regs` registers and no spills (the figures in the comment above: 72 uncapped)."""
    occ = occupancy(SM90, threads, 72).fraction
    fused = KernelFigures("taps", 72, 0, 0, threads, occ, "ptxas")
    at_cap = occupancy(SM90, threads, cap_regs).fraction
    return GroupResources(fused, (fused,), None, (None, None), 1.0, 0.0, "",
                          caps=((cap, 0, at_cap),))


@pytest.mark.nvcc
def test_ptxas_says_where_launch_bounds_hold_a_cap() -> None:
    res = _capped(1024, 64, 64)
    assert res.fused.occupancy == 0  # 72 registers: a block of 1,024 would not launch
    held = weigh_bounds(res, 64, TAPS.encode(), "sm_90", (), "taps.cu", (32, 32))
    assert held.bounds == (1024, 0)
    under = _ptxas(TAPS.replace("void taps", "void __launch_bounds__(1024) taps"))
    assert under.registers <= 64 and under.spill_stores + under.spill_loads == 0
    assert f"in place of __maxnreg__(64), __launch_bounds__(1024): {under.registers} " \
        "registers, no spills" in held.note
    # At 256 threads the bounds allow 255 registers: ptxas keeps what it had.
    res = _capped(256, 56, 56)
    kept = weigh_bounds(res, 56, TAPS.encode(), "sm_90", (), "taps.cu", (32, 8))
    assert kept.bounds is None and "which does not hold __maxnreg__(56)'s occupancy" in \
        kept.bounds_said
    # No constant block: nothing is tried (bounds below a launch's threads fail it).
    assert weigh_bounds(res, 56, TAPS.encode(), "sm_90", (), "taps.cu", None) is res
