"""The command line: parses options, runs a pipeline, prints. No compiler logic lives here."""

from __future__ import annotations

import errno
import functools
import gc
import importlib
import io
import math
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

import click

from cudafuse import __version__
from cudafuse.archs import CLANG_ARCHS, arch_problem  # noqa: F401 - CLANG_ARCHS: API
from cudafuse.cli.compiler_flags import (
    META_KEY,
    CompilerFlagsCommand,
    clang_flags,
    flag_problem,
    take_paths,
)
from cudafuse.diagnostics import CudafuseError, Diagnostic


def _verbose() -> bool:
    """-v (before or after the subcommand), or the subcommand's --explain."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return True
    return bool(ctx.find_root().params.get("verbose") or ctx.params.get("explain"))


def print_diagnostics(diags: list[Diagnostic]) -> None:
    color = sys.stderr.isatty()
    lost = None
    try:
        sys.stdout.flush()  # what the command printed so far comes first, as it happened
    except OSError as exc:  # no room for it (guarded says so once these are shown)
        if exc.errno not in _NO_ROOM and not isinstance(exc, _StdoutClosed):
            raise
        _drop_stdout()
        lost = exc
    verbose = _verbose()
    for d in diags:
        if d.detail and not verbose:
            continue
        text = d.format()
        if color:
            first, _, rest = text.partition("\n")
            tag = f"{d.severity.value}:"
            shade = {"error": "red", "warning": "magenta", "note": "cyan"}[d.severity.value]
            first = first.replace(tag, click.style(tag, fg=shade, bold=True), 1)
            text = first + ("\n" + rest if rest else "")
        click.echo(text, err=True)
    if lost is not None:
        raise lost


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn CudafuseError into diagnostics + exit status, and any other exception into an
    'internal error' line (the traceback only with --debug)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except CudafuseError as exc:
            try:
                print_diagnostics(exc.diagnostics)
            except OSError as lost:
                _no_room(ctx, lost)
            ctx.exit(exc.status)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except OSError as exc:
            _no_room(ctx, exc)
        except Exception as exc:  # noqa: BLE001 - the last line of defence for users
            _internal_error(ctx, exc)

    return wrapper


# errno values that say the machine has no room for what is written.
_NO_ROOM = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG")
                     if hasattr(errno, name))


class _StdoutClosed(OSError):
    pass


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started without one: Python makes it None, and
    click drops what is echoed to None without a word. A command that prints nothing runs
    as usual; one that prints fails as on a full disk (exit 1), its output not lost
    silently."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise _StdoutClosed(errno.EBADF, "it is closed")


def _no_room(ctx: click.Context, exc: OSError) -> None:
    """A full disk (standard output redirected to /dev/full, a quota) is the machine's
    state, as a missing output directory is: exit 1, not a bug's 3. Other OSErrors that
    reach here are cudafuse's own."""
    if exc.errno not in _NO_ROOM and not isinstance(exc, _StdoutClosed):
        _internal_error(ctx, exc)
    _drop_stdout()
    where = f"'{exc.filename}'" if exc.filename else "standard output"
    click.echo(f"cudafuse: error: cannot write {where}: {exc.strerror}", err=True)
    ctx.exit(1)


def _internal_error(ctx: click.Context, exc: Exception) -> None:
    if ctx.find_root().params.get("debug"):
        _print_traceback()
    click.echo(f"cudafuse: internal error: {type(exc).__name__}: {exc} "
               "(rerun with --debug for a traceback)", err=True)
    ctx.exit(3)


def _drop_stdout() -> None:
    """Discard what standard output still holds, so that the interpreter's flush at exit
    does not fail on it a second time ("Exception ignored ...")."""
    try:
        sys.stdout.flush()
    except OSError:
        pass
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test runner's buffer)


def _print_traceback() -> None:
    import traceback  # only for --debug: a noticeable share of start-up otherwise

    traceback.print_exc()


