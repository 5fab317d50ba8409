"""The classification both stand-in builds share (emu/undefined.py, `undefined`): which
undefined symbols of a loosely linked library are only called (a stand-in function) and
which are read or have their address taken (pages no access is allowed to)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cudafuse.emu.undefined import Symbol, stub_source, undefined

PART = """\
int called_only(int);
extern int read_only;
int address_taken(int);
extern "C" int c_called(void);
int use(int x) { return called_only(x) + read_only + c_called(); }
int (*handle())(int) { return &address_taken; }
"""


def test_called_read_and_address_taken_symbols_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "part.cpp").write_text(PART)
    lib = tmp_path / "part.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-O0", str(tmp_path / "part.cpp"), "-o",
                    str(lib)], check=True)
    missing = ["called_only(int)", "read_only", "address_taken(int)", "c_called"]
    found = sorted(undefined(lib, missing) or [], key=lambda s: s.shown)
    assert found == [Symbol("_Z13address_takeni", "address_taken(int)", False),
                     Symbol("c_called", "c_called", True),
                     Symbol("_Z11called_onlyi", "called_only(int)", True),
                     Symbol("read_only", "read_only", False)]
    # One the library does not lack: no stand-ins can be made for that list.
    assert undefined(lib, [*missing, "elsewhere(int)"]) is None


def test_stand_ins_compile_whatever_the_file_names_hold(tmp_path: Path) -> None:
    # Quotes, a backslash, a % (snprintf's format) and a line break in the names of the
    # files said to define the symbols: the stand-ins' source still compiles.
    (tmp_path / "part.cpp").write_text(PART)
    lib = tmp_path / "part.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-O0", str(tmp_path / "part.cpp"), "-o",
                    str(lib)], check=True)
    code = stub_source(lib, ["called_only(int)", "read_only"],
                       ['50% "odd"\\name.cpp', "two\nlines.cpp"])
    assert code is not None
    (tmp_path / "stubs.cpp").write_text(code)
    done = subprocess.run(["g++", "-fsyntax-only", "-Wall", "-Werror=format",
                           str(tmp_path / "stubs.cpp")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
