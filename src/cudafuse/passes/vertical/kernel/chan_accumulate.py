"""Channels of the thread's element built in memory inside loops, respelled as locals:

    for (int r = 0; r < 8; r++)                     float cf_s0 = s[o * 3 + 0]; ...
      for (int c = 0; c < 8; c++) {                  for (int r = 0; r < 8; r++)
        s[o * 3 + 0] += in[...];            ->         for (int c = 0; c < 8; c++) {
        s[o * 3 + 1] += in[...]; ...                     cf_s0 += in[...]; ...
      }                                              }
    s[o * 3 + 0] /= 64; ...                          cf_s0 /= 64; ...; s[o * 3 + 0] = cf_s0; ...

(felixchu's Poisson cloning shrinks an interleaved RGB image so.) A consumer cannot recompute
an element whose channels a loop updates in memory (channels.py fuses channels stored once
each, by a statement of its own), but a thread that alone touches those elements may keep
them in locals and store each once at the end: the view then reads the stores as channels.

Read from the IR: every subscript of the pointer parameter `p` in the kernel is at one
element plus a constant (`base + c`, integer polynomials, at most 16 channels), `base` built
from parameters, built-ins and locals never written and declared before the stretch, and no
other use of `p`. The stretch is the statements of the innermost statement list holding
every access, from the first holding one to the last; one of them, unconditionally, assigns
each channel (so the original touches every element the locals load and store). A channel
whose first access there is such an assignment not reading `p` needs no load. Refused (left
as written) when anything in the stretch could see memory the locals hold instead: a read
or write through another pointer that may be `p`'s element (a pointer parameter of the same
element type, or of a char type, unless one of the two is `__restrict__`; a local pointer,
a dereference, a call that may read memory), or a jump out of the stretch (return, goto, a
break or continue of an enclosing loop): the stores at its end must run where the original
stored. Two plain pointers of one element type are told apart for two or more channels
when every launch of the kernel in the file passes them different buffers (chan_hosts.py:
felixchu's `const float *target` beside the `float *target_a` its host cudaMallocs).
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.passes.vertical.kernel.chan_hosts import distinct_at_launches
from cudafuse.passes.vertical.kernel.channels import poly
from cudafuse.passes.vertical.kernel.respell.member_stores import _by_value_call
from cudafuse.passes.vertical.kernel.respell.text import (
    Edit,
    bare,
    fresh_name,
    keep_lines,
    parent_map,
    text_of,
)

_CHARS = ("char", "signed char", "unsigned char", "std::byte", "int8_t", "uint8_t")
_MAX_CHANNELS = 16


def channel_locals(unit: TranslationUnit, fn: Function, data: bytes
                   ) -> tuple[list[Edit], str]:
    """The edits that keep each channel-in-a-loop buffer in locals (see above), and a note
    naming the buffers; nothing when none qualifies."""
    assert fn.body is not None
    edits: list[Edit] = []
    names: list[str] = []
    taken = data
    for p in fn.params:
        if not p.is_pointer or p.pointee_const or "volatile" in p.type or \
                p.pointee_members is not None:
            continue
        found = _respell(unit, fn, p, data, taken)
        if found is None or any(a.start < b.end and b.start < a.end
                                for a in found for b in edits):
            continue
        edits += found
        names.append(p.name)
        taken += " ".join(e.text for e in found).encode()
    if not edits:
        return [], ""
    return edits, (f"updates channels of its element of {', '.join(repr(x) for x in names)} "
                   "in a loop: respelled as locals stored once each")


def _respell(unit: TranslationUnit, fn: Function, p: Param, data: bytes, taken: bytes
             ) -> list[Edit] | None:
    assert fn.body is not None
    parents = parent_map(fn)
    accesses: list[n.Index] = []
    seen: set[tuple[int, int]] = set()
    for x in fn.body.walk():
        if isinstance(x, n.Ref) and x.decl == p.decl:
            parent = parents.get(id(x))
            while isinstance(parent, n.Cast) and not parent.explicit:
                parent = parents.get(id(parent))
            if not (isinstance(parent, n.Index) and bare(parent.base) is not None and
                    _is_p(parent.base, p)):
                return None  # (p handed on, offset, copied or dereferenced)
            if (parent.span.start, parent.span.end) not in seen:  # (walked twice: operator=)
                seen.add((parent.span.start, parent.span.end))
                accesses.append(parent)
    if not accesses or any(isinstance(parents.get(id(a)), n.Unary) and
                           parents[id(a)].op == "&" for a in accesses):  # type: ignore[union-attr]
        return None
    if not any(_in_loop(a, parents, fn.body) for a in accesses):
        return None  # (straight-line channel stores: channels.py reads them as written)
    channel = _channels(fn, accesses)
    if channel is None:
        return None
    stmts, first, last = _stretch(accesses, parents, fn.body)
    if stmts is None:
        return None
    stretch = stmts[first:last + 1]
    # (one element of its own, no channels: accumulate.py reads it as the thread's private
    # value as written; the launches are asked only for channels)
    launches = len(set(channel.values())) > 1
    if not _stays(stretch) or not _no_alias(unit, fn, p, stretch, accesses, launches):
        return None
    decls = _declared_at(fn)
    index_refs = {x.decl for a in accesses for x in a.index.walk() if isinstance(x, n.Ref)}
    if any(d in decls and decls[d] >= stmts[first].span.start for d in index_refs):
        return None  # (the index names a local declared inside the stretch)
    # Every channel assigned by a statement of the stretch itself: the original stores it.
    assigned: dict[int, n.ExprStmt] = {}
    for s in stretch:
        target = _assigned(s, p)
        if target is not None and channel[id(target)] not in assigned:
            assigned[channel[id(target)]] = s  # type: ignore[assignment]
    numbers = sorted(set(channel.values()))
    if set(assigned) != set(numbers):
        return None
    # The text of each channel's element, from its first access (every access of a channel
    # is the same polynomial, so any of them names it).
    text_at = {}
    for a in accesses:
        if channel[id(a)] not in text_at:
            if not (a.span.start < a.span.end and
                    fn.body.span.start <= a.span.start and a.span.end <= fn.body.span.end):
                return None  # (a macro's text)
            text_at[channel[id(a)]] = text_of(data, a)
    local = fresh_name(f"cf_{p.name}", taken)
    name = {c: f"{local}{c}" for c in numbers}
    load = {c: not _first_is_plain_store(stretch, p, c, channel) for c in numbers}
    head = " ".join(f"{p.pointee} {name[c]}" + (f" = {text_at[c]};" if load[c] else ";")
                    for c in numbers)
    tail = " ".join(f"{text_at[c]} = {name[c]};" for c in numbers)
    edits = []
    for k, s in enumerate(stretch):
        text = _substituted(data, s, accesses, channel, name)
        if text is None:
            return None
        if k == 0:
            text = f"{head} {text}"
        if k == len(stretch) - 1:
            if isinstance(s, n.ExprStmt):
                text = f"{text}; {tail[:-1]}"  # (the statement's own ';' ends it)
            elif data[s.span.end - 1:s.span.end] == b"}":
                text = f"{text} {tail}"
            else:
                return None
        edits.append(Edit(s.span.start, s.span.end, keep_lines(text_of(data, s), text)))
    return edits


def _is_p(e: n.Expr, p: Param) -> bool:
    e = bare(e)
    return isinstance(e, n.Ref) and e.decl == p.decl


def _in_loop(x: n.Node, parents: dict[int, n.Node], body: n.Node) -> bool:
    node = parents.get(id(x))
    while node is not None and node is not body:
        if isinstance(node, (n.For, n.While)):
            return True
        node = parents.get(id(node))
    return False


def _channels(fn: Function, accesses: list[n.Index]) -> dict[int, int] | None:
    """Each access's channel: its index is base + c for one polynomial base."""
    from cudafuse.passes.vertical.kernel.channels import kernel_locals

    assert fn.body is not None
    locals_ = kernel_locals(fn.body)
    written = _written(fn)
    # (a local whose value is no polynomial, `x = blockIdx.x * blockDim.x + threadIdx.x`,
    # stands for itself: never written, it is the same value wherever it is read)
    atoms = dict(locals_)
    while True:
        drop = [d for d, e in atoms.items() if poly(e, atoms) is None]
        if not drop:
            break
        for d in drop:
            del atoms[d]
    polys = []
    for a in accesses:
        q = poly(a.index, atoms)
        if q is None or not _stable(a.index, locals_, written):
            return None
        polys.append(q)
    base = {m: c for m, c in polys[0].items() if m != ()}
    if not base:
        return None
    out: dict[int, int] = {}
    for a, q in zip(accesses, polys, strict=True):
        if {m: c for m, c in q.items() if m != ()} != base:
            return None
        out[id(a)] = q.get((), 0)
    lo = min(out.values())
    out = {k: v - lo for k, v in out.items()}
    if max(out.values()) >= _MAX_CHANNELS:
        return None
    return out


