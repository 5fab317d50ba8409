"""Rebuilding a frozen IR tree with some nodes replaced.

Nodes are frozen dataclasses; a pass that wants the analyses to see a tree with a few nodes
changed (a parameter known to be a constant, a helper's parameters bound to a call's
arguments) rebuilds the path to each change and shares everything else. Spans are kept, so
text splicing by span still reads the user's text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from cudafuse.ir import nodes as n
from cudafuse.ir.types import float_bits


def replace_nodes(root: n.Node, change: Callable[[n.Node], n.Node | None]) -> n.Node:
    """`root` with every node for which `change` returns a node replaced by it (the
    replacement is not visited again); subtrees with nothing replaced are shared."""
    memo: dict[int, Any] = {}

    def visit(value: Any) -> Any:
        if isinstance(value, n.Node):
            key = id(value)
            if key in memo:
                return memo[key]
            new = change(value)
            if new is None:
                updates = {}
                for f in dataclasses.fields(value):
                    old = getattr(value, f.name)
                    if isinstance(old, (n.Node, tuple)):
                        rebuilt = visit(old)
                        if rebuilt is not old:
                            updates[f.name] = rebuilt
                new = dataclasses.replace(value, **updates) if updates else value
            memo[key] = new
            return new
        if isinstance(value, tuple):
            items = tuple(visit(v) for v in value)
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        return value

    return visit(root)


def inline_helper(fn_params: tuple, body_expr: n.Expr, args: tuple[n.Expr, ...],
                  return_type: str) -> n.Expr:
    """`return body_expr;` of a helper with its parameters bound to the call's arguments
    (converted to the parameters' types, as the call does)."""
    m = {}
    for p, a in zip(fn_params, args, strict=True):
        if (float_bits(p.type) is None) != (float_bits(a.type) is None):
            a = n.Cast(a, explicit=False, type=p.type)  # int <-> float, as the call converts
        m[p.decl] = a
    out = replace_nodes(body_expr, lambda x: m.get(x.decl) if isinstance(x, n.Ref) else None)
    assert isinstance(out, n.Expr)
    if out.type != return_type:
        out = n.Cast(out, explicit=False, type=return_type)
    return out
