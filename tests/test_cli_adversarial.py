"""Input a new user may give by mistake or on purpose (issue 27), each refused before any
build or parse with a one-line error and the right exit status (2: the command line, 1: the
spec or the machine), nothing written and no input changed. One generated table; every case
fails before the emulator or libclang would run, so the whole table costs a few seconds."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.execute import report
from cudafuse.runtime.spec import ArgSpec, load_spec

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
KERNEL = """__global__ void k(const float *p, float *q, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i];
}
"""


def host_spec(p: str = 'dtype = "float32"\ncount = 4', q: str = 'dtype = "float32"\ncount = 4'
              ) -> str:
    return (f'entry = "run"\n[[args]]\nname = "p"\n{p}\n[[args]]\nname = "q"\n{q}\n'
            'role = "out"\n[[args]]\nname = "n"\nvalue = 4\n')


def kernel_spec(launch: str) -> str:
    return (f'entry = "k"\n[launch]\ngrid = 1\nblock = 32\n{launch}\n'
            '[[args]]\nname = "p"\ndtype = "float32"\ncount = 32\n'
            '[[args]]\nname = "q"\ndtype = "float32"\ncount = 32\nrole = "out"\n'
            '[[args]]\nname = "n"\nvalue = 32\n')


RUN = ["run", "chain.cu", "--spec", "s.toml"]
# (id, command line, spec text, environment, exit status, what stderr says)
CASES = [
    ("timeout-inf", [*RUN, "--timeout", "inf"], host_spec(), {}, 2,
     "'--timeout': 'inf' is not a finite number"),
    ("timeout-nan", [*RUN, "--timeout", "nan"], host_spec(), {}, 2,
     "'--timeout': 'nan' is not a finite number"),
    ("margin-nan", ["fuse", "chain.cu", "-o", "o.cu", "--profile", "--spec", "s.toml",
                    "--margin", "nan"], host_spec(), {}, 2,
     "'--margin': 'nan' is not a finite number"),
    ("hfuse-margin-nan", ["hfuse", "chain.cu", "--kernels", "a,b", "-o", "o.cu", "--profile",
                          "--spec", "s.toml", "--margin=NaN"], host_spec(), {}, 2,
     "'--margin': 'NaN' is not a finite number"),
    ("define-empty", ["analyze", "chain.cu", "-D", ""], "", {}, 2,
     "-D '': a macro definition is NAME, NAME=VALUE or NAME(ARGS)=VALUE"),
    ("define-number", ["fuse", "chain.cu", "-o", "o.cu", "-D", "1=2"], "", {}, 2,
     "-D '1=2': a macro definition is"),
    ("define-after-dashes", ["plan", "chain.cu", "--", "-D", ""], "", {}, 2,
     "-D '': a macro definition is"),
    ("undefine-space", ["analyze", "chain.cu", "-U", "a b"], "", {}, 2,
     "-U 'a b': a macro name is an identifier"),
    ("std-c", ["analyze", "chain.cu", "-std=c11"], "", {}, 2,
     "-std 'c11': not a C++ standard"),
    ("std-unknown", [*RUN, "--std", "c++99"], host_spec(), {}, 2,
     "-std 'c++99': not a C++ standard"),
    ("hfuse-name-not-ascii", ["hfuse", "chain.cu", "--kernels", "a,b", "--block1", "256",
                              "--block2", "256", "-o", "o.cu", "--name", "\u00f1ame"], "", {},
     2, "--name must be a C identifier, not '\u00f1ame'"),
    ("cache-is-a-file", RUN, host_spec(), {"CUDAFUSE_CACHE_DIR": "chain.cu"}, 1,
     "cannot create the build cache 'chain.cu'"),
    ("xdg-cache-under-a-file", RUN, host_spec(),
     {"CUDAFUSE_CACHE_DIR": None, "XDG_CACHE_HOME": "chain.cu"}, 1,
     "cannot create the build cache 'chain.cu/cudafuse': Not a directory"),
    ("home-is-a-file", RUN, host_spec(),
     {"CUDAFUSE_CACHE_DIR": None, "XDG_CACHE_HOME": None, "HOME": "chain.cu"}, 1,
     "cannot create the build cache 'chain.cu/.cache/cudafuse'"),
    ("shared-past-64-bits", ["run", "k.cu", "--spec", "s.toml"], kernel_spec("shared = 1e308"),
     {}, 1, "s.toml: error: launch.shared: 1e+308 bytes of dynamic shared memory; no GPU "
     "gives a block more than 232448 (227 KiB)"),
    ("shared-past-any-gpu", ["run", "k.cu", "--spec", "s.toml"],
     kernel_spec("shared = 232449"), {}, 1, "launch.shared: 232449 bytes"),
    ("dtype-nul", RUN, host_spec(p='dtype = "\\u0000"\ncount = 4'), {}, 1,
     "s.toml: error: args[0] 'p'.dtype: unknown dtype '\\x00'"),
    ("dtype-type-code", RUN, host_spec(q='dtype = "?"\ncount = 4'), {}, 1,
     "args[1] 'q'.dtype: unknown dtype '?'"),
    # (/dev/zero was read whole by the build: the machine ran out of memory)
    ("run-a-device", ["run", "/dev/null", "--spec", "s.toml"], host_spec(), {}, 1,
     "/dev/null: error: not a regular file (a pipe, socket or device)"),
    ("verify-a-device", ["verify", "chain.cu", "/dev/null", "--spec", "s.toml"], host_spec(),
     {}, 1, "/dev/null: error: not a regular file (a pipe, socket or device)"),
    ("include-a-device", ["analyze", "chain.cu", "-include", "/dev/null"], "", {}, 2,
     "-include '/dev/null': not a regular file (a device or pipe)"),
    ("imacros-a-device", ["fuse", "chain.cu", "-o", "o.cu", "-imacros", "/dev/null"], "", {},
     2, "-imacros '/dev/null': not a regular file (a device or pipe)"),
    ("from-profile-a-device", ["hfuse", "chain.cu", "--kernels", "a,b", "-o", "o.cu",
                               "--from-profile", "/dev/null"], "", {}, 2,
     "'--from-profile': '/dev/null' is not a regular file (a device or pipe)"),
    ("verify-empty-outputs", ["verify", "chain.cu", "chain.cu", "--spec", "s.toml"],
     host_spec(q='dtype = "float32"\ncount = 0'), {}, 1,
     "s.toml: error: every output of the spec has count 0: there would be nothing to "
     "compare"),
]


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv, spec, env, status, message",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 argv: list[str], spec: str, env: dict[str, str | None],
                                 status: int, message: str) -> None:
    (tmp_path / "chain.cu").write_text(CHAIN)
    (tmp_path / "k.cu").write_text(KERNEL)
    if spec:
        (tmp_path / "s.toml").write_text(spec)
    monkeypatch.chdir(tmp_path)
    for key, value in env.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == status, res.output
    assert message in res.stderr, res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.output
    said = [line for line in res.stderr.splitlines()  # besides click's usage lines
            if line and not line.startswith(("Usage: ", "Try '"))]
    assert len(said) == 1, res.stderr
    assert snapshot(tmp_path) == before


def test_the_spec_limits_agree_with_the_emulator() -> None:
    """The spec refuses what the emulator's dynamic shared memory cannot hold, no less."""
    from cudafuse.runtime.spec import MAX_DYNAMIC_SHARED

    header = Path(__file__).parents[1] / "src/cudafuse/emu/include/cudafuse_emu.h"
    assert f"g_dyn_smem[{MAX_DYNAMIC_SHARED}]" in header.read_text()