def _written(fn: Function) -> set[str]:
    assert fn.body is not None
    out = set()
    for x in fn.body.walk():
        target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
            x.operand if isinstance(x, n.Unary) and x.op in ("++", "--", "&") else None
        target = bare(target) if target is not None else None
        if isinstance(target, n.Ref):
            out.add(target.decl)
    return out


def _stable(e: n.Expr, locals_: dict[str, n.Expr], written: set[str], depth: int = 0) -> bool:
    """Whether `e` reads only parameters, built-ins and locals never written (through their
    initialisers, recursively): the same element wherever it is evaluated."""
    if depth > 16:
        return False
    for x in e.walk():
        if isinstance(x, (n.Index, n.Call)) or isinstance(x, n.Unary) and x.op == "*":
            return False
        if isinstance(x, n.Ref) and x.kind == "local":
            if x.decl in written or x.decl not in locals_ or \
                    not _stable(locals_[x.decl], locals_, written, depth + 1):
                return False
    return True


def _stretch(accesses: list[n.Index], parents: dict[int, n.Node], body: n.Compound
             ) -> tuple[list[n.Stmt] | None, int, int]:
    """The innermost statement list holding every access, and the positions of its first
    and last statements holding one."""
    def chain(x: n.Node) -> list[n.Node]:
        out = []
        node = parents.get(id(x))
        while node is not None:
            out.append(node)
            node = parents.get(id(node))
        return out

    chains = [chain(a) for a in accesses]
    common = [c for c in chains[0] if isinstance(c, n.Compound) and
              all(any(c is d for d in ch) for ch in chains[1:])]
    if not common:
        return None, 0, 0
    block = common[0]
    assert isinstance(block, n.Compound)
    stmts = list(block.body)
    holds = [k for k, s in enumerate(stmts)
             if any(any(s is d for d in ch) for ch in chains)]
    return stmts, holds[0], holds[-1]