class FiniteRange(click.FloatRange):
    """A float range that also refuses NaN (which every bound comparison lets through) and
    the infinities: `--timeout inf` or `--margin nan` would reach code that needs a
    number."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


def special_file(path: str) -> bool:
    """An existing path that is neither a regular file nor a directory (/dev/zero, a pipe):
    an input read whole, such as a header or a report, would never end or block."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing: said where it is read
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def regular_input(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A callback for an option naming a file read whole (--from-profile)."""
    value = nonempty(ctx, param, value)
    if isinstance(value, str) and special_file(value):
        raise click.BadParameter(f"'{value}' is not a regular file (a device or pipe)", ctx,
                                 param)
    return value


def nonempty(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An input path that is '' (an unset shell variable) is a usage error, not 'no such
    file' or, as the current directory, 'is a directory'."""
    if value == "" or (isinstance(value, tuple) and "" in value):
        raise click.BadParameter("an empty path", ctx, param)
    return value


def _check_arch(ctx: click.Context, param: click.Parameter, value: str) -> str:
    problem = arch_problem(value)
    if problem:
        raise click.BadParameter(problem, ctx, param)
    return value


# Source files clang would take as a second translation unit, which libclang cannot parse.
_SOURCE_SUFFIXES = (".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp")
# clang options whose value is the next argument and may name a header or source file.
_FILE_VALUED = ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-I", "-x",
                "-Xclang")


def _check_clang_args(extra: tuple[str, ...]) -> None:
    """Extra clang arguments are options (`-- -std=c++20 -isystem DIR`); a bare file name
    there is almost always a second input (`analyze a.cu b.cu`), which the command does not
    take: say so instead of letting clang fail on two translation units."""
    for i, arg in enumerate(extra):
        prev = extra[i - 1] if i else ""
        if arg.startswith("-"):
            continue
        if not prev.startswith("-") or (arg.endswith(_SOURCE_SUFFIXES) and
                                        prev not in _FILE_VALUED):
            raise click.UsageError(
                f"unexpected argument '{arg}': this command takes one FILE (extra clang "
                "arguments follow `--` and are options, e.g. `-- -std=c++20`)")


def parse_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The compiler flags (-I/-D/-U/-include/-isystem/-iquote/-idirafter/-imacros/-std,
    attached or separated: compiler_flags.py) and extra clang arguments after `--`, folded
    into `parse_opts`."""

    @click.option("-I", "include_dirs", multiple=True, metavar="DIR",
                  help="Add an include dir (-IDIR or -I DIR).")
    @click.option("-D", "defines", multiple=True, metavar="NAME[=V]",
                  help="Define a macro (-DNAME=V or -D NAME=V).")
    @click.option("-U", "undefines", multiple=True, metavar="NAME",
                  help="Undefine a macro (drops the command line's -D NAME).")
    @click.option("-include", "--include", "forced", multiple=True, metavar="FILE",
                  help="Include FILE before the source (as clang -include).")
    @click.option("-isystem", "system_dirs", multiple=True, metavar="DIR",
                  help="Add a system include dir (-isystem DIR or -isystemDIR; also "
                       "-iquote, -idirafter, -imacros): for the front end and the nvcc and "
                       "emulator builds of run and verify.")
    @click.option("-iquote", "quote_dirs", multiple=True, metavar="DIR", hidden=True)
    @click.option("-idirafter", "after_dirs", multiple=True, metavar="DIR", hidden=True)
    @click.option("-imacros", "macro_files", multiple=True, metavar="FILE", hidden=True)
    @click.option("-std", "--std", "std", metavar="STD",
                  help="The language standard (-std=c++17 or --std c++17; default c++17).")
    @click.option("--arch", default="sm_90", show_default=True, callback=_check_arch,
                  help="GPU architecture: sm_20 to sm_90a (those clang 18 parses CUDA for).")
    @click.option("-p", "compdb", metavar="BUILD_DIR", default="",
                  help="Take each input's -I/-D/-include/-std from the build's "
                       "compile_commands.json (in BUILD_DIR, or the file itself), before the "
                       "command line's.")
    @functools.wraps(fn)
    def wrapper(*args: Any, include_dirs: tuple[str, ...], defines: tuple[str, ...],
                undefines: tuple[str, ...], forced: tuple[str, ...],
                system_dirs: tuple[str, ...], quote_dirs: tuple[str, ...],
                after_dirs: tuple[str, ...], macro_files: tuple[str, ...], std: str | None,
                arch: str, compdb: str, **kwargs: Any) -> Any:
        tail = (*click.get_current_context().meta.get(META_KEY, ()),
                *(kwargs.pop("clang_args", ()) or ()))
        _check_clang_args(tail)
        dirs, defs, rest = take_paths(tail)
        problem = flag_problem((*defines, *defs), undefines, std)
        for option, files in (("-include", forced), ("-imacros", macro_files)):
            for f in files:
                if special_file(f):  # libclang would read /dev/zero until memory ran out
                    problem = f"{option} '{f}': not a regular file (a device or pipe)"
        if problem:
            raise click.UsageError(problem)
        extra = (*clang_flags(undefines, system_dirs, quote_dirs, after_dirs, macro_files, std),
                 *rest)
        # -UNAME drops the command line's -DNAME (as clang does for a -U after it) here,
        # where the builds (nvcc, the emulator's g++) that take only the defines see it too.
        kept = tuple(d for d in (*defines, *defs) if d.split("=", 1)[0] not in undefines)
        from cudafuse.frontend import ParseOptions  # here: the front end is slow to import

        kwargs["parse_opts"] = ParseOptions((*include_dirs, *dirs), kept, forced, extra, arch,
                                            compdb)
        return fn(*args, **kwargs)

    return wrapper


class Terminated(KeyboardInterrupt):
    """SIGTERM (kill, a build tool stopping its jobs), raised where the run is, so that it
    unwinds as an interrupt does: temporaries removed, emulator workers stopped, no output
    written."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def _interrupted(exc: KeyboardInterrupt) -> NoReturn:
    try:
        sys.stdout.flush()
    except OSError:
        _drop_stdout()
    if isinstance(exc, Terminated):  # 128 + SIGTERM, as gcc exits on it
        click.echo("cudafuse: terminated", err=True)
        raise click.exceptions.Exit(143) from None
    click.echo("cudafuse: interrupted", err=True)
    raise click.exceptions.Exit(130) from None


