"""A guard over a flat index's quotient and remainder, read by what it means.

`int b = i / n, c = i % n; if (b < rows && c < n) x[i] += bias[c];` (a bias added to each
row of a batch), `if (i / n >= rows) return;`: for a coordinate i >= 0 (built from the
unsigned built-ins) and n > 0, C's i / n and i % n are the q and r of i = q * n + r with
0 <= r < n. A test `q < Q` holds exactly for i < Q * n, and a test `r < n` holds for every
i, so the guard means i < Q * n: a bound per coordinate, like a guard written out. A test
of r below n (`c < n - 1`: a column of every row left out) leaves elements inside that
range unstored; no bound on i means it, and the guard is not read (the kernel's refusal
stays). Nor is one whose r is bounded from below by more than 0, or whose coordinate is
divided by two different divisors.

The divisor's sign. For a constant n it is known (n <= 0 is not read). For a parameter n,
n < 0 makes i % n lie in [0, -n) (C truncates), so `r < n` never holds and the kernel
stores nothing. The bound Q * n is then loose: exact for n > 0, and for n < 0 an upper
envelope of no element (it is positive when Q < 0 too); n = 0 divides by zero (the
original's behaviour is undefined). Fusion reads a kernel with loose bounds as one that
writes part of its elements (view.KernelView.lower_bounded): recomputed, it keeps its
guard and yields memory where the guard does not hold, exact wherever it is read; as the
last kernel it stores the group's intermediates before its guard. A bound too large only
asks more of a grid's coverage. Without a test of r, n < 0 makes q <= 0, and `q < Q` holds
for every i when Q > 0, more elements than any bound says: such a guard is read only with a
constant divisor.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.analysis.symbolic import ONE, ZERO, Atom, Poly, Pred


@dataclass(frozen=True)
class FlatBound:
    """A coordinate's exclusive upper bound, quotient * divisor (over parameter atoms);
    `loose` for a parameter divisor (exact only where it is positive)."""

    quotient: Poly
    divisor: Poly = ONE
    loose: bool = False


def params_only(p: Poly) -> bool:
    """Whether `p` is a polynomial of the kernel's integral parameters (and constants)."""
    return all(a.kind == "param" for m, _ in p.terms for a in m)


def quotient_atoms(p: Poly | None) -> list[Atom]:
    """The divisions and remainders of a coordinate in `p`."""
    if p is None:
        return []
    return [a for m, _ in p.terms for a in m if a.kind in ("div", "mod") and
            any(x.kind == "coord" for x in a.atoms())]


def _variable(a: Atom) -> tuple[int, str, Poly] | None:
    """(coordinate, "q" or "r", divisor) of c itself (the quotient by 1), c / n, c % n."""
    if a.kind == "coord":
        return int(a.name[1:]), "q", ONE
    if a.kind in ("div", "mod") and len(a.args) == 2:
        num, den = a.args
        c = num.single_atom()
        if c is not None and c.kind == "coord" and den != ZERO and params_only(den):
            return int(c.name[1:]), "q" if a.kind == "div" else "r", den
    return None


def flat_bounds(parts: list[Pred], dims: int) -> dict[int, FlatBound] | None:
    """Each coordinate's bound that the conjuncts (each `poly >= 0`) mean, or None when they
    mean anything else (module docstring)."""
    upper: dict[tuple[int, str], Poly] = {}
    divisors: dict[int, Poly] = {}
    for part in parts:
        if part.poly is None:
            return None
        var: tuple[tuple[int, str, Poly], int] | None = None
        rest: dict[tuple[Atom, ...], int] = {}
        for m, c in part.poly.terms:
            if all(a.kind == "param" for a in m):
                rest[m] = c
                continue
            got = _variable(m[0]) if len(m) == 1 else None
            if got is None or var is not None:
                return None
            var = (got, c)
        if var is None:
            return None
        (k, kind, den), coef = var
        if not 0 <= k < dims or divisors.setdefault(k, den) != den:
            return None
        rest_p = Poly._make(rest)
        if coef > 0:  # v >= -rest / coef: a lower bound, read only when v >= 0 implies it
            if rest_p.is_const and rest_p.constant_term >= 0:
                continue
            return None
        step = -coef
        if any(c % step for m, c in rest.items() if m) or (k, kind) in upper:
            return None
        upper[(k, kind)] = Poly._make({m: c // step for m, c in rest.items() if m}) + \
            Poly.const(rest_p.constant_term // step) + ONE
    out: dict[int, FlatBound] = {}
    for k in range(dims):
        q, r, den = upper.get((k, "q")), upper.get((k, "r")), divisors.get(k)
        if q is None or den is None:
            return None
        if r is not None and r != den and not (
                r.is_const and den.is_const and r.constant_term >= den.constant_term):
            return None  # (a remainder bounded below the divisor: elements of each row left out)
        if den.is_const:
            if den.constant_term <= 0:
                return None
            out[k] = FlatBound(q, den)
        elif r is None:
            return None  # (a parameter divisor of unknown sign, and no test of the remainder)
        else:
            out[k] = FlatBound(q, den, loose=True)
    return out