def _stays(stretch: list[n.Stmt]) -> bool:
    """No return, goto or label, and no break or continue of a loop around the stretch."""
    def visit(node: n.Node, in_loop: bool, in_switch: bool) -> bool:
        if isinstance(node, (n.Return, n.Asm)) or isinstance(node, n.OtherStmt) and \
                node.kind in ("GOTO_STMT", "INDIRECT_GOTO_STMT", "LABEL_STMT"):
            return False
        if isinstance(node, n.Continue) and not in_loop or \
                isinstance(node, n.Break) and not (in_loop or in_switch):
            return False
        loop = isinstance(node, (n.For, n.While))
        switch = isinstance(node, n.OtherStmt) and node.kind == "SWITCH_STMT"
        return all(visit(c, in_loop or loop, in_switch or switch)
                   for c in node.children() if c is not None)
    return all(visit(s, False, False) for s in stretch)


def _elem(t: str) -> str:
    t = t.replace("__restrict__", "").replace("const", "").replace("volatile", "").strip()
    return t.rsplit("*", 1)[0].strip() if "*" in t else t.split("[")[0].strip()


def _no_alias(unit: TranslationUnit, fn: Function, p: Param, stretch: list[n.Stmt],
              accesses: list[n.Index], launches: bool = True) -> bool:
    """Nothing in the stretch reads or writes memory that may be p's elements, other than
    through p's own subscripts (with `launches`, two pointer parameters of one element type
    may be told apart by every launch of the kernel: chan_hosts.py)."""
    mine = {id(a) for a in accesses}
    params = {q.decl: q for q in fn.params}
    own = _elem(p.type)
    for s in stretch:
        for x in s.walk():
            if isinstance(x, n.Unary) and x.op == "*":
                return False
            if isinstance(x, n.Call) and x.callee != "operator=" and \
                    not _by_value_call(unit, x):
                return False
            if not isinstance(x, n.Index) or id(x) in mine:
                continue
            base = bare(x.base)
            btype = base.type.replace("const", "").replace("volatile", "").strip()
            if "*" not in btype:
                if "[" in btype:
                    continue  # (a local or shared array)
                return False
            if not (isinstance(base, n.Ref) and base.kind == "param" and base.decl in params):
                return False  # (a local pointer: where it points is not followed here)
            q = params[base.decl]
            if p.restrict or q.restrict:
                continue  # (the programmer's promise: they never alias)
            elem = _elem(q.type)
            if (elem in _CHARS or own in _CHARS or elem == own) and \
                    not (launches and distinct_at_launches(unit, fn, p, q)):
                return False
    return True


