"""Helper device functions that must see a part's view of the block: per-part copies.

A helper that reads `threadIdx`/`blockIdx`/`blockDim`/`gridDim` would see the fused block's
values, one that waits at `__syncthreads()` would wait for both parts, and a `__shared__`
variable declared in a helper is one array for every caller. Each such helper (and every
helper that calls one) gets a copy per part, `<prefix>_p<i>_<name>`, that takes the part's
builtins as its first four parameters (named like the builtins, so they shadow them as the
part's locals do), with its barriers rewritten to the part's named barrier. Calls from the
part and from other copies pass the caller's (already remapped) builtins along.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.shared_memory import mentioned, shared_reach
from cudafuse.codegen.splice import Rewriter
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import SourceFile, Span
from cudafuse.passes.horizontal import coop
from cudafuse.passes.horizontal.barrier_macros import barrier_suffix
from cudafuse.passes.horizontal.shared_split import dyn_pointer, extern_globals, shared_classes

BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
BUILTIN_PARAMS = ("[[maybe_unused]] const uint3 threadIdx, [[maybe_unused]] const dim3 blockDim, "
                  "[[maybe_unused]] const uint3 blockIdx, [[maybe_unused]] const dim3 gridDim")
BUILTIN_ARGS = "threadIdx, blockDim, blockIdx, gridDim"
# __syncthreads_count / _and / _or and their CUDAFUSE_BAR_RED kind.
REDUCING = {"__syncthreads_count": 0, "__syncthreads_and": 1, "__syncthreads_or": 2}
REDUCING_CALL = re.compile(r"^(__syncthreads_(?:count|and|or))\s*\(")


def _reason(fn: Function, mode: str, unit: TranslationUnit | None = None,
            classes: frozenset[str] = frozenset()) -> str:
    """Why `fn` itself needs a per-part copy ('' if it does not). In thread mode part 2's
    dynamic shared memory is not at offset 0: a helper reaching it (an extern __shared__
    array, a namespace-scope one, a class declaring one) is copied (shared_split.py)."""
    assert fn.body is not None
    if mode == "thread" and unit is not None:
        used = extern_globals(unit, fn)
        if used:
            return f"uses the namespace-scope extern __shared__ array '{min(used)}'"
        # by name, or by a call the front end resolved to a member (an implicit conversion)
        called = {m.parent for m in unit.methods if m.parent in classes} & {
            next((m.parent for m in unit.methods if m.decl == x.callee_decl), "")
            for x in fn.body.walk() if isinstance(x, n.Call) and x.callee_decl}
        named = sorted((mentioned(unit, fn.span) | called) & classes)
        if named:
            return f"names class '{named[0]}', which declares shared memory"
    if unit is not None and coop.names_block(unit, fn):
        return "uses cooperative groups' thread block"
    for node in fn.body.walk():
        if mode == "thread" and isinstance(node, n.VarDecl) and \
                {"shared", "extern"} <= node.storage:
            return f"declares the extern __shared__ array '{node.name}'"
        if isinstance(node, n.Member) and isinstance(node.base, n.Ref) and \
                node.base.kind == "builtin" and node.base.name in BUILTINS:
            return f"reads {node.base.name}"
        if mode == "thread" and isinstance(node, n.Call) and \
                node.callee.split("::")[-1] in ("__syncthreads", *REDUCING):
            return f"waits at {node.callee.split('::')[-1]}()"
        if mode == "thread" and isinstance(node, n.VarDecl) and "shared" in node.storage and \
                "extern" not in node.storage:
            return f"declares the __shared__ variable '{node.name}'"
    return ""


@dataclass(frozen=True)
class Copies:
    """The helpers a part copies (callees before callers where the calls allow), why."""

    functions: tuple[Function, ...]
    reasons: tuple[str, ...]


def helpers_to_copy(unit: TranslationUnit, kernel: Function, mode: str) -> Copies:
    graph = CallGraph(unit)
    helpers = graph.transitive(kernel)
    classes = frozenset(shared_classes(shared_reach(unit, kernel, graph))) \
        if mode == "thread" else frozenset()
    why = {h.decl: _reason(h, mode, unit, classes) for h in helpers}
    changed = True
    while changed:  # a caller of a copied helper must pass the builtins on: copy it too
        changed = False
        for h in helpers:
            if not why[h.decl]:
                callee = next((c for c in graph.direct(h) if why.get(c.decl)), None)
                if callee is not None:
                    why[h.decl] = f"calls '{callee.name}'"
                    changed = True
    # Callees before callers (depth-first post-order), so each copy is declared before use.
    chosen: list[Function] = []

    def visit(f: Function, seen: set[str]) -> None:
        for c in graph.direct(f):
            if why.get(c.decl) and c.decl not in seen:
                seen.add(c.decl)
                visit(c, seen)
                chosen.append(c)

    visit(kernel, set())
    return Copies(tuple(chosen), tuple(why[h.decl] for h in chosen))


def copy_name(prefix: str, part: int, fn: Function) -> str:
    return f"{prefix}_p{part}_{fn.name}"


def call_edits(unit: TranslationUnit, node: n.Node, copies: dict[str, str]
               ) -> tuple[list[tuple[int, int, str]], list[Span]]:
    """Edits (absolute start, end, text) turning calls of copied helpers under `node` into
    calls of the copies; and the spans of calls that cannot be edited (macro expansions)."""
    graph = CallGraph(unit)
    edits: list[tuple[int, int, str]] = []
    bad: list[Span] = []
    for call in node.walk():
        if not isinstance(call, n.Call):
            continue
        target = graph.resolve(call)
        if target is None or target.decl not in copies:
            continue
        text = unit.code_text(call.span) if call.span.file == unit.path else ""
        m = re.match(rf"(?:\w+::)*{re.escape(target.name)}\s*(?:<[^()]*>\s*)?\(", text)
        if m is None:
            bad.append(call.span)
            continue
        sep = ", " if call.args else ""
        edits.append((call.span.start, call.span.start + m.end(),
                      f"{copies[target.decl]}({BUILTIN_ARGS}{sep}"))
    return edits, bad


def reducing_edit(data: bytes, call: n.Call, part: int, threads: int
                  ) -> tuple[int, int, str] | None:
    """The edit turning `__syncthreads_count(p)` (or _and, _or) written at `call` into
    `CUDAFUSE_BAR_RED(kind, part, threads, p)`: the name and the opening parenthesis only,
    so edits inside the argument stay disjoint. None when not written out (a macro)."""
    text = data[call.span.start:call.span.end].decode("utf-8", "replace")
    m = REDUCING_CALL.match(text)
    if m is None:
        return None
    return (call.span.start, call.span.start + m.end(),
            f"CUDAFUSE_BAR_RED({REDUCING[m.group(1)]}, {part}, {threads}, ")


@dataclass(frozen=True)
class SmemView:
    """Part 2's view of dynamic shared memory in a helper copy (thread mode)."""

    base: str  # the address of the part's region
    usings: tuple[str, ...]  # `using ns::Class;` lines: its copies of classes


