"""Functions a program calls but another of its files defines, for the emulator's build.

The emulator builds one file, as `nvcc -c` compiles one. A file of a larger program
(ccminer's blake2b.cu: its host code calls `blake2b_init`, defined in sph/blake2b.c, and
`cuda_log_lasterror`, in cuda.cpp) then leaves references the link cannot resolve, though
the kernels a run spec launches need none of them. When another source file in the
program's folders (its own, its -I ones) seems to define one of them (build.py says which
in the error otherwise), such functions are linked to stubs that
stop the run with the function's name when called; an undefined variable (or a function
whose address is taken) is given 64 KiB of pages no access is allowed to, so that reading
it faults instead of finding made-up values.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# What a stand-in ends the process with, as the emulator's own errors do (report_exit,
# cudafuse_emu_device.h); the nvcc backend's stand-ins too (runtime/standins.py).
EXIT_STATUS = 86
# Blanks, not \s: the table's first row is the null symbol, UND with no name, and \s would
# take the next row's number for its name and hide that row's symbol.
_DYN_UNDEFINED = re.compile(
    r"^[ \t]*\d+:[ \t]+0+[ \t]+\d+(?:[ \t]+\w+){3}[ \t]+UND[ \t]+(\S+)", re.M)


def demangle(names: list[str]) -> dict[str, str]:
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}
    return dict(zip(names, out, strict=False))


@dataclass(frozen=True)
class Symbol:
    """An undefined symbol of a loosely linked library: as the linker names it, demangled
    (`shown`), and whether the program only calls it (else it reads it or takes its
    address)."""

    mangled: str
    shown: str
    called: bool


def undefined(library: Path, missing: list[str]) -> list[Symbol] | None:
    """The symbols of `missing` (demangled, as the linker named them) in `library`, linked
    with them left undefined; None when one is not found there or the library cannot be
    read. A symbol only called goes through the PLT alone (R_X86_64_JUMP_SLOT relocations);
    any other relocation reads it or takes its address."""
    try:
        syms = subprocess.run(["readelf", "-W", "--dyn-syms", str(library)],
                              capture_output=True, text=True, check=True).stdout
        relocs = subprocess.run(["readelf", "-W", "-r", str(library)],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = sorted({name.split("@")[0] for name in _DYN_UNDEFINED.findall(syms)})
    wanted = set(missing)
    found: list[Symbol] = []
    for mangled, shown in demangle(names).items():
        if shown not in wanted and mangled not in wanted:
            continue
        slots = re.findall(rf"^\S+[ \t]+\S+[ \t]+(\S+)[ \t]+\S+[ \t]+{re.escape(mangled)}\b",
                           relocs, re.M)
        found.append(Symbol(mangled, shown if shown in wanted else mangled,
                            bool(slots) and all(s == "R_X86_64_JUMP_SLOT" for s in slots)))
    return found if {s.shown for s in found} == wanted else None


def stub_source(library: Path, missing: list[str], files: list[str] = (),
                heads: dict[str, str] | None = None) -> str | None:
    """C++ defining a stand-in for each symbol of `missing` (as the linker named them,
    demangled) that `library` (linked with the references left unresolved) lacks; None when
    one of them is not found there, or the library cannot be read. `files`: the program's
    other files that seem to define them, named in the message a stand-in stops with;
    `heads`: by name, how that message starts (`prog.cu:2:6: error: f(int) was called (by
    run(float*))`), `f(int) was called` where none is given."""
    symbols = undefined(library, missing)
    if symbols is None:
        return None
    stubs, blocks = [], []
    for symbol in symbols:
        text = c_string((heads or {}).get(symbol.shown, f"{symbol.shown} was called"))
        # A function (its demangled name has a parameter list) gets a stub even where its
        # address is taken too (the emulator registers a kernel by its address): a call
        # through that address then stops with the name; pages no access is allowed to would
        # end the run with a bare SIGSEGV (yakovenko's Canny launches canny.cu's kernels).
        if "(" in symbol.shown or symbol.called:
            stubs.append(f'extern "C" void {symbol.mangled}() {{ cf_undefined("{text}"); }}')
        else:  # a variable (or a function's address): pages no access is allowed to
            blocks.append(symbol.mangled)
    where = (f"{', '.join(files)} {'seems' if len(files) == 1 else 'seem'} to define it; "
             if files else "")
    in_format = c_string(where).replace("%", "%%")  # inside snprintf's format
    data = "".join(f'extern "C" {{ __attribute__((aligned(4096))) char {m}[65536]; }}\n'
                   for m in blocks)
    protect = "".join(f"  mprotect({m}, sizeof {m}, PROT_NONE);\n" for m in blocks)
    return ("// Functions and variables another file of the program defines "
            "(emu/undefined.py).\n#include <stdio.h>\n#include <stdlib.h>\n"
            "#include <sys/mman.h>\n"
            # As the emulator's own errors stop (report_exit, cudafuse_emu_device.h): the
            # message in the run's report file, status EXIT_STATUS, so the runtime shows it as
            # the reason, not abort()'s SIGABRT (which it reads as a corrupted heap).
            "[[noreturn]] static void cf_undefined(const char *head) {\n"
            "  char msg[2048];\n"
            '  snprintf(msg, sizeof msg, "%s, but another file of the program '
            "defines it (" + in_format + "only the program's own file is built)\", "
            "head);\n"
            '  const char *path = getenv("CUDAFUSE_EMU_REPORT");\n'
            '  FILE *fh = path ? fopen(path, "w") : nullptr;\n'
            "  if (fh) { fputs(msg, fh); fclose(fh); }\n"
            '  else fprintf(stderr, "cudafuse-emu: error: %s\\n", msg);\n'
            f"  fflush(stdout);\n  fflush(stderr);\n  _Exit({EXIT_STATUS});\n}}\n" +
            "\n".join(stubs) + "\n" + data +
            "__attribute__((constructor)) static void cf_undefined_data() {\n" + protect +
            "}\n")


def c_string(text: str) -> str:
    """`text` escaped for a C string literal (a name or a file name may hold quotes,
    backslashes or line breaks)."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
