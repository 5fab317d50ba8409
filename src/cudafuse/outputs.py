"""Writing results: atomically (never a half-written file), and make depfiles."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write to a temporary file beside `path`, then rename it over `path`.

    Readers see either the old file or the whole new one. An existing file keeps its mode;
    a symlink is written through (its target is replaced, the link stays), as `cp` would.
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _escape_make(path: str) -> str:
    # What gcc -MD writes: '$' doubled, '#' and spaces escaped with a backslash.
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def depfile_text(target: str, deps: list[str]) -> str:
    """A make depfile: `target: deps`, plus an empty rule per header so that a deleted header
    does not break the build (what gcc -MP does). deps[0] is the main source: no rule."""
    lines = [f"{_escape_make(target)}: " + " \\\n  ".join(_escape_make(d) for d in deps)]
    lines += [f"\n{_escape_make(d)}:" for d in deps[1:]]
    return "".join(lines) + "\n"