def test_a_spec_at_the_shared_limit_loads(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(kernel_spec("shared = 232448"))
    assert load_spec(str(tmp_path / "s.toml")).shared == 232448


@pytest.mark.parametrize("dtype, name", [("float32", "float32"), ("f4", "float32"),
                                         ("<f4", "float32"), ("u1", "uint8"),
                                         ("bool", "bool")])
def test_dtype_spellings_still_load(tmp_path: Path, dtype: str, name: str) -> None:
    (tmp_path / "s.toml").write_text(host_spec(p=f'dtype = "{dtype}"\ncount = 4'))
    assert load_spec(str(tmp_path / "s.toml")).args[0].dtype == np.dtype(name)


@pytest.mark.parametrize("got, warned", [(np.array([0.0, 4e-7], np.float32), True),
                                         (np.zeros(2, np.float32), False),
                                         (np.array([0.0, 1.0], np.float32), False)])
def test_an_all_zero_original_passing_by_atol_is_a_warning(
        capsys: pytest.CaptureFixture[str], got: np.ndarray, warned: bool) -> None:
    """atol 1e-6 against an original that is all zero: 4e-7 passes, but only by the
    tolerance, which verify says (a mismatch, 1.0, is a mismatch and no warning)."""
    arg = ArgSpec("q", np.dtype("float32"), 2, role="out", shape=(2,))
    ok = report([(arg, np.zeros(2, np.float32), got)], 1e-5, 1e-6, "s.toml")
    err = capsys.readouterr().err
    assert ok == (got[1] < 1e-6)
    assert ("s.toml: warning: the original's 'q' is all zero; the transformed program's "
            "differs by up to 4e-07, within atol 1e-06" in err) is warned, err


def test_an_interrupt_while_the_command_line_loads_exits_130() -> None:
    """Ctrl-C during `from cudafuse.cli import main` (a second or more on a busy machine)
    exits 130 with one line, as once a command runs, not with an import's traceback."""
    code = ("import os, signal, sys\n"
            "class Hook:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'click':\n"
            "            os.kill(os.getpid(), signal.SIGINT)\n"
            "        return None\n"
            "sys.meta_path.insert(0, Hook())\n"
            "from cudafuse.cli import main\n"
            "print('not reached')\n")
    before = signal.getsignal(signal.SIGINT)
    # (the child as a terminal would start it: a run started in the background, as CI may
    # be, inherits SIGINT ignored, which Python and cudafuse rightly keep ignoring)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"},
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, done.stderr
    assert done.stderr == "cudafuse: interrupted\n"
    assert done.stdout == ""
    assert signal.getsignal(signal.SIGINT) is before  # this process's, left as it was


def test_an_interrupt_while_parsing_the_command_line_exits_130(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Group, "parse_args", interrupted)
    res = CliRunner().invoke(main, ["analyze", "x.cu"])
    assert res.exit_code == 130
    assert res.stderr == "cudafuse: interrupted\n"


@pytest.mark.parametrize("command", [["analyze", "chain.cu"], ["fuse", "chain.cu", "-o", "o.cu"]])
def test_a_database_command_with_an_open_quote_is_an_error_at_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    """shlex's 'No closing quotation' used to be exit 3."""
    (tmp_path / "chain.cu").write_text(CHAIN)
    (tmp_path / "cc.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "chain.cu",
        "command": 'nvcc -I"unterminated -c chain.cu'}]))
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, [*command, "-p", "cc.json"])
    assert res.exit_code == 1, res.output
    assert res.stderr == (f"cc.json: error: not a valid compilation database: the command of "
                          f"{tmp_path.resolve() / 'chain.cu'} cannot be split into arguments "
                          "(No closing quotation)\n")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("data, message", [
    (None, "r.json: error: cannot read the profiling report: No such file or directory"),
    (b"\x8d\x00{", "r.json: error: cannot read a profiling report: not UTF-8 text"),
    (b"entry = 1\n", "r.json: error: cannot read a profiling report: not JSON (Expecting "
                     "value, line 1 column 1)"),
    (b"{}", "r.json: error: not a cudafuse profiling report (it has no 'format')"),
])
def test_hfuse_from_profile_says_what_is_wrong_with_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes | None,
        message: str) -> None:
    """Once said as 'r.json: error: r.json: cannot read a profiling report: [Errno 2] No such
    file or directory: 'r.json'' or as Python's codec and JSON messages."""
    (tmp_path / "chain.cu").write_text(CHAIN)
    if data is not None:
        (tmp_path / "r.json").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, ["hfuse", "chain.cu", "--kernels", "a,b", "--block1", "256",
                                    "--block2", "256", "-o", "o.cu", "--from-profile",
                                    "r.json"])
    assert res.exit_code == 1, res.output
    assert res.stderr == message + "\n"
    assert snapshot(tmp_path) == before


