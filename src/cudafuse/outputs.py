"""Writing results: atomically (never a half-written file), and make depfiles."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write to a temporary file beside `path`, then rename it over `path`.

    Readers see either the old file or the whole new one. An existing file keeps its mode;
    a symlink is written through (its target is replaced, the link stays), as `cp` would.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = _write_temp(str(path), data)
    try:
        os.replace(tmp, _target(str(path)))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def keep_line_endings(text: bytes, sources: list[bytes]) -> bytes:
    """`text` (an output holding its sources' text and lines cudafuse wrote) with every line
    ending in CR LF when each source ends all its lines so (a file saved on Windows): the
    lines cudafuse adds follow the file's convention instead of mixing LF into it. A source
    with LF endings, or with both, leaves `text` as it is (the user's bytes never change)."""
    if not sources or not all(b"\r\n" in s and s.count(b"\n") == s.count(b"\r\n")
                              for s in sources):
        return text
    return _LONE_LF.sub(b"\r\n", text)


_LONE_LF = re.compile(rb"(?<!\r)\n")


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


class OutputSet:
    """Every file one run writes (`-o`, `--report`, `--dot`, `-MF`, `--save`...), checked
    before any work is done and written together at the end.

    A compiler step must never lose a user's file: no output may be an input of the run (the
    source, a header it read, a spec) or another output of the same run, and each must be
    creatable (its directory exists, it is not a directory). `check` raises one error (exit
    2) listing every violation, before anything is written; call it again after parsing,
    with the headers the parse read added as inputs. `commit` writes all staged files to
    temporaries first and renames them only when every one was written, so a run that fails
    leaves no target behind (make would take a stale target for an up-to-date one).

    An existing target that is not a regular file (/dev/null, a pipe) is written in place:
    renaming a temporary over it would replace the device, and there is nothing to keep
    whole.
    """

    def __init__(self, inputs: list[str | None] | tuple[str | None, ...] = ()) -> None:
        self._inputs: list[str] = []
        self._outputs: list[tuple[str, str]] = []  # (option, path)
        self._stdout: list[str] = []  # options given '-' where standard output is refused
        self._empty: list[str] = []  # options given '' (a shell variable left unset)
        self._staged: dict[str, bytes] = {}
        self.add_inputs(inputs)

    def add_inputs(self, paths: list[str | None] | tuple[str | None, ...]) -> None:
        self._inputs += [p for p in paths if p and p != "-"]

    def declare(self, option: str, path: str | None, stdout: bool = False) -> None:
        """A path the run will write; None (option not given) is skipped, and so is '-'
        where `stdout` says the option writes standard output for it (else `check` refuses
        it: a file named '-' is never what was meant)."""
        if path == "":
            self._empty.append(option)
        elif path == "-" and not stdout:
            self._stdout.append(option)
        elif path and path != "-":
            self._outputs.append((option, path))

    @property
    def declared(self) -> list[str]:
        return [p for _, p in self._outputs]

    def check(self) -> None:
        from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity

        problems = [f"{option} '-': only -o writes to standard output; name a file"
                    for option in self._stdout]
        problems += [f"{option} '': an empty path" for option in self._empty]
        places: list[str] = []
        seen: dict[tuple[int, int] | str, str] = {}
        inputs: dict[tuple[int, int] | str, str] = {}
        for p in self._inputs:  # the first spelling: the user's, before the headers'
            inputs.setdefault(_identity(p), p)
        for option, path in self._outputs:
            ident = _identity(path)
            device = _is_special(path)
            if ident in inputs:
                also = "" if inputs[ident] == path else f" ('{inputs[ident]}')"
                problems.append(f"{option} '{path}' would overwrite an input of this run"
                                f"{also}; cudafuse never modifies its inputs")
            elif ident in seen and not device:  # /dev/null may take several outputs
                problems.append(f"{option} '{path}' is also written by {seen[ident]}")
            seen.setdefault(ident, option)
            parent = os.path.dirname(path) or "."
            if os.path.isdir(path):
                problems.append(f"{option} '{path}' is a directory")
            elif device:
                continue
            elif os.path.exists(parent) and not os.path.isdir(parent):
                places.append(f"{option} '{path}': '{parent}' is not a directory")
            elif not os.path.isdir(parent):
                places.append(f"{option} '{path}': directory '{parent}' does not exist")
            elif not os.access(parent, os.W_OK | os.X_OK):
                places.append(f"{option} '{path}': directory '{parent}' is not writable")
        # A command line that contradicts itself (an output over an input or another output)
        # is a usage error (2); a directory that is missing or not writable is the machine's
        # state, a plain error (1).
        if problems or places:
            raise CudafuseError([Diagnostic(Severity.ERROR, p) for p in problems + places],
                                status=2 if problems else 1)

    def put(self, path: str, data: bytes | str) -> None:
        """Stage `data` for `path` (a declared output); nothing is written before commit."""
        if path not in self.declared:
            raise ValueError(f"{path} was not declared as an output")
        self._staged[path] = data.encode("utf-8") if isinstance(data, str) else data

    def commit(self) -> None:
        """Write every staged file, all or none: the temporaries first, then the targets
        that are devices or pipes (/dev/full fails here, before any file is replaced), then
        the renames. A file that cannot be written (disk full, a permission lost since
        `check`) is an error naming its option; if a rename fails, the targets already
        renamed get their old contents back (or are removed when they were new), so make
        never sees a target of a failed step."""
        special = [p for p in self._staged if _is_special(p)]
        temps: list[tuple[str, Path]] = []
        path = ""
        try:
            for path, data in self._staged.items():
                if path not in special:
                    temps.append((path, _write_temp(path, data)))
            for path in special:
                with open(path, "wb") as fh:
                    fh.write(self._staged[path])
            path = ""
            _rename_all(temps)
        except BaseException as exc:  # an interrupt too: no temporary is left behind
            for _, tmp in temps:
                tmp.unlink(missing_ok=True)
            if isinstance(exc, _RenameError):
                self._fail(exc.path, exc.cause)
            if isinstance(exc, OSError):
                self._fail(path, exc)
            raise
        self._staged.clear()

    def _fail(self, path: str, exc: OSError) -> None:
        from cudafuse.diagnostics import error

        option = next((o for o, p in self._outputs if p == path), "output")
        raise error(f"{option} '{path}': cannot write: {exc.strerror or exc}; no output "
                    "of this run was written") from None


class _RenameError(Exception):
    def __init__(self, path: str, cause: OSError):
        super().__init__(path)
        self.path, self.cause = path, cause


def _rename_all(temps: list[tuple[str, Path]]) -> None:
    """Rename each temporary over its target; on a failure, put back what was renamed. An
    existing target is first hard-linked to a backup beside it (a copy where the file system
    has no hard links), which restores it."""
    done: list[tuple[Path, Path | None]] = []  # (target, its backup or None if it was new)
    try:
        for path, tmp in temps:
            target = _target(path)
            try:
                backup = _backup(target)
                try:
                    os.replace(tmp, target)
                except BaseException:
                    if backup is not None:
                        backup.unlink(missing_ok=True)
                    raise
            except OSError as exc:
                raise _RenameError(path, exc) from None
            done.append((target, backup))
    except BaseException:
        for target, backup in reversed(done):
            try:
                if backup is None:
                    target.unlink(missing_ok=True)
                else:
                    os.replace(backup, target)
            except OSError:
                pass  # nothing more can be done; the error below still fails the run
        for _, tmp in temps:
            tmp.unlink(missing_ok=True)
        raise
    for _, backup in done:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _backup(target: Path) -> Path | None:
    if not target.exists():
        return None
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".bak", dir=target.parent)
    os.close(fd)
    backup = Path(name)
    try:
        backup.unlink()
        os.link(target, backup)
    except OSError:
        shutil.copy2(target, backup)
    return backup


def cache_dir_ready(option: str, path: str | None) -> None:
    """Create a cache directory given on the command line now: one that cannot be written
    is then a usage error before minutes of measuring, not an internal error after them."""
    if path is None:
        return
    from cudafuse.diagnostics import error

    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise error(f"{option} '{path}': cannot create it: {exc.strerror or exc}",
                    status=2) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise error(f"{option} '{path}': the directory is not writable", status=2)


def depfile_output(output: str, make_deps: bool, depfile: str | None
                   ) -> tuple[str, str | None]:
    """The option and path of the depfile `-MD [-MF FILE]` asks for (OUTPUT.d by default),
    or (option, None) when none is asked for. The depfile's target is the output file, so
    `-o -` cannot have one."""
    option = "-MF" if depfile is not None else "-MD"
    if not make_deps and depfile is None:
        return option, None
    if output == "-":
        from cudafuse.diagnostics import error

        raise error(f"{option}: a depfile names the output file as its target; -o - has "
                    "none (write the output to a file)", status=2)
    return option, f"{output}.d" if depfile is None else depfile


def _identity(path: str) -> tuple[int, int] | str:
    """A key equal for two spellings of one file: (device, inode) when it exists, else the
    resolved path (symlinks followed, so `out.cu` and a link to it collide)."""
    try:
        st = os.stat(path)
        return (st.st_dev, st.st_ino)
    except OSError:
        return os.path.realpath(path)


def _is_special(path: str) -> bool:
    """An existing target that is not a regular file or a directory (a device, a pipe)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _target(path: str) -> Path:
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _write_temp(path: str, data: bytes) -> Path:
    target = _target(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)
