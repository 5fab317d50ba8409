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
from dataclasses import dataclass

from cudafuse.analysis.c_constant import evaluate_c
from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.codegen.templates import KernelRef
from cudafuse.diagnostics import Diagnostic, Severity, error
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span


@dataclass(frozen=True)
class Shape:
    """A block shape; threads are numbered x + y*X + z*X*Y, as in CUDA."""

    x: int
    y: int = 1
    z: int = 1

    @property
    def count(self) -> int:
        return self.x * self.y * self.z

    def __str__(self) -> str:
        return "x".join(str(v) for v in (self.x, self.y, self.z)[:self.dims])

    @property
    def dims(self) -> int:
        return 3 if self.z > 1 else 2 if self.y > 1 else 1

    @staticmethod
    def parse(text: str) -> Shape:
        """'256', '32x8' or '8x8x4' (raises ValueError)."""
        parts = [int(v) for v in text.lower().split("x")]
        if not 1 <= len(parts) <= 3 or any(v <= 0 for v in parts):
            raise ValueError(text)
        return Shape(*parts)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])[ \t]*([^\n]*)", re.M)
# `blockDim.x / 2` or `blockDim.x >> 1`: the start of a tree reduction over the block.
_HALVING = re.compile(r"\bblockDim\s*\.\s*([xyz])\s*(?:/\s*2|>>\s*1)\b")


def _object_macros(unit: TranslationUnit) -> dict[str, str]:
    # The main file's, and those of the included files whose kernels were lowered.
    text = b"\n".join([*(s.data for s in unit.sources.values()), unit.source.data]).decode(
        "utf-8", "replace")
    return {m.group(1): re.sub(r"//.*|/\*.*?\*/", "", m.group(2)).strip()
            for m in _DEFINE.finditer(text)}


def launch_bound_threads(unit: TranslationUnit, ref: KernelRef) -> int | None:
    """The maximum threads per block of the kernel's `__launch_bounds__`, when it is an
    integer constant expression (in C's syntax and integer semantics: PyTorch's
    C10_LAUNCH_BOUNDS_1 expands to `(N <= MAX) ? N : FALLBACK`) over the template
    arguments, the object-like macros and the file's constant variables (its
    CUDA_MAX_THREADS_PER_BLOCK), in that order of precedence."""
    if not ref.fn.launch_bounds:
        return None
    names = {**_constants(unit), **_object_macros(unit),
             **{p.name: arg for p, arg in ref.bindings}}
    try:
        value = evaluate_c(_first_argument(ref.fn.launch_bounds), names)
    except (ValueError, RecursionError):
        return None
    return value if value > 0 else None


def _first_argument(text: str) -> str:
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return text[:i]
    return text


_CONSTANT_INIT = re.compile(r"\bconst(?:expr)?\b[^=;{]*=\s*([^;{}]+)$|"
                            r"\bconst(?:expr)?\b[^=;{]*\{([^;{}]+)\}$")


def _constants(unit: TranslationUnit) -> dict[str, str]:
    """A namespace-scope `const`/`constexpr` variable's initialiser text, by name."""
    out = {}
    for g in unit.globals:
        if g.type.startswith("const ") and (m := _CONSTANT_INIT.search(unit.text(g.span))):
            out[g.name] = (m.group(1) or m.group(2)).strip()
    return out


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
    # The bound itself is no dependence: it limits the kernel launched alone, and a part of a
    # fused kernel runs under the fused kernel's own bound (bound_waiver). What its code
    # does with the declared count is one: a loop written to it.
    bounds = launch_bound_threads(unit, ref)
    loop = _loop_to(unit, fn, bounds) if bounds is not None else ""
    if loop:
        out.append(f"it declares __launch_bounds__({fn.launch_bounds}) = {bounds} and {loop}")
    bodies = [fn.body, *(h.body for h in CallGraph(unit).transitive(fn) if h.body is not None)]
    for body in bodies:
        for node in body.walk():
            if isinstance(node, n.VarDecl) and "shared" in node.storage and \
                    "extern" not in node.storage:
                out.append(f"__shared__ '{node.name}' (line {node.span.line}) has a size fixed "
                           "at compile time, which may be the block's")
    for body in bodies:
        if not unit.owns(body.span):
            continue
        # As clang reads it: a halving in a comment or under #if 0 is none.
        text = unit.code_of(body.span.file).decode("utf-8", "replace")
        m = _HALVING.search(text, body.span.start, body.span.end)
        if m is not None:
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"it halves blockDim.{m.group(1)} (line {line}), a tree reduction that "
                       "needs a power-of-two block")
    if "blockDim.x" not in facts.builtins and "threadIdx.x" in facts.builtins:
        out.append("it reads threadIdx but never blockDim")
    return out


_ASSUMED = re.compile(r"blockDim\.([xyz]) == (\d+)")