def copy_text(unit: TranslationUnit, fn: Function, name: str, copies: dict[str, str],
              barrier: str, reducing: tuple[int, int] | None = None,
              smem: SmemView | None = None, coop_ns: str = "") -> str:
    """The definition of `fn` renamed to `name`, taking the builtins first, with its calls of
    copied helpers and (barrier non-empty) its __syncthreads() rewritten, and (reducing:
    the part's barrier id and thread count) its __syncthreads_count/_and/_or; with `smem`,
    its extern __shared__ arrays (declared or namespace-scope) at the part's region; with
    `coop_ns`, its cooperative groups' block group the part's (coop.py)."""
    span = fn.span
    rw = Rewriter(SourceFile(unit.path, unit.source.data[span.start:span.end]))

    def rel(start: int, end: int, text: str, why: str) -> None:
        rw.replace_range(start - span.start, end - span.start, text, why)

    rel(fn.name_span.start, fn.name_span.end, name, "per-part copy")
    data = unit.code  # read as clang does (a '(' in a comment is none)
    open_paren = data.index(b"(", fn.name_span.end)
    close = data.index(b")", open_paren) if not fn.params else -1
    if fn.params:
        rel(open_paren + 1, open_paren + 1, BUILTIN_PARAMS + ", ", "builtins first")
    else:  # () or (void)
        rel(open_paren + 1, close, BUILTIN_PARAMS, "builtins")
    assert fn.body is not None
    edits, _ = call_edits(unit, fn.body, copies)
    for start, end, text in edits:
        rel(start, end, text, "call of a copy")
    if coop_ns:
        for start, end, text in coop.edits(unit, fn.body, fn.span, coop_ns):
            rel(start, end, text, "the part's block group")
    if barrier:
        for node in fn.body.walk():
            if isinstance(node, n.Call) and node.callee.split("::")[-1] == "__syncthreads":
                suffix = barrier_suffix(unit, node)
                assert suffix is not None  # parts.py refuses what cannot be rewritten
                rel(node.span.start, node.span.end, barrier + suffix, "the part's barrier")
    if reducing is not None:
        for node in fn.body.walk():
            if isinstance(node, n.Call) and node.callee.split("::")[-1] in REDUCING:
                edit = reducing_edit(data, node, *reducing)
                assert edit is not None  # parts.py refuses what is not written out
                rel(*edit, "bar.red on the part's barrier")
    if smem is not None:
        for node in fn.body.walk():
            if isinstance(node, n.VarDecl) and {"shared", "extern"} <= node.storage:
                rel(node.span.start, node.span.end, dyn_pointer(node.var_type, node.name,
                                                                smem.base),
                    "extern __shared__ -> the part's region")
        # Declared first in the body: they shadow the namespace-scope arrays and classes.
        head = [*smem.usings, *(dyn_pointer(t, g, smem.base) + ";"
                                for g, t in sorted(extern_globals(unit, fn).items()))]
        if head:
            rel(fn.body_span.start + 1, fn.body_span.start + 1,
                " " + " ".join(head), "the part's shared memory")
    return rw.apply().decode("utf-8")
