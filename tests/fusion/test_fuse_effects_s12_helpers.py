"""A one-launch host helper whose launch a group fuses into a later launch keeps what else
it does at its call (issue 25/27, session 12; host/helper_effects.py): printing, an error
check through a macro (reporting an error still pending from the caller), events of its
own timing it. Its call is written as a copy with the launch a comment; a helper that only
computes its configuration still leaves a comment. Refused, located: a helper whose copy
would name other things (another namespace's), one printing its own name (`__func__`: a
copy, a lambda, would print `operator()`), and one counting its calls in a static local (a
copy would count in its own). Original and fused run under emulation on the
same garbage: every element of every buffer and everything printed must match."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from equivalence import PAD, nvcc_error

from cudafuse.api import fuse
from cudafuse.runtime import load

PROGRAM = Path(__file__).parent / "programs" / "effects_s12" / "helper_effects.cu"
FUSED = ["ef_printf", "ef_checked", "ef_timed", "ef_quiet"]
REFUSED = {
    "ef_namespaced": "wrapper 'stage' is declared in namespace 'ef_other', not where "
                     "'ef_namespaced' is: a copy of it there could not name what its body names",
    "ef_named": "'ef_stage_named' names its own function (line {line}: `__func__` or a macro "
                "using it), which a copy of it written for the group would name otherwise",
    "ef_counted": "'ef_stage_counted' keeps a static local 'ef_calls' (line {line}), which a "
                  "copy of it written for the group would not share",
}
ENTRIES = [*FUSED, *REFUSED]


def _line(fragment: str) -> int:
    return next(i for i, t in enumerate(PROGRAM.read_text().split("\n"), 1) if fragment in t)


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("helper_effects") / PROGRAM.name
    result = fuse(str(PROGRAM), fuse_all=True)
    out.write_text(result.text)
    return out, result


def _body(text: str, host: str) -> str:
    start = text.index(f"void {host}(")
    return text[start:text.index("\n}\n", start)]


def _in_order(body: str, order: list[str]) -> None:
    at = [body.index(x) for x in order]
    assert at == sorted(at), body


def test_helper_effects_stay_at_the_call(fused) -> None:
    path, result = fused
    groups = {g.host: g.kernels for g in result.result.groups}
    for host in FUSED:
        assert groups.get(host) == ["ef_scale", "ef_offset"], (host, groups)
    text = path.read_text()
    _in_order(_body(text, "ef_printf"), [
        "a copy of 'ef_stage_print'", "const int blocks", "ef_scale fused into",
        'printf("ef_stage_print', "_launch(t, out, n, in, t);"])
    _in_order(_body(text, "ef_checked"), [
        "cudaSetDevice(7);", "a copy of 'ef_stage_checked'", "ef_scale fused into",
        'EF_WARN(cudaGetLastError(), "ef_stage_checked");', "_launch(",
        'EF_WARN(cudaGetLastError(), "ef_checked");'])
    _in_order(_body(text, "ef_timed"), [
        "a copy of 'ef_stage_timed'", "cudaEventRecord(start);", "ef_scale fused into",
        "cudaEventRecord(stop);", "cudaEventElapsedTime(", 'printf("ef_stage_timed',
        "cudaEventDestroy(stop);", "_launch("])
    quiet = _body(text, "ef_quiet")  # (nothing but its configuration: the call goes)
    assert "a copy of" not in quiet and "ef_stage_quiet(" not in quiet, quiet
    assert "ef_scale fused into" in quiet, quiet


def test_refusals_are_located(fused) -> None:
    path, result = fused
    groups = {g.host for g in result.result.groups}
    text = path.read_text()
    for host, why in REFUSED.items():
        assert host not in groups
        assert _body(text, host) == _body(PROGRAM.read_text(), host)  # (as written)
        why = why.format(line=_line('printf("%s: launched') if host == "ef_named" else
                         _line("static int ef_calls"))
        notes = [x for x in result.result.notes if f"{host}: group" in x]
        assert len(notes) == 1 and notes[0].endswith(why), (host, result.result.notes)


def _run(path: Path, entry: str, args: list, capfd: pytest.CaptureFixture[str]
         ) -> tuple[list, str]:
    capfd.readouterr()
    call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with load(path, backend="emu") as lib:  # (its worker writes to the captured stdout)
        lib.call(entry, *call)
    return call, capfd.readouterr().out


@pytest.mark.slow
def test_fused_prints_and_computes_as_the_original(fused, capfd: pytest.CaptureFixture[str]
                                                   ) -> None:
    path, _ = fused
    rng = np.random.default_rng(12)
    for entry in ENTRIES:
        for n in (37, 1, 129):
            args = [(rng.standard_normal(n + PAD) * 0.2).astype(np.float32) for _ in range(3)]
            args.append(n)
            (a, said), (b, told) = (_run(p, entry, args, capfd) for p in (PROGRAM, path))
            assert said == told, (entry, n, said, told)
            assert bool(said.strip()) == (entry != "ef_quiet"), (entry, n, said)
            for name, x, y in zip(("in", "t", "out"), a, b, strict=False):
                bad = np.flatnonzero(x != y)
                assert bad.size == 0, f"{entry} n={n}: {name}[{bad[0]}] {x[bad[0]]} != {y[bad[0]]}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_fused_compiles_with_nvcc(fused, tmp_path: Path) -> None:
    path, _ = fused
    assert nvcc_error(path, tmp_path) == ""
