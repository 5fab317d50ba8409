"""Theoretical occupancy: how many blocks of a kernel fit on one SM at once, and which
resource stops the next one.

The arithmetic is the one NVIDIA documents for its occupancy calculator (the CUDA Occupancy
Calculator, `cuda_occupancy.h` in the toolkit, Nsight Compute's occupancy section):

- warps: a block takes ceil(threads / 32) warp slots out of max_threads_per_sm / 32;
- registers are allocated per warp, regs/thread x 32 rounded up to 256, out of four
  sub-partitions of registers_per_sm / 4 each (a warp lives in one sub-partition, so the
  count of warps is rounded down per sub-partition);
- shared memory is allocated per block: static + dynamic + the driver's reserve, rounded up
  to 128 bytes, out of shared_per_sm;
- at most max_blocks_per_sm blocks, whatever they use.

Occupancy here is *theoretical*: achieved occupancy also depends on the grid (a 100-block
grid on 132 SMs fills none of them) and on tail effects, which timing sees and this does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# When several resources allow the same number of blocks, the first of them in this order is
# named as the limit: the thread count is fixed by the split, registers can be capped and
# shared memory moved, so naming threads first points at the resource the user cannot tune.
RESOURCES = ("threads", "blocks", "registers", "shared")


@dataclass(frozen=True)
class DeviceLimits:
    """What one SM offers. Field names follow the CUDA device attributes they come from."""

    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    max_registers_per_block: int
    shared_per_sm: int
    max_shared_per_block: int  # the opt-in maximum (cudaFuncAttributeMaxDynamicSharedMemorySize)
    reserved_shared_per_block: int
    warp_size: int = 32
    max_threads_per_block: int = 1024
    max_registers_per_thread: int = 255
    register_allocation_unit: int = 256
    register_allocation_granularity: str = "warp"
    register_sub_partitions: int = 4
    shared_allocation_unit: int = 128
    multiprocessors: int | None = None

    def __post_init__(self) -> None:
        # Per-block register granularity was compute capability 1.x; nothing cudafuse
        # targets allocates that way, and silently computing it wrong would be worse.
        if self.register_allocation_granularity != "warp":
            raise ValueError("register allocation granularity must be 'warp' (per-block "
                             "allocation was compute capability 1.x)")

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @classmethod
    def for_arch(cls, arch: str) -> DeviceLimits:
        """Published figures for the A100 (sm_80) and the H100 SXM (sm_90).

        Per-SM limits: CUDA C++ Programming Guide, "Technical Specifications per Compute
        Capability" (8.0 and 9.0: 2048 threads, 32 blocks, 64 K registers per SM and per
        block, 255 registers per thread, 164 KB / 228 KB shared per SM, 163 KB / 227 KB per
        block with opt-in). The 1 KB reserved per block: the Guide's shared-memory sections
        for compute capability 8.x and 9.0. Allocation units (256 registers per warp, 128 B
        of shared memory) and the four register sub-partitions: the CUDA Occupancy
        Calculator / cuda_occupancy.h. SM counts: the A100 and H100 whitepapers (108 SMs;
        132 on the H100 SXM5, as measured on the device machine, ../shared/FACTS.md; the
        H100 PCIe has 114, so prefer from_attributes on a real device).
        """
        known = {
            "sm_80": cls(max_threads_per_sm=2048, max_blocks_per_sm=32,
                         registers_per_sm=65536, max_registers_per_block=65536,
                         shared_per_sm=164 * 1024, max_shared_per_block=163 * 1024,
                         reserved_shared_per_block=1024, multiprocessors=108),
            "sm_90": cls(max_threads_per_sm=2048, max_blocks_per_sm=32,
                         registers_per_sm=65536, max_registers_per_block=65536,
                         shared_per_sm=228 * 1024, max_shared_per_block=227 * 1024,
                         reserved_shared_per_block=1024, multiprocessors=132),
        }
        # sm_90a is sm_90 plus arch-specific instructions: same SM resources.
        base = arch[:-1] if arch.endswith("a") else arch
        if base not in known:
            raise ValueError(f"no built-in SM limits for '{arch}' (known: "
                             f"{', '.join(known)}); read them from the device instead")
        return known[base]

    @classmethod
    def from_attributes(cls, attributes: Mapping[str, int]) -> DeviceLimits:
        """From PyCUDA device attributes given by name (`str(device_attribute.X)` -> value),
        as `Device.get_attributes()` reports them. The allocation units are not device
        attributes; they keep the defaults, which hold for compute capability 7.0 to 12.x.
        """
        required = {
            "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
            "max_blocks_per_sm": "MAX_BLOCKS_PER_MULTIPROCESSOR",
            "registers_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
            "max_registers_per_block": "MAX_REGISTERS_PER_BLOCK",
            "shared_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
            "reserved_shared_per_block": "RESERVED_SHARED_MEMORY_PER_BLOCK",
            "warp_size": "WARP_SIZE",
            "max_threads_per_block": "MAX_THREADS_PER_BLOCK",
        }
        missing = [name for name in required.values() if name not in attributes]
        if missing:
            raise KeyError(f"device attributes missing: {', '.join(missing)}")
        values: dict[str, int | None] = {f: int(attributes[a]) for f, a in required.items()}
        # Without the opt-in figure (drivers before CUDA 9), a block can at most fill the SM.
        optin = attributes.get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
        values["max_shared_per_block"] = int(optin) if optin is not None else \
            int(attributes["MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"]) - \
            int(attributes["RESERVED_SHARED_MEMORY_PER_BLOCK"])
        count = attributes.get("MULTIPROCESSOR_COUNT")
        values["multiprocessors"] = int(count) if count is not None else None
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Occupancy:
    """Blocks and warps of one kernel resident on an SM. blocks_per_sm == 0 means the
    launch fails (one block does not fit); `reason` then says why."""

    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    limit: str  # the first of RESOURCES that allows only blocks_per_sm blocks
    limits: tuple[str, ...]  # every resource that allows only blocks_per_sm blocks
    by_resource: dict[str, int] = field(default_factory=dict)  # blocks each one allows
    registers_per_thread: int = 0  # as allocated (rounded up per warp)
    registers_per_block: int = 0
    shared_per_block: int = 0  # as allocated: static + dynamic + reserve, rounded up
    reason: str = ""

    @property
    def fraction(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm if self.max_warps_per_sm else 0.0

    def to_json(self) -> dict[str, object]:
        # `fraction` is derived, for readers; from_json recomputes it.
        return {"blocks_per_sm": self.blocks_per_sm, "warps_per_sm": self.warps_per_sm,
                "max_warps_per_sm": self.max_warps_per_sm,
                "fraction": round(self.fraction, 4), "limit": self.limit,
                "limits": list(self.limits), "by_resource": dict(self.by_resource),
                "registers_per_thread": self.registers_per_thread,
                "registers_per_block": self.registers_per_block,
                "shared_per_block": self.shared_per_block, "reason": self.reason or None}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Occupancy:
        def num(key: str) -> int:
            value = data.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"occupancy: '{key}' must be an integer")
            return value

        limit, limits, by = data.get("limit"), data.get("limits"), data.get("by_resource")
        reason = data.get("reason")
        if limit not in RESOURCES or not isinstance(limits, list) or \
                any(r not in RESOURCES for r in limits) or not isinstance(by, dict) or \
                any(k not in RESOURCES or not isinstance(v, int) for k, v in by.items()) or \
                not (reason is None or isinstance(reason, str)):
            raise ValueError("occupancy: 'limit', 'limits', 'by_resource' or 'reason' is "
                             "malformed")
        return cls(num("blocks_per_sm"), num("warps_per_sm"), num("max_warps_per_sm"),
                   str(limit), tuple(limits), dict(by), num("registers_per_thread"),
                   num("registers_per_block"), num("shared_per_block"), reason or "")


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def occupancy(limits: DeviceLimits, threads: int, registers: int, static_shared: int = 0,
              dynamic_shared: int = 0) -> Occupancy:
    """Theoretical occupancy of a kernel using `registers` per thread (ptxas's figure) and
    `static_shared` + `dynamic_shared` bytes per block, launched with `threads` per block."""
    if threads < 1 or registers < 0 or static_shared < 0 or dynamic_shared < 0:
        raise ValueError("threads must be positive; registers and shared bytes not negative")
    warp = limits.warp_size
    warps = -(-threads // warp)
    regs_per_warp = _round_up(registers * warp, limits.register_allocation_unit)
    regs_per_block = regs_per_warp * warps
    reserve = limits.reserved_shared_per_block
    shared = _round_up(static_shared + dynamic_shared + reserve, limits.shared_allocation_unit)

    def result(blocks: int, by: dict[str, int], reason: str = "") -> Occupancy:
        tied = tuple(r for r in RESOURCES if r in by and by[r] == blocks)
        return Occupancy(blocks, blocks * warps, limits.max_warps_per_sm, tied[0], tied, by,
                         regs_per_warp // warp, regs_per_block, shared, reason)

    def refused(resource: str, reason: str) -> Occupancy:
        return result(0, {resource: 0}, reason)

    if threads > limits.max_threads_per_block:
        return refused("threads", f"{threads} threads per block, a block may have at most "
                                  f"{limits.max_threads_per_block}")
    if registers > limits.max_registers_per_thread:
        return refused("registers", f"{registers} registers per thread, a thread may have "
                                    f"at most {limits.max_registers_per_thread}")
    # The hardware's launch check assumes every sub-partition takes an equal share of the
    # block's warps, so it counts warps rounded up to a multiple of the sub-partitions.
    parts = limits.register_sub_partitions
    checked = regs_per_warp * _round_up(warps, parts)
    cap = limits.max_registers_per_block
    if regs_per_block > cap:
        return refused("registers", f"needs {regs_per_block} registers per block ({threads} "
                                    f"threads x {regs_per_warp // warp} allocated per "
                                    f"thread), a block may have at most {cap}")
    if checked > cap:
        return refused("registers", f"needs {checked} registers per block as the launch "
                                    f"check counts them ({warps} warps rounded up to "
                                    f"{_round_up(warps, parts)} x {regs_per_warp} per warp), "
                                    f"a block may have at most {cap}")
    if shared > limits.max_shared_per_block + reserve:
        return refused("shared", f"needs {shared - reserve} bytes of shared memory per block "
                                 f"(+{reserve} reserved), a block may have at most "
                                 f"{limits.max_shared_per_block}")

    big = limits.max_blocks_per_sm  # what an unused resource allows
    per_part = limits.registers_per_sm // parts
    by = {
        "threads": limits.max_warps_per_sm // warps,
        "blocks": limits.max_blocks_per_sm,
        "registers": (per_part // regs_per_warp) * parts // warps if regs_per_warp else big,
        "shared": limits.shared_per_sm // shared if shared else big,
    }
    return result(min(by.values()), by)
