"""Several stores per thread: one buffer holding several "channels" of a producer's element.

A kernel may store more than one value per element into one buffer, at constant offsets of
its element: planar channels (`p[c * w * h + i]`, c = 0, 1, 2: an RGB-to-planar kernel) or
interleaved ones (`q[(y * w + x) * 3 + c]`). Each store is then its own output channel: the
producer's value at element i for channel c is the body with that store turned into
`return` (and the others into nothing), and a consumer's read `p[c * w * h + i]` or
`q[i * 3 + c]` is channel c at element i.

Indices are compared as integer polynomials over the kernel's variables (parameters,
coordinates, and locals declared once and never written, replaced by their initialisers):
`(y * w + x) * 3 + 2`, `3 * i + 2` and `2 + i * 3` are one polynomial. The planar plane is
the iteration space's size (the product of the guard's bounds, the row stride being the
width), so channels never overlap; the interleaved factor is a constant K > 1 with every
channel in 0..K-1. A consumer's read maps to a channel only at its own element, with a
constant channel the producer stores; anything else is refused with the reason.

`find_channels` recognises such producers (every store of the buffer a statement of the
body or of the branches of its if/else, `=`, one layout, each channel once on every path:
`if (in) { q[3 * i] = r; ... } else { q[3 * i] = 0; ... }` stores each channel once
whichever branch runs); `classify` maps a reader's
subscript to (layout, channel) at the reader's own element. Code generation (codegen.py)
emits one value-at-element function per channel; a view's subscript decodes the channel
from the index, and reads at the own element with a constant channel call the channel's
function directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.types import is_integral

Poly = dict[tuple[str, ...], int]  # monomial (sorted declaration ids) -> coefficient


def poly_add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if out[m] == 0:
            del out[m]
    return out


def poly_mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
            if out[m] == 0:
                del out[m]
    return out


def poly(e: n.Expr | None, locals_: dict[str, n.Expr], depth: int = 0) -> Poly | None:
    """`e` as an integer polynomial, or None (division, calls, floats, members...)."""
    if e is None or depth > 16:
        return None
    while isinstance(e, n.Cast) or (isinstance(e, n.OtherExpr) and e.kind == "PAREN_EXPR"
                                     and len(e.items) == 1):
        e = e.operand if isinstance(e, n.Cast) else e.items[0]  # type: ignore[assignment]
    if isinstance(e, n.IntLit):
        return {(): e.value} if e.value else {}
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int):
            return {(): e.const_value} if e.const_value else {}
        if e.decl in locals_:
            return poly(locals_[e.decl], locals_, depth + 1)
        if e.kind in ("param", "local") and e.decl:
            return {(e.decl,): 1}
        return None
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        inner = poly(e.operand, locals_, depth + 1)
        return None if inner is None else (inner if e.op == "+" else poly_add({}, inner, -1))
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = poly(e.lhs, locals_, depth + 1), poly(e.rhs, locals_, depth + 1)
        if a is None or b is None:
            return None
        return poly_mul(a, b) if e.op == "*" else poly_add(a, b, 1 if e.op == "+" else -1)
    return None


@dataclass(frozen=True)
class Layout:
    kind: str  # "planar" or "interleaved"
    factor: int = 0  # interleaved: K of `i * K + c`

    def describe(self) -> str:
        return "planar (c * plane + i)" if self.kind == "planar" else \
            f"interleaved (i * {self.factor} + c)"


def _multiple(r: Poly, base: Poly) -> int | None:
    """k with r == k * base (k may be 0), else None."""
    if not r:
        return 0
    if not base:
        return None
    m = next(iter(base))
    if m not in r or r[m] % base[m]:
        return None
    k = r[m] // base[m]
    return k if poly_add(r, {mm: k * c for mm, c in base.items()}, -1) == {} else None


def decompose(q: Poly, own: Poly, plane: Poly) -> tuple[Layout, int] | None:
    """(layout, channel) of an index polynomial `q` that is `c * plane + own` (planar) or
    `own * K + c` (interleaved, 0 <= c < K, K > 1); None for anything else (the own element
    itself included: that is a plain store)."""
    if () in own or () in plane:
        return None
    c = _multiple(poly_add(q, own, -1), plane)
    if c is not None and c > 0:
        return Layout("planar"), c
    c0 = q.get((), 0)
    k = _multiple(poly_add(q, {(): c0}, -1), own)
    if k is not None and k > 1 and 0 <= c0 < k:
        return Layout("interleaved", k), c0
    return None


def kernel_locals(fn: n.Node) -> dict[str, n.Expr]:
    """Locals declared with an initialiser and never assigned again, whose initialisers read
    nothing that is assigned (so the local and its initialiser agree wherever it is seen;
    a grid-stride loop's variable, stepped only between iterations, is the caller's to
    remove)."""
    written = set()
    decls: dict[str, n.Expr] = {}
    for x in fn.walk():
        if isinstance(x, n.VarDecl) and x.init is not None:
            decls[x.decl] = x.init
        target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
            x.operand if isinstance(x, n.Unary) and x.op in ("++", "--") else None
        if isinstance(target, n.Ref):
            written.add(target.decl)
    return {d: e for d, e in decls.items() if d not in written}


@dataclass(frozen=True)
class Frame:
    """A kernel's own element and plane as polynomials, and the locals they see through."""

    own: Poly
    plane: Poly
    locals_: dict[str, n.Expr]


