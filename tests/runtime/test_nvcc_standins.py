"""The nvcc backend's stand-ins for what another file of the program defines
(runtime/standins.py): the library is linked with none undefined, so it loads; a call that
reaches a stand-in function comes back as an error located at the program's function that
calls it, and a read of a stand-in variable ends the process with a located message. Host
code runs without a GPU: built with nvcc and called through ctypes and GpuPrepared here."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime.build import _GCC_DIAG, BuildOptions, Built, _compile, build
from cudafuse.runtime.errors import KernelError
from cudafuse.runtime.prepared import GpuPrepared
from cudafuse.runtime.standins import THROWN, users

PROGRAM = """\
#include <stdexcept>
extern "C" int counter_of(int which);  // the program's other files define these
extern int table[16];
int checked(int x);

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2.0f;
}

int plain(int x) { return x + 1; }
int calls_other(int x) { return counter_of(x) + 1; }
int reads_table(int x) { return table[x]; }
int throws(int x) {
  if (x > 0) throw std::runtime_error("x must not be positive");
  return checked(x);
}
namespace units {  // a stand-in reached from a method, and from an anonymous namespace
int scaled(int x);
struct Meter { int read(int x) const; };
int Meter::read(int x) const { return scaled(x); }
}
int read_meter(int x) { return units::Meter().read(x); }
extern int limits[4];
namespace { int first_limit() { return limits[0]; } }
int reads_limits() { return first_limit(); }
"""
OTHER = """\
extern "C" int counter_of(int which) { return which * 3; }
int checked(int x) { return -x; }
int table[16];
namespace units { int scaled(int x) { return 2 * x; } }
int limits[4];
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("standins")
    (folder / "part.cu").write_text(PROGRAM)
    (folder / "other.cpp").write_text(OTHER)
    return build(str(folder / "part.cu"), "nvcc", BuildOptions(opt="-O0"))


def _entry(built: Built, name: str) -> tuple[ctypes.CDLL, object]:
    lib = ctypes.CDLL(str(built.library))  # the load that failed before the stand-ins
    return lib, getattr(lib, f"cudafuse_h_{name}")


def _call(built: Built, name: str, value: int) -> tuple[int, str]:
    lib, entry = _entry(built, name)
    arg = ctypes.c_int(value)
    argv = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    ret = ctypes.create_string_buffer(16)
    rc = entry(argv, ret)  # type: ignore[operator]
    lib.cudafuse_thrown.restype = ctypes.c_char_p
    return rc, lib.cudafuse_thrown().decode()


@pytest.mark.nvcc
def test_the_library_defines_every_symbol_and_loads(built: Built) -> None:
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(built.library)],
                               capture_output=True, text=True, check=True).stdout
    assert "counter_of" not in undefined and "table" not in undefined
    assert "checked" not in undefined
    lib = ctypes.CDLL(str(built.library))
    assert lib.cudafuse_h_plain and lib.cudafuse_ha_calls_other


@pytest.mark.nvcc
def test_a_called_stand_in_is_an_error_at_the_function_that_calls_it(built: Built) -> None:
    rc, message = _call(built, "calls_other", 2)
    assert rc == THROWN
    assert message.endswith(
        "part.cu:12:5: error: counter_of was called (by calls_other(int)), but another file "
        "of the program defines it (other.cpp seems to define it): the nvcc backend builds "
        "only the program's own file")
    assert _call(built, "plain", 2)[0] != THROWN  # a call that reaches no stand-in


@pytest.mark.nvcc
def test_a_stand_in_called_from_a_method_is_located_at_the_method(built: Built) -> None:
    rc, message = _call(built, "read_meter", 2)
    assert rc == THROWN
    assert "part.cu:21:12: error: units::scaled(int) was called (by " \
        "units::Meter::read(int) const), but another file" in message


@pytest.mark.nvcc
def test_a_stand_in_read_in_an_anonymous_namespace_is_located_there(built: Built) -> None:
    # Its message, as the fault handler would write it (the run itself ends the process:
    # test_reading_a_stand_in_variable_ends_the_run_with_its_message).
    assert b"part.cu:25:17: error: limits was used (by (anonymous namespace)::" \
        b"first_limit()), but another file" in built.library.read_bytes()


