"""Host code the IR does not hold (issue 25; programs/unread_code_s8.cu, host/unread.py):
with Thrust's headers unknown to the front end, clang drops `thrust::fill(...)` between two
launches, and the value of `float *mid = thrust::raw_pointer_cast(...)`, without an error.
Fusing across the dropped fill would let the consumer read the producer's values instead of
the fill's (a mismatch before this rule); the text between statements and a declaration's
missing value now split the sequence with a located reason. A macro that expands to
nothing between the launches is no code: they fuse. The plan is read in the default suite;
the differential run under the emulator (its Thrust is CCCL's) is slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = Path(__file__).parent / "programs" / "unread_code_s8.cu"
FUSED = {"p_mark": ("scale", "plus")}
UNFUSED = ("p_fill_between", "p_fill_in_branch", "p_vector_mid")
SIZES = ({"w": 37, "h": 19}, {"w": 3, "h": 41})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("unread_s8") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


@pytest.fixture(scope="module")
def silent():
    """The plan when clang dropped the Thrust statements without a word: the front end now
    stubs every missing header, so clang reports them and the functions are skipped; a
    parse stubbing only the first (ParseOptions.one_stub_round, as before) shows the drop
    this rule guards against."""
    parsed, _ = parse_for_fusion(str(PROGRAM), ParseOptions(one_stub_round=True))
    return fuse_unit(parsed.unit, FuseOptions())


def _line(text: str) -> int:
    lines = PROGRAM.read_text().splitlines()
    return 1 + next(k for k, x in enumerate(lines) if text in x)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    # Every missing header stubbed, clang reports what uses Thrust: those functions are
    # skipped whole (nothing of theirs is planned).
    assert not {x.host for x in result.launches} & set(UNFUSED)


def test_code_clang_dropped_splits(silent) -> None:
    result = silent
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    why = {(x.host, x.kernel): x.why for x in result.launches}
    fill = _line("thrust::fill(thrust::device_pointer_cast(t), ")
    assert why[("p_fill_between", "plus")] == (
        f"line {fill} separates it from the launch of 'scale' at line {fill - 1}: line {fill} "
        "holds code cudafuse did not read (clang dropped it: a name it does not know, from a "
        "header not found?), so no launch's work may move across it")
    inner = _line("thrust::fill(thrust::device_pointer_cast(t) + 1")
    assert f"line {inner} holds code cudafuse did not read" in why[("p_fill_in_branch", "plus")]
    mid = _line("float *mid = thrust::raw_pointer_cast(d_t.data());")
    assert why[("p_vector_mid", "scale")].startswith(
        f"pointer 'mid' is initialised at line {mid} by code cudafuse did not read")


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*FUSED, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)
