"""Lookup tables of one translation unit, built once and shared by every kernel's analysis.

Each kernel's evaluation and shared-memory reach needs the unit's functions by declaration
and by name, its globals, its classes' member functions: built per kernel, that is kernels x
functions work (a generated 50k-line file spent most of `analyze` there). A unit is complete
once the front end returns it, so the tables are kept on it; the lists' lengths are part of
the key, so one grown afterwards (the front end's own passes append) gets fresh tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cudafuse.ir.program import Function, GlobalVar, TranslationUnit
from cudafuse.ir.source import Span

_ATTR = "_cudafuse_unit_index"


@dataclass(frozen=True)
class UnitIndex:
    # Definitions by declaration id: the file's functions and the user's headers' helpers
    # (inlined like the file's own), the file's taking precedence.
    by_decl: dict[str, Function]
    by_name: dict[str, Function]  # the file's defined functions by name (the last wins)
    declared: dict[str, Function]  # by_decl, and declarations without a body
    globals: dict[str, GlobalVar]  # by declaration id
    shared_globals: dict[str, GlobalVar]  # __shared__ ones
    # The names of the __constant__ globals of each declaration id, and each global by its
    # span (the first of the unit's list): a kernel asks of the globals it uses, not of
    # every global of the unit (kernels x globals otherwise).
    constant_names: dict[str, frozenset[str]]
    global_at: dict[Span, GlobalVar]
    # Member functions defined in the main file, by class, in source order.
    methods_by_class: dict[str, list[Function]]
    method_class: dict[str, str]  # a member function's declaration id -> its class
    free: dict[str, Function]  # defined free functions that are not kernels, by name
    # The file's own definitions by declaration id (callgraph.CallGraph resolves calls to
    # these), and the call graph's memo of each function's direct callees, shared by every
    # CallGraph of the unit.
    file_by_decl: dict[str, Function]
    direct_callees: dict[str, list[Function]]
    # Other per-unit facts an analysis computes on its first kernel and reads for the rest,
    # by name (shared_memory's "shared_headers": the headers declaring __shared__ memory).
    memo: dict[str, Any] = field(default_factory=dict)


def _key(unit: TranslationUnit) -> tuple[int, ...]:
    lists = (unit.functions, unit.methods, unit.header_functions, unit.globals)
    return (*map(id, lists), *map(len, lists))


def unit_index(unit: TranslationUnit) -> UnitIndex:
    """The unit's tables, built on the first call and kept on the unit."""
    key = _key(unit)
    cached = unit.__dict__.get(_ATTR)
    if cached is not None and cached[0] == key:
        return cached[1]
    index = _build(unit)
    unit.__dict__[_ATTR] = (key, index)
    return index


def _build(unit: TranslationUnit) -> UnitIndex:
    by_decl = {f.decl: f for f in (*unit.header_functions, *unit.functions)
               if f.body is not None}
    declared = {f.decl: f for f in unit.functions}
    declared.update(by_decl)
    constants: dict[str, set[str]] = {}
    global_at: dict[Span, GlobalVar] = {}
    for g in unit.globals:
        if g.space == "constant":
            constants.setdefault(g.decl, set()).add(g.name)
        global_at.setdefault(g.span, g)
    by_class: dict[str, list[Function]] = {}
    for m in unit.methods:
        if m.body is not None and m.span.file == unit.path:
            by_class.setdefault(m.parent, []).append(m)
    return UnitIndex(
        by_decl=by_decl,
        by_name={f.name: f for f in unit.functions if f.body is not None},
        declared=declared,
        globals={g.decl: g for g in unit.globals},
        shared_globals={g.decl: g for g in unit.globals if g.space == "shared"},
        constant_names={d: frozenset(names) for d, names in constants.items()},
        global_at=global_at,
        methods_by_class=by_class,
        method_class={m.decl: m.parent for ms in by_class.values() for m in ms},
        free={f.name: f for f in unit.functions if f.body is not None and not f.is_kernel},
        file_by_decl={f.decl: f for f in unit.functions if f.body is not None},
        direct_callees={},
    )
