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
from pathlib import Path

_DYN_UNDEFINED = re.compile(r"^\s*\d+:\s+0+\s+\d+\s+(\w+)\s+\w+\s+\w+\s+UND\s+(\S+)", re.M)


def demangle(names: list[str]) -> dict[str, str]:
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}
    return dict(zip(names, out, strict=False))


def stub_source(library: Path, missing: list[str], files: list[str] = ()) -> str | None:
    """C++ defining a stand-in for each symbol of `missing` (as the linker named them,
    demangled) that `library` (linked with the references left unresolved) lacks; None when
    one of them is not found there, or the library cannot be read. `files`: the program's
    other files that seem to define them, named in the message a stand-in stops with."""
    try:
        syms = subprocess.run(["readelf", "-W", "--dyn-syms", str(library)],
                              capture_output=True, text=True, check=True).stdout
        relocs = subprocess.run(["readelf", "-W", "-r", str(library)],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    undefined = {name.split("@")[0] for _, name in _DYN_UNDEFINED.findall(syms)}
    readable = demangle(sorted(undefined))
    wanted = set(missing)
    stubs, blocks, found = [], [], set()
    for mangled, shown in readable.items():
        if shown not in wanted and mangled not in wanted:
            continue
        found.add(shown if shown in wanted else mangled)
        slots = re.findall(rf"^\S+\s+\S+\s+(\S+)\s+\S+\s+{re.escape(mangled)}\b", relocs,
                           re.M)
        text = shown.replace("\\", "\\\\").replace('"', '\\"')
        # A function (its demangled name has a parameter list) gets a stub even where its
        # address is taken too (the emulator registers a kernel by its address): a call
        # through that address then stops with the name; pages no access is allowed to would
        # end the run with a bare SIGSEGV (yakovenko's Canny launches canny.cu's kernels).
        if "(" in shown or (slots and all(s == "R_X86_64_JUMP_SLOT" for s in slots)):
            stubs.append(f'extern "C" void {mangled}() {{ cf_undefined("{text}"); }}')
        else:  # a variable (or a function's address): pages no access is allowed to
            blocks.append(mangled)
    if found != wanted:
        return None
    where = (f"{', '.join(files)} {'seems' if len(files) == 1 else 'seem'} to define it; "
             if files else "")
    data = "".join(f'extern "C" {{ __attribute__((aligned(4096))) char {m}[65536]; }}\n'
                   for m in blocks)
    protect = "".join(f"  mprotect({m}, sizeof {m}, PROT_NONE);\n" for m in blocks)
    return ("// Functions and variables another file of the program defines "
            "(emu/undefined.py).\n#include <stdio.h>\n#include <stdlib.h>\n"
            "#include <sys/mman.h>\n"
            # As the emulator's own errors stop (report_exit, cudafuse_emu_device.h): the
            # message in the run's report file, status 86, so the runtime shows it as the
            # reason, not abort()'s SIGABRT (which it reads as a corrupted heap).
            "[[noreturn]] static void cf_undefined(const char *name) {\n"
            "  char msg[1024];\n"
            '  snprintf(msg, sizeof msg, "%s was called, but another file of the program '
            "defines it (" + _c_string(where) + "only the program's own file is built)\", "
            "name);\n"
            '  const char *path = getenv("CUDAFUSE_EMU_REPORT");\n'
            '  FILE *fh = path ? fopen(path, "w") : nullptr;\n'
            "  if (fh) { fputs(msg, fh); fclose(fh); }\n"
            '  else fprintf(stderr, "cudafuse-emu: error: %s\\n", msg);\n'
            "  fflush(stdout);\n  fflush(stderr);\n  _Exit(86);\n}\n" +
            "\n".join(stubs) + "\n" + data +
            "__attribute__((constructor)) static void cf_undefined_data() {\n" + protect +
            "}\n")


def _c_string(text: str) -> str:
    """`text` escaped for a C string literal (a file name may hold quotes or backslashes),
    with % doubled for snprintf's format."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
