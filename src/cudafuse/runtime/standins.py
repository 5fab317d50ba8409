"""Stand-ins for what another file of the program defines, for the nvcc backend's link.

nvcc compiles one file's host code too (the emulator's front end skips most of it): a kernel
file of a larger program (ccminer's blake2b.cu: its scanhash_blake2b reads `work_restart`,
defined in ccminer.cpp, and calls `cuda_get_arch`, in cuda.cpp) then leaves references no
library resolves, and the shared library does not load ("undefined symbol: work_restart")
though the kernels a run spec launches need none of them. As the emulator's build does
(emu/undefined.py), when another source file in the program's folders seems to define one
of them, the library is linked with a stand-in for each:

- a function that is only called throws (a `const char *`: the message) when called; the
  nvcc trampolines catch it (trampoline.py, `guarded`) and return THROWN, and the runtime
  raises KernelError with the message, located at the program's function that calls it;
- a variable (or a function whose address is taken) is 64 KiB of pages no access is
  allowed to, so that reading it faults instead of finding made-up values; the fault is
  the run's end: a handler writes the message to stderr and exits with status 86 (the
  emulator's EXIT_STATUS; a fault elsewhere goes on to the handler installed before).

Which symbols are missing, and whether each is only called, is read from the loosely
linked library as the emulator's build reads it (emu/undefined.py, `undefined`).

The link is `--no-undefined`: a reference nothing defines fails the build, where it used to
fail the load.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from cudafuse.diagnostics import error
from cudafuse.emu.undefined import EXIT_STATUS, Symbol, c_string, undefined
from cudafuse.runtime.linker_names import Definition, bare, locate

# What the trampolines return when a stand-in (or anything else) threw (trampoline.py).
THROWN = -2
# (ld quotes `so', or in a UTF-8 locale with gettext's quotes, ‘so’)
_IN_FUNCTION = re.compile(r"in function [`'‘]([^'’]+)['’]")
_UNDEFINED = re.compile(r"undefined reference to [`'‘]([^'’]+)['’]")
_BLOCK = 65536


def users(link_output: str) -> dict[str, list[str]]:
    """The symbols the linker found undefined (demangled, as it names them), each with the
    program's functions that refer to them, in the linker's order."""
    found: dict[str, list[str]] = {}
    function = ""
    for line in link_output.splitlines():
        if (m := _IN_FUNCTION.search(line)) and "undefined reference" not in line:
            function = m.group(1)
            continue
        if m := _UNDEFINED.search(line):
            names = found.setdefault(m.group(1), [])
            if function and function not in names:
                names.append(function)
    return found


def defined_in(names: list[str], dirs: list[Path], main: Path) -> dict[str, list[str]]:
    """The source files (other than the program, `main`) in `dirs` that seem to define one
    of `names` (a function's definition by its name: a variable's is not recognised), each
    with the names it seems to define, in the order of `dirs` and of the files' names."""
    by_name: dict[str, list[str]] = {}
    for n in names:
        by_name.setdefault(bare(n), []).append(n)
    found: dict[str, list[str]] = {}
    for d in dict.fromkeys(p.resolve() for p in dirs):
        for f in sorted(d.glob("*")) if d.is_dir() else []:
            if f.suffix not in (".c", ".cc", ".cpp", ".cxx", ".cu") or f.resolve() == main \
                    or f.name in found:
                continue
            try:
                text = f.read_text("utf-8", "replace")
            except OSError:
                continue
            defines = [n for b, ns in by_name.items()
                       if re.search(rf"\b{re.escape(b)}\s*\([^;{{]*\)\s*(?:const\s*)?\{{", text)
                       for n in ns]
            if defines:
                found[f.name] = defines
    return found


def message(symbol: Symbol, program: str, callers: list[str], defined: list[Definition],
            files: dict[str, list[str]]) -> str:
    """What a run that reaches `symbol`'s stand-in stops with: located at the first of the
    program's functions that refers to it whose definition is known (`defined`: a method,
    a namespace's function or a lambda's enclosing one too; else the program), naming the
    files that seem to define it (`files`: defined_in's), or where none does (a variable),
    those that define the rest of what the program lacks."""
    what = "was called" if symbol.called else "was used"
    own = [f for f, names in files.items() if symbol.shown in names]
    shown = ", ".join(own[:3]) + (", ..." if len(own) > 3 else "")
    verb = "seems" if len(own) == 1 else "seem"
    rest = ", ".join(list(files)[:3]) + (", ..." if len(files) > 3 else "")
    why = f"{shown} {verb} to define it" if own else \
        f"as {rest} define the rest of what it lacks"
    return (f"{located(symbol.shown, what, program, callers, defined)}, but another file of "
            f"the program defines it ({why}): the nvcc backend builds only the program's own "
            "file")


def located(shown: str, what: str, program: str, callers: list[str],
            defined: list[Definition]) -> str:
    """`place: error: shown what (by callers)`, at the first of `callers` whose definition
    is known (else `program`): how both backends' stand-ins start their message."""
    at = next((w for c in callers if (w := locate(c, defined))), None)
    place = f"{at[0]}:{at[1]}:{at[2]}" if at else program
    by = f" (by {', '.join(callers[:3])})" if callers else ""
    return f"{place}: error: {shown} {what}{by}"


