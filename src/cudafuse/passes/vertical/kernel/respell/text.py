"""What the respellings share: text edits by span, the text a node was written as, and small
facts about a kernel's tree (which variables are written, what is pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.host.hostexprs import write_target


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def parent_map(fn: Function) -> dict[int, n.Node]:
    assert fn.body is not None
    out: dict[int, n.Node] = {}
    stack: list[n.Node] = [fn.body]
    while stack:
        node = stack.pop()
        for c in node.children():
            if c is not None:  # (an absent part: a for without its init)
                out[id(c)] = node
                stack.append(c)
    return out


def is_written(ref: n.Node, parents: dict[int, n.Node]) -> bool:
    """Whether the lvalue `ref` (a variable, or a member of one) is assigned, incremented or
    has its address taken where it stands."""
    parent = parents.get(id(ref))
    if isinstance(parent, n.Binary) and parent.is_assignment and parent.lhs is ref:
        return True
    return isinstance(parent, n.Unary) and parent.op in ("++", "--", "&")


_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


def fresh_name(name: str, data: bytes) -> str:
    """`name`, with underscores appended while the file's code (comments aside, where a
    name collides with nothing) already uses it."""
    code = _COMMENT.sub(b" ", data)
    while re.search(rb"\b" + re.escape(name.encode()) + rb"\b", code):
        name += "_"
    return name


def own_text(data: bytes, node: n.Node) -> str:
    return data[node.span.start:node.span.end].decode("utf-8", errors="replace")


def keep_lines(old: str, new: str) -> str:
    return new + "\n" * (old.count("\n") - new.count("\n"))


def bare(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    return e


def written_ref(x: n.Node) -> n.Ref | None:
    """The variable itself (not an element or member of it) that `x` writes, if any."""
    target = write_target(x)
    target = bare(target) if target is not None else None
    return target if isinstance(target, n.Ref) else None


def text_of(src: bytes, node: n.Node) -> str:
    return src[node.span.start:node.span.end].decode("utf-8", errors="replace")


PURE = frozenset(("min", "max", "abs", "fminf", "fmaxf", "fabsf", "fmin", "fmax", "fabs",
                   "umin", "umax", "llmin", "llmax"))


def impure(e: n.Expr) -> bool:
    """Whether evaluating `e` twice could differ from once (an assignment, an increment, a
    call other than of a pure function)."""
    for x in e.walk():
        if isinstance(x, n.Binary) and x.is_assignment or \
                isinstance(x, n.Unary) and x.op in ("++", "--"):
            return True
        if isinstance(x, n.Call) and x.callee not in PURE:
            return True
    return False