def frame(body: n.Node, coords: tuple[n.VarDecl, ...], bounds: tuple[n.Expr, ...]
          ) -> Frame | None:
    """The frame of a 1D (`i`, plane n) or 2D (`y * w + x`, plane w * h) kernel, or None."""
    locals_ = kernel_locals(body)
    for c in coords:
        locals_.pop(c.decl, None)
    if not coords or len(coords) > 2 or len(bounds) != len(coords):
        return None
    own: Poly = {(coords[0].decl,): 1}
    plane = poly(bounds[0], locals_)
    if plane is None:
        return None
    if len(coords) == 2:
        b1 = poly(bounds[1], locals_)
        if b1 is None:
            return None
        own = poly_add(own, poly_mul({(coords[1].decl,): 1}, plane))
        plane = poly_mul(plane, b1)
    return Frame(own, plane, locals_)


def classify(index: n.Expr, fr: Frame) -> tuple[Layout | None, int] | None:
    """(None, 0) for the own element itself, (layout, channel) for a channel of it, None
    for anything else."""
    q = poly(index, fr.locals_)
    if q is None:
        return None
    if q == fr.own:
        return None, 0
    return decompose(q, fr.own, fr.plane)


@dataclass(frozen=True)
class ChannelStore:
    channel: int
    stmt: n.ExprStmt
    value: n.Expr
    index: n.Expr
    nested: bool = False  # in a branch of an if/else of the body (see _branch_stores)


@dataclass(frozen=True)
class Channels:
    layout: Layout
    stores: tuple[ChannelStore, ...]  # ascending channel; one per branch storing it
    # Some path through the body stores no value for a channel (an if without else): there
    # the element keeps what memory holds, so the channel's function falls back to memory
    # (domain.keeps_guard).
    partial: bool = False

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(sorted({s.channel for s in self.stores}))

    def describe(self) -> str:
        return (f"{self.layout.describe()} channels, c = "
                f"{', '.join(map(str, self.numbers))}")


def pointer_name(base: n.Expr, pointers: dict[str, str]) -> str | None:
    """The pointer parameter a subscript's base names (through casts), if any."""
    while isinstance(base, n.Cast):
        base = base.operand
    return base.name if isinstance(base, n.Ref) and base.decl in pointers else None


