"""Outputs a kernel accumulates in memory at its own element.

Codes ported from CPU loops often build an element's value in the output itself:

    tmp[i * NJ + j] = 0;
    for (k = 0; k < NK; k++) tmp[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
    std[j] /= n; std[j] = sqrt(std[j]); if (std[j] <= eps) std[j] = 1.0;

The value a consumer reads is the element's last store. When every access of the buffer in
the kernel (reads and stores, in loops and branches too) is at the thread's own element, and
the first statement of its body touching the buffer is an unconditional `p[own] = v` whose
value does not read it, the element's contents while the kernel runs are a private variable
of the thread: the value-at-element function declares a local, turns every `p[own]` into it
(codegen.py), and returns it at the end. Nothing is read from memory, so prior contents do
not matter and no neighbour's store can be seen.

Others update an element the host prepared (a `cudaMemset` or an earlier copy) under
conditions, each update a statement of its own:

    if (y > 0)     out[i] += in[i - w];
    if (x < w - 1) out[i] += in[i + 1];

These are *loaded* accumulators: the same private local, initialised from the element's
contents in memory before the kernel (`loaded`), so the fused kernel must not have stored
that buffer before a thread recomputes it (legality's in-place check sees them as reads of
their own output).

The own element is read by its value, y * S + x, with S the row stride the kernel's stores
use: PolyBench's `data[i * M + j] -= mean[j]; data[i * M + j] /= s[j];` under `i < n && j
< m` strides its rows by the constant M, not by the guard's bound m (legality then asks the
bound to be at most the stride, at the group's launch when it cannot tell before: rows no
wider than the stride do not overlap, so each element is still one thread's).
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.kernel.channels import Frame, classify, frame, pointer_name, poly


def accumulators(body: n.Compound, tail: list[n.Stmt], coords: tuple[n.VarDecl, ...],
                 bounds: tuple[n.Expr, ...], pointers: dict[str, str],
                 whole_elements: bool = False) -> tuple[frozenset[str], frozenset[str]]:
    """The pointer parameters this kernel accumulates at its own element (see above), each
    written more than once, and those of them whose first value is loaded from memory.
    With `whole_elements`, a struct element's copies (`a[i] = acc`, calls of operator=) are
    stores too (see accumulator_writes)."""
    fr = frame(body, coords, bounds)
    if fr is None:
        return frozenset(), frozenset()
    access: dict[str, list[n.Index]] = {}
    bare: set[str] = set()
    indexed: set[int] = set()
    writes: dict[str, list[n.Node]] = {}
    for x in body.walk():
        if isinstance(x, n.Index):
            name = pointer_name(x.base, pointers)
            if name is not None:
                access.setdefault(name, []).append(x)
                b = x.base
                while isinstance(b, n.Cast):
                    b = b.operand
                indexed.add(id(b))
        parts = _store(x)
        if parts is not None and (whole_elements or isinstance(x, n.Binary)):
            name = pointer_name(parts[0].base, pointers)
            if name is not None:
                writes.setdefault(name, []).append(x)
        if isinstance(x, n.Unary) and x.op in ("++", "--", "&") and isinstance(x.operand, n.Index):
            name = pointer_name(x.operand.base, pointers)
            if name is not None:
                bare.add(name)  # p[i]++ or &p[i]: not followed
    for x in body.walk():
        if isinstance(x, n.Ref) and x.decl in pointers and id(x) not in indexed:
            bare.add(x.name)
    statements = {id(s.expr) for s in body.walk() if isinstance(s, n.ExprStmt)}
    out, loaded = set(), set()
    for name, ws in writes.items():
        if len(ws) < 2 or name in bare or any(id(w) not in statements for w in ws):
            continue
        own = fr if all(classify(a.index, fr) == (None, 0) for a in access[name]) else \
            _strided_frame(fr, coords, bounds, _parts(ws[0])[0].index)
        if own is None or any(classify(a.index, own) != (None, 0) for a in access[name]):
            continue
        first = next((s for s in tail if any(isinstance(x, n.Index) and
                                             pointer_name(x.base, pointers) == name
                                             for x in s.walk())), None)
        head = _store(first.expr) if isinstance(first, n.ExprStmt) and (
            whole_elements or isinstance(first.expr, n.Binary)) else None
        if not (head is not None and head[2] == "=" and
                pointer_name(head[0].base, pointers) == name and not any(
                    isinstance(x, n.Index) and pointer_name(x.base, pointers) == name
                    for x in head[1].walk())):
            # Its first value comes from memory. Taken only where some update reads the
            # element (`s[i] += v`): stores under if/else that each set the element are
            # the view's if/else stores, which need no load.
            if not any(_parts(w)[2] != "=" or any(
                    isinstance(x, n.Index) and pointer_name(x.base, pointers) == name
                    for x in _parts(w)[1].walk()) for w in ws):
                continue
            loaded.add(name)
        out.add(name)
    return frozenset(out), frozenset(loaded)


def _store(x: n.Node) -> tuple[n.Index, n.Expr, str] | None:
    """(element, value, operator) of `p[i] = v`, `p[i] op= v`, or the copy of a whole struct
    element (`a[i] = acc` with a double2 `acc` is a call of double2's operator=)."""
    if isinstance(x, n.Binary) and x.is_assignment and isinstance(x.lhs, n.Index):
        return x.lhs, x.rhs, x.op
    if isinstance(x, n.Call) and x.callee == "operator=" and len(x.args) == 2 and \
            isinstance(x.args[0], n.Index):
        return x.args[0], x.args[1], "="
    return None


def _parts(x: n.Node) -> tuple[n.Index, n.Expr, str]:
    parts = _store(x)
    assert parts is not None
    return parts


def accumulator_writes(body: n.Compound, accum: frozenset[str], pointers: dict[str, str]
                       ) -> tuple[tuple[str, n.ExprStmt, n.Index, n.Expr, str], ...]:
    """Every store statement of an accumulated output, as (pointer, statement, element,
    value, operator): none is a use of another kind."""
    out = []
    for s in body.walk():
        parts = _store(s.expr) if isinstance(s, n.ExprStmt) else None
        name = pointer_name(parts[0].base, pointers) if parts is not None else None
        if parts is not None and name in accum:
            out.append((name, s, *parts))
    return tuple(out)


def _strided_frame(fr: Frame, coords: tuple[n.VarDecl, ...], bounds: tuple[n.Expr, ...],
                   index: n.Expr) -> Frame | None:
    """The frame of a 2-D kernel whose own element `index` evaluates to y * S + x, S other
    than its guard's bound in x (a #define, another parameter), each coefficient positive
    and S not 1 (threads of neighbouring rows would name one element): rows S wide."""
    if len(coords) != 2 or len(bounds) != 2:
        return None
    q, height = poly(index, fr.locals_), poly(bounds[1], fr.locals_)
    x, y = coords[0].decl, coords[1].decl
    if q is None or height is None or q.get((x,)) != 1:
        return None
    stride: dict[tuple[str, ...], int] = {}
    for m, c in q.items():
        if m == (x,):
            continue
        if m.count(y) != 1 or x in m or c <= 0:
            return None
        rest = list(m)
        rest.remove(y)
        stride[tuple(rest)] = c
    if not stride or stride == {(): 1}:
        return None
    plane: dict[tuple[str, ...], int] = {}
    for a, ca in stride.items():
        for b, cb in height.items():
            key = tuple(sorted((*a, *b)))
            plane[key] = plane.get(key, 0) + ca * cb
    return Frame(q, {k: v for k, v in plane.items() if v}, fr.locals_)
