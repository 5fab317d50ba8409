"""Two launches whose dependence stays inside each thread: one thread may run both bodies.

A producer that stores several elements per thread in a loop (a row walked by a
recurrence, PolyBench's ADI sweeps; a causal row of attention weights, llm.c's softmax; a
pixel's channels under a run-time channel count) cannot be recomputed at one element of a
consumer. But when the consumer's thread reads only what the *same* thread of the producer
stored, and no thread of either kernel touches another thread's elements of the buffers
the two share, the two bodies can run one after the other in one thread (the sibling
emitter's thread form, in launch order): every element a thread reads then holds the value
the original left there, because nobody else wrote it.

Only pairs whose threads own rows of several elements of some shared buffer (S below not 1)
are taken: a pair whose threads each touch one element is vertical fusion's, and its reason
stands when vertical fusion refuses it.

This module proves that from the kernels' access facts (analysis/evaluate.py: each global
access's index as a polynomial over the thread's coordinates, the parameters and the
loops' variables, under the conditions that reach it). For every buffer one kernel writes
and the other touches, each access of either kernel is split as

    index = R(thread) * S + J        with 0 <= J <= S - 1,

S the common factor of the index's terms that hold the thread's coordinates (those terms
over S are R; J is the rest: a loop variable, a channel, a constant), the same S and the
same R for every access of the buffer in both kernels (their parameters replaced by the
launches' arguments first, so `T` of one kernel and `T` of the other are compared as the
host values they are given). Thread t then touches only the elements R(t) * S .. R(t) * S
+ S - 1 of the buffer, and no other thread touches them when R is one-to-one over the
threads: R must be a mixed-radix number over digits derived from the coordinates (the
coordinate itself, `X % NH`, `(X / NH) % T`, `X / (NH * T)`), each digit below the next
digit's weight over its own (0 <= t <= T - 1 under weight 1 when h weighs T), and the
digits must determine every coordinate (X % m and X / m give X back).

J's range is bounded term by term: a loop variable from its loop's start (the `for` that
declares it, stepping by a positive or negative constant, not written in its body) and the
conditions on its path (`t2 <= t`, `i2 < n`), `a % m` by 0 .. m - 1, a coordinate by its
guard. What the bounds need that is not a constant fact (a parameter's sign, `n <= 37`
where the loop runs to the parameter `n` over rows of the `#define N` 37) becomes a
condition on the launches' arguments, checked when the program runs: the fused launch
runs when it holds, the original launches otherwise. A condition that reads anything
else (a load, a local the kernel changes) refuses the pair, saying which access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from math import gcd

from cudafuse.analysis.evaluate import Access, Evaluator
from cudafuse.analysis.symbolic import ONE, ZERO, Atom, Poly, Pred, pred_coords, to_coords
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

_LOOP_KINDS = ("loopvar", "bigloop")


# Each thread touches one element of every buffer the two share: the pair is vertical
# fusion's (the consumer recomputes the producer at its element), whose refusal, when it
# refuses, stands; one thread running both bodies is for rows of several elements per
# thread, which no recompute can take.
ONE_ELEMENT = "each thread touches one element of what they share (vertical fusion's pair)"


@dataclass(frozen=True)
class KernelSide:
    """One kernel of the pair, as this proof needs it."""

    fn: Function
    accesses: tuple[Access, ...]
    dims: tuple[str, ...]  # the coordinates its mapping uses (x, y, z)
    params: dict[str, Poly]  # scalar parameter name -> its launch value (host atoms)


@dataclass(frozen=True)
class Proof:
    """Conditions (host-atom polynomials that must be >= 0 when the program runs)."""

    checks: tuple[Poly, ...]


class _Refused(Exception):
    pass


def host_atom(key: str) -> Poly:
    """A launch argument cudafuse keeps symbolic (param_key names it)."""
    return Poly.atom(Atom("host", key))


# ---- polynomial helpers ------------------------------------------------------------------


def _subst(p: Poly, fn: Callable[[Atom], Poly | None]) -> Poly:
    out = ZERO
    for mono, c in p.terms:
        term = Poly.const(c)
        for a in mono:
            term = term * _subst_atom(a, fn)
        out = out + term
    return out


def _subst_atom(a: Atom, fn: Callable[[Atom], Poly | None]) -> Poly:
    r = fn(a)
    if r is not None:
        return r
    if not a.args and a.pred is None:
        return Poly.atom(a)
    args = tuple(_subst(x, fn) for x in a.args)
    pred = None if a.pred is None else _subst_pred(a.pred, fn)
    return Poly.atom(_norm(Atom(a.kind, a.name, args, pred)))


def _subst_pred(p: Pred, fn: Callable[[Atom], Poly | None]) -> Pred:
    if p.poly is not None:
        return Pred(p.op, _subst(p.poly, fn))
    return Pred(p.op, None, tuple(_subst_pred(q, fn) for q in p.parts))


def _norm(a: Atom) -> Atom:
    """div(div(q, m1), m2) as div(q, m1 * m2): equal for q >= 0 and m1, m2 > 0, which the
    proof asks of every divisor it uses (_Bounds.atom_range)."""
    if a.kind == "div" and len(a.args) == 2:
        inner = a.args[0].single_atom()
        if inner is not None and inner.kind == "div" and len(inner.args) == 2:
            return Atom("div", "div", (inner.args[0], inner.args[1] * a.args[1]))
    return a


def _thread_atom(a: Atom) -> bool:
    """A coordinate, or a quotient or remainder of one by something free of coordinates."""
    if a.kind == "coord":
        return True
    if a.kind in ("mod", "div") and len(a.args) == 2:
        q = a.args[0].single_atom()
        return q is not None and _thread_atom(q) and _free(a.args[1])
    return False


def _free(p: Poly) -> bool:
    """Free of the thread, the loops and the kernel's memory: host values and constants."""
    return all(a.kind == "host" for a in p.atoms())