def find_channels(body: n.Compound, tail: list[n.Stmt], coords: tuple[n.VarDecl, ...],
                  bounds: tuple[n.Expr, ...], pointers: dict[str, str]
                  ) -> tuple[dict[str, Channels], str | None]:
    """The buffers this kernel stores as channels of its element, or why one that stores a
    buffer at several offsets of its element cannot be fused (naming the layout). `tail` is
    the statement list after the guard, where each channel's store must be a statement."""
    fr = frame(body, coords, bounds)
    writes: dict[str, list[n.Binary]] = {}
    for x in body.walk():
        if isinstance(x, n.Binary) and x.is_assignment and isinstance(x.lhs, n.Index):
            name = pointer_name(x.lhs.base, pointers)
            if name is not None:
                writes.setdefault(name, []).append(x)
        elif isinstance(x, n.Unary) and x.op in ("++", "--") and isinstance(x.operand, n.Index):
            name = pointer_name(x.operand.base, pointers)
            if name is not None:
                writes.setdefault(name, []).append(x)  # type: ignore[arg-type]
    top: dict[int, tuple[n.ExprStmt, tuple[tuple[int, int], ...]]] = {}
    _branch_stores(tail, (), top)
    looped = {id(x) for loop in body.walk() if isinstance(loop, (n.For, n.While))
              for x in loop.walk()}
    out: dict[str, Channels] = {}
    for name, ws in sorted(writes.items()):
        # (a loop updating the own element itself is an accumulation: accumulate.py)
        w = next((w for w in ws if id(w) in looped and not (
            fr is not None and isinstance(w, n.Binary) and classify(w.lhs.index, fr) == (None, 0))
            ), None)
        if w is not None:
            return {}, looped_store_reason(name, w, fr, body, coords, bounds)
        kinds = [classify(w.lhs.index, fr) if fr is not None and isinstance(w, n.Binary)
                 else None for w in ws]
        layouts = {k[0] for k in kinds if k is not None and k[0] is not None}
        if not layouts:
            continue  # no channel store: a plain producer (or not one at all)
        if len(layouts) > 1 or None in kinds:
            return {}, (f"it stores '{name}' at several offsets of its element that are not "
                        "one layout of channels (c * plane + i or i * K + c)")
        layout = next(iter(layouts))
        chans = [k[1] for k in kinds if k is not None]
        what = f"it stores '{name}' as {layout.describe()} channels"
        if any(k[0] is None for k in kinds if k is not None) and layout.kind != "planar":
            return {}, f"{what} and also at its plain element"
        for w in ws:
            if not isinstance(w, n.Binary) or w.op != "=" or id(w) not in top:
                return {}, (f"{what}, one of them (line {w.span.line}) in a loop, in a "
                            "statement other than an if/else or as a compound assignment; "
                            "channels are fused as statements of the kernel's body or of "
                            "the branches of its if/else")
        twice = _twice(ws, chans, top)
        if twice is not None:
            return {}, (f"{what} and may store one channel twice on one path (channel "
                        f"{twice[0]}, lines {twice[1]} and {twice[2]})")
        partial = any(not _always(tail, {id(top[id(w)][0]) for w, k in
                                         zip(ws, chans, strict=True) if k == c})
                      for c in sorted(set(chans)))
        stores = sorted((ChannelStore(c, top[id(w)][0], w.rhs, w.lhs.index,
                                      bool(top[id(w)][1]))
                         for w, c in zip(ws, chans, strict=True)), key=lambda s: s.channel)
        out[name] = Channels(layout, tuple(stores), partial)
    return out, None


def _branch_stores(stmts: list[n.Stmt], path: tuple[tuple[int, int], ...],
                   out: dict[int, tuple[n.ExprStmt, tuple[tuple[int, int], ...]]]) -> None:
    """The expression statements among `stmts` and, through if/else (not loops), in their
    branches, by their expression's id: each with its path, the (if, branch) pairs it runs
    under (a store in one branch and one in the other never run on one path)."""
    for s in stmts:
        if isinstance(s, n.ExprStmt):
            out[id(s.expr)] = (s, path)
        elif isinstance(s, n.If):
            for branch, part in enumerate((s.then, s.else_)):
                if part is not None:
                    inner = list(part.body) if isinstance(part, n.Compound) else [part]
                    _branch_stores(inner, (*path, (id(s), branch)), out)
        elif isinstance(s, n.Compound):
            _branch_stores(list(s.body), path, out)


