"""Every way a kernel reaches `__shared__` memory, not only the declarations in its body.

A kernel may declare shared arrays itself, or reach them through helper device functions
(called transitively), member functions (cuda-samples' `SharedMemory<T>`, whose conversion
operator declares `extern __shared__ int __smem[]` and is called implicitly), class templates
(named in a template kernel, where the conversion is not resolved yet), macros expanding to
any of these, and namespace-scope `__shared__` arrays. What the front end cannot see (a
definition in a header) is reported as opaque when that header declares shared memory, so
that callers refuse rather than guess.

Classes are found by name: a function (or a macro it uses) that names a class of the file
reaches all of that class's member functions. That over-approximates, which is the safe side.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.unit_index import unit_index
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import code_bytes
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span

_IDENT = re.compile(rb"[A-Za-z_]\w*")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n\\]|\\[\s\S])*)", re.M)
# Not `class T` in a template's parameter list: a definition, declaration or specialisation.
_TYPE_NAME = re.compile(rb"\b(?:struct|class|union)\s+([A-Za-z_]\w*)(?=\s*[{:;<])")
_FUNC_NAME = re.compile(rb"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?\{")
_KEYWORDS = {b"if", b"for", b"while", b"switch", b"catch", b"return", b"sizeof"}


@dataclass(frozen=True)
class SharedUse:
    """One shared array a kernel reaches, and through what."""

    name: str  # the array; for an opaque use, the name that leads into the header
    kind: str  # local (declared in a function body), global (namespace scope), opaque
    dynamic: bool  # extern __shared__ (or unknown, for opaque)
    span: Span  # the declaration; for opaque, the header
    owner: Function | None  # the function declaring it (None: global or opaque)
    via: str  # '' (the kernel's own body), "helper 'f'", "'C::operator T *'", "header h.cuh"
    decl: n.VarDecl | None = None


@dataclass(frozen=True)
class SharedReach:
    uses: tuple[SharedUse, ...]
    functions: tuple[Function, ...]  # free functions of the file reached, the kernel excluded
    classes: tuple[str, ...]  # classes of the file whose members the kernel may call
    methods: tuple[Function, ...]  # those classes' member functions


_TYPEDEF = re.compile(rb"\btypedef\b([^;{}]*?)\b([A-Za-z_]\w*)\s*;")
_USING = re.compile(rb"\busing\s+([A-Za-z_]\w*)\s*=([^;{}]*);")


@cache
def _macros(data: bytes) -> dict[bytes, set[bytes]]:
    """Names that stand for others: macros, and type aliases (typedef, using), each with
    the identifiers of what it stands for."""
    code = code_bytes(data)
    out = {m.group(2): set(_IDENT.findall(m.group(1))) for m in _TYPEDEF.finditer(code)}
    out.update({m.group(1): set(_IDENT.findall(m.group(2))) for m in _USING.finditer(code)})
    out.update({m.group(1): set(_IDENT.findall(m.group(2))) for m in _DEFINE.finditer(code)})
    return out


def mentioned(unit: TranslationUnit, span: Span) -> set[str]:
    """Identifiers written in `span` of the unit's file, and in the macros and type aliases
    they stand for (transitively)."""
    if not unit.owns(span):
        return set()
    data = unit.code_of(span.file)  # a #define under #if 0 stands for nothing
    macros = _macros(data)
    names = set(_IDENT.findall(code_bytes(data[span.start:span.end])))
    todo = [x for x in names if x in macros]
    while todo:
        for x in macros[todo.pop()] - names:
            names.add(x)
            if x in macros:
                todo.append(x)
    return {x.decode() for x in names}


def standing_for(unit: TranslationUnit, name: str) -> set[str]:
    """`name` and the macros and type aliases of the file whose expansion names it."""
    macros = _macros(unit.code)
    out = {name.encode()}
    changed = True
    while changed:
        changed = False
        for alias, words in macros.items():
            if alias not in out and words & out:
                out.add(alias)
                changed = True
    return {x.decode() for x in out}


def _header_shared_names(path: str) -> frozenset[str]:
    """Names a header defines (types, functions) when it declares any __shared__ memory:
    what the front end does not lower, a kernel using them is assumed to reach it."""
    try:
        st = os.stat(path)
    except OSError:
        return frozenset()
    return _names_in(path, st.st_mtime_ns, st.st_size)


@cache
def _names_in(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    del mtime_ns, size  # the cache key: a header that changes is read again
    try:
        code = code_bytes(Path(path).read_bytes())
    except OSError:
        return frozenset()
    if not re.search(rb"\b__shared__\b", code):
        return frozenset()
    names = set(_TYPE_NAME.findall(code)) | {
        m for m in _FUNC_NAME.findall(code) if m not in _KEYWORDS}
    return frozenset(x.decode() for x in names)


def _decl_file(decl: str) -> str:
    return decl.rpartition("@")[2].rpartition(":")[0]


def owner_label(unit: TranslationUnit, fn: Function) -> str:
    if not fn.parent:
        return f"helper '{fn.name}'"
    # Spelled as written: a template's operator is named 'operator type-parameter-0-0 *'.
    name = fn.name
    if fn.name.startswith("operator") and fn.name_span.file == unit.path:
        data = unit.source.data
        end = data.find(b"(", fn.name_span.start)
        if end > 0:
            name = data[fn.name_span.start:end].decode("utf-8", "replace")
    return f"'{fn.parent}::{' '.join(name.split())}'"


def shared_reach(unit: TranslationUnit, kernel: Function,
                 graph: CallGraph | None = None) -> SharedReach:
    graph = graph or CallGraph(unit)
    index = unit_index(unit)  # the unit's tables, built once for all its kernels
    by_class, method_class, free = index.methods_by_class, index.method_class, index.free
    included = set(unit.includes)
    # (only the headers declaring shared memory can hold a name that reaches it)
    headers: dict[str, frozenset[str]] | None = index.memo.get("shared_headers")
    if headers is None:  # (once per unit: a stat of each include)
        headers = index.memo["shared_headers"] = {
            h: names for h in unit.includes if (names := _header_shared_names(h))}
    seen: list[Function] = [kernel]
    classes: list[str] = []
    opaque: dict[str, SharedUse] = {}
    todo = [kernel]

    def add(f: Function) -> None:
        if f not in seen:
            seen.append(f)
            todo.append(f)

    while todo:
        fn = todo.pop(0)
        assert fn.body is not None
        for f in graph.direct(fn):
            add(f)
        words = mentioned(unit, fn.span)
        for node in fn.body.nodes_of(n.Call):
            if node.callee_decl:
                if node.callee_decl in method_class:
                    words.add(method_class[node.callee_decl])
                elif _decl_file(node.callee_decl) in included:
                    words.add(node.callee.split("::")[-1])
        for word in sorted(words):
            if word in by_class and word not in classes:
                classes.append(word)
                for m in by_class[word]:
                    add(m)
            elif word in free and free[word] is not kernel:
                add(free[word])
            for h, names in headers.items():
                if word in names and word not in opaque:
                    opaque[word] = SharedUse(word, "opaque", True, Span(h, 0, 0, 1, 1), None,
                                             f"header {h}")
    uses: list[SharedUse] = []
    globals_by_decl = index.shared_globals
    found: set[str] = set()
    for fn in seen:
        assert fn.body is not None
        via = "" if fn is kernel else owner_label(unit, fn)
        for node in fn.body.nodes_of((n.VarDecl, n.Ref)):  # (in walk order)
            if isinstance(node, n.VarDecl) and "shared" in node.storage:
                uses.append(SharedUse(node.name, "local", "extern" in node.storage or any(
                    d is None for d in node.array_dims), node.span, fn, via, node))
            elif isinstance(node, n.Ref) and node.kind == "global" and \
                    node.decl in globals_by_decl and node.decl not in found:
                g = globals_by_decl[node.decl]
                found.add(node.decl)
                uses.append(SharedUse(g.name, "global", g.is_extern, g.span, None, via))
    uses += opaque.values()
    helpers = tuple(f for f in seen[1:] if not f.parent)
    methods = tuple(f for f in seen[1:] if f.parent)
    return SharedReach(tuple(uses), helpers, tuple(classes), methods)