def source(symbols: list[Symbol], messages: dict[str, str]) -> str:
    """C++ defining a stand-in for each symbol (messages: by mangled name)."""
    calls = [s for s in symbols if s.called]
    blocks = [s for s in symbols if not s.called]
    lines = ["// Stand-ins for what another file of the program defines (runtime/standins.py).",
             "#include <signal.h>", "#include <string.h>", "#include <sys/mman.h>",
             "#include <unistd.h>"]
    for s in calls:  # caught by the trampoline (trampoline.py, guarded)
        lines.append(f'extern "C" void {s.mangled}() {{ throw static_cast<const char *>('
                     f'"{c_string(messages[s.mangled])}"); }}')
    if not blocks:
        return "\n".join(lines) + "\n"
    for s in blocks:
        lines.append(f'extern "C" {{ __attribute__((aligned(4096))) char '
                     f"{s.mangled}[{_BLOCK}]; }}")
    entries = ", ".join(f'{{{s.mangled}, "{c_string(messages[s.mangled] + chr(10))}"}}'
                        for s in blocks)
    lines += [
        "namespace {",
        "struct cf_block { const char *start; const char *message; };",
        f"const cf_block cf_blocks[] = {{{entries}}};",
        "struct sigaction cf_before;",
        "void cf_fault(int, siginfo_t *cf_info, void *) {",
        "  const char *cf_at = static_cast<const char *>(cf_info->si_addr);",
        "  for (const cf_block &cf_b : cf_blocks)",
        f"    if (cf_at >= cf_b.start && cf_at < cf_b.start + {_BLOCK}) {{",
        "      ssize_t cf_n = write(2, cf_b.message, strlen(cf_b.message));",
        "      (void)cf_n;",
        f"      _exit({EXIT_STATUS});",
        "    }",
        "  // Not a stand-in's: the handler before takes the fault when it comes again.",
        "  sigaction(SIGSEGV, &cf_before, nullptr);",
        "}",
        "__attribute__((constructor)) void cf_protect() {",
        *(f"  mprotect({s.mangled}, sizeof {s.mangled}, PROT_NONE);" for s in blocks),
        "  struct sigaction cf_sa;",
        "  memset(&cf_sa, 0, sizeof cf_sa);",
        "  cf_sa.sa_sigaction = cf_fault;",
        "  cf_sa.sa_flags = SA_SIGINFO | SA_ONSTACK;",
        "  sigemptyset(&cf_sa.sa_mask);",
        "  sigaction(SIGSEGV, &cf_sa, &cf_before);",
        "}",
        "}  // namespace",
    ]
    return "\n".join(lines) + "\n"


def link(cmd: list[str], obj: Path, out: Path, program: str,
         elsewhere: Callable[[list[str]], dict[str, list[str]]], defined: list[Definition]
         ) -> None:
    """Link `obj` into the shared library `out` with nvcc (`cmd`: nvcc and its flags),
    no symbol left undefined: with stand-ins for those another file of the program seems
    to define (`elsewhere`: defined_in's files), else an error naming them."""
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.{threading.get_ident()}.tmp{out.suffix}")
    strict = [*cmd, "-Xlinker", "--no-undefined"]
    proc = subprocess.run([*strict, str(obj), "-o", str(tmp)], capture_output=True,
                          text=True)
    if proc.returncode == 0:
        os.replace(tmp, out)
        return
    tmp.unlink(missing_ok=True)
    refs = users(proc.stderr)
    if not refs:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-20:]
        raise error("nvcc's link failed: " + "\n".join(tail))
    missing = sorted(refs)
    files = elsewhere(missing)
    if not files:
        raise error(f"nvcc: undefined reference to {', '.join(missing[:8])} (declared but "
                    "not defined in the program, nor in another file beside it or in its "
                    "include folders)")
    loose = subprocess.run([*cmd, str(obj), "-o", str(tmp)], capture_output=True, text=True)
    symbols = undefined(tmp, missing) if loose.returncode == 0 else None
    tmp.unlink(missing_ok=True)
    if symbols is None:
        raise error(f"nvcc: undefined reference to {', '.join(missing[:8])} (another file "
                    "of the program seems to define them, but the stand-ins could not be "
                    "made: readelf cannot read the library)")
    texts = {s.mangled: message(s, program, refs.get(s.shown, []), defined, files)
             for s in symbols}
    stubs = tmp.with_name(f"{tmp.stem}-standins.cpp")
    stubs.write_text(source(symbols, texts))
    stubs_obj = stubs.with_suffix(".o")
    # Compiled apart (by the host compiler nvcc uses by default), not with the program's
    # flags: its forced includes and defines are not for this file.
    try:
        done = subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-c", str(stubs), "-o",
                               str(stubs_obj)], capture_output=True, text=True)
        if done.returncode == 0:
            done = subprocess.run([*strict, str(obj), str(stubs_obj), "-o", str(tmp)],
                                  capture_output=True, text=True)
    finally:
        stubs.unlink(missing_ok=True)
        stubs_obj.unlink(missing_ok=True)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        tail = (done.stderr or done.stdout).strip().splitlines()[-20:]
        raise error("nvcc's link with stand-ins for what another file of the program "
                    "defines failed: " + "\n".join(tail))
    os.replace(tmp, out)