ACCUMULATE = """__global__ void add(const float *p, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(acc, p[i]);
}
__global__ void scale(const float *acc, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = acc[0] * 2.0f;
}
void run(const float *p, float *q, int n) {
  float *acc;
  cudaMalloc(&acc, sizeof(float));
  cudaMemset(acc, 0, sizeof(float));
  add<<<(n + 63) / 64, 64>>>(p, acc, n);
  scale<<<(n + 63) / 64, 64>>>(acc, q, n);
  cudaFree(acc);
}
"""


@pytest.mark.slow  # two programs built, three emulated runs: about 20 CPU-s
def test_verify_catches_a_transformed_program_reading_memory_nothing_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transformed program that lost the cudaMemset of its accumulator read the emulator's
    default fill (zeros) and 'matched'; it now runs on 0xff bytes (NaN): a mismatch, with a
    note at the allocation the kernel was given unwritten."""
    (tmp_path / "orig.cu").write_text(ACCUMULATE)
    (tmp_path / "bad.cu").write_text(ACCUMULATE.replace(
        "  cudaMemset(acc, 0, sizeof(float));\n", ""))
    (tmp_path / "s.toml").write_text(
        host_spec(p='dtype = "float32"\ncount = 4\ninit = "ramp"', q='dtype = "float32"\n'
                  'count = 4'))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["verify", "orig.cu", "bad.cu", "--spec", "s.toml"])
    assert res.exit_code == 1, res.output
    assert "q: max abs err inf, max rel err inf: MISMATCH in 4 of 4" in res.stdout
    assert "first difference at [0] (element 0): expected 12.0, got nan" in res.stdout
    assert ("bad.cu:11: note: allocated here: kernel 'add' (launched at bad.cu:12) was given "
            "it while 4 of its 4 bytes held the fill (the first at byte 0): never written, "
            "or written with 0xff bytes") in res.stderr
    assert res.stderr.endswith("bad.cu: outputs differ from orig.cu\n")


@pytest.mark.parametrize("name, status", [("chain.cu", 0), ("missing.cu", 1)])
def test_a_closed_standard_error_keeps_the_exit_status(tmp_path: Path, name: str,
                                                       status: int) -> None:
    """`cudafuse analyze f.cu 2>&-`: Python starts with sys.stderr None, and printing the
    diagnostics was an internal error (exit 3)."""
    (tmp_path / "chain.cu").write_text(CHAIN)
    code = "import sys; from cudafuse.cli import main; sys.argv[1:] = ['analyze', %r]; main()"
    done = subprocess.run(["sh", "-c", '"$0" -c "$1" 2>&- >/dev/null', sys.executable,
                           code % name], cwd=tmp_path, timeout=120)
    assert done.returncode == status


def _header_program(tmp_path: Path) -> None:
    (tmp_path / "k.cuh").write_text("#pragma once\n" + CHAIN.split("__global__ void b")[0])
    (tmp_path / "m.cu").write_text('#include "k.cuh"\n__global__ void b' +
                                   CHAIN.split("__global__ void b")[1])
    (tmp_path / "s.toml").write_text(host_spec())


def test_run_save_never_replaces_a_header_the_program_includes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run m.cu --save k.cuh` replaced the header m.cu includes (only the source and the
    spec were known inputs). The run (faked here) reports the build's includes; --save is
    checked against them before anything is written."""
    _header_program(tmp_path)
    monkeypatch.chdir(tmp_path)

    def fake_run(path: str, spec: object, *args: object, read_files: list[str],
                 **kwargs: object) -> list[object]:
        read_files.append(str((tmp_path / "k.cuh").resolve()))
        return [np.zeros(4, np.float32), np.ones(4, np.float32), 4]

    monkeypatch.setattr("cudafuse.cli.run.run_spec", fake_run)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, ["run", "m.cu", "--spec", "s.toml", "--save", "k.cuh"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("cudafuse: error: --save 'k.cuh' would overwrite an input of "
                                 "this run")
    assert snapshot(tmp_path) == before


@pytest.mark.slow  # one emulated build and run
def test_run_save_knows_the_headers_of_a_real_build(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _header_program(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, ["run", "m.cu", "--spec", "s.toml", "--save", "./k.cuh"])
    assert res.exit_code == 2, res.output
    assert "--save './k.cuh' would overwrite an input of this run" in res.stderr
    assert snapshot(tmp_path) == before


KERNEL_SPEC = ('entry = "{}"\n[launch]\ngrid = 1\nblock = 32\n[[args]]\nname = "p"\n'
               'dtype = "float32"\ncount = 32\n[[args]]\nname = "n"\nvalue = 32\n')


@pytest.mark.parametrize("key, value, message", [
    ("block1", "[1025]", "block1: [1025] exceeds CUDA's limits (at most 1024 threads a block"),
    ("grid2", "[2147483648]", "grid2: [2147483648] exceeds CUDA's limits (x <= 2^31 - 1"),
    ("shared2", "1e308", "shared2: 1e+308 bytes of dynamic shared memory; no GPU gives a block "
                         "more than 232448"),
])
def test_verify_hfuse_pair_spec_launch_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              key: str, value: str, message: str) -> None:
    """A pair spec's launches past CUDA's limits reached the emulator truncated to 32 or 64
    bits (a block of 2^64 + 32 threads ran as 32)."""
    (tmp_path / "chain.cu").write_text(CHAIN)
    (tmp_path / "a.toml").write_text(KERNEL_SPEC.format("a"))
    (tmp_path / "b.toml").write_text(KERNEL_SPEC.format("a"))
    pair = {"kernel1": '"a"', "kernel2": '"a"', "spec1": '"a.toml"', "spec2": '"b.toml"',
            "grid1": "[1]", "grid2": "[1]", "block1": "[32]", "block2": "[32]", key: value}
    (tmp_path / "pair.toml").write_text("".join(f"{k} = {v}\n" for k, v in pair.items()))
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    res = CliRunner().invoke(main, ["verify", "--hfuse", "chain.cu", "chain.cu", "chain.cu",
                                    "--spec", "pair.toml"])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith(f"pair.toml: error: pair 'pair': {message}"), res.stderr
    assert res.stderr.count("\n") == 1
    assert snapshot(tmp_path) == before


def test_sigterm_unwinds_as_an_interrupt_and_exits_143(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """kill (SIGTERM) used to end the process where it stood (status -15), leaving the
    emulator's temporary directories behind; it now unwinds as Ctrl-C does."""
    import time

    (tmp_path / "chain.cu").write_text(CHAIN)
    monkeypatch.chdir(tmp_path)

    def killed(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises at the next bytecode
        raise AssertionError("SIGTERM was not handled")

    monkeypatch.setattr("cudafuse.api.fuse", killed)
    before = signal.getsignal(signal.SIGTERM)
    res = CliRunner().invoke(main, ["fuse", "chain.cu", "-o", "out.cu", "--report", "r.json"])
    assert res.exit_code == 143, res.output
    assert res.stderr == "cudafuse: terminated\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.cu"]
    assert signal.getsignal(signal.SIGTERM) is before  # the command's handler is gone


@pytest.mark.parametrize("name", [5, "\u00f1ame", "a b", b"k"])
def test_api_hfuse_name_must_be_an_ascii_identifier(tmp_path: Path, name: object) -> None:
    """name=5 was an AttributeError; a non-ASCII name failed the emitted file's compile."""
    import cudafuse

    (tmp_path / "chain.cu").write_text(CHAIN)
    with pytest.raises(cudafuse.Error) as info:
        cudafuse.hfuse(str(tmp_path / "chain.cu"), kernels="a,b", block1=256, block2=256,
                       name=name)  # type: ignore[arg-type]
    assert info.value.status == 2
    assert info.value.diagnostics[0].message.startswith("name must be a C identifier, not ")
