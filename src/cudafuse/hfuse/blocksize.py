"""A part's block size: the default taken from the kernel's `__launch_bounds__`, and what
in the kernel suggests its results depend on the size it is launched with.

The fused kernel runs each part with the block shape it is given, so a kernel written for
one block size (a shared array of that many elements, `blockIdx.x * 256 + threadIdx.x`)
must be given exactly that size; a kernel that takes its size from `blockDim` everywhere may
be given another (profiling varies the split only for those). The check is conservative:
anything that may tie results to the size marks the kernel as keeping it.
"""

from __future__ import annotations

import re

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.diagnostics import error
from cudafuse.hfuse.templates import KernelRef, split_top
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.runtime.spec import evaluate

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])[ \t]*([^\n]*)", re.M)
# `blockDim.x / 2` or `blockDim.x >> 1`: the start of a tree reduction over the block.
_HALVING = re.compile(r"\bblockDim\s*\.\s*([xyz])\s*(?:/\s*2|>>\s*1)\b")
_INT_SUFFIX = re.compile(r"\b(\d+)[uUlL]+\b")


def _object_macros(unit: TranslationUnit) -> dict[str, str]:
    text = unit.source.data.decode("utf-8", "replace")
    return {m.group(1): re.sub(r"//.*|/\*.*?\*/", "", m.group(2)).strip()
            for m in _DEFINE.finditer(text)}


def launch_bound_threads(unit: TranslationUnit, ref: KernelRef) -> int | None:
    """The maximum threads per block of the kernel's `__launch_bounds__`, when it is an
    integer constant expression over object-like macros and template arguments."""
    if not ref.fn.launch_bounds:
        return None
    expr = split_top(ref.fn.launch_bounds)[0].strip()
    names = {p.name: f"({arg})" for p, arg in ref.bindings}
    names.update({k: f"({v})" for k, v in _object_macros(unit).items() if k not in names})
    for _ in range(16):  # macros naming macros, a bounded number of times
        new = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(), m.group()), expr)
        if new == expr:
            break
        expr = new
    try:
        value = evaluate(_INT_SUFFIX.sub(r"\1", expr), {}, "__launch_bounds__")
    except (ValueError, SyntaxError, TypeError, ZeroDivisionError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def default_block(unit: TranslationUnit, ref: KernelRef, option: str) -> tuple[int, str]:
    """The thread count of a part whose block the user did not give, and where it came
    from; an error when the kernel does not say, or uses a 2D/3D block."""
    facts = analyze_kernel(unit, ref.fn)
    multi = sorted(b for b in facts.builtins if b.split(".")[-1] in ("y", "z") and
                   b.split(".")[0] in ("threadIdx", "blockDim"))
    span = ref.fn.name_span
    if multi:
        raise error(f"kernel '{ref.display}' uses {', '.join(multi)}: give its block shape "
                    f"with {option} XxY[xZ]", unit.path, span.line, span.col, status=2)
    threads = launch_bound_threads(unit, ref)
    if threads is None:
        why = "has no __launch_bounds__" if not ref.fn.launch_bounds else \
            f"has __launch_bounds__({ref.fn.launch_bounds}), which is not a constant here"
        raise error(f"kernel '{ref.display}' {why}: give its block size with {option} N",
                    unit.path, span.line, span.col, status=2)
    return threads, f"__launch_bounds__({ref.fn.launch_bounds})"


def block_dependence(unit: TranslationUnit, ref: KernelRef, threads: int) -> list[str]:
    """Why the kernel's results may depend on its block size (empty: none found)."""
    fn = ref.fn
    assert fn.body is not None
    facts = analyze_kernel(unit, fn)
    out = [f"its indexing assumes {a}" for a in facts.mapping.assumptions]
    bounds = launch_bound_threads(unit, ref)
    if bounds is not None and bounds != threads:
        out.append(f"it declares __launch_bounds__({fn.launch_bounds}) = {bounds} threads, "
                   f"not {threads}")
    bodies = [fn.body, *(h.body for h in CallGraph(unit).transitive(fn) if h.body is not None)]
    for body in bodies:
        for node in body.walk():
            if isinstance(node, n.VarDecl) and "shared" in node.storage and \
                    "extern" not in node.storage:
                out.append(f"__shared__ '{node.name}' (line {node.span.line}) has a size fixed "
                           "at compile time, which may be the block's")
    text = unit.source.data.decode("utf-8", "replace")
    for body in bodies:
        if body.span.file != unit.path:
            continue
        m = _HALVING.search(text, body.span.start, body.span.end)
        if m is not None:
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"it halves blockDim.{m.group(1)} (line {line}), a tree reduction that "
                       "needs a power-of-two block")
    if "blockDim.x" not in facts.builtins and "threadIdx.x" in facts.builtins:
        out.append("it reads threadIdx but never blockDim")
    return out
