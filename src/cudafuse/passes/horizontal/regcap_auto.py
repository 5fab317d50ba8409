"""`--regcap auto`: the register cap chosen from ptxas' figures of the fused kernel itself.

HFuse's bound (regbound.py) caps the fused kernel where the originals' register counts say
it should fit as many blocks per SM as they did. A fused kernel needs registers of its own,
though: blake2b (128 registers) beside sha256d (40) gives a bound of 64, and at 64 ptxas
spills hundreds of bytes to local memory. Spills may cost more than the occupancy buys, and
without a measurement (no GPU, or no --profile) nothing says they pay. So the cap is chosen
from what ptxas does with the fused kernel:

1. compile it uncapped: its registers and static shared memory give its occupancy;
2. for each occupancy step above that one (more blocks per SM), the largest cap that reaches
   it in theory (occupancy.py's arithmetic: registers are allocated per warp);
3. compile the fused kernel at each such cap, fewest blocks first, and keep the last one
   whose ptxas figures show no spill bytes and whose occupancy did rise;
4. none of them: no cap (the uncapped kernel, `__launch_bounds__` of its block).

Each compile is cached by content (analysis/ptxas.py), so asking again costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cudafuse.analysis.occupancy import DeviceLimits, Occupancy, occupancy
from cudafuse.analysis.ptxas import Resources, compile_figures, lookup
from cudafuse.diagnostics import error

REGCAP_MIN = 16  # the least __maxnreg__ accepts
GRANULE = 8  # registers are allocated per warp in 256s: 8 per thread


@dataclass(frozen=True)
class Tried:
    cap: int | None
    figures: Resources
    occupancy: Occupancy

    @property
    def spills(self) -> int:
        return self.figures.spill_stores + self.figures.spill_loads

    def text(self) -> str:
        what = "uncapped" if self.cap is None else f"__maxnreg__({self.cap})"
        spill = (f", spills {self.figures.spill_stores}/{self.figures.spill_loads} bytes "
                 "stored/loaded" if self.spills else ", no spills")
        return (f"{what}: {self.figures.registers} registers{spill}, "
                f"{self.occupancy.blocks_per_sm} blocks/SM ({self.occupancy.fraction:.2f})")


def step_caps(limits: DeviceLimits, threads: int, registers: int, shared: int) -> list[int]:
    """For each occupancy above the one `registers` gives, the largest cap reaching it,
    fewest blocks first (the caps descending)."""
    now = occupancy(limits, threads, registers, shared).blocks_per_sm
    caps: list[int] = []
    cap = min(registers - 1, limits.max_registers_per_thread) // GRANULE * GRANULE
    while cap >= REGCAP_MIN:
        blocks = occupancy(limits, threads, cap, shared).blocks_per_sm
        if blocks > now:
            caps.append(cap)
            now = blocks
        cap -= GRANULE
    return caps


# Emits the fused program at a cap (None: uncapped): (source bytes, fused kernel name).
Emit = Callable[[int | None], tuple[bytes, str]]


def choose(emit: Emit, threads: int, arch: str, flags: tuple[str, ...]
           ) -> tuple[int | None, str]:
    """The cap (None: none) and how it was chosen, for the header and --explain."""
    limits = DeviceLimits.for_arch(arch)
    tried = [_compile(emit, None, threads, arch, flags, limits)]
    base = tried[0]
    chosen: Tried | None = None
    for cap in step_caps(limits, threads, base.figures.registers, base.figures.static_shared):
        t = _compile(emit, cap, threads, arch, flags, limits)
        tried.append(t)
        if t.spills:
            break  # a lower cap spills at least as much
        best = chosen or base
        if t.occupancy.blocks_per_sm > best.occupancy.blocks_per_sm:
            chosen = t
    said = "; ".join(t.text() for t in tried)
    if chosen is None:
        why = ("no cap gains an occupancy step" if len(tried) == 1 else
               "no cap gains an occupancy step without spills (spills pay only if a "
               "measurement says so: hfuse --profile times the capped candidates)")
        return None, f"auto from ptxas: {said}; {why}, so none"
    return chosen.cap, f"auto from ptxas: {said}; chose {chosen.cap}"


def _compile(emit: Emit, cap: int | None, threads: int, arch: str, flags: tuple[str, ...],
             limits: DeviceLimits) -> Tried:
    source, name = emit(cap)
    got = compile_figures(source, arch, flags, "hfused.cu")
    if isinstance(got, str):
        at = "" if cap is None else f" at __maxnreg__({cap})"
        raise error(f"--regcap auto: compiling the fused kernel{at} for ptxas' figures: {got}")
    figures = lookup(got, name)
    if figures is None:
        raise error(f"--regcap auto: ptxas reported no figures for the fused kernel '{name}'")
    return Tried(cap, figures, occupancy(limits, threads, figures.registers,
                                         figures.static_shared))
