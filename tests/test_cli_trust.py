"""Messages a user must be able to trust (issue 27): an interrupt is exit 130 with nothing
written; notes beside the request only with -v or --explain; the API refuses what the CLI
refuses, with the same words; an emulator error names the program as the user spelled it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import cudafuse
from cudafuse.cli import CLANG_ARCHS, main
from test_cli_specs import CHAIN as SPEC_CHAIN

# The chain of test_cli_specs, with a main that runs it.
CHAIN = SPEC_CHAIN + """int main() {
  float *p, *q;
  int n = 1000;
  cudaMalloc(&p, n * 4);
  cudaMalloc(&q, n * 4);
  run(p, q, n);
  cudaDeviceSynchronize();
  return 0;
}
"""
# main running it twice, reading a result between the runs.
SPLIT = CHAIN.replace("  run(p, q, n);\n", "  run(p, q, n);\n  float x;\n  cudaMemcpy(&x, q, "
                      "sizeof x, cudaMemcpyDeviceToHost);\n  run(q, p, n);\n")
BREAK = "note: launches in 'main' are not fused across this statement"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "chain.cu").write_text(CHAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_interrupt_exits_130_and_writes_nothing(work: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("cudafuse.api.fuse", interrupted)
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "out.cu", "--report", "r.json"])
    assert res.exit_code == 130, res.output
    assert res.stderr == "cudafuse: interrupted\n"
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu"]


@pytest.mark.parametrize("flags", [[], ["-v"], ["--explain"]])
def test_main_fuses_through_its_call_of_run(work: Path, flags: list[str]) -> None:
    """`run(p, q, n)` in main stands for run's launches in main (wrappers.py), which fuse in
    a copy of run written at the call: no statement of main is a break, with or without
    -v (a break there was a note shown only on request)."""
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "out.cu", *flags])
    assert res.exit_code == 0, res.output
    assert "note:" not in res.stderr, res.stderr
    assert "/* cudafuse: a copy of 'run' */" in Path("out.cu").read_text()


def test_a_break_between_mains_launches_is_always_noted(work: Path) -> None:
    """A statement that splits main's own launches (through its calls of run) is a note of
    the pipeline main fuses, not a detail: shown without -v too."""
    (work / "chain.cu").write_text(SPLIT)
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "out.cu"])
    assert res.exit_code == 0, res.output
    assert f"{BREAK}: its call to 'cudaMemcpy' touches 'q'" in res.stderr, res.stderr


def test_verbose_may_precede_the_subcommand(work: Path) -> None:
    (work / "chain.cu").write_text(SPLIT)
    res = CliRunner().invoke(main, ["-v", "plan", "chain.cu"])
    assert res.exit_code == 0, res.output
    assert BREAK in res.stderr


def test_api_refuses_an_arch_as_the_cli_does(work: Path) -> None:
    with pytest.raises(cudafuse.Error) as info:
        cudafuse.fuse("chain.cu", arch="sm_100")
    assert info.value.status == 2
    message = info.value.diagnostics[0].message
    assert message.startswith("arch 'sm_100' is not one of sm_20, ")
    assert all(a in message for a in CLANG_ARCHS)
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "o.cu", "--arch", "sm_100"])
    assert res.exit_code == 2 and "'sm_100' is not one of sm_20, " in res.output


@pytest.mark.parametrize("scratch", [[1], 1, [None], ["p", b"q"]])
def test_api_scratch_must_be_names(work: Path, scratch: object) -> None:
    with pytest.raises(cudafuse.Error) as info:
        cudafuse.fuse("chain.cu", scratch=scratch)  # type: ignore[arg-type]
    assert info.value.status == 2
    assert info.value.diagnostics[0].message.startswith(
        "scratch takes names of pointer parameters (strings), not ")


EMPTY_GRID = """__global__ void k(float *p) { p[threadIdx.x] = 1; }
void run(float *p, int n) { k<<<n / 1024, 256>>>(p); }
"""
EMPTY_SPEC = """entry = "run"
[[args]]
name = "p"
dtype = "float32"
count = 256
role = "out"
[[args]]
name = "n"
value = 1
"""


def test_emulator_errors_name_the_program_as_spelled(work: Path) -> None:
    """An empty grid (a warning: the GPU refuses the launch and the program goes on): at the
    launch's line of `sub/../sub/g.cu` as given, never the resolved absolute path the build
    used."""
    (work / "sub").mkdir()
    (work / "sub" / "g.cu").write_text(EMPTY_GRID)
    (work / "g.toml").write_text(EMPTY_SPEC)
    res = CliRunner().invoke(main, ["run", "sub/../sub/g.cu", "--spec", "g.toml"])
    assert res.exit_code == 0, res.output
    assert res.stderr == ("sub/../sub/g.cu:2: warning: launch of 'k' with an empty grid "
                          "(0,1,1) or block (256,1,1): on a GPU it fails with "
                          "cudaErrorInvalidConfiguration and the kernel does not run\n")


def test_a_real_sigint_exits_130(work: Path) -> None:
    """The signal itself (not a raised KeyboardInterrupt): sent once the command is busy."""
    import signal
    import subprocess
    import sys

    script = ("import time, cudafuse.api as api\n"
              "def busy(*a, **k):\n"
              "    print('busy', flush=True)\n"
              "    time.sleep(60)\n"
              "api.fuse = busy\n"
              "from cudafuse.cli import main\n"
              "main(['fuse', 'chain.cu', '-o', 'out.cu', '--report', 'r.json'])\n")
    # A shell's background job (a CI runner's `cmd &`) starts with SIGINT ignored, which the
    # child would inherit, and Python installs no handler for an ignored signal: restore the
    # default, as an interactive terminal gives it.
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None and proc.stdout.readline() == "busy\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err == "cudafuse: interrupted\n"
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu"]


KERNEL = "__global__ void k(float *q) { q[threadIdx.x] = 1; }\n"
KERNEL_SPEC = """entry = "k"
[launch]
grid = {}
block = {}
[[args]]
name = "q"
dtype = "float32"
count = 1024
role = "out"
"""


@pytest.mark.parametrize("grid, block, message", [
    ("[1]", "[2048]", "launch.block: [2048] exceeds CUDA's limits (at most 1024 threads a "
                      "block, x and y <= 1024, z <= 64)"),
    ("[1]", "[1, 1, 65]", "launch.block: [1, 1, 65] exceeds CUDA's limits"),
    ("[1]", "[64, 32]", "launch.block: [64, 32] exceeds CUDA's limits"),
    ("[1, 70000]", "[32]", "launch.grid: [1, 70000] exceeds CUDA's limits (x <= 2^31 - 1, "
                           "y and z <= 65535)"),
])
def test_a_kernel_launch_beyond_cuda_limits_is_the_specs_error(work: Path, grid: str,
                                                               block: str, message: str) -> None:
    """Said at the spec's key before anything is built; the emulator's own check could only
    name its generated harness ('<python>:0')."""
    (work / "k.cu").write_text(KERNEL)
    (work / "k.toml").write_text(KERNEL_SPEC.format(grid, block))
    res = CliRunner().invoke(main, ["run", "k.cu", "--spec", "k.toml"])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("k.toml: error: " + message), res.stderr
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu", "k.cu", "k.toml"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", [["analyze", "chain.cu", "--format", "json"],
                                  ["fuse", "chain.cu", "-o", "-"]])
def test_standard_output_on_a_full_disk_is_exit_1(work: Path, args: list[str]) -> None:
    """The machine's state, as a missing output directory is: said once, exit 1 (it was an
    'internal error', exit 3), and nothing else written."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "cudafuse", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ("cudafuse: error: cannot write standard output: No space left on "
                           "device\n")
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu"]


