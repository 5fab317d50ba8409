"""A `switch` whose cases each end in `break` (no case falling into the next), respelled as
the if/else chain it means, so that the stores in its cases are read as stores under
conditions (a Canny non-maximum suppression storing its own element in some directions):

    switch (s[i]) {                     {
    case 1: case 5:                     if ((s[i]) == (1) || (s[i]) == (5)) {
        if (g[i] > t) m[i] = 0;             if (g[i] > t) m[i] = 0;
        break;                          }
    default:                            else {
        m[i] = 1;                           m[i] = 1;
        break;                          }
    }                                   }

C runs exactly one arm, the first whose labels hold the value (or the default, when none
does), and leaves the switch at its `break`: that is what the chain does, provided that
  * the controlling expression reads the same value each time the chain tests it: it has no
    side effects (no assignment, increment or call of an impure function), and no arm runs
    before a test (an arm runs only after its test held, and then no other test runs);
  * every arm but the last ends in `break` and holds no other `break` of the switch (one
    inside a loop of the arm leaves that loop, not the switch: refused all the same, as is
    a `goto` or a label), and the default, if any, is the last arm;
  * the labels are integer constants: `E == K` converts both as the switch does.
Each label becomes a test and each `break` a closing brace, so every line stays where it was
written; an arm's declarations are scoped to it (one used by a later arm would not compile:
the respelled file is then rejected and the kernel left as written, see parse_for_fusion).
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import Edit, impure, own_text

_LABELS = ("CASE_STMT", "DEFAULT_STMT")


def switches(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """Every switch of the kernel that means an if/else chain, as one (see above); the
    innermost first when they nest (an outer one waits for the next round)."""
    assert fn.body is not None
    edits: list[Edit] = []
    for node in fn.body.walk():
        if isinstance(node, n.OtherStmt) and node.kind == "SWITCH_STMT":
            found = _chain(node, data)
            if found:
                edits += found
    note = "a switch whose cases each end in break read as the if/else chain it means" \
        if edits else ""
    return edits, note


def _label_chain(stmt: n.Node) -> tuple[list[n.Expr | None], n.Node | None]:
    """The labels of `case 1: case 5: S` (None for default) and the statement they label."""
    labels: list[n.Expr | None] = []
    node: n.Node | None = stmt
    while isinstance(node, n.OtherStmt) and node.kind in _LABELS:
        if node.kind == "CASE_STMT":
            if len(node.items) != 2 or not isinstance(node.items[0], n.Expr):
                return [], None  # (a GNU range `case 1 ... 3:`)
            labels.append(node.items[0])
            node = node.items[1]
        else:
            labels.append(None)
            node = node.items[0] if node.items else None
    return labels, node


def _escapes(stmt: n.Node) -> bool:
    """Whether `stmt` holds a break, goto, label or case of its own (anything that would
    leave or enter an arm other than at its end), or a nested switch (done first)."""
    for x in stmt.walk():
        if isinstance(x, n.Break) or isinstance(x, n.OtherStmt) and x.kind in (
                "GOTO_STMT", "INDIRECT_GOTO_STMT", "LABEL_STMT", "SWITCH_STMT", *_LABELS):
            return True
    return False


def _chain(switch: n.OtherStmt, data: bytes) -> list[Edit] | None:
    if len(switch.items) != 2 or not isinstance(switch.items[0], n.Expr) or \
            not isinstance(switch.items[1], n.Compound):
        return None
    cond, body = switch.items[0], switch.items[1]
    if impure(cond) or not body.body:
        return None
    test = own_text(data, cond)
    head = data[switch.span.start:body.span.start + 1].decode("utf-8", errors="replace")
    if not re.fullmatch(r"switch\s*\(.*\)\s*\{", head, re.S):
        return None  # (written through a macro)
    edits = [Edit(switch.span.start, body.span.start + 1, "{" + "\n" * head.count("\n"))]
    arms = 0
    open_arm = False  # the last arm's statements have no break yet
    has_default = False
    for stmt in body.body:
        if isinstance(stmt, n.OtherStmt) and stmt.kind in _LABELS:
            if open_arm or has_default:
                return None  # falls into this case, or the default is not the last arm
            labels, first = _label_chain(stmt)
            if not labels or first is None or any(
                    x is not None and n.int_constant(x) is None for x in labels):
                return None
            if None in labels:
                if len(labels) > 1:
                    return None  # `case 1: default:`: the default's arm (last) catches both
                has_default = True
                opening = "else {" if arms else "{"
            else:
                tests = " || ".join(f"({test}) == ({own_text(data, x)})" for x in labels)
                opening = f"{'else ' if arms else ''}if ({tests}) {{"
            label_end = first.span.start
            old = data[stmt.span.start:label_end].decode("utf-8", errors="replace")
            if not re.fullmatch(r"(?:(?:case\b.*?|default\s*):\s*)+", old, re.S):
                return None  # (a label written through a macro)
            block = _block_arm(first)
            if block is not None:  # `case 2: { ...; break; }`: the block is the arm's
                if any(_escapes(x) for x in block.body[:-1]):
                    return None
                opening = opening.removesuffix("{")
            edits.append(Edit(stmt.span.start, label_end, opening + "\n" * old.count("\n")
                              + " "))
            arms += 1
            open_arm = True
            if block is not None:
                brk = _close(block.body[-1], data)  # type: ignore[arg-type]
                edits.append(Edit(brk.start, brk.end, ""))
                open_arm = False
            elif isinstance(first, n.Break):
                edits.append(_close(first, data))
                open_arm = False
            else:
                closed = _braced_arm(first, data)
                if closed is None:
                    return None
                edits += closed
                open_arm = not closed
        elif isinstance(stmt, n.Break):
            if not open_arm:
                return None  # a break with no arm before it
            edits.append(_close(stmt, data))
            open_arm = False
        elif not arms or not open_arm:
            return None  # code before the first label, or after an arm's break
        else:
            closed = _braced_arm(stmt, data)
            if closed is None:
                return None
            edits += closed
            open_arm = not closed
    if not arms:
        return None
    if open_arm:  # the last arm runs to the switch's end
        edits.append(Edit(body.span.end - 1, body.span.end - 1, "} "))
    return edits


def _block_arm(stmt: n.Node) -> n.Compound | None:
    """`stmt` when it is a block whose last statement is a `break`."""
    if isinstance(stmt, n.Compound) and stmt.body and isinstance(stmt.body[-1], n.Break):
        return stmt
    return None


def _braced_arm(stmt: n.Node, data: bytes) -> list[Edit] | None:
    """For a statement of an arm: None when it leaves the arm early (see _escapes); the
    edits that end the arm when it is a block whose last statement is the arm's `break`
    (`case 2: { float t = ...; ...; break; }`: the break goes, the arm closes after the
    block); else no edit (the arm goes on)."""
    if isinstance(stmt, n.Compound) and stmt.body and isinstance(stmt.body[-1], n.Break):
        if any(_escapes(x) for x in stmt.body[:-1]):
            return None
        brk = _close(stmt.body[-1], data)
        return [Edit(brk.start, brk.end, ""), Edit(stmt.span.end, stmt.span.end, " }")]
    return None if _escapes(stmt) else []


def _close(brk: n.Break, data: bytes) -> Edit:
    """The arm's `break;` as its closing brace."""
    semi = re.match(rb"\s*;", data[brk.span.end:])
    end = brk.span.end + (semi.end() if semi and not data[brk.span.start:brk.span.end]
                          .rstrip().endswith(b";") else 0)
    return Edit(brk.span.start, end, "}")
