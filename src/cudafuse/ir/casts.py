"""An expression seen through its casts: the value a cast converts is what most questions
about an expression (which variable, which constant, which pointer) are about."""

from __future__ import annotations

from typing import overload

from cudafuse.ir import nodes as n


@overload
def strip_casts(e: n.Expr) -> n.Expr: ...


@overload
def strip_casts(e: None) -> None: ...


def strip_casts(e: n.Expr | None) -> n.Expr | None:
    """`e` without the casts around it, implicit and written alike (`(float)x`: `x`)."""
    while isinstance(e, n.Cast):
        e = e.operand
    return e
