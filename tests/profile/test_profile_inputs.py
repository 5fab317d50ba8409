"""Inputs drawn once per profiling run and copied for each program (profile.inputs), and
the byte-identical shortcut of the output comparison (profile.measure)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.profile import inputs as drawn
from cudafuse.profile.measure import spec_mismatch
from cudafuse.runtime.spec import load_spec

SPEC = """entry = "run"
seed = 7
[sizes]
n = 1000
[[args]]
name = "x"
dtype = "float32"
count = "n"
init = "uniform(-1, 1)"
[[args]]
name = "y"
dtype = "float32"
count = "n"
init = "zeros"
role = "out"
[[args]]
name = "n"
value = "n"
"""


@pytest.fixture()
def spec(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.toml"
    path.write_text(SPEC)
    drawn.forget()
    yield load_spec(str(path))
    drawn.forget()


def test_copies_hold_the_values_a_fresh_draw_gives(spec, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first = drawn.fresh_inputs(spec)
    calls = []
    monkeypatch.setattr(type(spec), "inputs", lambda self: calls.append(1) or [])
    second = drawn.fresh_inputs(spec)
    assert calls == []  # not drawn again
    monkeypatch.undo()
    want = spec.inputs()
    for a, b, w in zip(first, second, want, strict=True):
        if isinstance(w, np.ndarray):
            assert a.dtype == w.dtype and np.array_equal(a, w) and np.array_equal(b, w)
        else:
            assert a == b == w
    # A program that writes its arrays (outputs, or inputs in place) leaves the next
    # program's copy as drawn.
    second[0][:] = 5.0
    second[1][:] = 3.0
    third = drawn.fresh_inputs(spec)
    assert np.array_equal(third[0], want[0]) and not third[1].any()


def test_at_most_two_specs_are_kept(spec, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    others = []
    for i in range(3):
        p = tmp_path / f"o{i}.toml"
        p.write_text(SPEC.replace("seed = 7", f"seed = {i}"))
        others.append(load_spec(str(p)))
    drawn.fresh_inputs(spec)
    for o in others:
        drawn.fresh_inputs(o)
    assert [s for s, _ in drawn._drawn] == others[-2:]


def test_identical_outputs_match_and_any_difference_is_still_found(spec) -> None:  # type: ignore[no-untyped-def]
    ref = [np.linspace(-1, 1, 1000, dtype=np.float32)]
    assert spec_mismatch(spec, ref, [ref[0].copy()]) is None
    # NaN in the same place: identical bytes, and compare() agrees (NaN matches NaN).
    nan = ref[0].copy()
    nan[3] = np.nan
    assert spec_mismatch(spec, [nan], [nan.copy()]) is None
    # One ulp off in one element: within the spec's tolerance, so no mismatch, but it
    # went through compare() (not byte-identical).
    near = ref[0].copy()
    near[10] = np.nextafter(near[10], np.float32(2))
    assert spec_mismatch(spec, ref, [near]) is None
    far = ref[0].copy()
    far[999] += 0.5
    wrong = spec_mismatch(spec, ref, [far])
    assert wrong is not None and wrong[0] == "y" and wrong[1].mismatches == 1
