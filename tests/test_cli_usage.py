"""User mistakes on the command line: usage errors (exit 2) with a message saying what is
accepted, never 'libclang could not parse' or an internal error; and warnings for options
and runs that would silently do nothing (a --scratch typo, a file with nothing to fuse).
Every test checks that no file was written or changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main

CHAIN = """__global__ void a(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * i;
}
__global__ void b(const float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i] + 1.0f;
}
void run(float *tmp, float *out, int n) {
  a<<<(n + 255) / 256, 256>>>(tmp, n);
  b<<<(n + 255) / 256, 256>>>(tmp, out, n);
}
"""
TWO = """__global__ void k1(float *p) { p[threadIdx.x] = 1.0f; }
__global__ void k2(int *q) { q[threadIdx.x] = 2; }
"""
HOST_ONLY = "int add(int a, int b) { return a + b; }\n"


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in (("chain.cu", CHAIN), ("two.cu", TWO), ("host.cu", HOST_ONLY)):
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def usage_error(work: Path, *args: str) -> str:
    before = snapshot(work)
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert snapshot(work) == before
    return res.stderr


@pytest.mark.parametrize("args", [
    ["analyze", "chain.cu"], ["plan", "chain.cu"], ["fuse", "chain.cu", "-o", "o.cu"],
    ["hfuse", "two.cu", "--kernels", "k1,k2", "-o", "o.cu"],
    ["hfuse-plan", "two.cu", "--kernels", "k1,k2"],
])
@pytest.mark.parametrize("arch", ["sm_7", "sm_100", "compute_90", "90"])
def test_unknown_arch(work: Path, args: list[str], arch: str) -> None:
    err = usage_error(work, *args, "--arch", arch)
    assert f"Error: Invalid value for '--arch': '{arch}' is not one of sm_20, " in err
    assert "sm_89, sm_90, sm_90a (the architectures clang 18 parses CUDA for" in err


@pytest.mark.parametrize("arch", ["sm_75", "sm_90a"])
def test_known_arch(work: Path, arch: str) -> None:
    res = invoke("analyze", "chain.cu", "--arch", arch)
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("args", [
    ["analyze", "chain.cu", "two.cu"], ["plan", "chain.cu", "two.cu"],
    ["fuse", "chain.cu", "two.cu", "-o", "o.cu"],
    ["analyze", "chain.cu", "--", "-Wall", "two.cu"],
])
def test_a_second_input_file(work: Path, args: list[str]) -> None:
    err = usage_error(work, *args)
    assert "Error: unexpected argument 'two.cu': this command takes one FILE (extra clang " \
           "arguments follow `--` and are options" in err


def test_clang_options_with_file_values_are_accepted(work: Path) -> None:
    (work / "inc").mkdir()
    (work / "pre.h").write_text("#define PRE 1\n")
    res = invoke("analyze", "chain.cu", "--", "-isystem", "inc", "-include", "pre.h")
    assert res.exit_code == 0, res.output


def test_debug_after_the_subcommand(work: Path) -> None:
    res = invoke("fuse", "chain.cu", "-o", "o.cu", "--debug")
    assert res.exit_code == 0, res.output
    assert (work / "o.cu").exists()


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("simulated bug")


def test_debug_after_the_subcommand_shows_the_traceback(work: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.setattr("cudafuse.cli.analyze.parse_file", _boom)
    res = invoke("analyze", "chain.cu", "--debug")
    assert res.exit_code == 3
    assert "Traceback" in res.stderr and "internal error: RuntimeError" in res.stderr


def test_debug_after_double_dash_goes_to_clang(work: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """After `--` everything is clang's: --debug is not the group's flag there."""
    seen = []
    monkeypatch.setattr("cudafuse.cli.analyze.parse_file",
                        lambda path, opts: seen.append(opts.extra_args) or _boom())
    res = invoke("analyze", "chain.cu", "--", "--debug")
    assert res.exit_code == 3 and seen == [("--debug",)]
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("args, message", [
    (["hfuse-plan", "two.cu", "--kernels", "k1,k2", "--jobs", "-1"],
     "Invalid value for '--jobs': -1 is not in the range x>=0"),
    (["hfuse", "two.cu", "--kernels", "k1,k2", "-o", "o.cu", "--name", "my kernel"],
     "error: --name must be a C identifier, not 'my kernel'"),
    (["fuse", "chain.cu", "-o", "o.cu", "--block", "0x8"],
     "error: --block takes XxY with at most 1024 threads (32x8), not '0x8'"),
])
def test_bad_option_values(work: Path, args: list[str], message: str) -> None:
    assert message in usage_error(work, *args)


def test_scratch_typo_is_a_warning_with_a_suggestion(work: Path) -> None:
    res = invoke("fuse", "chain.cu", "-o", "o.cu", "--scratch", "tpm")
    assert res.exit_code == 0, res.output
    assert res.stderr == (
        "chain.cu: warning: scratch 'tpm' is not a pointer parameter of any host function "
        "that launches kernels (did you mean 'tmp'?); it changes nothing\n")


def test_scratch_lists_the_parameters_when_nothing_is_close(work: Path) -> None:
    before = snapshot(work)
    res = invoke("plan", "chain.cu", "--scratch", "img")
    assert res.exit_code == 0, res.output
    assert "warning: scratch 'img' is not a pointer parameter of any host function that " \
           "launches kernels (they are: out, tmp); it changes nothing" in res.stderr
    assert snapshot(work) == before


def test_scratch_in_a_file_without_launches(work: Path) -> None:
    res = invoke("fuse", "two.cu", "-o", "o.cu", "--scratch", "p")
    assert res.exit_code == 0, res.output
    assert "warning: scratch 'p' is not a pointer parameter of any host function that " \
           "launches kernels (there are none); it changes nothing" in res.stderr
    assert (work / "o.cu").read_text() == TWO


def test_scratch_comma_list_equals_repeated_option(work: Path) -> None:
    one = invoke("fuse", "chain.cu", "-o", "a.cu", "--scratch", "tmp,out")
    two = invoke("fuse", "chain.cu", "-o", "b.cu", "--scratch", "tmp", "--scratch", "out")
    assert one.exit_code == two.exit_code == 0
    assert one.stderr == two.stderr == ""
    assert (work / "a.cu").read_bytes() == (work / "b.cu").read_bytes()
    # 'tmp' as scratch changes the output: the fused kernel no longer stores it.
    invoke("fuse", "chain.cu", "-o", "c.cu")
    assert (work / "c.cu").read_bytes() != (work / "a.cu").read_bytes()


def test_nothing_to_fuse_points_to_hfuse(work: Path) -> None:
    before = snapshot(work)
    res = invoke("plan", "two.cu")
    assert res.exit_code == 0
    assert res.stderr == (
        "two.cu: warning: nothing to fuse: no host function launches two or more dependent "
        "kernels\n"
        "two.cu: note: to fuse two independent kernels horizontally: cudafuse hfuse two.cu "
        "--kernels k1,k2 -o OUT.cu\n")
    assert res.stdout == ""
    assert snapshot(work) == before


def test_nothing_to_fuse_in_a_file_without_kernels(work: Path) -> None:
    res = invoke("fuse", "host.cu", "-o", "o.cu")
    assert res.exit_code == 0
    assert res.stderr == (
        "host.cu: note: no kernels (__global__ function definitions) found\n"
        "host.cu: warning: nothing to fuse: no host function launches two or more dependent "
        "kernels\n")
    assert (work / "o.cu").read_text() == HOST_ONLY


def test_a_fusible_file_gets_no_such_warning(work: Path) -> None:
    res = invoke("plan", "chain.cu")
    assert res.exit_code == 0
    assert "nothing to fuse" not in res.stderr


@pytest.mark.parametrize("args, message", [
    (["analyze", ""], "Invalid value for 'FILE': an empty path"),
    (["fuse", "", "-o", "o.cu"], "Invalid value for 'FILE': an empty path"),
    (["hfuse", "two.cu", "", "-o", "o.cu"], "Invalid value for 'FILES...': an empty path"),
    (["fuse", "chain.cu", "-o", "o.cu", "--profile", "--spec", ""],
     "Invalid value for '--spec': an empty path"),
    (["hfuse", "two.cu", "--kernels", "k1,k2", "-o", "o.cu", "--from-profile", ""],
     "Invalid value for '--from-profile': an empty path"),
    (["fuse", "chain.cu", "-o", ""], "error: -o '': an empty path"),
    (["plan", "chain.cu", "--report", ""], "error: --report '': an empty path"),
    (["hfuse", "two.cu", "--kernels", "k1,k2", "-o", "o.cu", "-MF", ""],
     "error: -MF '': an empty path"),
])
def test_empty_paths(work: Path, args: list[str], message: str) -> None:
    """An unset shell variable: a usage error, not 'is a directory' or an internal error."""
    assert message in usage_error(work, *args)


def test_scratch_typo_under_profile(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--profile builds its variants elsewhere: the warning is given all the same."""
    from cudafuse.profile.hfuse_profile import ProfileFailed

    def fail(**kwargs: object) -> None:
        raise ProfileFailed("stopped here", {})

    monkeypatch.setattr("cudafuse.profile.vertical.profile_fuse", fail)
    arrays = "".join(f'[[args]]\nname = "{n}"\ndtype = "float32"\ncount = 64\n'
                     for n in ("tmp", "out"))
    (work / "s.toml").write_text(f'entry = "run"\n{arrays}[[args]]\nname = "n"\nvalue = 64\n')
    before = snapshot(work)
    res = invoke("fuse", "chain.cu", "-o", "o.cu", "--scratch", "tpm", "--profile", "--spec",
                 "s.toml", "--backend", "emu")
    assert res.exit_code == 1
    assert res.stderr == (
        "chain.cu: warning: scratch 'tpm' is not a pointer parameter of any host function "
        "that launches kernels (did you mean 'tmp'?); it changes nothing\n"
        "cudafuse: error: stopped here\n")
    assert snapshot(work) == before


@pytest.mark.parametrize("args", [
    ["fuse", "chain.cu", "-o", "o.cu", "--profile", "--spec", "s.toml"],
    ["hfuse", "two.cu", "--kernels", "k1,k2", "-o", "o.cu", "--profile", "--spec", "s.toml"],
    ["hfuse-plan", "two.cu", "--kernels", "k1,k2"],
])
def test_cache_dir_that_cannot_be_created(work: Path, args: list[str]) -> None:
    """Found before the run, not as an internal error when the first result is stored."""
    err = usage_error(work, *args, "--cache-dir", "chain.cu/cache")
    assert err == "cudafuse: error: --cache-dir 'chain.cu/cache': cannot create it: Not a " \
                  "directory\n"


@pytest.mark.parametrize("command", [["fuse", "chain.cu"], ["hfuse", "two.cu", "--kernels",
                                                           "k1,k2"]])
@pytest.mark.parametrize("margin", ["-5", "1", "1.5"])
def test_margin_is_a_fraction(work: Path, command: list[str], margin: str) -> None:
    err = usage_error(work, *command, "-o", "o.cu", "--profile", "--spec", "s.toml",
                      "--margin", margin)
    assert "Invalid value for '--margin'" in err and "is not in the range 0<=x<1." in err