def _twice(ws: list[n.Binary], chans: list[int],
           top: dict[int, tuple[n.ExprStmt, tuple[tuple[int, int], ...]]]
           ) -> tuple[int, int, int] | None:
    """(channel, line, line) of two stores of one channel that may run on one path (not in
    the two branches of one if), else None."""
    for j, (a, ca) in enumerate(zip(ws, chans, strict=True)):
        for b, cb in zip(ws[j + 1:], chans[j + 1:], strict=True):
            pa, pb = top[id(a)][1], top[id(b)][1]
            if ca == cb and not any(x[0] == y[0] and x[1] != y[1] for x in pa for y in pb):
                return ca, a.span.line, b.span.line
    return None


def _always(stmts: list[n.Stmt], stores: set[int]) -> bool:
    """Does every path through `stmts` run one of the statements `stores` (ids)? A statement
    of the list itself, or an if/else both of whose branches do."""
    for s in stmts:
        if id(s) in stores:
            return True
        if isinstance(s, n.If) and s.else_ is not None and all(
                _always(list(p.body) if isinstance(p, n.Compound) else [p], stores)
                for p in (s.then, s.else_)):
            return True
        if isinstance(s, n.Compound) and _always(list(s.body), stores):
            return True
    return False


def _loop_vars(body: n.Compound, node: n.Node) -> set[str]:
    """Variables that change from one iteration to the next of the loops around `node`:
    those the loops declare in their headers or assign anywhere in them."""
    out: set[str] = set()
    for loop in (x for x in body.walk() if isinstance(x, (n.For, n.While))):
        if not any(y is node for y in loop.walk()):
            continue
        for x in loop.walk():
            if isinstance(x, n.VarDecl) and isinstance(loop, n.For) and loop.init is not None \
                    and any(x is d for d in loop.init.walk()):
                out.add(x.decl)
            target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
                x.operand if isinstance(x, n.Unary) and x.op in ("++", "--") else None
            while isinstance(target, n.Cast):
                target = target.operand
            if isinstance(target, n.Ref) and target.decl:
                out.add(target.decl)
    return out


def _depends(e: n.Expr, locals_: dict[str, n.Expr], depth: int = 0) -> set[str]:
    """The declarations an expression reads, through the initialisers of `locals_` (locals
    declared once and never written)."""
    out: set[str] = set()
    for x in e.walk():
        if isinstance(x, n.Ref) and x.decl:
            out.add(x.decl)
            if x.decl in locals_ and depth < 16:
                out |= _depends(locals_[x.decl], locals_, depth + 1)
    return out


def _show(e: n.Expr) -> str:
    """An index expression as C with only the parentheses its + - * need."""
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        def side(x: n.Expr, right: bool) -> str:
            while isinstance(x, n.Cast) and not x.explicit:
                x = x.operand
            text = _show(x)
            low = isinstance(x, n.Binary) and x.op in ("+", "-")
            return f"({text})" if low and (e.op == "*" or right and e.op == "-") else text
        return f"{side(e.lhs, False)} {e.op} {side(e.rhs, True)}"
    return to_c(e)


# The most iterations of a loop kernel/respell/unroll.py unrolls (a channel loop: RGB, RGBA,
# a small vector), and what a producer's stores may be, the loops it unrolls named.
UNROLL_TRIPS = 16
_FUSED_STORES = ("cudafuse fuses a producer whose threads each store their own element, or "
                 "channels of it, each a statement or an iteration of a loop it unrolls: "
                 f"integer constant start, bound and step, at most {UNROLL_TRIPS} iterations, "
                 "no break, continue or return in its body, no other write of its variable, "
                 "in no other loop and around none the stored element also follows")


