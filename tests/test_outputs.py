"""Atomic writes and make depfiles."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cudafuse import outputs
from cudafuse.outputs import depfile_text, write_atomic


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_writes_bytes_and_text(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.cu", b"\x00bytes")
    write_atomic(tmp_path / "b.cu", "t\u00e9xt")
    assert (tmp_path / "a.cu").read_bytes() == b"\x00bytes"
    assert (tmp_path / "b.cu").read_bytes() == "t\u00e9xt".encode()
    assert leftovers(tmp_path) == []


def test_replaces_existing_content_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.cu"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "n.cu", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "n.cu").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("exc", [OSError("disk full"), KeyboardInterrupt()])
def test_failure_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        exc: BaseException) -> None:
    target = tmp_path / "out.cu"
    target.write_text("complete old content")

    def fail(src: str, dst: object) -> None:
        assert Path(src).read_text() == "new"  # fully written, just not yet in place
        raise exc

    monkeypatch.setattr(outputs.os, "replace", fail)
    with pytest.raises(type(exc)):
        write_atomic(target, "new")
    assert target.read_text() == "complete old content"
    assert leftovers(tmp_path) == []


def test_failure_while_writing_cleans_up(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        write_atomic(tmp_path / "x.cu", 42)  # type: ignore[arg-type]
    assert not (tmp_path / "x.cu").exists() and leftovers(tmp_path) == []


def test_relative_path_in_the_current_directory(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic("rel.cu", "ok")
    assert (tmp_path / "rel.cu").read_text() == "ok"


def test_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.cu"
    real.write_text("old")
    link = tmp_path / "link.cu"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "no" / "such" / "dir.cu", "x")


def test_depfile_format() -> None:
    text = depfile_text("out.fused.cu", ["in.cu", "inc/a.h", "/usr/include/b.h"])
    assert text == ("out.fused.cu: in.cu \\\n  inc/a.h \\\n  /usr/include/b.h\n"
                    "inc/a.h:\n/usr/include/b.h:\n")


def test_depfile_escapes_spaces_dollars_and_hashes() -> None:
    text = depfile_text("my out.cu", ["my in.cu", "a$b.h", "c#d.h"])
    assert text.splitlines()[0] == "my\\ out.cu: my\\ in.cu \\"
    assert "a$$b.h" in text and "c\\#d.h" in text
    assert text.endswith("a$$b.h:\nc\\#d.h:\n")


def test_depfile_with_only_the_source() -> None:
    assert depfile_text("o.cu", ["i.cu"]) == "o.cu: i.cu\n"


def test_make_reads_the_depfile(tmp_path: Path) -> None:
    """The real consumer: make must parse it, find the escaped names, and not fail when a
    header has been deleted (the phony rules)."""
    make = "/usr/bin/make"
    if not Path(make).exists():
        pytest.skip("no make")
    (tmp_path / "my in.cu").write_text("x")
    (tmp_path / "a$b.h").write_text("x")
    (tmp_path / "Makefile").write_text("out.cu:\n\ttouch out.cu\ninclude out.d\n")
    (tmp_path / "out.d").write_text(depfile_text("out.cu", ["my in.cu", "a$b.h", "gone.h"]))
    proc = subprocess.run([make, "-C", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.cu").exists()


# OutputSet: the outputs of one run, checked up front and written together.

def check_fails(outs: outputs.OutputSet, status: int = 2) -> list[str]:
    from cudafuse.diagnostics import CudafuseError

    with pytest.raises(CudafuseError) as info:
        outs.check()
    assert info.value.status == status
    return [d.message for d in info.value.diagnostics]


def test_output_over_an_input_even_through_a_link(tmp_path: Path) -> None:
    src = tmp_path / "in.cu"
    src.write_text("x")
    (tmp_path / "link.cu").symlink_to(src)
    os.link(src, tmp_path / "hard.cu")
    outs = outputs.OutputSet([str(src)])
    for option, name in (("-o", "link.cu"), ("--report", "hard.cu"), ("--dot", "in.cu")):
        outs.declare(option, str(tmp_path / name))
    messages = check_fails(outs)
    assert len(messages) == 3
    assert messages[0] == (f"-o '{tmp_path}/link.cu' would overwrite an input of this run "
                           f"('{src}'); cudafuse never modifies its inputs")
    assert src.read_text() == "x"


def test_output_twice_and_missing_directories(tmp_path: Path) -> None:
    outs = outputs.OutputSet()
    outs.declare("-o", str(tmp_path / "o.cu"))
    outs.declare("--report", str(tmp_path / "o.cu"))
    outs.declare("--dot", str(tmp_path / "no" / "g.dot"))
    outs.declare("-MF", str(tmp_path))
    (tmp_path / "file").write_text("")
    outs.declare("--save", str(tmp_path / "file" / "x.npz"))
    # The command line's contradictions (usage errors, status 2) come first.
    assert check_fails(outs) == [
        f"--report '{tmp_path}/o.cu' is also written by -o",
        f"-MF '{tmp_path}' is a directory",
        f"--dot '{tmp_path}/no/g.dot': directory '{tmp_path}/no' does not exist",
        f"--save '{tmp_path}/file/x.npz': '{tmp_path}/file' is not a directory"]


def test_a_missing_directory_alone_is_a_plain_error(tmp_path: Path) -> None:
    outs = outputs.OutputSet()
    outs.declare("-o", str(tmp_path / "no" / "o.cu"))
    assert check_fails(outs, status=1) == [
        f"-o '{tmp_path}/no/o.cu': directory '{tmp_path}/no' does not exist"]


def test_standard_output_only_where_allowed() -> None:
    outs = outputs.OutputSet()
    outs.declare("-o", "-", stdout=True)
    outs.declare("--report", None)
    outs.declare("--dot", "-")
    assert outs.declared == []
    assert check_fails(outs) == ["--dot '-': only -o writes to standard output; name a file"]


def test_commit_writes_every_staged_file(tmp_path: Path) -> None:
    outs = outputs.OutputSet()
    for name in ("a.cu", "b.json"):
        outs.declare("-o", str(tmp_path / name))
    outs.check()
    outs.put(str(tmp_path / "a.cu"), "A")
    outs.put(str(tmp_path / "b.json"), b"B")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing before commit
    outs.commit()
    assert (tmp_path / "a.cu").read_text() == "A" and (tmp_path / "b.json").read_text() == "B"
    assert leftovers(tmp_path) == []
    with pytest.raises(ValueError):
        outs.put(str(tmp_path / "undeclared"), "x")


def test_commit_failure_replaces_no_target(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The second temporary cannot be written: the first target keeps its content, no
    temporary is left, and the error names the option (exit 1, not an internal error)."""
    from cudafuse.diagnostics import CudafuseError

    first, second = tmp_path / "a.cu", tmp_path / "b.json"
    first.write_text("old")
    outs = outputs.OutputSet()
    outs.declare("-o", str(first))
    outs.declare("--report", str(second))
    outs.put(str(first), "new")
    outs.put(str(second), "report")
    real = outputs._write_temp

    def full(path: str, data: bytes) -> Path:
        if path == str(second):
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(outputs, "_write_temp", full)
    with pytest.raises(CudafuseError) as info:
        outs.commit()
    assert info.value.status == 1
    assert info.value.diagnostics[0].message == (
        f"--report '{second}': cannot write: No space left on device; no output of this "
        "run was written")
    assert first.read_text() == "old" and not second.exists() and leftovers(tmp_path) == []


