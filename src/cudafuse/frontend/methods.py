"""Member functions that launch kernels, made host functions of their own.

A member function's host code (an out-of-line `void Pipeline::run() {...}`, a method defined
in its class's body, a static member) is analysed and fused like a free function's. Its
host Function is the lowered method renamed `Class::method` (nested classes: `A::B::m`), so
that it never shares a name with a free function; TranslationUnit.launches is keyed by that
name. Code generated for it (a fused kernel) must go at namespace scope: before the
outermost class for a method defined in a class body, before the definition otherwise
(TranslationUnit.anchors).

Left out (their launches keep the note that they were not analysed): members of class
templates and member templates (their bodies are dependent), members of unnamed classes,
device member functions, and a second definition of the same qualified name (overloads).
"""

from __future__ import annotations

import dataclasses

import clang.cindex as ci

from cudafuse.frontend.lower import K, Lowerer
from cudafuse.ir.nodes import KernelLaunch
from cudafuse.ir.program import Function, TranslationUnit

_CLASSES = frozenset({K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL})
_TEMPLATES = frozenset({K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION})


def _classes(parent: ci.Cursor | None) -> list[ci.Cursor] | None:
    """The classes around a member, innermost first; None when one is a template or has
    no name (the member is then not a host function of its own)."""
    out: list[ci.Cursor] = []
    while parent is not None and parent.kind in _CLASSES | _TEMPLATES:
        if parent.kind in _TEMPLATES or not parent.spelling or \
                parent.get_num_template_arguments() > 0 or \
                parent.is_anonymous():
            return None
        out.append(parent)
        parent = parent.semantic_parent
    return out


def qualified_name(cursor: ci.Cursor) -> str | None:
    """`Outer::Inner::method` for a member of non-template named classes, else None."""
    classes = _classes(cursor.semantic_parent)
    if not classes:
        return None
    return "::".join([*(c.spelling for c in reversed(classes)), cursor.spelling])


def add_method_host(unit: TranslationUnit, lowerer: Lowerer, cursor: ci.Cursor,
                    fn: Function) -> bool:
    """Make the lowered member function `fn` a host function of `unit` when it launches
    kernels and can be one (see the module's docstring). Returns whether it was added.
    Called for every member function: it also notes the classes that derive from others."""
    parent = cursor.semantic_parent
    if parent is not None and any(k.kind == K.CXX_BASE_SPECIFIER for k in parent.get_children()):
        unit.derived.add(fn.parent)
    if fn.body is None or fn.space != "host" or cursor.kind == K.FUNCTION_TEMPLATE:
        return False
    launches = [x for x in fn.body.walk() if isinstance(x, KernelLaunch)]
    if not launches:
        return False
    name = qualified_name(cursor)
    if name is None or name in unit.launches or fn.span.file != unit.path:
        return False
    anchor = fn.span.start
    lexical = cursor.lexical_parent
    if lexical is not None and lexical.kind in _CLASSES:
        outer = lexical
        while outer.lexical_parent is not None and outer.lexical_parent.kind in _CLASSES:
            outer = outer.lexical_parent
        where = lowerer.span(outer)
        if where.file != unit.path:
            return False  # the class is spelled by a macro: no place to write before it
        anchor = where.start
    unit.method_hosts.append(dataclasses.replace(fn, name=name))
    unit.anchors[name] = anchor
    unit.launches[name] = launches
    return True