class LazyGroup(click.Group):
    """Imports a subcommand's module when that subcommand is asked for: `cudafuse analyze`
    does not pay for importing what fuse, hfuse and run need (the modules register their
    commands on `main` when imported)."""

    command_class = CompilerFlagsCommand
    MODULES = {"analyze": "cudafuse.cli.analyze", "plan": "cudafuse.cli.fuse",
               "fuse": "cudafuse.cli.fuse", "hfuse": "cudafuse.cli.hfuse",
               "hfuse-plan": "cudafuse.cli.hfuse_plan", "run": "cudafuse.cli.run",
               "verify": "cudafuse.cli.run"}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # The group's own flags are taken after the subcommand too (`cudafuse fuse x.cu -o
        # y --debug`, as the internal-error hint suggests), up to a `--`.
        end = args.index("--") if "--" in args else len(args)
        group = ("--debug", "-v", "--verbose")
        moved = [a for a in args[:end] if a in group]
        rest = [a for a in args[:end] if a not in group] + args[end:]
        try:
            return super().parse_args(ctx, moved + rest)
        except KeyboardInterrupt as exc:  # click's own handler would say "Aborted!", exit 1
            _interrupted(exc)

    def invoke(self, ctx: click.Context) -> Any:
        # An interrupt exits with 130 (128 + SIGINT), as shells and make expect, not with
        # click's 1 ("Aborted!"), which reads like bad input. Outputs are written only at
        # the end (outputs.OutputSet), so nothing is left half-written.
        main_thread = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            _interrupted(exc)
        finally:
            if main_thread:
                signal.signal(signal.SIGTERM, before)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.MODULES:
            try:
                importlib.import_module(self.MODULES[cmd_name])
            except ImportError as exc:  # a broken installation, not the user's input
                if ctx.find_root().params.get("debug"):
                    _print_traceback()
                click.echo(f"cudafuse: internal error: cannot load the '{cmd_name}' command: "
                           f"{exc} (rerun with --debug for a traceback)", err=True)
                ctx.exit(3)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cudafuse")
@click.option("--debug", is_flag=True, help="Show Python tracebacks for internal errors.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also show notes beside the request (statements of a host function that "
                   "no launch sequence crosses); --explain shows them too.")
def main(debug: bool, verbose: bool) -> None:
    """cudafuse: a source-to-source CUDA compiler that fuses kernels.

    Bad input is reported as FILE:LINE:COL: error: ... with exit status 1; usage errors exit
    with 2; internal errors with 3; an interrupt (Ctrl-C) with 130, SIGTERM with 143. --debug
    and -v may also follow the subcommand.
    """
    # One short run that builds a large, acyclic IR: the cyclic collector's frequent young
    # generation passes over it find nothing, and cost a few percent of `analyze`.
    gc.set_threshold(max(gc.get_threshold()[0], 20000), 50, 100)
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:  # `2>&-`: nowhere to say anything; the exit status still tells
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the whole process
