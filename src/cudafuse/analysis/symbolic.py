"""Symbolic integer values: polynomials over opaque atoms, and predicates over them.

Index arithmetic is evaluated to a `Poly`: a sum of integer-weighted monomials, each a product
of `Atom`s. Leaves are atoms too (`threadIdx.x`, a scalar parameter, a mutable local), and so is
anything that is not a polynomial (`min`, `%`, `/`, a conditional, a load): its operands stay
inside it as polynomials, so border handling such as `min(max(x + dx, 0), w - 1)` can be
recognised structurally afterwards. Comparisons are normalised to `P >= 0`, `P == 0`, `P != 0`
(integer semantics: `a < b` is `b - a - 1 >= 0`), which makes bounds checks easy to match.

Global thread coordinates are atoms of kind `coord` named X, Y, Z: `to_coords` rewrites
`blockIdx.d * blockDim.d * r + threadIdx.d * r` into `D * r`, whatever the operand order was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

DIMS = ("x", "y", "z")
COORD = {"x": "X", "y": "Y", "z": "Z"}


class Atom:
    """kind: coord, builtin, param, var (mutable local), loopvar, global, load, call, opaque,
    or an operator (min, max, mod, div, shr, and, or, xor, cond, float).

    A value: never mutated after construction. A plain class with slots rather than a frozen
    dataclass, because the evaluator makes and compares hundreds of thousands of them and a
    frozen dataclass's __init__/__eq__ were a fifth of `analyze`'s analysis time.
    """

    __slots__ = ("kind", "name", "args", "pred", "_h", "_key")

    def __init__(self, kind: str, name: str, args: tuple[Poly, ...] = (),
                 pred: Pred | None = None):
        self.kind, self.name, self.args, self.pred = kind, name, args, pred
        # Atoms are hashed constantly (polynomial terms are dicts keyed by monomials).
        self._h = hash((kind, name, args, pred))
        self._key: str | None = None

    def __hash__(self) -> int:
        return self._h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not Atom:
            return NotImplemented
        return self._h == other._h and self.kind == other.kind and \
            self.name == other.name and self.args == other.args and \
            self.pred == other.pred  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return (f"Atom(kind={self.kind!r}, name={self.name!r}, args={self.args!r}, "
                f"pred={self.pred!r})")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return Atom, (self.kind, self.name, self.args, self.pred)

    @property
    def key(self) -> str:
        key = self._key
        if key is None:
            if self.kind == "cond" and self.pred is not None:
                key = f"({self.pred} ? {self.args[0]} : {self.args[1]})"
            elif self.args:
                key = f"{self.name}({', '.join(str(a) for a in self.args)})"
            else:
                key = self.name
            self._key = key
        return key

    def __str__(self) -> str:
        return self.key

    def __lt__(self, other: Atom) -> bool:
        return self.key < other.key

    def atoms(self) -> Iterable[Atom]:
        """This atom and every atom nested in its operands."""
        yield self
        for a in self.args:
            yield from a.atoms()
        if self.pred is not None:
            yield from self.pred.atoms()


Monomial = tuple[Atom, ...]


class Poly:
    """sum(coeff * prod(monomial)); terms sorted, no zero coefficients; () is the constant.

    A value, like Atom (and a plain slotted class for the same reason).
    """

    __slots__ = ("terms", "_h")

    def __init__(self, terms: tuple[tuple[Monomial, int], ...] = ()):
        self.terms = terms
        self._h = hash(terms)

    def __hash__(self) -> int:
        return self._h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not Poly:
            return NotImplemented
        return self._h == other._h and self.terms == other.terms  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"Poly(terms={self.terms!r})"

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return Poly, (self.terms,)

    @staticmethod
    def const(c: int) -> Poly:
        return Poly((((), c),) if c else ())

    @staticmethod
    def atom(a: Atom) -> Poly:
        return Poly((((a,), 1),))

    @staticmethod
    def _make(acc: dict[Monomial, int]) -> Poly:
        items = [(m, c) for m, c in acc.items() if c]
        if len(items) > 1:
            items.sort(key=lambda t: _mono_key(t[0]))
        return Poly(tuple(items))

    def __add__(self, other: Poly) -> Poly:
        if not other.terms:
            return self
        if not self.terms:
            return other
        acc = dict(self.terms)
        for m, c in other.terms:
            acc[m] = acc.get(m, 0) + c
        return Poly._make(acc)

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Poly) -> Poly:
        if not other.terms:
            return self
        acc = dict(self.terms)
        for m, c in other.terms:
            acc[m] = acc.get(m, 0) - c
        return Poly._make(acc)

    def __mul__(self, other: Poly) -> Poly:
        acc: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                acc[m] = acc.get(m, 0) + c1 * c2
        return Poly._make(acc)

    def scale(self, k: int) -> Poly:
        return Poly._make({m: c * k for m, c in self.terms})

    @property
    def is_const(self) -> bool:
        return all(not m for m, _ in self.terms)

    @property
    def const_value(self) -> int | None:
        if not self.is_const:
            return None
        return self.terms[0][1] if self.terms else 0

    @property
    def constant_term(self) -> int:
        return next((c for m, c in self.terms if not m), 0)

    def single_atom(self) -> Atom | None:
        """The atom if this polynomial is exactly one atom with coefficient 1."""
        if len(self.terms) == 1 and len(self.terms[0][0]) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0][0]
        return None

    def atoms(self) -> Iterable[Atom]:
        for m, _ in self.terms:
            for a in m:
                yield from a.atoms()

    def top_atoms(self) -> set[Atom]:
        return {a for m, _ in self.terms for a in m}

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        out = ""
        for m, c in self.terms:
            body = "*".join(str(a) for a in m)
            mag = abs(c)
            text = body if mag == 1 and body else f"{mag}*{body}" if body else str(mag)
            out += (" - " if c < 0 else " + ") + text if out else ("-" if c < 0 else "") + text
        return out


@lru_cache(maxsize=1 << 16)
def _mono_key(m: Monomial) -> tuple[int, tuple[str, ...]]:
    return len(m), tuple(a.key for a in m)


ZERO = Poly()
ONE = Poly.const(1)


@dataclass(frozen=True)
class Pred:
    """op: ge (poly >= 0), eq (poly == 0), ne (poly != 0), and, or, true, opaque."""

    op: str
    poly: Poly | None = None
    parts: tuple[Pred, ...] = field(default=())

    def __str__(self) -> str:
        if self.op in ("ge", "eq", "ne"):
            sym = {"ge": ">=", "eq": "==", "ne": "!="}[self.op]
            return f"{self.poly} {sym} 0"
        if self.op in ("and", "or"):
            sep = " && " if self.op == "and" else " || "
            return "(" + sep.join(str(p) for p in self.parts) + ")"
        return self.op

    def atoms(self) -> Iterable[Atom]:
        if self.poly is not None:
            yield from self.poly.atoms()
        for p in self.parts:
            yield from p.atoms()

    def negate(self) -> Pred:
        if self.op == "ge" and self.poly is not None:
            return Pred("ge", -self.poly - ONE)
        if self.op == "eq":
            return Pred("ne", self.poly)
        if self.op == "ne":
            return Pred("eq", self.poly)
        if self.op == "and":
            return Pred("or", parts=tuple(p.negate() for p in self.parts))
        if self.op == "or":
            return Pred("and", parts=tuple(p.negate() for p in self.parts))
        return Pred("opaque")

    def conjuncts(self) -> list[Pred]:
        """The facts this predicate guarantees when true (and-parts, flattened)."""
        if self.op == "and":
            return [c for p in self.parts for c in p.conjuncts()]
        return [self] if self.op in ("ge", "eq", "ne") else []


TRUE = Pred("true")


def compare(op: str, a: Poly, b: Poly) -> Pred:
    """a op b for op in < <= > >= == !=, as a normalised predicate."""
    if op == "<":
        return Pred("ge", b - a - ONE)
    if op == "<=":
        return Pred("ge", b - a)
    if op == ">":
        return Pred("ge", a - b - ONE)
    if op == ">=":
        return Pred("ge", a - b)
    if op == "==":
        return Pred("eq", a - b)
    if op == "!=":
        return Pred("ne", a - b)
    return Pred("opaque")


def conj(*preds: Pred) -> Pred:
    parts = [p for p in preds if p.op != "true"]
    if not parts:
        return TRUE
    return parts[0] if len(parts) == 1 else Pred("and", parts=tuple(parts))


# ---- thread coordinates --------------------------------------------------------------------


@lru_cache(maxsize=64)
def builtin(name: str, dim: str) -> Atom:
    return Atom("builtin", f"{name}.{dim}")


@lru_cache(maxsize=8)
def coord(dim: str) -> Atom:
    return Atom("coord", COORD[dim])


@lru_cache(maxsize=1 << 16)
def to_coords(p: Poly) -> Poly:
    """Fold blockIdx.d*blockDim.d*r + threadIdx.d*r into D*r, recursively into atom operands."""
    if any(a.args or a.pred for a in p.top_atoms()):
        acc: dict[Monomial, int] = {}
        changed = False
        for m, c in p.terms:
            new = [_atom_coords(a) for a in m]
            if any(x is not a for x, a in zip(new, m, strict=True)):
                changed = True
                m = tuple(sorted(new))
            acc[m] = acc.get(m, 0) + c
        # Unchanged operands keep their identity: nested values are compared (and looked up
        # in these caches) by identity first, which deep expressions depend on.
        p = Poly._make(acc) if changed else p
    tops = p.top_atoms()  # folding one dimension adds no threadIdx of another
    for dim in DIMS:
        tid = builtin("threadIdx", dim)
        if tid not in tops:
            continue
        bid, bdim = builtin("blockIdx", dim), builtin("blockDim", dim)
        acc = dict(p.terms)
        changed = False
        for m, c in p.terms:
            if tid not in m or m not in acc:
                continue
            rest = list(m)
            rest.remove(tid)
            partner = tuple(sorted([*rest, bid, bdim]))
            if acc.get(partner) != c:
                # blockIdx.d * B + threadIdx.d with a constant B: the block size is assumed
                # to be B (see block_size_assumptions).
                partner = tuple(sorted([*rest, bid]))
                k = acc.get(partner, 0)
                if not (c and k % c == 0 and k // c > 1):
                    continue
            del acc[m], acc[partner]
            new = tuple(sorted([*rest, coord(dim)]))
            acc[new] = acc.get(new, 0) + c
            changed = True
        if changed:
            p = Poly._make(acc)
    return p


def _atom_coords(a: Atom) -> Atom:
    if not a.args and a.pred is None:
        return a
    pred = pred_coords(a.pred) if a.pred is not None else None
    args = tuple(to_coords(x) for x in a.args)
    if pred is a.pred and all(x is y for x, y in zip(args, a.args, strict=True)):
        return a
    return Atom(a.kind, a.name, args, pred)


@lru_cache(maxsize=1 << 16)
def pred_coords(p: Pred) -> Pred:
    poly = to_coords(p.poly) if p.poly is not None else None
    parts = tuple(pred_coords(q) for q in p.parts)
    if poly is p.poly and all(x is y for x, y in zip(parts, p.parts, strict=True)):
        return p
    return Pred(p.op, poly, parts)


def coord_dims(p: Poly | Pred) -> set[str]:
    """The dimensions whose global coordinate appears anywhere in p."""
    if isinstance(p, Poly):
        out: set[str] = set()
        for m, _ in p.terms:
            for a in m:
                out |= atom_dims(a)
        return out
    return {a.name.lower() for a in p.atoms() if a.kind == "coord"}


@lru_cache(maxsize=1 << 16)
def atom_dims(a: Atom) -> frozenset[str]:
    return frozenset(x.name.lower() for x in a.atoms() if x.kind == "coord")


@lru_cache(maxsize=1 << 16)
def block_size_assumptions(p: Poly) -> frozenset[tuple[str, int]]:
    """(dim, B) for every `blockIdx.d * B + threadIdx.d` that to_coords folds with a constant B:
    the fold is right only when the kernel runs with blockDim.d == B."""
    out: set[tuple[str, int]] = set()
    tops = p.top_atoms()
    for dim in DIMS:
        tid, bid = builtin("threadIdx", dim), builtin("blockIdx", dim)
        if tid not in tops:
            continue
        acc = dict(p.terms)
        for m, c in p.terms:
            if tid in m and c:
                rest = list(m)
                rest.remove(tid)
                k = acc.get(tuple(sorted([*rest, bid])), 0)
                if k % c == 0 and k // c > 1:
                    out.add((dim, k // c))
    for m, _ in p.terms:
        for a in m:
            if a.args or a.pred is not None:
                out |= _nested_assumptions(a)
    return frozenset(out)


@lru_cache(maxsize=1 << 16)
def _nested_assumptions(a: Atom) -> frozenset[tuple[str, int]]:
    """block_size_assumptions of every operand inside `a`, at any depth (each atom once: a
    walk over all nested atoms per level was quadratic in the depth of a value such as a
    hash's 64 rounds)."""
    out: set[tuple[str, int]] = set()
    for sub in a.args:
        out |= block_size_assumptions(sub)
    stack = [a.pred] if a.pred is not None else []
    while stack:
        pred = stack.pop()
        stack.extend(pred.parts)
        if pred.poly is not None:
            for m, _ in pred.poly.terms:
                for b in m:
                    if b.args or b.pred is not None:
                        out |= _nested_assumptions(b)
    return frozenset(out)
