"""The compiler flags every parsing command takes, spelled as compilers take them.

Makefiles and CMake write `-Idir` and `-I dir`, `-DNAME=V` and `-D NAME=V`, `-isystem dir`
and `-isystemdir`, `-std=c++17` and nvcc's `--std c++17`. -I, -D, -U, -include, -isystem,
-iquote, -idirafter, -imacros and -std/--std are click options of `parse_options` (so that
`--help` lists them); click splits a one-letter option from an attached value itself
(`-Idir`), and takes `-isystem=dir` and `--std=c++17`. What it cannot split, a
multi-letter option with its value attached (`-isystemdir`, `-includefoo.h`), is split
here before click parses, and everything after `--` is taken as further clang options by
every command (`cudafuse hfuse a.cu -o f.cu -- -fno-exceptions`), not as input files.
"""

from __future__ import annotations

import re

import click

# Multi-letter options whose value GCC and clang also take attached (`-isystemDIR`).
ATTACHED = ("-isystem", "-iquote", "-idirafter", "-imacros", "-include")
META_KEY = "cudafuse.clang_args"


def _valued(cmd: click.Command) -> frozenset[str]:
    """The spellings of cmd's options that take the next argument as their value, whose
    value (`--nvcc-flag -isystemX`, `--name -includeX`) must not be split."""
    return frozenset(o for p in cmd.params if isinstance(p, click.Option) and not p.is_flag
                     and not p.count for o in (*p.opts, *p.secondary_opts))


def split_attached(cmd: click.Command, args: list[str]) -> tuple[list[str], list[str]]:
    """(args for click with `-isystemDIR` spelled `-isystem DIR`, the arguments after `--`)."""
    end = args.index("--") if "--" in args else len(args)
    valued = _valued(cmd)
    out: list[str] = []
    skip = False
    for arg in args[:end]:
        if skip:
            out.append(arg)
            skip = False
            continue
        flag = next((f for f in ATTACHED if arg.startswith(f) and len(arg) > len(f)
                     and arg[len(f)] != "="), None)
        if flag is not None:
            out += [flag, arg[len(flag):]]
            continue
        out.append(arg)
        skip = arg in valued
    return out, args[end + 1:]


class CompilerFlagsCommand(click.Command):
    """A command whose compiler flags may be spelled attached or separated (see above)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if any(p.name == "include_dirs" for p in self.params):
            args, after = split_attached(self, args)
            ctx.meta[META_KEY] = tuple(after)
        return super().parse_args(ctx, args)


def clang_flags(undefines: tuple[str, ...], system: tuple[str, ...], quote: tuple[str, ...],
                after: tuple[str, ...], macros: tuple[str, ...], std: str | None
                ) -> tuple[str, ...]:
    """The clang arguments of -U, -isystem, -iquote, -idirafter, -imacros and -std."""
    out: list[str] = [f"-U{n}" for n in undefines]
    for flag, values in (("-isystem", system), ("-iquote", quote), ("-idirafter", after),
                         ("-imacros", macros)):
        for v in values:
            out += [flag, v]
    if std:
        out.append(f"-std={std}")
    return tuple(out)


def take_paths(args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(-I dirs, -D macros, the rest) of clang arguments given after `--`: those two reach
    the nvcc and emulator builds as the options' own do, not only the front end."""
    dirs: list[str] = []
    defs: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-I", "-D") and i + 1 < len(args):
            (dirs if arg == "-I" else defs).append(args[i + 1])
            i += 2
            continue
        if arg[:2] in ("-I", "-D") and len(arg) > 2:
            (dirs if arg[1] == "I" else defs).append(arg[2:])
        else:
            rest.append(arg)
        i += 1
    return tuple(dirs), tuple(defs), tuple(rest)


_MACRO = re.compile(r"[A-Za-z_]\w*(?:\([^()]*\))?(?:=.*)?", re.S)
_NAME = re.compile(r"[A-Za-z_]\w*")
# The C++ standards clang 18 takes with CUDA (C standards and others are refused there).
_STD = re.compile(r"(?:c|gnu)\+\+(?:98|03|0x|11|1y|14|1z|17|2a|20|2b|23|2c|26)")


def flag_problem(defines: tuple[str, ...], undefines: tuple[str, ...], std: str | None
                 ) -> str | None:
    """What is wrong with the -D, -U and -std values, said as a usage error (libclang
    itself fails on them without a word: 'could not parse the file')."""
    for d in defines:
        if not _MACRO.fullmatch(d):
            return f"-D '{d}': a macro definition is NAME, NAME=VALUE or NAME(ARGS)=VALUE"
    for u in undefines:
        if not _NAME.fullmatch(u):
            return f"-U '{u}': a macro name is an identifier"
    if std is not None and not _STD.fullmatch(std):
        return (f"-std '{std}': not a C++ standard clang 18 parses CUDA with (c++11, c++14, "
                "c++17, c++20, c++23, their gnu++ forms, ...)")
    return None
