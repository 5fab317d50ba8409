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
3. compile the fused kernel at those caps, fewest blocks first, `jobs` at a time (each
   compile is one nvcc process, cached by content in analysis/ptxas.py), and read them in
   that order up to the first that spills: a lower cap spills at least as much. A batch
   may compile a cap past that one; it is cached, never shown, so the choice and the text
   that explains it do not depend on the machine's CPU count;
4. the cap kept is the one of most blocks per SM, above the uncapped kernel's, whose
   figures show no spill bytes; none of them: no cap (the uncapped kernel, with
   `__launch_bounds__` of its block).

What this cannot see: a cap that changes the code without adding a block. On the H200,
batchnorm_stats + histogram at 512+512 threads ran 1.5x faster under `__maxnreg__(40)` (37
registers, 1 block per SM) than uncapped (31 registers, 2 blocks per SM), and blake256 +
sha256 at 128+128 0.9% faster under `__maxnreg__(48)` (48 registers, 5 blocks per SM against
6): both caps *raise* the register count and lower occupancy, which no figure of ptxas
predicts to pay. Those are for a measurement to find (`hfuse --profile`, `--from-profile`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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


@dataclass(frozen=True)
class Choice:
    """What `--regcap auto` chose and from what: every compile it read, in order (the
    uncapped kernel first), and why."""

    cap: int | None
    tried: tuple[Tried, ...]
    why: str  # the rule's verdict, one clause
    threads: int
    arch: str

    @property
    def how(self) -> str:
        """One line for the output's header, the report and --explain's first line."""
        said = "; ".join(t.text() for t in self.tried)
        end = "so none" if self.cap is None else f"chose {self.cap}"
        return f"auto from ptxas: {said}; {self.why}, {end}"

    def table(self) -> list[str]:
        """--explain's table: one row per compile, the chosen one marked."""
        rows = [("cap", "registers", "spill bytes (stored/loaded)", "blocks/SM",
                 "occupancy", "limited by", "")]
        for t in self.tried:
            chosen = t.cap == self.cap
            rows.append(("none" if t.cap is None else str(t.cap), str(t.figures.registers),
                         f"{t.figures.spill_stores}/{t.figures.spill_loads}",
                         str(t.occupancy.blocks_per_sm), f"{t.occupancy.fraction:.2f}",
                         t.occupancy.limit, "<- chosen" if chosen else ""))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [f"  register caps from ptxas ({self.arch}, {self.threads} threads a block): "
                 "uncapped, then each occupancy step's largest cap"]
        lines += ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                  for r in rows]
        lines.append(f"    {self.why}: " + ("no cap" if self.cap is None
                                              else f"__maxnreg__({self.cap})"))
        return lines


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


def default_jobs() -> int:
    """Compiles at once: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def decide(emit: Emit, threads: int, arch: str, flags: tuple[str, ...],
           jobs: int | None = None) -> Choice:
    """The cap `--regcap auto` takes (module docstring), with every compile it read."""
    limits = DeviceLimits.for_arch(arch)
    base = _compile(emit(None), None, threads, arch, flags, limits)
    tried = [base]
    caps = step_caps(limits, threads, base.figures.registers, base.figures.static_shared)
    jobs = max(1, jobs or default_jobs())
    spilled = False
    for start in range(0, len(caps), jobs):
        batch = caps[start:start + jobs]
        # The pass runs here, one at a time (it is Python); ptxas runs in parallel.
        sources = [emit(cap) for cap in batch]
        with ThreadPoolExecutor(max_workers=len(batch)) as pool:
            done = list(pool.map(lambda item: _compile(item[0], item[1], threads, arch, flags,
                                                       limits), zip(sources, batch, strict=True)))
        for t in done:  # in cap order: read up to the first that spills
            tried.append(t)
            if t.spills:
                spilled = True
                break
        if spilled:
            break
    fine = [t for t in tried[1:] if not t.spills
            and t.occupancy.blocks_per_sm > base.occupancy.blocks_per_sm]
    if fine:
        best = max(fine, key=lambda t: t.occupancy.blocks_per_sm)  # first of the most
        return Choice(best.cap, tuple(tried), "the most blocks per SM without spills",
                      threads, arch)
    if not caps:
        why = ("no cap gains an occupancy step (" +
               _limited(base.occupancy) + ")")
    elif not spilled:
        why = "no cap gained an occupancy step as ptxas compiled it"
    else:
        why = ("no cap gains an occupancy step without spills (spills pay only if a "
               "measurement says so: hfuse --profile times the capped candidates)")
    return Choice(None, tuple(tried), why, threads, arch)


def choose(emit: Emit, threads: int, arch: str, flags: tuple[str, ...],
           jobs: int | None = None) -> tuple[int | None, str]:
    """The cap (None: none) and how it was chosen, for the header and --explain."""
    choice = decide(emit, threads, arch, flags, jobs)
    return choice.cap, choice.how


def _limited(occ: Occupancy) -> str:
    """Why more registers would not buy a block: the resource that limits it now."""
    if occ.limit == "registers":
        return "registers limit the blocks per SM, but no lower cap reaches another"
    return f"{occ.limit} limit the blocks per SM, not registers"


def _compile(emitted: tuple[bytes, str], cap: int | None, threads: int, arch: str,
             flags: tuple[str, ...], limits: DeviceLimits) -> Tried:
    source, name = emitted
    got = compile_figures(source, arch, flags, "hfused.cu")
    if isinstance(got, str):
        at = "" if cap is None else f" at __maxnreg__({cap})"
        raise error(f"--regcap auto: compiling the fused kernel{at} for ptxas' figures: {got}")
    figures = lookup(got, name)
    if figures is None:
        raise error(f"--regcap auto: ptxas reported no figures for the fused kernel '{name}'")
    return Tried(cap, figures, occupancy(limits, threads, figures.registers,
                                         figures.static_shared))
