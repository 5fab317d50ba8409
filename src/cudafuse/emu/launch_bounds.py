"""`__launch_bounds__` under the emulator: a launch over the bound fails, as on a GPU.

The emulator's header defines `__launch_bounds__(...)` empty (g++ has no such attribute), so
the bound is put back where the compiler can evaluate it: first in the kernel's body, as
`CUDAFUSE_LAUNCH_BOUNDS("text", args)` (cudafuse_emu_launch.h). There the arguments mean
what they mean in the declaration: a template parameter takes each instantiation's value, a
`#define` or a constexpr its own, so nothing here evaluates them. `__maxnreg__(N)` limits
registers, not threads: it adds nothing. A template kernel's body also registers its
instance's bound by the instance's address (CUDAFUSE_INSTANCE_BOUNDS): every instance the
program names is compiled, and so registered before main, so the runtime's answers before a
launch (cudaFuncGetAttributes, the occupancy API) know each instance's own bound.
"""

from __future__ import annotations

import contextlib
import re

from cudafuse.codegen.splice import OverlappingEdits, Rewriter
from cudafuse.ir.program import Function, TranslationUnit


def _literal(text: str) -> str:
    """`text` as a C string literal, on one line (the check must not move lines)."""
    flat = " ".join(text.split())
    return '"' + flat.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _instance(fn: Function, data: bytes, names: list[str]) -> str:
    """`&k<P1, P2>`, the address of the instance a template kernel's body is compiled as,
    named in that body by the kernel's own template parameters; '' where that name could mean
    another function (an overloaded name, a qualified definition) or a parameter is a pack
    (TemplateParam does not say so: a `...` in the template head is taken for one)."""
    if not fn.is_template or not fn.template_params or names.count(fn.name) != 1:
        return ""
    head = data[fn.span.start:fn.name_span.start]
    if b"..." in head or head.rstrip().endswith(b"::"):
        return ""
    return f"&{fn.name}<{', '.join(p.name for p in fn.template_params)}>"


def insert_checks(unit: TranslationUnit, rw: Rewriter) -> None:
    """The check first in the body of each kernel of the file declared with a bound."""
    data = unit.source.data
    done: set[int] = set()
    # An overloaded &name is ambiguous: one signature of the name only.
    signatures = {(f.name, tuple(p.type for p in f.params)) for f in unit.functions}
    names = [name for name, _ in signatures]
    for fn in unit.kernels:
        span = fn.body_span
        if not fn.launch_bounds or span.file != unit.path:
            continue
        if data[span.start:span.start + 1] != b"{" or span.start in done:
            continue  # a body written by a macro is left alone
        if fn.launch_bounds.count("(") != fn.launch_bounds.count(")"):
            continue  # not the whole argument list (a head written by a macro): no check
        if set(re.findall(r"[A-Za-z_]\w*", fn.launch_bounds)) & {p.name for p in fn.params}:
            continue  # in the body a parameter would hide the name the bound means
        done.add(span.start)
        args = " ".join(fn.launch_bounds.split())
        text = f" CUDAFUSE_LAUNCH_BOUNDS({_literal(fn.launch_bounds)}, {args})"
        instance = _instance(fn, data, names)
        if instance:
            text += f" CUDAFUSE_INSTANCE_BOUNDS(({instance}), {args})"
        try:
            rw.insert(span.start + 1, text, f"__launch_bounds__ of {fn.name}")
        except OverlappingEdits:  # another rewrite owns the opening brace: no check there
            continue
        # The bound by the kernel's address too, for what the runtime reports before a
        # launch (cudaFuncGetAttributes, the occupancy API): a kernel with one address only.
        if fn.is_template or names.count(fn.name) != 1 or data[span.end - 1:span.end] != b"}":
            continue
        if data[:fn.name_span.start].rstrip().endswith(b"::"):
            continue  # `void ns::k(...) {...}`: the plain name is not in scope after it
        with contextlib.suppress(OverlappingEdits):
            rw.insert(span.end, f" CUDAFUSE_BOUNDS_OF({fn.name}, {args})",
                      f"__launch_bounds__ of {fn.name}, registered")
