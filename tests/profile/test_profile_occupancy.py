"""Occupancy against hand-worked cases (the arithmetic is in each comment)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cudafuse.profile.occupancy import DeviceLimits, Occupancy, occupancy

H100 = DeviceLimits.for_arch("sm_90")
A100 = DeviceLimits.for_arch("sm_80")

# What PyCUDA's Device.get_attributes() reports on the H100 SXM of the device machine
# (names as str(device_attribute.X)); the figures are the published ones.
H100_ATTRIBUTES = {
    "MAX_THREADS_PER_MULTIPROCESSOR": 2048, "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536, "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472, "RESERVED_SHARED_MEMORY_PER_BLOCK": 1024,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448, "WARP_SIZE": 32,
    "MAX_THREADS_PER_BLOCK": 1024, "MULTIPROCESSOR_COUNT": 132,
}


def test_threads_limit_ties_with_registers() -> None:
    # 8 warps a block; threads: 64 warps / 8 = 8 blocks. Registers: 32 x 32 = 1024 per
    # warp; 16384 per sub-partition / 1024 = 16 warps x 4 = 64 warps / 8 = 8 blocks too.
    occ = occupancy(H100, 256, 32)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.fraction) == (8, 64, 1.0)
    assert occ.limit == "threads" and occ.limits == ("threads", "registers")
    assert occ.by_resource == {"threads": 8, "blocks": 32, "registers": 8,
                               "shared": 233472 // 1024}  # the 1 KiB reserve alone: 228


def test_registers_limit() -> None:
    # 128 x 32 = 4096 per warp; 16384 / 4096 = 4 warps per sub-partition, 16 per SM: 2 blocks.
    occ = occupancy(H100, 256, 128)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limit) == (2, 16, "registers")
    assert occ.fraction == 0.25


def test_register_allocation_rounds_up_per_warp() -> None:
    # 33 x 32 = 1056 -> 1280 (5 x 256) per warp = 40 per thread; 16384 // 1280 = 12 warps per
    # sub-partition, 48 per SM, 6 blocks of 8 warps.
    occ = occupancy(H100, 256, 33)
    assert occ.registers_per_thread == 40 and occ.registers_per_block == 8 * 1280
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limit) == (6, 48, "registers")


def test_registers_are_counted_per_sub_partition() -> None:
    # 40 registers: 1280 per warp. Per SM 65536 // 1280 = 51 warps would give 25 blocks of
    # 2 warps; per sub-partition 16384 // 1280 = 12 warps, 48 per SM: 24 blocks.
    occ = occupancy(H100, 64, 40)
    assert (occ.blocks_per_sm, occ.limit) == (24, "registers")


def test_static_shared_with_reserve() -> None:
    # 48 KiB + 1 KiB reserve = 50176 B per block; 233472 // 50176 = 4 (5 would need 250880).
    occ = occupancy(H100, 256, 32, static_shared=48 * 1024)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limit) == (4, 32, "shared")
    assert occ.shared_per_block == 50176
    # The A100's 164 KiB: 167936 // 50176 = 3.
    assert occupancy(A100, 256, 32, static_shared=48 * 1024).blocks_per_sm == 3


def test_shared_rounds_up_to_128_bytes() -> None:
    # 100 static + 1000 dynamic + 1024 reserve = 2124 -> 2176 (17 x 128); 233472 // 2176 = 107,
    # more than the 32-block limit, which is what binds for one-warp blocks.
    occ = occupancy(H100, 32, 16, static_shared=100, dynamic_shared=1000)
    assert occ.shared_per_block == 2176 and occ.by_resource["shared"] == 107
    assert (occ.blocks_per_sm, occ.limit) == (32, "blocks")


def test_partial_warp_takes_a_whole_warp() -> None:
    # 100 threads are 4 warps: 64 / 4 = 16 blocks of 4 warps, 64 warps.
    occ = occupancy(H100, 100, 32)
    assert (occ.blocks_per_sm, occ.warps_per_sm) == (16, 64)


def test_zero_registers_do_not_limit() -> None:
    occ = occupancy(H100, 1024, 0)
    assert occ.by_resource["registers"] == 32 and occ.blocks_per_sm == 2


def test_block_over_the_register_file_cannot_launch() -> None:
    # 72 x 32 = 2304 per warp (a multiple of 256) x 32 warps = 73728 > 65536.
    occ = occupancy(H100, 1024, 72)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.fraction) == (0, 0, 0.0)
    assert occ.limit == "registers"
    assert occ.reason == ("needs 73728 registers per block (1024 threads x 72 allocated per "
                          "thread), a block may have at most 65536")


def test_launch_check_rounds_warps_to_sub_partitions() -> None:
    # 80 x 32 = 2560 per warp; 25 warps take 64000 <= 65536, but the hardware check counts
    # 28 warps (25 rounded up to a multiple of 4): 71680 > 65536.
    occ = occupancy(H100, 800, 80)
    assert occ.blocks_per_sm == 0
    assert occ.reason.startswith("needs 71680 registers per block as the launch check")
    # 24 warps (768 threads) are a multiple of 4: 61440, fits; 16384 // 2560 = 6 warps per
    # sub-partition, 24 per SM: one block.
    assert occupancy(H100, 768, 80).blocks_per_sm == 1


def test_other_launch_refusals() -> None:
    too_many = occupancy(H100, 1056, 16)
    assert too_many.blocks_per_sm == 0 and too_many.limit == "threads"
    assert too_many.reason == "1056 threads per block, a block may have at most 1024"
    assert occupancy(H100, 32, 256).reason == \
        "256 registers per thread, a thread may have at most 255"
    # 228 KiB dynamic: 233472 + 1024 reserve; the opt-in maximum per block is 227 KiB.
    big = occupancy(H100, 32, 16, dynamic_shared=228 * 1024)
    assert big.limit == "shared" and big.blocks_per_sm == 0
    assert big.reason == ("needs 233472 bytes of shared memory per block (+1024 reserved), "
                          "a block may have at most 232448")
    # Exactly the opt-in maximum fits, one block per SM (232448 + 1024 = 233472).
    assert occupancy(H100, 32, 16, dynamic_shared=227 * 1024).blocks_per_sm == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        occupancy(H100, 0, 32)
    with pytest.raises(ValueError):
        occupancy(H100, 32, -1)


def test_for_arch() -> None:
    assert H100.shared_per_sm == 233472 and H100.max_shared_per_block == 232448
    assert A100.shared_per_sm == 167936 and A100.max_shared_per_block == 166912
    assert H100.max_warps_per_sm == 64 and H100.multiprocessors == 132
    assert DeviceLimits.for_arch("sm_90a") == H100
    with pytest.raises(ValueError, match="sm_80, sm_90"):
        DeviceLimits.for_arch("sm_75")
    with pytest.raises(ValueError, match="warp"):
        replace(H100, register_allocation_granularity="block")


def test_from_attributes() -> None:
    assert DeviceLimits.from_attributes(H100_ATTRIBUTES) == H100
    # Without the opt-in figure a block may at most fill the SM, less the reserve.
    older = {k: v for k, v in H100_ATTRIBUTES.items()
             if k not in ("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "MULTIPROCESSOR_COUNT")}
    limits = DeviceLimits.from_attributes(older)
    assert limits.max_shared_per_block == 233472 - 1024 and limits.multiprocessors is None
    missing = {k: v for k, v in H100_ATTRIBUTES.items() if k != "WARP_SIZE"}
    with pytest.raises(KeyError, match="WARP_SIZE"):
        DeviceLimits.from_attributes(missing)


def test_json_round_trip() -> None:
    occ = occupancy(H100, 256, 128)
    assert occ.to_json() == {
        "blocks_per_sm": 2, "warps_per_sm": 16, "max_warps_per_sm": 64, "fraction": 0.25,
        "limit": "registers", "limits": ["registers"],
        "by_resource": {"threads": 8, "blocks": 32, "registers": 2, "shared": 228},
        "registers_per_thread": 128, "registers_per_block": 32768, "shared_per_block": 1024,
        "reason": None}
    assert Occupancy.from_json(occ.to_json()) == occ
    refused = occupancy(H100, 1024, 72)
    assert Occupancy.from_json(refused.to_json()) == refused
    with pytest.raises(ValueError, match="limit"):
        Occupancy.from_json({**occ.to_json(), "limit": "warps"})
