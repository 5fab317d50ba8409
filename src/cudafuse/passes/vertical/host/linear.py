"""Linear forms over host expressions: what coverage.py resolves grid and bound
expressions to, and gridsize.py computes with (a module of its own so that neither imports
the other for them)."""

from __future__ import annotations

Linear = tuple[tuple[tuple[str, int], ...], int]  # ((atom, coeff) sorted, constant)


def add(a: Linear, b: Linear, sign: int) -> Linear:
    acc = dict(a[0])
    for k, c in b[0]:
        acc[k] = acc.get(k, 0) + sign * c
    return tuple(sorted((k, c) for k, c in acc.items() if c)), a[1] + sign * b[1]


def scale(a: Linear, s: int) -> Linear:
    return tuple(sorted((k, c * s) for k, c in a[0] if c * s)), a[1] * s