def test_a_closed_standard_output_is_exit_1_when_written(work: Path) -> None:
    """`>&-`: Python makes sys.stdout None and click dropped the report without a word
    (exit 0); now a command that prints fails as on a full disk, one that prints nothing
    runs as usual."""
    import os
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cudafuse", *args],
                              stderr=subprocess.PIPE, text=True, timeout=120,
                              preexec_fn=lambda: os.close(1))

    printed = run("analyze", "chain.cu")
    assert printed.returncode == 1, printed.stderr
    assert printed.stderr == "cudafuse: error: cannot write standard output: it is closed\n"
    written = run("fuse", "chain.cu", "-o", "out.cu")
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu", "out.cu"]


@pytest.mark.parametrize("source", ["fifo.cu", "/dev/zero"])
def test_an_input_that_is_no_regular_file_is_refused_at_once(work: Path, source: str) -> None:
    """A pipe blocked (libclang opens it again after cudafuse read it) and /dev/zero never
    ended; a pipe already written gave 'clang dropped their declarations'."""
    import os

    if source == "fifo.cu":
        os.mkfifo(work / source)
    res = CliRunner().invoke(main, ["fuse", source, "-o", "out.cu"])
    assert res.exit_code == 1, res.output
    assert res.stderr == (f"{source}: error: not a regular file (a pipe, socket or device): "
                          "cudafuse reads a source file twice; save it to a file first\n")
    assert sorted(p.name for p in work.iterdir()) == sorted({"chain.cu", source} - {
        "/dev/zero"})


def test_a_spec_that_never_ends_is_refused(work: Path) -> None:
    """`--spec /dev/zero` read forever; a spec is read once and bounded (a pipe from
    `<(...)` still works: one read)."""
    res = CliRunner().invoke(main, ["run", "chain.cu", "--spec", "/dev/zero"])
    assert res.exit_code == 1, res.output
    assert res.stderr == "/dev/zero: error: larger than 16 MiB: not a spec (a small TOML file)\n"
    assert sorted(p.name for p in work.iterdir()) == ["chain.cu"]


def test_the_api_refuses_an_empty_path_as_the_cli_does(work: Path) -> None:
    """Path('') is the current directory: the API said "is a directory"; the CLI refuses ''
    as a usage error."""
    with pytest.raises(cudafuse.Error) as info:
        cudafuse.analyze("")
    assert info.value.status == 2
    assert info.value.diagnostics[0].message == "an empty path names no source file"