def _declared_at(fn: Function) -> dict[str, int]:
    assert fn.body is not None
    return {x.decl: x.span.start for x in fn.body.walk() if isinstance(x, n.VarDecl)}


def _assigned(s: n.Stmt, p: Param) -> n.Index | None:
    """The subscript of p a statement `p[e] = v;` or `p[e] op= v;` assigns."""
    e = s.expr if isinstance(s, n.ExprStmt) else None
    if isinstance(e, n.Binary) and e.is_assignment and isinstance(e.lhs, n.Index) and \
            _is_p(e.lhs.base, p):
        return e.lhs
    return None


def _first_is_plain_store(stretch: list[n.Stmt], p: Param, c: int, channel: dict[int, int]
                          ) -> bool:
    """Whether channel c's first access in the stretch is `p[..c] = v;`, a statement of the
    stretch whose value does not read p: its local then needs no load."""
    for s in stretch:
        touches = [x for x in s.walk() if isinstance(x, n.Index) and channel.get(id(x)) == c]
        if not touches:
            continue
        target = _assigned(s, p)
        assert not isinstance(s, n.ExprStmt) or s.expr is not None
        return target is not None and channel.get(id(target)) == c and \
            s.expr.op == "=" and not any(  # type: ignore[union-attr]
                isinstance(x, n.Ref) and x.decl == p.decl
                for x in s.expr.rhs.walk())  # type: ignore[union-attr]
    return False


def _substituted(data: bytes, s: n.Stmt, accesses: list[n.Index], channel: dict[int, int],
                 name: dict[int, str]) -> str | None:
    """The statement's text with each access of p the local of its channel."""
    inside = sorted((a for a in accesses if s.span.start <= a.span.start and
                     a.span.end <= s.span.end), key=lambda a: a.span.start)
    out, at = [], s.span.start
    for a in inside:
        if a.span.start < at:
            return None  # (overlapping: a macro's text)
        out.append(data[at:a.span.start].decode("utf-8", errors="replace"))
        out.append(name[channel[id(a)]])
        at = a.span.end
    out.append(data[at:s.span.end].decode("utf-8", errors="replace"))
    return "".join(out)
