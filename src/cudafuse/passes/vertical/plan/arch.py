"""Per-architecture parameters of the cost model, in one table.

Latencies are in cycles, as in the Hipacc model (t_g, t_s, c_ALU, c_SFU). They are
order-of-magnitude figures meant to rank candidate partitions, not to predict run time:
measurement (--profile) is what decides on a GPU.
- t_global: a DRAM round trip not hidden by other warps (Hipacc uses 400-800).
- t_cached: a load that hits L1/L2, which is what a recomputed neighbour's inputs mostly are.
- t_shared: a shared-memory load.
- c_alu / c_sfu: average issue cost of an arithmetic / special-function (exp, sqrt...) op.
- launch: the launch-plus-drain overhead of one kernel (the paper's gamma term), in cycles.
- shared_ratio: the c_Mshared threshold of the paper's Eq. (2).
- occupancy_knee: the theoretical occupancy a memory-bound kernel needs to keep DRAM busy;
  below it the model stretches the kernel's time by knee / occupancy (resources.py).
- spill_access: cycles per spilled 4-byte word per thread (a local-memory access that
  mostly hits L1).
None of these constants has been calibrated against a GPU yet (no GPU was lent to the
sessions that wrote them); docs/fusion.md says how they are meant to be.
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
    barrier: float  # one __syncthreads, per thread
    occupancy_knee: float = 0.5
    spill_access: float = 32.0


ARCHS: dict[str, ArchParams] = {
    "sm_80": ArchParams("sm_80", t_global=470.0, t_cached=35.0, t_shared=23.0, c_alu=4.0,
                        c_sfu=16.0, launch=6000.0, shared_ratio=2.0,
                        max_shared_per_block=48 * 1024, max_regs_per_thread=255, barrier=20.0),
    "sm_90": ArchParams("sm_90", t_global=460.0, t_cached=32.0, t_shared=23.0, c_alu=4.0,
                        c_sfu=16.0, launch=5000.0, shared_ratio=2.0,
                        max_shared_per_block=48 * 1024, max_regs_per_thread=255, barrier=20.0),
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
