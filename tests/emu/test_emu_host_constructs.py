"""Host code nvcc accepts is callable under the emulator, or left out with a located warning:
never a build failure of the whole program (issue 31)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load
from cudafuse.runtime.convert import ArgumentError
from cudafuse.runtime.errors import KernelError


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "host_constructs.cu", opt="-O0") as lib:
        yield lib


def test_functions_returning_references_give_the_value(lib):
    assert lib.call("gain") == 1.5
    assert lib.call("verbose") is False
    out, inp = np.zeros(100, np.float32), np.arange(100, dtype=np.float32)
    lib.call("apply_gain", out, inp, 100)  # writes through verbose() and buffer()
    np.testing.assert_array_equal(out, inp * np.float32(1.5))
    assert lib.call("verbose") is True
    raw = lib.call("buffer")  # a 16-byte struct, returned by reference: its bytes
    assert np.frombuffer(raw[8:12], np.int32)[0] == 100


def test_references_and_rvalue_references_take_values(lib):
    assert lib.call("bump", 4) == 5
    assert lib.call("sink", 21) == 42


def test_overloads_are_named_by_their_parameter_types(lib):
    assert lib.call("scale(int)", 3) == 30
    assert lib.call("scale(float)", 3.0) == 1.5
    with pytest.raises(KeyError, match=r"'scale' is overloaded: name one of scale\(float\)"):
        lib.call("scale", 3)


def test_a_name_a_header_also_declares_is_still_callable(lib):
    assert lib.call("round", 3.14159, 2) == pytest.approx(3.14)  # not libm's round(double)
    assert lib.call("grey", 7) == bytes([7, 7, 7, 255])  # inside a namespace


def test_class_results_are_computed_and_dropped_and_class_parameters_refused(lib):
    assert lib.signatures["label"].ret == "v" and lib.call("label") is None
    assert lib.signatures["sizes"].ret == "v"
    with pytest.raises(ArgumentError, match="parameter 1 'v'"):
        lib.call("consume", b"")


def test_a_function_no_trampoline_can_call_is_left_out_with_a_located_warning(lib):
    d = lib.built.uncallable["pinned_value"]
    assert (d.line, d.col) == (34, 5) and "deleted function" in d.message
    assert "pinned_value(" in d.source_line  # the line shown under the warning
    with pytest.raises(KeyError, match=r"host_constructs.cu:34:5: 'pinned_value' cannot be "
                                       "called"):
        lib.call("pinned_value", b"\0" * 4)
    assert lib.call("helpers") == 4 + 2 + 3 + 255  # template, lambdas, default argument


def test_main_runs_and_its_exit_is_its_status(lib):
    assert lib.call("main") == 0  # returns through exit(0); the worker lives on
    assert lib.call("scale(int)", 1) == 10


def test_a_failing_main_is_an_error(tmp_path):
    src = tmp_path / "usage.cu"
    src.write_text('#include <cstdio>\n#include <cstdlib>\n'
                   'int main(int argc, char **argv) {\n'
                   '  if (argc < 2) { fprintf(stderr, "usage: %s in.pgm\\n", argv[0]);'
                   ' exit(EXIT_FAILURE); }\n  return 0;\n}\n')
    with load(src, opt="-O0") as lib, pytest.raises(KernelError, match="main returned 1"):
        lib.call("main")
