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
