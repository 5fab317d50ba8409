"""Calls in the fused kernel bind to the functions they bound to in the kernels' own files.

The parts' bodies are copied as text into a function that sits elsewhere (another namespace,
after the whole file, beside the other kernel's names), so a call could compile and yet
resolve to another function: MaxPool's `min(a, b)` found CUDA's `::min` instead of the file's
own, or an overload declared after the kernel. The output's IR (the compile check parses it
anyway) is compared with the originals': for every call in a part's copy that names a
function of the input's own text, the function it calls must be one the same call name
reached in the original kernel. Functions are compared by where they are written (the line
of their declaration in the input's text, or file and offset in a header), since offsets in
the output differ. Calls the original left unresolved (dependent on a template parameter)
are not compared; calls of generated names (helper copies, builtins' shadows) and of member
functions are skipped.
"""

from __future__ import annotations

import functools
import os
import re

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit


def _where(unit: TranslationUnit, decl: str, main: str) -> tuple[str, str] | None:
    """A declaration id `name@file:offset` as (name, the text of its line): the same
    function written in a header and in a block of another input under the same include
    guard (guards.py) compares equal, as it is the same code."""
    name, _, rest = decl.rpartition("@")
    file, _, offset = rest.rpartition(":")
    if not offset.isdigit() or not name:
        return None
    if file in (unit.path, main) or file in unit.sources:
        data = unit.source_of(file if file != main else unit.path).data
    else:
        path = os.path.realpath(file)
        try:
            data = _read(path, os.stat(path).st_mtime_ns)
        except OSError:
            data = path.encode()  # unreadable: compared by its path
    at = int(offset)
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    return name, data[start:end if end >= 0 else len(data)].decode("utf-8", "replace").strip()


@functools.lru_cache(maxsize=256)
def _read(path: str, mtime: int) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _calls(fn: Function | None, start: int = 0, end: int | None = None) -> list[n.Call]:
    if fn is None or fn.body is None:
        return []
    # Member functions are found through the object's class, not by the scopes the code
    # sits in (and a part's block group is another class on purpose: coop.py).
    return [c for c in fn.body.walk() if isinstance(c, n.Call) and c.callee_decl and
            not isinstance(c.callee_expr, n.Member) and
            start <= c.span.start and (end is None or c.span.start < end)]


def _unresolved(fn: Function) -> list[n.Call]:
    """Plain calls of `fn` that name no declaration (dependent, in a template's pattern)."""
    if fn.body is None:
        return []
    return [c for c in fn.body.walk() if isinstance(c, n.Call) and not c.callee_decl and
            c.callee and not isinstance(c.callee_expr, n.Member)]


def mismatches(out: TranslationUnit, fused: str, parts: list[tuple[TranslationUnit,
                                                                    Function]],
               markers: list[int]) -> list[Diagnostic]:
    """Calls of `fused` (in the output `out`) whose target is none the original reached.
    `markers[i]` is where part i's scope starts in the output text."""
    fn = out.function(fused)
    if fn is None:
        return []
    out_diags = []
    bounds = [*markers, len(out.source.data)]
    for i, (unit, kernel) in enumerate(parts):
        before: dict[str, set[tuple[str, str]]] = {}
        unknown: set[str] = set()
        tparams = [p.name for p in kernel.template_params]
        # A call the front end left unresolved in the template's pattern (an argument of a
        # dependent type: ggml's `max(res, (To)cur)`) binds only at instantiation, and may
        # bind another overload than a resolved call of the same name (`max(0, start_h)`).
        unknown.update(c.callee.split("::")[-1] for c in _unresolved(kernel))
        # A call of a non-type template parameter (ggml's `dequantize_kernel_t
        # dequantize_kernel`, a function pointer) calls the bound argument, which the part's
        # scope declares again under the parameter's name (codegen/templates.scope_lines).
        unknown.update(tparams)
        for c in _calls(kernel):
            name = c.callee.split("::")[-1]
            w = _where(unit, c.callee_decl, unit.path)
            # A call of a template's body with an argument of a dependent type is resolved
            # only at instantiation: what the front end names for it proves nothing.
            if w is None or any(not a.type or "dependent" in a.type or
                                "type-parameter" in a.type or
                                any(re.search(rf"\b{re.escape(t)}\b", a.type)
                                    for t in tparams) for a in c.args):
                unknown.add(name)
            else:
                before.setdefault(name, set()).add(w)
        for name in unknown:
            before.pop(name, None)
        for c in _calls(fn, bounds[i], bounds[i + 1]):
            name = c.callee.split("::")[-1]
            if name not in before:
                continue  # a generated name, or a call the original left dependent
            now = _where(out, c.callee_decl, out.path)
            if now is None or now in before[name]:
                continue
            line, col = out.source.line_col(c.span.start)
            out_diags.append(Diagnostic(
                Severity.ERROR, f"in the fused kernel, '{c.callee}' would call the function "
                f"declared at '{now[1]}', not the one kernel '{kernel.name}' calls in its own "
                f"file ('{sorted(before[name])[0][1]}'); nothing was written", out.path, line,
                col, source_line=out.source.line_text(line)))
    return out_diags