def test_devices_are_written_in_place() -> None:
    outs = outputs.OutputSet()
    outs.declare("-o", "/dev/null")
    outs.declare("--report", "/dev/null")
    outs.check()  # one device may take several outputs
    outs.put("/dev/null", "x")
    outs.commit()
    assert Path("/dev/null").is_char_device()


def test_a_device_that_fails_replaces_no_file(tmp_path: Path) -> None:
    """--report /dev/full beside -o x.cu: the device is written before any rename."""
    from cudafuse.diagnostics import CudafuseError

    target = tmp_path / "x.cu"
    target.write_text("old")
    outs = outputs.OutputSet()
    outs.declare("-o", str(target))
    outs.declare("--report", "/dev/full")
    outs.check()
    outs.put(str(target), "new")
    outs.put("/dev/full", "report")
    with pytest.raises(CudafuseError) as info:
        outs.commit()
    assert info.value.diagnostics[0].message.startswith("--report '/dev/full': cannot write")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["x.cu"]


@pytest.mark.parametrize("exc", [OSError(13, "Permission denied"), KeyboardInterrupt()])
def test_a_failed_rename_puts_back_what_was_renamed(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    exc: BaseException) -> None:
    """The third rename fails: the first target (it existed) has its old content and mode
    again, the second (new) is removed, the third is untouched; no temporary or backup is
    left."""
    from cudafuse.diagnostics import CudafuseError

    old, new, third = tmp_path / "a.cu", tmp_path / "b.json", tmp_path / "c.dot"
    old.write_text("old a")
    old.chmod(0o640)
    third.write_text("old c")
    outs = outputs.OutputSet()
    for option, path in (("-o", old), ("--report", new), ("--dot", third)):
        outs.declare(option, str(path))
        outs.put(str(path), f"new {path.name}")
    real = os.replace
    calls: list[str] = []

    def fail_third(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if str(dst) == str(third):
            raise exc
        calls.append(str(dst))
        real(src, dst)

    monkeypatch.setattr(outputs.os, "replace", fail_third)
    with pytest.raises(CudafuseError if isinstance(exc, OSError) else KeyboardInterrupt) as info:
        outs.commit()
    if isinstance(exc, OSError):
        assert info.value.diagnostics[0].message == (
            f"--dot '{third}': cannot write: Permission denied; no output of this run was "
            "written")
    assert calls[:2] == [str(old), str(new)]  # both were renamed, then put back
    assert old.read_text() == "old a" and old.stat().st_mode & 0o777 == 0o640
    assert not new.exists() and third.read_text() == "old c"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.cu", "c.dot"]


def test_replaced_targets_keep_no_backup(tmp_path: Path) -> None:
    target = tmp_path / "a.cu"
    target.write_text("old")
    outs = outputs.OutputSet()
    outs.declare("-o", str(target))
    outs.put(str(target), "new")
    outs.commit()
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["a.cu"]
