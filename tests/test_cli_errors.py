"""Bad input through the CLI: a clear `file[:line:col]: error: ...`, exit status 1 (2 for usage
errors, 3 for internal errors), and never a Python traceback unless --debug asks for one.

A file without kernels is not an error: `analyze` succeeds with an empty report and a note.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

KERNEL = "__global__ void k(float *p, int n) { if (threadIdx.x < n) p[threadIdx.x] = 1; }\n"


def run(exe: str, *args: str, user: str | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [exe, *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_missing_file(cudafuse_exe: str, tmp_path: Path) -> None:
    path = tmp_path / "nope.cu"
    proc = run(cudafuse_exe, "analyze", str(path))
    assert proc.returncode == 1
    assert proc.stderr == f"{path}: error: no such file\n"


@pytest.mark.parametrize("args", [
    ["analyze", "{d}"], ["plan", "{d}"], ["fuse", "{d}", "-o", "{d}/o.cu"],
    ["hfuse", "{d}", "--kernels", "a,b", "-o", "{d}/o.cu"],
    ["hfuse-plan", "{d}", "--kernels", "a,b"],
    ["run", "{d}", "--spec", "s.toml"], ["verify", "{d}", "{d}", "--spec", "s.toml"],
])
def test_directory_is_a_usage_error_everywhere(cudafuse_exe: str, tmp_path: Path,
                                               args: list[str]) -> None:
    proc = run(cudafuse_exe, *(a.format(d=tmp_path) for a in args))
    assert proc.returncode == 2
    assert "Error: Invalid value for '" in proc.stderr
    assert f"'{tmp_path}' is a directory." in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_binary_junk(cudafuse_exe: str, tmp_path: Path) -> None:
    junk = tmp_path / "junk.cu"
    junk.write_bytes(bytes(range(256)) * 8)
    proc = run(cudafuse_exe, "analyze", str(junk))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{junk}: error: file looks binary")


def test_invalid_utf8(cudafuse_exe: str, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.cu"
    bad.write_bytes(b"// caf\xe9\n" + KERNEL.encode())
    proc = run(cudafuse_exe, "analyze", str(bad))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{bad}:1:7: error: file is not valid UTF-8 text")


def test_syntax_error(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "s.cu"
    src.write_text("__global__ void k(float *p) {\n  p[0] = 1.0f\n}\n")
    proc = run(cudafuse_exe, "analyze", str(src))
    assert proc.returncode == 1
    assert proc.stderr == (f"{src}:2:14: error: expected ';' after expression\n"
                           "  p[0] = 1.0f\n             ^\n")
    assert proc.stdout == ""


def test_cxx_errors_are_all_listed(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "e.cu"
    src.write_text("__global__ void k(float *p) { p[0] = undefined_a; }\n"
                   "class C { void f() { undefined_b(); } };\n")
    proc = run(cudafuse_exe, "analyze", str(src))
    assert proc.returncode == 1
    lines = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    assert [ln.split(": error: ")[0] for ln in lines] == [f"{src}:1:38", f"{src}:2:22"]


def test_file_without_kernels_succeeds_with_a_note(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "host.cu"
    src.write_text("int add(int a, int b) { return a + b; }\n")
    proc = run(cudafuse_exe, "analyze", "--format", "json", str(src))
    assert proc.returncode == 0
    assert proc.stderr == f"{src}: note: no kernels (__global__ function definitions) found\n"
    assert '"kernels": []' in proc.stdout


def test_empty_file_succeeds(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "empty.cu"
    src.write_text("")
    proc = run(cudafuse_exe, "analyze", str(src))
    assert proc.returncode == 0 and "note: no kernels" in proc.stderr


def test_missing_header_warns_and_succeeds(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "m.cu"
    src.write_text('#include "mylib.h"\n' + KERNEL +
                   "void uses_lib(LibType *p) { p->v = 0; }\n")
    proc = run(cudafuse_exe, "analyze", "--format", "json", str(src))
    assert proc.returncode == 0
    assert f"{src}:1:10: warning: 'mylib.h' file not found; analysing without it" in proc.stderr
    assert f"{src}:3:15: warning: skipping 'uses_lib': unknown type name 'LibType'" in proc.stderr
    assert '"name": "k"' in proc.stdout and "uses_lib" not in proc.stdout


def test_kernel_lost_to_a_missing_header_fails(cudafuse_exe: str, tmp_path: Path) -> None:
    src = tmp_path / "m.cu"
    src.write_text('#include "mylib.h"\n' + KERNEL +
                   "__global__ void uses_lib(LibType *p) { p->v = 0; }\n")
    proc = run(cudafuse_exe, "analyze", "--format", "json", str(src))
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"{src}:3:26: warning: skipping 'uses_lib': unknown type name 'LibType'" in proc.stderr
    assert (f"{src}:3:1: error: 1 of the 2 kernels this file defines could not be analysed "
            "('uses_lib'): see the warnings above for why each was skipped") in proc.stderr


def test_include_of_a_directory(cudafuse_exe: str, tmp_path: Path) -> None:
    (tmp_path / "sub.h").mkdir()
    src = tmp_path / "d.cu"
    src.write_text('#include "sub.h"\n' + KERNEL)
    proc = run(cudafuse_exe, "analyze", str(src))
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"{src}:1:10: error: cannot read included file 'sub.h': is a directory\n")


def _unprivileged_user() -> str | None:
    """Who can run the unreadable-include test: ourselves unless root, else 'nobody' via
    setpriv when that account can run this interpreter."""
    if os.geteuid() != 0:
        return ""
    if shutil.which("setpriv") is None:
        return None
    probe = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            sys.executable, "-c", "import cudafuse.cli"], capture_output=True)
    return "65534" if probe.returncode == 0 else None


def test_unreadable_include(cudafuse_exe: str) -> None:
    user = _unprivileged_user()
    if user is None:
        pytest.skip("running as root with no unprivileged account to run cudafuse as")
    # Not pytest's tmp_path: that tree is private to us (0700), so 'nobody' could not reach
    # the source; a fresh directory in the system temp dir is opened just enough instead.
    with tempfile.TemporaryDirectory(prefix="cudafuse-unreadable-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)
        secret = work / "secret.h"
        secret.write_text("int x;\n")
        secret.chmod(0)
        src = work / "u.cu"
        src.write_text('#include "secret.h"\n' + KERNEL)
        src.chmod(0o644)
        if user and run("/bin/test", "-r", str(src), user=user).returncode != 0:
            pytest.skip(f"user {user} cannot reach {work}")
        proc = run(cudafuse_exe, "analyze", str(src), user=user or None)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{src}:1:10: error: cannot read included file ")
    assert "secret.h" in proc.stderr.splitlines()[0]


@pytest.mark.parametrize("args", [
    ["analyze", "--bogus", "x.cu"],
    ["analyze"],
    ["analyze", "--format", "xml", "x.cu"],
    ["--bogus"],
    ["no-such-command"],
])
def test_usage_errors_exit_2(cudafuse_exe: str, args: list[str]) -> None:
    proc = run(cudafuse_exe, *args)
    assert proc.returncode == 2
    assert "Error:" in proc.stderr and "Usage:" in proc.stderr


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("simulated bug")


def test_internal_error_exits_3_without_traceback(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    monkeypatch.setattr("cudafuse.cli.analyze.parse_file", _boom)
    result = CliRunner().invoke(main, ["analyze", str(src)])
    assert result.exit_code == 3
    assert "internal error: RuntimeError: simulated bug" in result.stderr
    assert "Traceback" not in result.stderr


def test_internal_error_with_debug_shows_traceback(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    monkeypatch.setattr("cudafuse.cli.analyze.parse_file", _boom)
    result = CliRunner().invoke(main, ["--debug", "analyze", str(src)])
    assert result.exit_code == 3
    assert "Traceback" in result.stderr and "internal error" in result.stderr
