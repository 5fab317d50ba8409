"""Accesses outside a device allocation the program makes itself (issue 27): the emulator's
cudaMalloc places guard zones around each one (emu/runtime.cpp, rt_alloc), and the error
names the kernel, the allocation's cudaMalloc line, its size and the byte (the element and
the access's line under --sanitize). In-bounds programs (float4 loads to the last byte, a
pitched image) stay clean. Our own program: programs/initcheck_s12_bounds.cu."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest_runtime import PROGRAMS

from cudafuse.cli import main
from cudafuse.runtime import asan, guards, load
from cudafuse.runtime.errors import BoundsError, KernelError
from cudafuse.runtime.spec_bind import bounds_error

PROGRAM = PROGRAMS / "initcheck_s12_bounds.cu"


def _spec(entry: str, n: int) -> str:
    return f"""entry = "{entry}"
[[args]]
name = "in"
dtype = "float32"
count = 1024
init = "uniform(1, 2)"
[[args]]
name = "out"
dtype = "float32"
count = 1024
role = "out"
[[args]]
name = "n"
value = {n}
"""


def _call(lib, entry: str, n: int) -> np.ndarray:
    values = np.arange(1024, dtype=np.float32) + 1
    out = np.zeros(1024, np.float32)
    lib.call(entry, values, out, n)
    return out


def test_default_build_names_the_allocation_past_its_end_and_before_its_start() -> None:
    """`values` start at 1.0f: dst[-1] = 1.0f writes 00 00 80 3f."""
    with load(PROGRAM) as lib:  # the build `run` makes below
        # in bounds: float4 loads up to the last byte, a pitched image's rows
        out = _call(lib, "clean", 40)
        values = np.arange(40, dtype=np.float32) + 1
        np.testing.assert_array_equal(out[:40], values.reshape(10, 4)[:, ::-1].ravel())
        np.testing.assert_array_equal(out[40:80], values + 1)
        # 64 floats fill the 256-byte rounding: src[64] is the guard's first byte
        with pytest.raises(BoundsError) as past:
            _call(lib, "past_end", 64)
        # 1024 floats: a whole page, so dst[-1] is on the page before it
        with pytest.raises(BoundsError) as before:
            _call(lib, "before_start", 1024)
        # 200 bytes: dst[-1] lies on the allocation's first page, which the fill shows
        # changed when the allocation is freed
        with pytest.raises(KernelError) as slack:
            _call(lib, "before_start", 50)
    assert f"{PROGRAM}:48: the 200-byte device allocation made here was written before its " \
        "start (byte -2 holds 0x80, not the fill 0x00), found when it was freed" in \
        str(slack.value), str(slack.value)
    a = past.value.access
    assert (a.function, a.access, a.offset, a.alloc_size, a.alloc_line) == \
        ("shift", "read", 256, 256, 36)
    assert Path(a.alloc_file).name == PROGRAM.name and a.detail.startswith("block (0,0,0)")
    assert str(past.value).endswith(f"byte 256 of the 256-byte device allocation made at "
                                    f"{a.alloc_file}:36"), str(past.value)
    b = before.value.access
    assert (b.function, b.access, b.offset, b.alloc_size, b.alloc_line) == \
        ("back", "write", -4, 4096, 48)


def test_run_says_the_program_reads_past_its_allocation(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(_spec("past_end", 64))
    res = CliRunner().invoke(main, ["run", str(PROGRAM), "--spec", str(tmp_path / "p.toml")])
    assert res.exit_code == 1, res.output
    assert res.stderr.splitlines()[:2] == [
        f"{PROGRAM}:39: error: kernel 'shift' (launched here; block (0,0,0), thread (63,0,0)) "
        f"reads byte 256 of the 256-byte device allocation made at {PROGRAM}:36, past its end",
        f"{PROGRAM}:36: note: the 256 bytes are allocated here"], res.stderr


def _record(addr: int, extra: str) -> str:
    return (f"addr {addr:#x}\ncode 1\nwrite 0\nin_kernel 1\nkernel k\nfile p.cu\nline 9\n"
            f"block 0 0 0\nthread 3 0 0\nsymbol \n{extra}")


def test_fault_records_and_reports_name_the_allocation() -> None:
    alloc = "alloc_start 0x10000\nalloc_size 200\nalloc_line 7\nalloc_file /src/my prog.cu\n"
    a = guards.parse(_record(0x10100, alloc), "")
    assert a is not None and (a.param, a.offset, a.alloc_size, a.alloc_line, a.alloc_file) == \
        (None, 256, 200, 7, "/src/my prog.cu")
    assert guards.parse(_record(0x10100, ""), "") is None  # no allocation: a plain crash
    report = ("==1==ERROR: AddressSanitizer: use-after-poison on address 0x10000c8 at pc 0x1\n"
              "READ of size 4 at 0x10000c8 thread T0\n" + alloc.replace("0x10000", "0x1000000"))
    b = asan.parse(report)
    assert b is not None and (b.kind, b.size, b.offset, b.alloc_size) == \
        ("use-after-poison", 4, 200, 200)
    text = str(bounds_error("p.cu", b, [], {}))
    assert "reads element 50 (4 bytes at byte 200) of the 200-byte device allocation made " \
        "at /src/my prog.cu:7, past its end" in text
    before = str(bounds_error("p.cu", guards.parse(_record(0xfffe, alloc), ""), [], {"k":
                                                                                      "kernel"}))
    assert "kernel 'k' (launched here; block (0,0,0), thread (3,0,0)) reads byte -2 of the " \
        "200-byte device allocation made at /src/my prog.cu:7, before its start" in before


@pytest.mark.slow  # an AddressSanitizer build: about 1-3 minutes on the shared 2-core VM
def test_sanitize_is_exact_at_both_ends(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with load(PROGRAM, sanitize=True, opt="-O0") as lib:
        _call(lib, "clean", 40)
        _call(lib, "quads_tail", 40)  # 10 float4s from 40 floats: in bounds
        with pytest.raises(BoundsError) as past:
            _call(lib, "past_end", 50)  # 200 bytes: src[50] lies in the rounding
        with pytest.raises(BoundsError) as before:
            _call(lib, "before_start", 50)  # dst[-1], on the allocation's first page
        with pytest.raises(BoundsError) as tail:
            _call(lib, "quads_tail", 13)  # the fourth float4 passes the 52 bytes
    a, b, c = past.value.access, before.value.access, tail.value.access
    assert (a.function, a.access, a.size, a.offset, a.alloc_size, a.alloc_line, a.line) == \
        ("shift", "read", 4, 200, 200, 36, 8)
    assert (b.function, b.access, b.offset, b.alloc_size, b.alloc_line, b.line) == \
        ("back", "write", -4, 200, 48, 13)
    assert (c.function, c.alloc_size, c.alloc_line, c.line) == ("quads", 52, 96, 23)
    assert 48 <= c.offset < 64, c
    monkeypatch.chdir(tmp_path)
    shutil.copy(PROGRAM, "p.cu")
    Path("p.toml").write_text(_spec("past_end", 50))
    res = CliRunner().invoke(main, ["run", "p.cu", "--spec", "p.toml", "--sanitize"])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith(
        "p.cu:8:32: error: kernel 'shift' reads element 50 (4 bytes at byte 200) of the "
        "200-byte device allocation made at p.cu:36, past its end"), res.stderr

