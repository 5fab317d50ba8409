"""A call statement of a void device helper that stores through a pointer it is given
(`pixel_average(out, in, x, y, r, w, h, c);`, `put(t, x, y, w, v);`: the held-out survey's
unsharp mask), respelled into the helper's body at the call, so that the fusion rules see
the kernel's stores where they are:

    if (x < w && y < h) box(o, t, x, y, w, h);
 -> if (x < w && y < h) { float s = 0; for (...) s += t[...]; o[y * w + x] = s / 9; }

C passes each argument by value: the body runs with each parameter a copy of its argument.
The respelling means the same when
  * the helper is a plain device function of the unit (no template, no member, no
    overload), returning void, with no `return` in its body (the body runs to its end),
    no parameter passed by reference or holding pointers in a struct, no parameter it
    assigns or takes the address of, no static or shared declaration, no preprocessor line;
  * each parameter is replaced by its argument's name when the argument is a variable of the
    kernel whose address the kernel never takes (nothing the helper does can change it);
    any other argument is evaluated once, first, into a local of the parameter's type
    (`float v_ = in[i] * 2;`), as the call did; a local of the helper named like one of
    those is renamed (`s` -> `s_`), so that it captures nothing;
  * the helper names nothing the kernel declares again (a global it reads stays that
    global), and the body's own declarations are scoped to a block of their own (the call's
    statement becomes that block; the sole statement of a braced branch gives its braces).
The body is written on the call's line (comments dropped), so the kernel's lines stay where
they are.
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.kernel.respell.text import (
    Edit,
    bare,
    fresh_name,
    impure,
    own_text,
    parent_map,
    text_of,
    written_ref,
)

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def void_helpers(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[Edit], str]:
    assert fn.body is not None
    parents = parent_map(fn)
    mine = {d.name for d in fn.body.walk() if isinstance(d, n.VarDecl)} | \
        {p.name for p in fn.params}
    addressed = {x.operand.decl for x in fn.body.walk() if isinstance(x, n.Unary) and
                 x.op == "&" and isinstance(x.operand, n.Ref)}
    edits: list[Edit] = []
    names: list[str] = []
    taken: set[str] = set()
    for stmt in fn.body.walk():
        if not isinstance(stmt, n.ExprStmt) or not isinstance(stmt.expr, n.Call):
            continue
        parent = parents.get(id(stmt))
        if not isinstance(parent, (n.Compound, n.If)):
            continue
        text = _inlined(unit, fn, stmt.expr, data, mine, addressed, taken)
        if text is None:
            continue
        end = stmt.span.end
        semi = re.match(rb"\s*;", data[end:])
        if semi and not data[stmt.span.start:end].rstrip().endswith(b";"):
            end += semi.end()
        sole = isinstance(parent, n.Compound) and len(parent.body) == 1 and \
            isinstance(parents.get(id(parent)), n.If)
        new = text if sole else "{ " + text + " }"
        old = data[stmt.span.start:end].decode("utf-8", errors="replace")
        edits.append(Edit(stmt.span.start, end, new + "\n" * old.count("\n")))
        names.append(stmt.expr.callee)
    note = (f"calls of {', '.join(repr(x) for x in sorted(set(names)))} read as the helpers' "
            "bodies (they store through pointers they are given)") if edits else ""
    return edits, note


def _inlined(unit: TranslationUnit, fn: Function, call: n.Call, data: bytes, mine: set[str],
             addressed: set[str], taken: set[str]) -> str | None:
    helper = unit.callee(call.callee_decl)
    if helper is None or helper is fn or helper.body is None or helper.is_template or \
            helper.parent or helper.space not in ("device", "host_device") or \
            helper.return_type.strip() != "void" or len(helper.params) != len(call.args) or \
            any(p.is_reference or p.holds_pointers for p in helper.params) or \
            not unit.owns(helper.body.span):
        return None
    if sum(f.name == helper.name for f in unit.functions) > 1:
        return None  # (an overload set: which one the call means is clang's, not ours)
    params = {p.decl: k for k, p in enumerate(helper.params)}
    pointers = {p.decl for p in helper.params if p.is_pointer}
    own = {d.name for d in helper.body.walk() if isinstance(d, n.VarDecl)}
    stores = False
    for x in helper.body.walk():
        if isinstance(x, n.Return) or isinstance(x, n.VarDecl) and \
                x.storage & {"static", "shared"}:
            return None
        target = written_ref(x)
        if target is not None and target.decl in params:
            return None  # (a parameter the body changes: a copy the respelling lacks)
        if isinstance(x, n.Unary) and x.op == "&" and isinstance(x.operand, n.Ref) and \
                x.operand.decl in params:
            return None
        if isinstance(x, n.Binary) and x.is_assignment and isinstance(x.lhs, n.Index) and \
                isinstance(b := bare(x.lhs.base), n.Ref) and b.decl in pointers:
            stores = True
        if isinstance(x, n.Ref) and x.decl not in params and \
                x.kind not in ("function", "builtin") and x.name in mine and x.name not in own:
            return None  # the kernel declares that name again: it would capture it
    if not stores:
        return None  # (nothing the fusion rules need to see: left as a call)
    src = unit.source_of(helper.body.span.file).data
    inner_start, inner_end = helper.body.span.start + 1, helper.body.span.end - 1
    if src[helper.body.span.start:inner_start] != b"{" or \
            src[inner_end:helper.body.span.end] != b"}":
        return None
    bindings: list[str] = []
    repl: dict[int, str] = {}
    for k, (p, arg) in enumerate(zip(helper.params, call.args, strict=True)):
        a = bare(arg)
        text = own_text(data, arg)
        if not text or impure(arg):
            return None
        if isinstance(a, n.Ref) and a.kind in ("param", "local") and a.decl not in addressed \
                and text_of(data, a) == a.name and \
                (p.is_pointer or _plain(p.type) == _plain(a.type)):
            repl[k] = a.name
            continue
        name = fresh_name(f"{p.name}_", data + " ".join(taken).encode())
        taken.add(name)
        bindings.append(f"{_declared(p.type, name)} = ({text});")
        repl[k] = name
    subs = []
    # The helper's own locals named like an argument would capture it: renamed.
    used = set(repl.values())
    renamed: dict[str, str] = {}
    for d in helper.body.walk():
        if isinstance(d, n.VarDecl) and d.name in used:
            new = fresh_name(f"{d.name}_", data + " ".join(taken).encode())
            taken.add(new)
            renamed[d.decl] = new
            at = re.search(rb"\b" + re.escape(d.name.encode()) + rb"\b",
                           src[d.span.start:d.span.end])
            if at is None:
                return None
            subs.append((d.span.start + at.start(), d.span.start + at.end(), new))
    for x in helper.body.walk():
        if isinstance(x, n.Ref) and (x.decl in params or x.decl in renamed):
            if text_of(src, x) != x.name:
                return None  # (a name written through a macro)
            subs.append((x.span.start, x.span.end, repl[params[x.decl]]
                         if x.decl in params else renamed[x.decl]))
    body = src[inner_start:inner_end].decode("utf-8", errors="replace")
    for start, end, new in sorted(subs, reverse=True):
        body = body[:start - inner_start] + new + body[end - inner_start:]
    body = _COMMENT.sub(" ", body)
    if "#" in body or '"' in body or "'" in body:
        return None  # (a directive cannot share a line; strings are left alone)
    body = " ".join(body.split())
    return " ".join([*bindings, body])


def _plain(t: str) -> str:
    return " ".join(re.sub(r"^const\s+|\s+const$", "", t.strip()).split())


def _declared(t: str, name: str) -> str:
    """A declaration of `name` with type `t` (`const float *`, `unsigned int`)."""
    t = " ".join(t.split())
    return f"{t}{'' if t.endswith('*') else ' '}{name}"