def _mono_poly(mono: tuple[Atom, ...], c: int) -> Poly:
    return Poly(((mono, c),)) if c else ZERO


def _exact_div(num: Poly, den: Poly) -> Poly | None:
    """num / den for single-term polynomials whose division is exact."""
    if len(num.terms) != 1 or len(den.terms) != 1:
        return None
    (m1, c1), (m2, c2) = num.terms[0], den.terms[0]
    if c1 % c2:
        return None
    rest = list(m1)
    for a in m2:
        if a not in rest:
            return None
        rest.remove(a)
    return _mono_poly(tuple(rest), c1 // c2)


# ---- bounds ------------------------------------------------------------------------------


class _Bounds:
    """Lower and upper bounds of an access's atoms, with the conditions they rely on."""

    def __init__(self, path: tuple[Pred, ...], starts: dict[str, tuple[Poly, int]],
                 checks: list[Poly]):
        self.facts = [c for p in path for c in p.conjuncts() if c.op == "ge"]
        self.starts = starts  # loop variable -> (start, step sign)
        self.checks = checks

    def need(self, p: Poly, what: str) -> None:
        """p >= 0: a constant fact, or a condition checked when the program runs."""
        v = p.const_value
        if v is not None:
            if v < 0:
                raise _Refused(what)
            return
        if not _free(p):
            raise _Refused(what)
        if p not in self.checks:
            self.checks.append(p)

    def candidates(self, a: Atom, upper: bool) -> list[Poly]:
        """Bounds of atom `a` (upper or lower), best first."""
        out: list[Poly] = []
        if a.kind in _LOOP_KINDS:
            start = self.starts.get(a.name)
            if start is not None and (start[1] > 0) != upper:
                out.append(start[0])
        if a.kind == "mod" and len(a.args) == 2:
            if upper:
                out.append(a.args[1] - ONE)
            else:
                out.append(ZERO)
        if a.kind in ("coord", "div") and not upper:
            out.append(ZERO)
        x = Poly.atom(a)
        for f in self.facts:
            assert f.poly is not None
            coeff = next((c for m, c in f.poly.terms if m == (a,)), 0)
            if coeff not in (1, -1) or (coeff == -1) != upper:
                continue
            rest = f.poly - x.scale(coeff)
            if any(b == a for b in rest.atoms()):
                continue
            out.append(rest if upper else -rest)  # -x + rest >= 0: x <= rest
        return out

    def atom_range(self, a: Atom) -> None:
        """The facts an atom's bounds rely on: a remainder or quotient by a positive number
        of a non-negative one."""
        if a.kind in ("mod", "div") and len(a.args) == 2:
            self.need(a.args[1] - ONE, f"'{a}' needs a positive divisor")
            q = a.args[0].single_atom()
            if q is not None:
                self.atom_range(q)

    def bound(self, p: Poly, upper: bool, depth: int = 0) -> Poly | None:
        """An upper (or lower) bound of p free of the thread and the loops, or None."""
        if _free(p):
            return p
        if depth > 6:
            return None
        out = ZERO
        for mono, c in p.terms:
            term = _mono_poly(mono, c)
            bounded = [a for a in mono if not a.kind == "host"]
            if not bounded:
                out = out + term
                continue
            if len(bounded) != 1 or mono.count(bounded[0]) != 1:
                return None
            a = bounded[0]
            coeff = _exact_div(term, Poly.atom(a))
            if coeff is None or coeff.const_value is None:
                return None  # a symbolic weight's sign is not known
            k = coeff.const_value
            want_upper = upper == (k > 0)
            got = None
            for cand in self.candidates(a, want_upper):
                got = self.bound(cand, want_upper, depth + 1)
                if got is not None:
                    break
            if got is None:
                return None
            self.atom_range(a)
            out = out + got.scale(k)
        return out


# ---- the proof ---------------------------------------------------------------------------


def loop_starts(unit: TranslationUnit, fn: Function
                ) -> Callable[[Access], dict[str, tuple[Poly, int]]]:
    """For an access, the start and step of each loop around it that declares its
    variable, starts at a value of constants and scalar parameters and steps it by a
    constant it alone writes."""
    loops: list[tuple[n.For, str, Poly, int]] = []
    # The values of the kernel's locals set once (`int t = (idx / NH) % T;`), in the
    # evaluator's atoms: a loop may start at one (`for (int k = t; k >= 0; k--)`).
    ev = Evaluator(unit)
    ev.run(fn)
    once = {decl: v for decl, (_, v) in ev.values.items()}
    for f in {id(f): f for f in (fn, *unit.functions)}.values():  # helpers' loops too
        if f.body is None:
            continue
        for s in f.body.walk():
            if not isinstance(s, n.For) or not isinstance(s.init, n.DeclStmt) or \
                    len(s.init.decls) != 1:
                continue
            d = s.init.decls[0]
            start = _start_poly(d.init, once if f is fn else {})
            step = _step(s.inc, d.decl)
            if start is None or step is None or _writes(s.body, d.decl):
                continue
            loops.append((s, d.name, start, step))

    def at(acc: Access) -> dict[str, tuple[Poly, int]]:
        out: dict[str, tuple[Poly, int]] = {}
        seen: dict[str, int] = {}
        for s, name, start, step in loops:
            sp = s.body.span
            if sp.file == acc.span.file and sp.start <= acc.span.start < sp.end:
                seen[name] = seen.get(name, 0) + 1
                out[name] = (start, step)
        # Two loops of one name around the access: its atom names either.
        return {k: v for k, v in out.items() if seen[k] == 1}
    return at


def _start_poly(e: n.Expr | None, once: dict[str, Poly]) -> Poly | None:
    """A loop's start over integer constants, the kernel's scalar parameters and its locals
    set once (atoms as the evaluator names them), or None."""
    while isinstance(e, n.Cast):
        e = e.operand
    v = n.int_constant(e)
    if v is not None:
        return Poly.const(v)
    if isinstance(e, n.Ref) and e.kind == "param" and "*" not in e.type:
        return Poly.atom(Atom("param", e.name))
    if isinstance(e, n.Ref) and e.decl in once:
        return once[e.decl]
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _start_poly(e.lhs, once), _start_poly(e.rhs, once)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def _step(inc: n.Expr | None, decl: str) -> int | None:
    if isinstance(inc, n.Unary) and inc.op in ("++", "--") and \
            isinstance(inc.operand, n.Ref) and inc.operand.decl == decl:
        return 1 if inc.op == "++" else -1
    if isinstance(inc, n.Binary) and inc.op in ("+=", "-=") and \
            isinstance(inc.lhs, n.Ref) and inc.lhs.decl == decl:
        v = n.int_constant(inc.rhs)
        if v:
            return v if inc.op == "+=" else -v
    return None


def _writes(body: n.Node, decl: str) -> bool:
    for x in body.walk():
        target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
            x.operand if isinstance(x, n.Unary) and x.op in ("++", "--", "&") else None
        if isinstance(target, n.Ref) and target.decl == decl:
            return True
    return False


@dataclass
class _Split:
    r: Poly
    s: Poly
    j: Poly


def _split(index: Poly) -> _Split | None:
    """index = R * S + J: S the integer and host factors common to the terms that hold the
    thread's coordinates."""
    thread = [(m, c) for m, c in index.terms if any(_thread_atom(a) for a in m)]
    if not thread:
        return None
    if any(a.kind in _LOOP_KINDS for m, _ in thread for a in m):
        return None
    g = 0
    common: list[Atom] | None = None
    for m, c in thread:
        g = gcd(g, c)
        hosts = [a for a in m if a.kind == "host"]
        if common is None:
            common = hosts
        else:
            left = list(hosts)
            keep = []
            for a in common:
                if a in left:
                    left.remove(a)
                    keep.append(a)
            common = keep
    s = _mono_poly(tuple(sorted(common or [])), g)
    r = ZERO
    for m, c in thread:
        q = _exact_div(_mono_poly(m, c), s)
        assert q is not None
        r = r + q
    j = index - r * s
    return _Split(r, s, j)


def _injective(r: Poly, dims: tuple[str, ...], bounds: _Bounds) -> str | None:
    """Why R may take one value at two threads ('' when it cannot)."""
    weights: dict[Atom, Poly] = {}
    for m, c in r.terms:
        digits = [a for a in m if _thread_atom(a)]
        if len(digits) != 1 or m.count(digits[0]) != 1:
            return f"'{r}' is not a sum of weighted coordinates"
        d = digits[0]
        w = _exact_div(_mono_poly(m, c), Poly.atom(d))
        if w is None or d in weights:
            return f"'{r}' is not a sum of weighted coordinates"
        weights[d] = w
    order = sorted(weights, key=lambda d: (len(weights[d].terms[0][0]),
                                           abs(weights[d].terms[0][1])))
    for lo, hi in zip(order, order[1:], strict=False):
        radix = _exact_div(weights[hi], weights[lo])
        if radix is None:
            return f"the weights of '{lo}' and '{hi}' in '{r}' are not a mixed radix"
        top = bounds.bound(Poly.atom(lo), True)
        low = bounds.bound(Poly.atom(lo), False)
        if top is None or low is None:
            return f"'{lo}' has no bound below its next digit's weight"
        bounds.need(radix - ONE - top, f"'{lo}' may reach {radix}")
        bounds.need(low, f"'{lo}' may be negative")
        bounds.atom_range(lo)
    known = set(order)
    for a in order:
        bounds.atom_range(a)
    changed = True
    while changed:
        changed = False
        for a in list(known):
            if a.kind != "mod":
                continue
            q = a.args[0].single_atom()
            if q is None or q in known:
                continue
            if _norm(Atom("div", "div", (a.args[0], a.args[1]))) in known:
                known.add(q)
                changed = True
    missing = [d for d in dims if not any(a.kind == "coord" and a.name == d.upper()
                                          for a in known)]
    if missing:
        return f"'{r}' does not determine the thread's {missing[0]} coordinate"
    return None


def prove(unit: TranslationUnit, sides: tuple[KernelSide, KernelSide],
          buffers: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> Proof | str:
    """The run-time conditions under which one thread may run both kernels, or why not.
    `buffers`: each shared buffer written by either kernel -> the parameter names through
    which each kernel accesses it."""
    checks: list[Poly] = []
    starts_of = [loop_starts(unit, side.fn) for side in sides]
    widths: set[Poly] = set()
    for _key, names in sorted(buffers.items()):
        rows: tuple[Poly, Poly] | None = None
        for side, pnames, starts_at in zip(sides, names, starts_of, strict=True):
            hosts = side.params

            def to_host(a: Atom, hosts: dict[str, Poly] = hosts) -> Poly | None:
                if a.kind == "param":
                    return hosts.get(a.name, Poly.atom(Atom("kernel", a.name)))
                return None

            for acc in side.accesses:
                if acc.base_kind != "param" or acc.name not in pnames:
                    continue
                where = f"'{side.fn.name}' {_verb(acc.mode)} '{acc.name}' at line {acc.span.line}"
                if acc.mode == "escape" or acc.note:
                    return f"{where}, where cudafuse cannot follow it"
                index = _subst(to_coords(acc.index), to_host)
                path = tuple(_subst_pred(pred_coords(p), to_host) for p in acc.path)
                split = _split(index)
                if split is None:
                    return f"{where}, at an element no thread owns ('{index}')"
                if rows is None:
                    rows = (split.r, split.s)
                    widths.add(split.s)
                elif (split.r, split.s) != rows:
                    return (f"{where}, in rows '{split.r}' of {split.s} elements where another "
                            f"access takes rows '{rows[0]}' of {rows[1]}")
                # R one-to-one on this access's path (a coordinate's bound may come from
                # the guard around it), and J inside the row.
                starts = {k: (_subst(p, to_host), step)
                          for k, (p, step) in starts_at(acc).items()}
                b = _Bounds(path, starts, checks)
                try:
                    why = _injective(split.r, side.dims, b)
                    if why:
                        return f"{where}: {why}"
                    hi = b.bound(split.j, True)
                    lo = b.bound(split.j, False)
                    if hi is None or lo is None:
                        return f"{where}, at offset '{split.j}' of its row, which has no bound"
                    b.need(split.s - ONE - hi, f"offset '{split.j}' may pass its row's end")
                    b.need(lo, f"offset '{split.j}' may be negative")
                except _Refused as exc:
                    return f"{where}: {exc}"
    if any(a.kind != "host" for c in checks for a in c.atoms()):
        return "a condition reads values the host does not pass"
    if widths <= {ONE}:
        return ONE_ELEMENT
    return Proof(tuple(c for c in checks if not _implied(c, checks)))


def _implied(c: Poly, checks: list[Poly]) -> bool:
    """c >= 0 follows from another check: one that differs by a constant only (`38 >= n`
    beside `37 >= n`), or `a * b - 1 >= 0` beside `a - 1 >= 0` and `b - 1 >= 0`."""
    for d in checks:
        k = (c - d).const_value
        if d is not c and k is not None and k > 0:
            return True
    if len(c.terms) != 2 or c.constant_term != -1:
        return False
    mono, k = next((m, k) for m, k in c.terms if m)
    return k == 1 and len(mono) > 1 and all(Poly.atom(a) - ONE in checks for a in mono)


def _verb(mode: str) -> str:
    return {"load": "reads", "store": "stores", "atomic": "updates"}.get(mode, "passes")


def check_text(p: Poly, texts: dict[str, str]) -> str:
    """`p >= 0` as C over the host arguments (texts: host atom -> C text), each side's
    terms with positive weights (`37 >= (n)`, `(w) >= 1`)."""
    sides: tuple[list[str], list[str]] = ([], [])
    for mono, c in p.terms:
        if not mono:
            continue
        factors = [f"({texts[a.name]})" for a in mono]
        if abs(c) != 1:
            factors.insert(0, str(abs(c)))
        sides[c < 0].append(" * ".join(factors))
    const = p.constant_term
    if const:
        sides[const < 0].append(str(abs(const)))
    return f"{' + '.join(sides[0]) or '0'} >= {' + '.join(sides[1]) or '0'}"


def own_elements_meaning(buffers: str) -> str:
    """What a Proof's checks stand for, as --explain and --report say it: the bounds on
    the launches' arguments that keep each thread's accesses inside its own row."""
    return (f"the bounds that keep each thread's accesses of {buffers} inside its own row "
            "of elements, which no other thread touches")


def host_names(checks: Iterable[Poly]) -> set[str]:
    return {a.name for c in checks for a in c.atoms()}