def contradictions(unit: TranslationUnit, ref: KernelRef, block: Shape, option: str,
                   fused: bool = False) -> list[Diagnostic]:
    """Errors for a block given on the command line (`option`) that the kernel contradicts:
    a size other than its `__launch_bounds__` declares while its indexing, fixed-size
    shared arrays or loop bounds are written for the declared count (results would be
    wrong), or a size other than the one its indexing provably assumes (`blockIdx.x * 256 +
    threadIdx.x`); and, for a kernel launched as it is (not `fused`: streams and sequential
    modes), more threads than its `__launch_bounds__` allows (the launch would fail). In a
    fused kernel the part runs under the fused kernel's own bound (bound_waiver)."""
    fn = ref.fn
    assert fn.body is not None
    bounds = launch_bound_threads(unit, ref)
    at = _bounds_span(unit, fn) if bounds is not None else fn.name_span
    name = ref.display
    out = []
    if bounds is not None and block.count > bounds and not fused:
        out.append(_error(unit, at, f"{option} {block} has {block.count} threads, but kernel "
                          f"'{name}' declares __launch_bounds__({fn.launch_bounds}): at most "
                          f"{bounds} threads per block (the launch would fail)"))
        return out
    facts = analyze_kernel(unit, fn)
    sizes = {"x": block.x, "y": block.y, "z": block.z}
    for d, value in sorted({(m.group(1), int(m.group(2))) for a in facts.mapping.assumptions
                            if (m := _ASSUMED.fullmatch(a))}):
        if sizes[d] != value:
            where = _literal_span(unit, fn, value, d) or at
            out.append(_error(unit, where, f"{option} {block} gives blockDim.{d} == {sizes[d]}, "
                              f"but the indexing of kernel '{name}' assumes blockDim.{d} == "
                              f"{value}" + (f" (its __launch_bounds__ declares {bounds})"
                                            if bounds is not None else "") +
                              f"; it would compute wrong results (give {option} "
                              f"{_with(block, d, value)})"))
    if out or bounds is None or bounds == block.count:
        return out
    why = _written_for(unit, fn, bounds)
    if why:
        out.append(_error(unit, at, f"{option} {block} gives {block.count} threads, but kernel "
                          f"'{name}' declares __launch_bounds__({fn.launch_bounds}) = {bounds} "
                          f"and {why}, so it would compute wrong results with "
                          f"{block.count} (give {option} {bounds})"))
    return out


def _with(block: Shape, dim: str, value: int) -> str:
    """`block` with dimension `dim` set to `value`, written as the option takes it."""
    dims = {"x": block.x, "y": block.y, "z": block.z, dim: value}
    shown = [dims["x"], dims["y"], dims["z"]]
    while len(shown) > 1 and shown[-1] == 1:
        shown.pop()
    return "x".join(map(str, shown))


def _error(unit: TranslationUnit, span: Span, msg: str) -> Diagnostic:
    return Diagnostic(Severity.ERROR, msg, span.file or unit.path, span.line, span.col,
                      unit.source_of(span.file).line_text(span.line) if unit.owns(span) else "")


def _bounds_span(unit: TranslationUnit, fn: Function) -> Span:
    """Where `__launch_bounds__` is written in the declaration (else the kernel's name)."""
    if unit.owns(fn.span):
        src = unit.source_of(fn.span.file)
        code = unit.code_of(fn.span.file)  # the one clang reads, not a commented-out one
        pos = code.find(b"__launch_bounds__", fn.span.start, fn.name_span.start)
        if pos >= 0:
            return src.span(pos, pos + len("__launch_bounds__"))
    return fn.name_span


def _literal_span(unit: TranslationUnit, fn: Function, value: int, dim: str) -> Span | None:
    """The integer literal `value` in the kernel's body where it multiplies blockIdx.<dim>
    (else the first one)."""
    if not unit.owns(fn.body_span):
        return None
    src = unit.source_of(fn.body_span.file)
    text, lit = src.data, rb"(?<![\w.])(%d)[uUlL]*\b" % value
    block = rb"blockIdx\s*\.\s*" + dim.encode()
    for pattern in (block + rb"\s*\*\s*" + lit, lit + rb"\s*\*\s*" + block, lit):
        m = re.compile(pattern).search(text, fn.body_span.start, fn.body_span.end)
        if m:
            return src.span(m.start(1), m.end(1))
    return None


def bound_waiver(unit: TranslationUnit, ref: KernelRef, block: Shape) -> str:
    """Why a part given more threads than its kernel's `__launch_bounds__` still launches
    (empty when it is not given more): the bound is the kernel's, launched alone; the fused
    kernel declares its own, for the fused block (passes/horizontal/codegen.py)."""
    bounds = launch_bound_threads(unit, ref)
    if bounds is None or block.count <= bounds:
        return ""
    return (f"its __launch_bounds__({ref.fn.launch_bounds}) = {bounds} threads binds "
            f"'{ref.display}' launched alone; as a part it runs {block.count} threads under "
            "the fused kernel's own __launch_bounds__ (or __maxnreg__), which counts the "
            "whole fused block")


def _written_for(unit: TranslationUnit, fn: Function, count: int) -> str:
    """How the kernel (and its helpers) is written for `count` threads per block: a
    fixed-size __shared__ array of `count` elements, or a loop bounded by `count`."""
    bodies = [fn, *(h for h in CallGraph(unit).transitive(fn) if h.body is not None)]
    for f in bodies:
        assert f.body is not None
        for node in f.body.walk():
            if isinstance(node, n.VarDecl) and "shared" in node.storage and any(
                    isinstance(d, n.IntLit) and d.value == count for d in node.array_dims):
                return (f"__shared__ '{node.name}' (line {node.span.line}) has {count} "
                        "elements, one per thread")
    return _loop_to(unit, fn, count)


def _loop_to(unit: TranslationUnit, fn: Function, count: int) -> str:
    """A loop of the kernel (or its helpers) bounded by the literal `count`."""
    bodies = [fn, *(h for h in CallGraph(unit).transitive(fn) if h.body is not None)]
    loop = re.compile(rf"\bfor\s*\([^;]*;[^;]*<=?\s*\(?\s*{count}[uUlL]*\b")
    for f in bodies:
        if unit.owns(f.body_span):
            text = unit.code_of(f.body_span.file).decode("utf-8", "replace")
            m = loop.search(text, f.body_span.start, f.body_span.end)
            if m is not None:
                return f"a loop runs to {count} (line {text.count(chr(10), 0, m.start()) + 1})"
    return ""