def looped_store_reason(name: str, w: n.Binary | n.Unary, fr: Frame | None, body: n.Compound,
                        coords: tuple[n.VarDecl, ...], bounds: tuple[n.Expr, ...]) -> str:
    """Why a store of `name` inside a loop (not at the thread's own element) makes no
    value-at-element function: the elements it stores, evaluated as a polynomial over the
    kernel's variables, either change with the loop (several elements per thread: `out[i *
    4 + k]`, a row walked by `x += blockDim.x`) or are one element other than the own one
    (an update at a row stride that is not the guard's bound)."""
    target = w.lhs if isinstance(w, n.Binary) else w.operand
    assert isinstance(target, n.Index)
    try:
        shown = f"'{name}[{_show(target.index)}]'"
    except Unprintable:
        shown = f"'{name}'"
    where = f"in a loop (line {w.span.line})"
    locals_ = fr.locals_ if fr is not None else kernel_locals(body)
    q = poly(target.index, locals_)
    if q is None:
        # Not a polynomial (`/`, `%`, calls): what it depends on still says whether the
        # element changes from one iteration to the next.
        moving = sorted({d.split("@")[0] for d in _depends(target.index, locals_)
                         if d in _loop_vars(body, w)})
        if moving:
            return (f"it may store several elements per thread: {shown} {where} at an "
                    f"index that depends on '{', '.join(moving)}', which the loop changes; "
                    "a consumer could only recompute such an element by running the loop "
                    f"({_FUSED_STORES})")
        return (f"it stores {shown} {where} at an index cudafuse cannot evaluate; it fuses "
                "a producer whose threads each store their own element (or channels of "
                "it, each a statement)")
    varying = sorted({d.split("@")[0] for m in q for d in m if d in _loop_vars(body, w)})
    if varying:
        return (f"it stores several elements per thread: {shown} for each value of "
                f"'{', '.join(varying)}' {where}; a consumer could only recompute such an "
                f"element by running the loop ({_FUSED_STORES})")
    kind = classify(target.index, fr) if fr is not None else None
    if kind is not None and kind[0] is not None:
        return (f"it updates channel {kind[1]} of its own element ({kind[0].describe()}), "
                f"{shown}, {where}: channels are fused when each is stored once, by a "
                "statement of its own (channels a loop updates are kept in locals and "
                "stored once only when no other pointer read or written there may be the "
                "buffer: not of its element type or a char type, or one of the two "
                "__restrict__; when a statement of their own also assigns each; and when "
                "nothing leaves early)")
    try:
        own = coords[0].name if len(coords) == 1 or not bounds else \
            f"{coords[1].name} * {_show(bounds[0])} + {coords[0].name}"
    except Unprintable:
        own = "its own element"
    return (f"it stores one element per thread {where}, {shown}, which is not provably its "
            f"own element ({own}) in the frame of its guard: the loop updates that element, "
            "so it is no value of the thread's own")


def atom_poly(e: n.Expr | None, locals_: dict[str, n.Expr], depth: int = 0) -> Poly | None:
    """`e` as an integer polynomial whose variables are integer values: parameters and
    locals (a local declared once and never written through its initialiser), and any other
    integer-typed subexpression that is no sum, difference or product, which stands for
    itself (a clamp `min(max(y + dy, 0), h - 1)`, a conditional `y < h - 1 ? y + 1 : y`, a
    quotient, a member). Each such subexpression is a variable of its own, so the result
    says what holds for every value it may take. Types are read, not guessed: a value of a
    floating type, or of a type not known to be an integer, makes the whole None (a cast to
    int of a float product, `(int)(t * 3)`, is one integer variable, not 3 * t)."""
    if e is None or depth > 32:
        return None
    while isinstance(e, n.OtherExpr) and e.kind == "PAREN_EXPR" and len(e.items) == 1:
        e = e.items[0]  # type: ignore[assignment]
    if isinstance(e, n.IntLit):
        return {(): e.value} if e.value else {}
    if not is_integral(e.type):
        return None
    if isinstance(e, n.Cast):
        inner = e.operand
        if is_integral(inner.type):  # an integer conversion keeps the value (as poly)
            return atom_poly(inner, locals_, depth + 1)
        return {(f"@{id(e)}",): 1}  # an integer made from another type: some integer
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int):
            return {(): e.const_value} if e.const_value else {}
        if e.decl in locals_:
            inner = atom_poly(locals_[e.decl], locals_, depth + 1)
            if inner is not None:
                return inner
        return {(e.decl or f"@{id(e)}",): 1}
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        inner = atom_poly(e.operand, locals_, depth + 1)
        return None if inner is None else (inner if e.op == "+" else poly_add({}, inner, -1))
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = atom_poly(e.lhs, locals_, depth + 1), atom_poly(e.rhs, locals_, depth + 1)
        if a is None or b is None:
            return None
        return poly_mul(a, b) if e.op == "*" else poly_add(a, b, 1 if e.op == "+" else -1)
    if isinstance(e, n.Binary) and e.is_assignment or \
            isinstance(e, n.Unary) and e.op in ("++", "--"):
        return None  # (a subscript that writes: not a value to reason about)
    return {(f"@{id(e)}",): 1}


