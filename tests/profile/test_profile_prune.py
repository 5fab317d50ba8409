"""Register caps dominated before they are compiled (profile.compiled.prune_cap): a cap only
lowers the fused kernel's registers, so where the uncapped kernel's blocks per SM are limited
by something else (threads, shared memory, the block limit) no cap can buy one."""

from __future__ import annotations

from cudafuse.profile.candidates import Candidate
from cudafuse.profile.compiled import prune_cap
from cudafuse.profile.occupancy import DeviceLimits, occupancy
from cudafuse.profile.records import Record

SM90 = DeviceLimits.for_arch("sm_90")


def uncapped(threads: tuple[int, int], regs: int, shared: int = 0, spills: int = 0) -> Record:
    occ = occupancy(SM90, sum(threads), regs, shared)
    return Record(f"thread:{threads[0]}+{threads[1]}:rnone", "thread", threads, None, regs,
                  shared, spills, 0, occ)


def test_a_kernel_limited_by_its_threads_prunes_every_cap() -> None:
    # 512 threads: 4 blocks of 16 warps fill an SM's 64 warps; 14 registers allow more.
    base = uncapped((256, 256), 14)
    got = prune_cap(Candidate("thread", 256, 256, 32), base)
    assert got is not None and got.same_as == base.id and got.registers is None
    assert got.skip == ("register cap 32: cannot buy a block over thread:256+256:rnone (4 "
                        "blocks/SM, limited by threads, not its 14 registers) nor remove "
                        "spills (it has none); not compiled")


def test_a_kernel_limited_by_shared_memory_prunes_every_cap() -> None:
    base = uncapped((128, 128), 32, shared=100 * 1024)  # 2 blocks of 100 KiB per SM at most
    assert base.occupancy is not None and base.occupancy.limit == "shared"
    got = prune_cap(Candidate("thread", 128, 128, 24), base)
    assert got is not None and "limited by shared" in (got.skip or "")


def test_a_kernel_its_registers_limit_keeps_its_caps() -> None:
    # 1024 threads at 64 registers: one block per SM where the threads allow two.
    base = uncapped((512, 512), 64)
    assert base.occupancy is not None and base.occupancy.limit == "registers"
    assert prune_cap(Candidate("thread", 512, 512, 32), base) is None
    # Limited by its threads, but spilling: a cap above its launch bounds may remove them.
    spilling = uncapped((256, 256), 14, spills=8)
    assert prune_cap(Candidate("thread", 256, 256, 40), spilling) is None
    # No uncapped figures (not compiled, refused, cannot launch): nothing is pruned.
    assert prune_cap(Candidate("thread", 512, 512, 32), None) is None
    refused = Record(base.id, "thread", (512, 512), None, skip="hfuse refuses it: ...")
    assert prune_cap(Candidate("thread", 512, 512, 32), refused) is None
