"""Per-architecture parameters of the cost model (costmodel.py), in one table.

Unit: thread-cycles, per element of the iteration space. An SM issues one instruction per
thread-cycle on each of its lanes (128 on sm_80 and sm_90: four schedulers of 32), so a
figure divided by lanes times SMs times the clock is device time. A kernel's time is
max(memory, issue) + overlap * min(memory, issue):
- t_global: one 4-byte word moved to or from DRAM, at the bandwidth a streaming kernel
  reaches (the memory term);
- t_cached: a load served by L1/L2 (a stencil's neighbours), with its address arithmetic;
- t_shared: a shared-memory load;
- c_alu / c_sfu: an arithmetic / special-function (exp, sqrt...) operation as opcount.py
  counts them (source operations, not instructions);
- t_access: one evaluation of a producer inside a fused kernel through the emitted accessor
  (the view's 64-bit coordinates, bounds checks and index arithmetic), on top of the
  producer's own work;
- t_barrier: one round of a shared-memory tile's fill: the block waits at a barrier for
  its slowest warp's loads, per element of the block;
- overlap: how much of the shorter of memory and issue adds to the longer (0: roofline);
- launch: the launch-plus-drain overhead of one kernel (the paper's gamma term), in
  thread-cycles over the whole device;
- shared_ratio: the c_Mshared threshold of the paper's Eq. (2);
- occupancy_knee: the theoretical occupancy a memory-bound kernel needs to keep DRAM busy;
  below it the model stretches the kernel's time by knee / occupancy (resources.py);
- spill_access: thread-cycles per spilled 4-byte word per thread.

sm_90's figures are fitted to the first measurements on a GPU (an H200, 2026-11-28:
benchmarks/calibrate.py over benchmarks/results/2026-11-28-h200; docs/cost-model.md records
the fit, what it rests on and what it does not constrain). sm_80's are sm_90's scaled by the
A100's bandwidth and clock, not measured. The occupancy knee and the spill access are not
constrained by those measurements (no measured group spilled, and the one that lost
occupancy is priced by its tile): they remain modelling choices.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArchParams:
    name: str
    t_global: float
    t_cached: float
    t_shared: float
    c_alu: float
    c_sfu: float
    launch: float
    shared_ratio: float
    max_shared_per_block: int
    max_regs_per_thread: int
    t_barrier: float  # one round of a tile's fill, per element of the block
    t_access: float = 0.0  # one producer evaluation through an emitted accessor
    overlap: float = 0.0  # share of min(memory, issue) added to the max
    occupancy_knee: float = 0.5
    spill_access: float = 32.0


# sm_90: fitted to an H200's times (benchmarks/calibrate.py --fit over
# benchmarks/results/2026-11-28-h200, rounded; docs/cost-model.md). t_shared is not fitted
# (two measured tiles cannot tell it from t_barrier): a shared load is taken as a cached
# one. A change here goes with a new row in docs/cost-model.md.
SM90 = dict(c_alu=0.61, t_global=54.0, t_cached=2.1, t_shared=2.1, c_sfu=36.0,
            t_access=15.5, t_barrier=260.0, overlap=0.0, launch=1.0e8)
# The A100 (sm_80) is not measured: 1.56 TB/s over 108 SMs at 1.41 GHz gives a DRAM word
# about 1.23 times sm_90's thread-cycles, and a launch of the same 3 us fewer of them.
SM80 = {**SM90, "t_global": SM90["t_global"] * 1.23, "launch": 6.0e7}

ARCHS: dict[str, ArchParams] = {
    "sm_80": ArchParams("sm_80", **SM80, shared_ratio=2.0, max_shared_per_block=48 * 1024,
                        max_regs_per_thread=255),
    "sm_90": ArchParams("sm_90", **SM90, shared_ratio=2.0, max_shared_per_block=48 * 1024,
                        max_regs_per_thread=255),
}


def arch_params(name: str) -> ArchParams:
    """Parameters for `name` (sm_XY); unknown newer archs fall back to the nearest older one."""
    if name in ARCHS:
        return ARCHS[name]
    try:
        wanted = int(name.removeprefix("sm_").rstrip("a"))
    except ValueError:
        raise KeyError(f"unknown GPU architecture '{name}'") from None
    known = sorted(ARCHS, key=lambda a: int(a.removeprefix("sm_")))
    older = [a for a in known if int(a.removeprefix("sm_")) <= wanted]
    return ARCHS[older[-1] if older else known[0]]
