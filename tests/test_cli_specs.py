"""A --profile spec that does not fit the source (an entry the file lacks, arguments the
function does not take) is an error at the spec file, exit 1, before anything is built or
written; it used to surface from the measuring runs as an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

CHAIN = """__global__ void a(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * i;
}
__global__ void b(const float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i] + 1.0f;
}
void run(float *p, float *q, int n) {
  a<<<(n + 255) / 256, 256>>>(p, n);
  b<<<(n + 255) / 256, 256>>>(p, q, n);
}
"""
ARRAY = '[[args]]\nname = "{}"\ndtype = "float32"\ncount = 256\n'
SCALAR = '[[args]]\nname = "{}"\nvalue = 256\n'
UNNAMED = '[[args]]\ndtype = "float32"\ncount = 256\n'  # the parameter at its index
PAIR = """kernel1 = "a"
kernel2 = "b"
spec1 = "a.toml"
spec2 = "b.toml"
grid1 = [1]
grid2 = [1]
block1 = [256]
block2 = [256]
"""


def spec(entry: str, *args: str) -> str:
    return f'entry = "{entry}"\n' + "".join(args)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "chain.cu").write_text(CHAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("text, message", [
    (spec("nope"), "s.toml: error: entry: chain.cu has no host function 'nope' (host "
                   "functions: run)"),
    (spec("a", ARRAY.format("p"), SCALAR.format("n")),
     "s.toml: error: entry: chain.cu has no host function 'a' (host functions: run)"),
    (spec("run", ARRAY.format("p"), ARRAY.format("q"), SCALAR.format("m")),
     "s.toml: error: args[2] 'm': 'm' is no parameter of run(p, q, n)"),
    (spec("run", ARRAY.format("p"), ARRAY.format("q")),
     "s.toml: error: no [[args]] table for parameter 'n' of run(p, q, n)"),
    (spec("run", *[UNNAMED] * 4),
     "s.toml: error: args[3] 'arg3': run(p, q, n) takes 3 arguments, this is argument 4"),
])
def test_fuse_profile_spec_mismatch(work: Path, text: str, message: str) -> None:
    (work / "s.toml").write_text(text)
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "o.cu", "--report", "r.json",
                                    "--profile", "--spec", "s.toml", "--backend", "emu"])
    assert res.exit_code == 1, res.output
    assert res.stderr == message + "\n"
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu", "s.toml"]


def test_hfuse_profile_spec_mismatch(work: Path) -> None:
    (work / "pair.toml").write_text(PAIR)
    (work / "a.toml").write_text(spec("a", ARRAY.format("p"), SCALAR.format("n")))
    (work / "b.toml").write_text(spec("b", ARRAY.format("p"), SCALAR.format("n")))
    res = CliRunner().invoke(main, ["hfuse", "chain.cu", "--kernels", "a,b", "-o", "o.cu",
                                    "--profile", "--spec", "pair.toml", "--backend", "emu"])
    assert res.exit_code == 1, res.output
    assert res.stderr == "b.toml: error: no [[args]] table for parameter 'q' of b(p, q, n)\n"
    assert sorted(p.name for p in work.iterdir()) == ["a.toml", "b.toml", "chain.cu",
                                                      "pair.toml"]
