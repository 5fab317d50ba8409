"""Every command that writes files refuses, before writing anything, an output over one of
its inputs (the source, a header it read, a forced include, a spec, a profiling report) or
over another output of the same run (exit status 2, a usage error), and an output in a
directory that does not exist (exit status 1): an error naming the option and the path, every
file left as it was (no temporary left behind either).

The cases are generated: each output option of each command pointed at each input and at
each other output of the same command line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main

HEADER = "#define SCALE 2.0f\n"
CHAIN = """#include "util.h"
__global__ void a(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = SCALE * i;
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
SPEC = """entry = "run"
[sizes]
n = 1000
[[args]]
name = "p"
dtype = "float32"
count = "n"
init = "zeros"
role = "out"
[[args]]
name = "q"
dtype = "float32"
count = "n"
init = "zeros"
role = "out"
[[args]]
name = "n"
value = "n"
"""
KERNEL_A = '#include "util.h"\n__global__ void ka(float *p) { p[threadIdx.x] = SCALE; }\n'
KERNEL_B = '#include "other.h"\n__global__ void kb(int *q) { q[threadIdx.x] = ONE; }\n'
KERNEL_SPEC = """entry = "{k}"
[launch]
grid = [1]
block = [256]
[[args]]
name = "{p}"
dtype = "{t}"
count = 256
role = "out"
"""
PAIR = """kernel1 = "ka"
kernel2 = "kb"
spec1 = "ka.toml"
spec2 = "kb.toml"
grid1 = [1]
grid2 = [1]
block1 = [256]
block2 = [256]
"""
FILES = {"chain.cu": CHAIN, "util.h": HEADER, "force.h": "// forced\n", "spec.toml": SPEC,
         "a.cu": KERNEL_A, "b.cu": KERNEL_B, "other.h": "#define ONE 1\n",
         "ka.toml": KERNEL_SPEC.format(k="ka", p="p", t="float32"),
         "kb.toml": KERNEL_SPEC.format(k="kb", p="q", t="int32"),
         "pair.toml": PAIR, "prof.json": "{}\n"}

HFUSE = ["a.cu", "b.cu", "--block1", "256", "--block2", "256"]
# (command line without outputs, its inputs, its output options with their default paths)
COMMANDS: dict[str, tuple[list[str], list[str], dict[str, str]]] = {
    "fuse": (["fuse", "chain.cu", "-include", "force.h", "-MD"],
             ["chain.cu", "util.h", "force.h"],
             {"-o": "out.cu", "--report": "r.json", "--dot": "g.dot", "-MF": "out.d"}),
    "fuse-profile": (["fuse", "chain.cu", "-MD", "--profile", "--spec", "spec.toml",
                      "--backend", "emu"],
                     ["chain.cu", "util.h", "spec.toml"],
                     {"-o": "out.cu", "--report": "r.json", "--dot": "g.dot", "-MF": "out.d"}),
    "plan": (["plan", "chain.cu"], ["chain.cu", "util.h"],
             {"--report": "r.json", "--dot": "g.dot"}),
    "hfuse": (["hfuse", *HFUSE, "-include", "force.h", "-MD"],
              ["a.cu", "b.cu", "util.h", "other.h", "force.h"],
              {"-o": "out.cu", "--report": "r.json", "-MF": "out.d"}),
    "hfuse-profile": (["hfuse", "a.cu", "b.cu", "-MD", "--profile", "--spec", "pair.toml",
                       "--backend", "emu"],
                      ["a.cu", "b.cu", "util.h", "other.h", "pair.toml", "ka.toml",
                       "kb.toml"],
                      {"-o": "out.cu", "--report": "r.json", "-MF": "out.d"}),
    "hfuse-from-profile": (["hfuse", *HFUSE, "--from-profile", "prof.json"],
                           ["a.cu", "b.cu", "util.h", "other.h", "prof.json"],
                           {"-o": "out.cu", "--report": "r.json"}),
    "hfuse-plan": (["hfuse-plan", *HFUSE], ["a.cu", "b.cu", "util.h", "other.h"],
                   {"--report": "r.json"}),
}


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(main, args)


def command_line(command: str, paths: dict[str, str]) -> list[str]:
    base, _, _ = COMMANDS[command]
    return [*base, *(a for option, path in paths.items() for a in (option, path))]


def cases() -> list[tuple[str, str, str]]:
    out = []
    for command, (_, inputs, outputs) in COMMANDS.items():
        for option in outputs:
            targets = inputs + [p for o, p in outputs.items() if o != option]
            out += [(command, option, target) for target in targets]
    return out


@pytest.mark.parametrize("command, option, target", cases())
def test_output_over_an_input_or_another_output(work: Path, command: str, option: str,
                                                target: str) -> None:
    _, inputs, outputs = COMMANDS[command]
    before = snapshot(work)
    res = invoke(command_line(command, {**outputs, option: target}))
    assert res.exit_code == 2, res.output
    if target in inputs:
        assert f"error: {option} '{target}' would overwrite an input of this run; " \
               "cudafuse never modifies its inputs" in res.stderr
    else:
        # The later of the two options on the command line is the one blamed.
        other = next(o for o, p in outputs.items() if p == target)
        first, second = sorted((option, other), key=list(outputs).index)
        assert f"error: {second} '{target}' is also written by {first}" in res.stderr
    assert snapshot(work) == before


def missing_dir_cases() -> list[tuple[str, str]]:
    return [(command, option) for command, (_, _, outputs) in COMMANDS.items()
            for option in outputs]


@pytest.mark.parametrize("command, option", missing_dir_cases())
def test_output_in_a_missing_directory(work: Path, command: str, option: str) -> None:
    _, _, outputs = COMMANDS[command]
    before = snapshot(work)
    res = invoke(command_line(command, {**outputs, option: "nodir/x"}))
    assert res.exit_code == 1, res.output
    assert f"error: {option} 'nodir/x': directory 'nodir' does not exist" in res.stderr
    assert snapshot(work) == before


@pytest.mark.parametrize("command", ["fuse", "hfuse"])
def test_the_default_depfile_is_checked_too(work: Path, command: str) -> None:
    """-MD without -MF writes OUT.d: it must not be an input either."""
    (work / "util.h").rename(work / "out.cu.d")
    for name in ("chain.cu", "a.cu"):
        (work / name).write_text((work / name).read_text().replace("util.h", "out.cu.d"))
    base, _, _ = COMMANDS[command]
    before = snapshot(work)
    res = invoke([*base, "-o", "out.cu"])
    assert res.exit_code == 2, res.output
    assert "error: -MD 'out.cu.d' would overwrite an input of this run" in res.stderr
    assert snapshot(work) == before


@pytest.mark.parametrize("command", ["fuse", "plan", "hfuse", "hfuse-plan"])
def test_report_to_standard_output_is_refused(work: Path, command: str) -> None:
    base = COMMANDS[command][0]
    outputs = {"-o": "out.cu"} if command in ("fuse", "hfuse") else {}
    before = snapshot(work)
    res = invoke([*base, *(a for kv in outputs.items() for a in kv), "--report", "-"])
    assert res.exit_code == 2, res.output
    assert "error: --report '-': only -o writes to standard output; name a file" in res.stderr
    assert snapshot(work) == before


@pytest.mark.parametrize("command", ["fuse", "hfuse"])
@pytest.mark.parametrize("depfile", [["-MD"], ["-MF", "dep.d"]])
def test_depfile_needs_an_output_file(work: Path, command: str, depfile: list[str]) -> None:
    base = [a for a in COMMANDS[command][0] if a != "-MD"]
    before = snapshot(work)
    res = invoke([*base, "-o", "-", *depfile])
    assert res.exit_code == 2, res.output
    assert f"error: {depfile[0]}: a depfile names the output file as its target; -o - has " \
           "none" in res.stderr
    assert snapshot(work) == before


@pytest.mark.parametrize("command", ["fuse", "hfuse"])
def test_an_output_that_is_a_directory(work: Path, command: str) -> None:
    (work / "sub").mkdir()
    before = snapshot(work)
    res = invoke([*COMMANDS[command][0], "-o", "out.cu", "--report", "sub"])
    assert res.exit_code == 2, res.output
    assert "error: --report 'sub' is a directory" in res.stderr
    assert snapshot(work) == before


@pytest.mark.parametrize("command", ["fuse", "hfuse"])
def test_all_outputs_written_together(work: Path, command: str) -> None:
    base = COMMANDS[command][0]
    res = invoke([*base, "-o", "out.cu", "--report", "r.json"])
    assert res.exit_code == 0, res.output
    made = sorted(set(snapshot(work)) - set(FILES))
    assert made == ["out.cu", "out.cu.d", "r.json"]


def test_dev_null_takes_several_outputs(work: Path) -> None:
    before = snapshot(work)
    res = invoke(["fuse", "chain.cu", "-o", "/dev/null", "--report", "/dev/null",
                  "--dot", "/dev/null"])
    assert res.exit_code == 0, res.output
    assert Path("/dev/null").is_char_device()
    assert snapshot(work) == before


def test_failed_fuse_writes_nothing(work: Path) -> None:
    """A bad input after the outputs were checked: no target, no temporary."""
    (work / "chain.cu").write_text(CHAIN.replace("q[i] = p[i] + 1.0f;", "q[i] = ;"))
    before = snapshot(work)
    res = invoke(["fuse", "chain.cu", "-o", "out.cu", "--report", "r.json", "--dot",
                  "g.dot", "-MD"])
    assert res.exit_code == 1
    assert "chain.cu:8:21: error: expected expression" in res.stderr
    assert snapshot(work) == before


def _fail(*args: object, **kwargs: object) -> None:
    from cudafuse.profile.hfuse_profile import ProfileFailed

    raise ProfileFailed("a candidate computed wrong values", {"failed": True})


@pytest.mark.parametrize("command, target", [
    ("fuse-profile", "cudafuse.profile.vertical.profile_fuse"),
    ("hfuse-profile", "cudafuse.profile.hfuse_profile.profile_pair"),
])
def test_profile_failure_writes_the_report_only(work: Path, monkeypatch: pytest.MonkeyPatch,
                                               command: str, target: str) -> None:
    """The report explains the failure, so it is written; the output and depfile are not."""
    monkeypatch.setattr(target, _fail)
    res = invoke(command_line(command, {"-o": "out.cu", "--report": "r.json"}))
    assert res.exit_code == 1, res.output
    assert "error: a candidate computed wrong values" in res.stderr
    assert sorted(set(snapshot(work)) - set(FILES)) == ["r.json"]
    assert '"failed": true' in (work / "r.json").read_text()


@pytest.mark.parametrize("outputs, failing", [
    (["-o", "out.cu", "--report", "/dev/full", "--dot", "g.dot", "-MD"], "--report '/dev/full'"),
    (["-o", "/dev/full", "--report", "r.json", "--dot", "g.dot"], "-o '/dev/full'"),
    (["-o", "out.cu", "--report", "r.json", "--dot", "/proc/cudafuse-g.dot"],
     "--dot '/proc/cudafuse-g.dot'"),
])
def test_one_output_that_cannot_be_written_writes_none(work: Path, outputs: list[str],
                                                       failing: str) -> None:
    """A device that refuses the data, a directory nothing can be created in: exit 1, the
    error names the option, and no other output (nor a temporary) appears."""
    (work / "out.cu").write_text("previous output\n")
    before = snapshot(work)
    res = invoke(["fuse", "chain.cu", *outputs])
    assert res.exit_code == 1, res.output
    assert f"error: {failing}: cannot write: " in res.stderr
    assert "no output of this run was written" in res.stderr
    assert snapshot(work) == before
