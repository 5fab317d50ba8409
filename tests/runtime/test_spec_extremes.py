"""No false verdicts, no internal errors (issue 27): every key of a spec is fed extreme values
(infinities, NaN, 1e400, negatives, huge numbers, wrong types); each spec either loads or is
an error at the spec file naming the key, never an exception of another kind (the CLI's
exit 3). The ones that load are then run (emu), and must run or fail with exit 1 or 2.

Hand-written cases check the messages: NaN or infinite tolerances, initialisers whose values
are not finite in the dtype, a uniform range wider than float64, the all-infinite summary,
inf == inf in comparisons, vacuous tolerances warned about.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.diagnostics import CudafuseError
from cudafuse.execute import summarise
from cudafuse.runtime.spec import ArgSpec, compare, load_spec

PROGRAM = """__global__ void k(const float *p, float *q, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i] * s;
}
void run(const float *p, float *q, int n, float s) {
  if (n > 0) k<<<(n + 63) / 64, 64>>>(p, q, n, s);
}
"""
BASE = {
    "entry": '"run"',
    "seed": "0",
    "rtol": "1e-5",
    "atol": "1e-6",
    "sizes.n": "64",
    "p.count": '"n"',
    "p.init": '"uniform(0, 1)"',
    "p.seed": "3",
    "p.shape": '["n"]',
    "q.count": '"n"',
    "q.init": '"zeros"',
    "q.role": '"out"',
    "n.value": '"n"',
    "s.value": "2.0",
}
# What TOML allows as values: numbers past every range, NaN, infinities, wrong types.
EXTREMES = ["inf", "-inf", "nan", "1e400", "-1e400", "-1", "1e308", "340282366920938463463",
            "-9223372036854775809", '"1e400"', '"nan"', '"inf * 0"', '"2 ** 256"',
            '"10 ** 30"', '"n * 1e308"', '"uniform(0, 1e400)"', '"uniform(-1e308, 1e308)"',
            '"uniform(nan, 1)"', '"const(1e39)"', '"ramp(0, 1e37)"', "true", "[]", "[1e400]",
            "{a = 1}", '""', "0"]


def spec_text(values: dict[str, str]) -> str:
    head = [f"{k} = {v}" for k, v in values.items() if "." not in k]
    sizes = [f"{k[6:]} = {v}" for k, v in values.items() if k.startswith("sizes.")]
    text = "\n".join(head) + "\n[sizes]\n" + "\n".join(sizes) + "\n"
    for name, dtype in (("p", "float32"), ("q", "float32"), ("n", None), ("s", None)):
        text += f'[[args]]\nname = "{name}"\n'
        if dtype:
            text += f'dtype = "{dtype}"\n'
        for key, v in values.items():
            if key.startswith(f"{name}."):
                text += f"{key.split('.', 1)[1]} = {v}\n"
    return text


CASES = [(key, value) for key in BASE for value in EXTREMES]


@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}={v}" for k, v in CASES])
def test_extreme_values_load_or_are_errors_at_the_key(tmp_path: Path, key: str,
                                                       value: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(spec_text({**BASE, key: value}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no numpy warning may leak
            spec = load_spec(str(path))
            for a in spec.args:
                if a.is_array and a.nbytes < 1 << 20:
                    spec.inputs()
    except CudafuseError as exc:
        diag = exc.diagnostics[0]
        assert diag.file == str(path) and exc.status in (1, 2)
        # The message names the key it is about (its table for a key inside [[args]]).
        head = key.split(".")[-1] if key.startswith("sizes.") else key.split(".")[0]
        assert head in diag.message or "TOML" in diag.message, diag.message
        return
    for a in spec.args:
        if a.is_array:
            assert np.isfinite(a.count)
        elif isinstance(a.value, float):
            assert math.isfinite(a.value)
    assert math.isfinite(spec.rtol) and math.isfinite(spec.atol)


@pytest.mark.slow
@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}={v}" for k, v in CASES])
def test_extreme_values_never_exit_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     key: str, value: str) -> None:
    (tmp_path / "p.cu").write_text(PROGRAM)
    (tmp_path / "o.cu").write_text(PROGRAM)
    (tmp_path / "s.toml").write_text(spec_text({**BASE, key: value}))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["verify", "p.cu", "o.cu", "--spec", "s.toml",
                                    "--timeout", "60"])
    assert res.exit_code in (0, 1, 2), res.output
    assert "internal error" not in res.stderr and "Warning" not in res.stderr


def write(tmp_path: Path, **changes: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(spec_text({**BASE, **changes}))
    return str(path)


@pytest.mark.parametrize("key, value, message", [
    ("rtol", "nan", "rtol: expected a finite, non-negative number, got nan"),
    ("atol", "inf", "atol: expected a finite, non-negative number, got inf"),
    ("atol", "-1e-3", "atol: expected a finite, non-negative number, got -0.001"),
    ("p.init", '"uniform(0, 1e400)"', "args[0] 'p'.init: 'uniform(0, 1e400)': inf is not a "
     "finite number"),
    ("p.init", '"uniform(nan, 1)"', "args[0] 'p'.init: 'uniform(nan, 1)': nan is not a "
     "finite number (NaN only as const(nan), a float array's poison value)"),
    ("p.init", '"uniform(-1e308, 1e308)"', "args[0] 'p'.init: 'uniform(-1e308, 1e308)': the "
     "value is -1e+308: not finite as float32 (largest 3.40282e+38)"),
    ("p.init", '"ramp(0, 1e37)"', "args[0] 'p'.init: 'ramp(0, 1e37)': element 63 is "
     "6.3e+38: not finite as float32 (largest 3.40282e+38)"),
    ("s.value", "1e400", "args[3] 's'.value: inf is not a finite number"),
    ("sizes.n", '"1e308 * 10"', "sizes.n: inf is not a finite number (from '1e308 * 10')"),
    ("entry", "5", "entry: expected the name of a host function or kernel (a string), got "
     "int 5"),
])
def test_messages(tmp_path: Path, key: str, value: str, message: str) -> None:
    path = write(tmp_path, **{key: value})
    with pytest.raises(CudafuseError) as info:
        load_spec(path)
    assert info.value.diagnostics[0].message.startswith(message), info.value
    assert info.value.diagnostics[0].file == path


def test_a_float64_range_wider_than_float64_works(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path))
    p = spec.args[0]
    wide = ArgSpec("p", np.dtype("float64"), 1000, "uniform(-1e308, 1e308)", seed=1,
                   shape=(1000,), key=p.key)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = spec.__class__.inputs(spec.__class__(spec.path, "run", [wide]))[0]
    assert np.isfinite(values).all() and values.min() < -1e307 and values.max() > 1e307


def test_poison_nan_is_still_allowed(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, **{"q.init": '"const(nan)"'}))
    assert np.isnan(spec.inputs()[1]).all()


def test_a_large_rtol_is_a_warning(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, rtol="2"))
    assert [d.message.split(":")[0] for d in spec.warnings] == ["rtol"]
    assert not load_spec(write(tmp_path)).warnings


def test_comparisons_with_infinities_and_nan() -> None:
    arg = ArgSpec("q", np.dtype("float32"), 4, shape=(4,))
    want = np.array([np.inf, 1, np.nan, -np.inf], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = compare(arg, want, want.copy(), 1e-5, 1e-6)
        assert (same.mismatches, same.max_abs, same.max_rel) == (0, 0.0, 0.0)
        finite = compare(arg, want, np.array([3e38, 1, np.nan, -np.inf], np.float32), 1, 1)
        assert finite.mismatches == 1 and finite.first.startswith("[0] (element 0)")
        nan = compare(arg, want, np.array([np.inf, 1, 0, np.inf], np.float32), 1e-5, 1e-6)
        assert nan.mismatches == 2 and nan.max_abs == np.inf


def test_summaries_of_infinite_and_nan_outputs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert summarise("q", np.full(4, np.inf, np.float32)) == \
            "q: 4 x float32, min inf, max inf, sum inf, 4 infinite"
        assert summarise("q", np.array([np.inf, -np.inf, np.nan, 1], np.float32)) == \
            "q: 4 x float32, min -inf, max inf, sum nan, 1 NaN, 2 infinite"
        assert summarise("q", np.full(3, np.nan)) == "q: 3 x float64, all NaN"


def test_verify_warns_of_a_vacuous_atol(capsys: pytest.CaptureFixture[str]) -> None:
    from cudafuse.execute import report

    arg = ArgSpec("q", np.dtype("float32"), 3, shape=(3,))
    want = np.array([0.5, -2, 0], np.float32)
    assert report([(arg, want, want + 1)], 1e-5, 10, "s.toml")
    err = capsys.readouterr().err
    assert err == ("s.toml: warning: atol 10 is at least every |value| of the original's 'q' "
                   "(largest 2): any result of that size passes\n")
    assert not report([(arg, want, want + 1)], 1e-5, 1e-6, "s.toml")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("code, value", [("f4", 1e308), ("f4", 2 ** 256), ("f8", 10 ** 400)])
def test_a_scalar_past_its_type_is_an_argument_error(code: str, value: object) -> None:
    """Found by the generated run: struct's OverflowError used to be an internal error."""
    from cudafuse.runtime.convert import ArgumentError, scalar_bytes

    with pytest.raises(ArgumentError, match=r"^run\(\): parameter 4 's' \(.*\): .* does not "
                       "fit (float|double)$"):
        scalar_bytes(code, value, "run(): parameter 4 's' (float)")