@pytest.mark.nvcc
def test_gpu_prepared_raises_the_stand_ins_message(built: Built) -> None:
    lib, entry = _entry(built, "calls_other")
    lib.cudafuse_thrown.restype = ctypes.c_char_p
    # The queueing entry that timing uses; no argument is an array, so no device buffer
    # (and no driver) is needed: the argument is set by hand.
    run = GpuPrepared(None, lib.cudafuse_ha_calls_other, "h", "call of 'calls_other'", [],
                      [], None, lambda: lib.cudafuse_thrown().decode())
    arg = ctypes.c_int(1)
    run._argv = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    with pytest.raises(KernelError, match=r"^call of 'calls_other': .*part\.cu:12:5: error: "
                       r"counter_of was called"):
        run.invoke()


@pytest.mark.nvcc
def test_an_exception_the_program_lets_out_is_an_error_not_an_abort(built: Built) -> None:
    rc, message = _call(built, "throws", 1)
    assert (rc, message) == (THROWN, "the program threw an exception: x must not be "
                                     "positive")


@pytest.mark.nvcc
def test_reading_a_stand_in_variable_ends_the_run_with_its_message(built: Built) -> None:
    script = ("import ctypes, sys\n"
              "lib = ctypes.CDLL(sys.argv[1])\n"
              "arg = ctypes.c_int(3)\n"
              "argv = (ctypes.c_void_p * 1)(ctypes.addressof(arg))\n"
              "lib.cudafuse_h_reads_table(argv, ctypes.create_string_buffer(16))\n"
              "print('returned')\n")
    proc = subprocess.run([sys.executable, "-c", script, str(built.library)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 86, proc.stderr
    assert "returned" not in proc.stdout
    assert proc.stderr.strip().endswith(
        "part.cu:13:5: error: table was used (by reads_table(int)), but another file of the "
        "program defines it (as other.cpp define the rest of what it lacks): the nvcc "
        "backend builds only the program's own file")


@pytest.mark.nvcc
def test_what_no_file_defines_fails_the_build(tmp_path: Path) -> None:
    (tmp_path / "alone.cu").write_text("int nowhere(int);\nint f(int x) { return nowhere(x); }\n")
    with pytest.raises(CudafuseError, match=r"nvcc: undefined reference to nowhere\(int\) "
                       r"\(declared but not defined in the program"):
        build(str(tmp_path / "alone.cu"), "nvcc", BuildOptions(opt="-O0"))


def test_the_linkers_undefined_references_by_function() -> None:
    output = ("/usr/bin/ld: a.o: in function `scan(int)':\n"
              "x.cpp:(.text+0x3c): undefined reference to `work_restart'\n"
              "/usr/bin/ld: x.cpp:(.text+0x4c): undefined reference to `gpulog'\n"
              "/usr/bin/ld: a.o: in function `hash':\n"
              "x.cpp:(.text+0x57): undefined reference to `gpulog'\n"
              "collect2: error: ld returned 1 exit status\n")
    assert users(output) == {"work_restart": ["scan(int)"], "gpulog": ["scan(int)", "hash"]}


def test_the_linkers_quotes_in_a_utf8_locale() -> None:
    # With its translations in a UTF-8 locale, ld quotes with ‘ and ’ instead of ` and '.
    output = ("/usr/bin/ld: a.o: in function ‘scan(int)’:\n"
              "x.cpp:(.text+0x3c): undefined reference to ‘work_restart’\n"
              "collect2: error: ld returned 1 exit status\n")
    assert users(output) == {"work_restart": ["scan(int)"]}


def test_the_emulator_build_reads_undefined_references_in_either_quotes(tmp_path: Path
                                                                         ) -> None:
    # A stand-in compiler that fails as g++'s link does in a UTF-8 locale: the build names
    # the missing function instead of giving the generic "g++ failed".
    failing = ("printf '/usr/bin/ld: a.o: in function \\342\\200\\230f(int)\\342\\200\\231:\\n"
               "a.cpp:(.text+0x11): undefined reference to \\342\\200\\230nowhere(int)"
               "\\342\\200\\231\\ncollect2: error: ld returned 1 exit status\\n' >&2; exit 1")
    with pytest.raises(CudafuseError, match=r"error: g\+\+: undefined reference to nowhere\(int\) "
                       r"\(declared but not defined in the program\)"):
        _compile(["sh", "-c", failing, "sh"], tmp_path / "lib.so", _GCC_DIAG, True, "g++")
