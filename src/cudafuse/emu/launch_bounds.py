"""`__launch_bounds__` under the emulator: a launch over the bound fails, as on a GPU.

The emulator's header defines `__launch_bounds__(...)` empty (g++ has no such attribute), so
the bound is put back where the compiler can evaluate it: first in the kernel's body, as
`__CF_LAUNCH_BOUNDS("text", args)` (cudafuse_emu_launch.h). There the arguments mean
what they mean in the declaration: a template parameter takes each instantiation's value, a
`#define` or a constexpr its own, so nothing here evaluates them. `__maxnreg__(N)` limits
registers, not threads: it adds nothing. A template kernel's body also registers its
instance's bound by the instance's address (__CF_INSTANCE_BOUNDS): every instance the
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


def _address(fn: Function, data: bytes, path: str, names: list[str]) -> str:
    """The address of the kernel (`&k`), or for a template of the instance its body is
    compiled as, named there by the kernel's own template parameters (`&k<P1, P2>`); for an
    overloaded name `static_cast<void (*)(params as written)>(&k...)`, which picks this one.
    '' where that could mean another function or not compile: a qualified definition, a
    parameter pack (TemplateParam does not say so: a `...` in the head is taken for one), a
    parameter not written in the file or with a default argument (not allowed in a type)."""
    head = data[fn.span.start:fn.name_span.start]
    if head.rstrip().endswith(b"::"):
        return ""  # `void ns::k(...) {...}`: the plain name is not in scope after it
    if fn.is_template and (not fn.template_params or b"..." in head):
        return ""
    address = f"&{fn.name}"
    if fn.is_template:
        address += f"<{', '.join(p.name for p in fn.template_params)}>"
    if names.count(fn.name) == 1:
        return address
    written = []
    for p in fn.params:
        text = data[p.span.start:p.span.end].decode("utf-8", "replace")
        if p.span.file != path or not text.strip() or "=" in text or "..." in text:
            return ""
        written.append(" ".join(text.split()))
    return f"static_cast<void (*)({', '.join(written)})>({address})"


def insert_checks(unit: TranslationUnit, rw: Rewriter) -> None:
    """The check first in the body of each kernel of the file declared with a bound."""
    data = unit.source.data
    done: set[int] = set()
    # An overloaded &name is ambiguous: more than one signature of the name takes a cast.
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
        text = f" __CF_LAUNCH_BOUNDS({_literal(fn.launch_bounds)}, {args})"
        address = _address(fn, data, unit.path, names)
        if address and fn.is_template:
            text += f" __CF_INSTANCE_BOUNDS(({address}), {args})"
        try:
            rw.insert(span.start + 1, text, f"__launch_bounds__ of {fn.name}")
        except OverlappingEdits:  # another rewrite owns the opening brace: no check there
            continue
        # The bound by the kernel's address too, after its body, for what the runtime reports
        # before a launch (cudaFuncGetAttributes, the occupancy API).
        if fn.is_template or not address or data[span.end - 1:span.end] != b"}":
            continue
        named = fn.name if address == f"&{fn.name}" else f"(*{address})"
        with contextlib.suppress(OverlappingEdits):
            rw.insert(span.end, f" __CF_BOUNDS_OF({named}, {args})",
                      f"__launch_bounds__ of {fn.name}, registered")