def interleaved_channel(index: n.Expr, locals_: dict[str, n.Expr], factor: int) -> int | None:
    """c when `index` is K * e + c for some integer e, whatever element e is (`rgb[(p - w)
    * 3 + 1]`, `buf[Nt * 3 + 2]` with Nt any integer, `in[(min(max(y + dy, 0), h - 1) * w
    + x) * 3 + 2]`): read as an integer polynomial (atom_poly: a part that is no sum or
    product, a clamp, a conditional, a local whose value is no polynomial, stands for
    itself), every coefficient but the constant a multiple of K, the constant c modulo K.
    None for anything else."""
    q = atom_poly(index, locals_)
    if q is None or factor < 2 or any(c % factor for m, c in q.items() if m != ()):
        return None
    return q.get((), 0) % factor


def channel_reads_reason(reader: str, pname: str, reads: list[n.Index], fr: Frame | None,
                         channels: Channels) -> str | None:
    """Why a reader's subscripts of a channel buffer are not each an element at a channel
    the producer stores (None when they all are): its own element at a constant channel,
    or, for interleaved channels, any element at a constant channel (a stencil over an RGB
    image: the producer's value function then keeps its guard, exact at any element:
    domain.keeps_guard)."""
    if fr is None:
        return (f"'{reader}' reads channels of '{pname}' but its own element is not "
                "recognised (no coordinate mapping and bounds)")
    for node in reads:
        k = classify(node.index, fr)
        if (k is None or k[0] is None) and channels.layout.kind == "interleaved":
            c = interleaved_channel(node.index, fr.locals_, channels.layout.factor)
            if c is not None and c in channels.numbers:
                continue
        if k is None:
            return (f"'{reader}' reads '{pname}' (line {node.span.line}) other than at a "
                    f"constant channel of its own element ({channels.describe()})")
        layout, c = k
        if layout is None and channels.layout.kind != "planar":
            # (its own element i is, in the producer's frame, channel i % K of element
            # i / K: the two kernels do not map threads to elements alike)
            return (f"'{reader}' reads '{pname}' (line {node.span.line}) at its own element, "
                    f"not at a constant channel of it: its producer stores "
                    f"{channels.describe()}, one thread per {channels.layout.factor} "
                    "elements")
        if layout is None:
            layout = Layout("planar")
        if layout != channels.layout or c not in channels.numbers:
            return (f"'{reader}' reads '{pname}' (line {node.span.line}) at a channel its "
                    f"producer does not store ({channels.describe()})")
    return None


def decoded_reads(reads: list[n.Index], fr: Frame | None, channels: Channels) -> bool:
    """Whether every read of an interleaved channel buffer goes through the view's
    subscript, which finds the element and the channel from the index alone (`i / K`, `i %
    K`) and evaluates the producer there in its own frame (its row stride, its guard kept:
    domain.keeps_guard): no read is at the reader's own element, which code generation
    would rewrite to the channel's function at the reader's coordinates (`c1_xy(x, y)`,
    right only when the two kernels' frames are one). The two kernels' iteration spaces
    then need not be the same (felixchu's shrinkbackground_a over the background, read by
    CalculateFixed over the target at clamped neighbours `background_a[Nb * 3 + c]`)."""
    if channels.layout.kind != "interleaved" or fr is None:
        return False
    for node in reads:
        k = classify(node.index, fr)
        if k is not None:
            return False
        if interleaved_channel(node.index, fr.locals_, channels.layout.factor) is None:
            return False
    return True
