"""Thread coordinates written in shapes the fusion view does not read, respelled into the one
it does, before vertical fusion (fuse, plan, fuse --profile) parses the file again.

Two spellings are common in real code and mean exactly a plain coordinate declaration:

  * a vector of coordinates (Udacity cs344 style), used only through its members:
        const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                                 blockIdx.y * blockDim.y + threadIdx.y);   ... p.x ... p.y
    becomes `const int p_x = (...), p_y = (...);` and every `p.x` becomes `p_x`;
  * copies of the built-ins, never written (Rodinia style):
        int bx = blockIdx.x; int tx = threadIdx.x; int i = bx * BLOCK + tx;
    every read of `tx` becomes `((int)threadIdx.x)` (the copy's type, so arithmetic on it
    keeps its signedness) and the copies' declaration goes; done only where it turns a later
    declaration into a coordinate.

Each rewrite keeps the statement's lines (missing line breaks are appended), so every line
number stays the user's. The text is checked against the tree before anything is changed:
a use hidden in a macro, a coordinate vector that is passed whole, assigned, or has its
address taken, leaves the kernel as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.frontend.parse import ParseOptions, ParseResult, parse_file
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.view import coordinate

_SCALAR = {"int2": "int", "int3": "int", "uint2": "unsigned int", "uint3": "unsigned int"}
_FIELDS = ("x", "y", "z")
_BUILTINS = ("threadIdx", "blockIdx", "blockDim")
_INTEGRAL = re.compile(r"^(?:const\s+)?((?:unsigned|signed)?\s*(?:int|long|long long|short)|"
                       r"unsigned|uint|size_t|int\d+_t|uint\d+_t)$")


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


def respelled(unit: TranslationUnit) -> tuple[bytes, list[Diagnostic]] | None:
    """The main file's bytes (the user's, as written) with every kernel's coordinates
    respelled, and a note per rewrite; None when no kernel needs one."""
    data = unit.source.original or unit.source.data
    edits: list[_Edit] = []
    notes: list[Diagnostic] = []
    for fn in unit.kernels:
        if fn.span.file != unit.path or fn.body is None:
            continue
        for found, note in (_vectors(unit, fn, data), _copies(unit, fn, data)):
            if found:
                edits += found
                line, col = unit.source.line_col(found[0].start)
                notes.append(Diagnostic(Severity.NOTE, f"kernel '{fn.name}': {note}",
                                        unit.path, line, col))
    if not edits:
        return None
    out = bytearray(data)
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out[e.start:e.end] = e.text.encode()
    return bytes(out), notes


def _parents(fn: Function) -> dict[int, n.Node]:
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


def _written(ref: n.Node, parents: dict[int, n.Node]) -> bool:
    """Whether the lvalue `ref` (a variable, or a member of one) is assigned, incremented or
    has its address taken where it stands."""
    parent = parents.get(id(ref))
    if isinstance(parent, n.Binary) and parent.is_assignment and parent.lhs is ref:
        return True
    return isinstance(parent, n.Unary) and parent.op in ("++", "--", "&")


def _fresh(name: str, data: bytes) -> str:
    while re.search(rb"\b" + re.escape(name.encode()) + rb"\b", data):
        name += "_"
    return name


def _own(data: bytes, node: n.Node) -> str:
    return data[node.span.start:node.span.end].decode("utf-8", errors="replace")


def _keep_lines(old: str, new: str) -> str:
    return new + "\n" * (old.count("\n") - new.count("\n"))


def _vectors(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`const int2 p = make_int2(<x coordinate>, <y coordinate>);` used only as p.x, p.y."""
    assert fn.body is not None
    parents = _parents(fn)
    edits: list[_Edit] = []
    names: list[str] = []
    for stmt in fn.body.body:
        if not (isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1):
            continue
        d = stmt.decls[0]
        const, _, vtype = d.var_type.rpartition(" ")
        init = d.init
        while isinstance(init, n.Cast) and not init.explicit:
            init = init.operand
        if vtype not in _SCALAR or const not in ("", "const") or not (
                isinstance(init, n.Call) and init.callee == f"make_{vtype}") or \
                not all(coordinate(a) for a in init.args):
            continue
        fields = _FIELDS[:len(init.args)]
        uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl == d.decl]
        members = [parents.get(id(u)) for u in uses]
        if not all(isinstance(m, n.Member) and not m.arrow and m.field_name in fields and
                   not _written(m, parents) and re.fullmatch(
                       rf"{re.escape(d.name)}\s*\.\s*{m.field_name}", _own(data, m))
                   for m in members):
            continue
        args = [_own(data, a) for a in init.args]
        seps = [data[a.span.end:b.span.start].decode()
                for a, b in zip(init.args, init.args[1:], strict=False)]
        if not all(re.fullmatch(r"\s*,\s*", s) for s in seps):
            continue
        old = _own(data, stmt)
        pattern = (rf"(?:const\s+)?{vtype}\s+{re.escape(d.name)}\s*=\s*make_{vtype}\s*\(\s*" +
                   "".join(re.escape(a) + re.escape(s) for a, s in zip(args, seps, strict=False)) +
                   re.escape(args[-1]) + r"\s*\)\s*;")
        if not re.fullmatch(pattern, old):
            continue  # spelled through a macro, or with comments inside: left as written
        scalars = {f: _fresh(f"{d.name}_{f}", data) for f in fields}
        decls = "".join(f"{scalars[f]} = ({a})" + (seps[k] if k < len(seps) else ";")
                        for k, (f, a) in enumerate(zip(fields, args, strict=True)))
        edits.append(_Edit(stmt.span.start, stmt.span.end,
                           _keep_lines(old, f"{const + ' ' if const else ''}"
                                            f"{_SCALAR[vtype]} {decls}")))
        edits += [_Edit(m.span.start, m.span.end, scalars[m.field_name])
                  for m in members if isinstance(m, n.Member)]
        names.append(f"{vtype} '{d.name}' ({', '.join(scalars.values())})")
    note = (f"coordinates {', '.join(names)} read as one variable per dimension, so that "
            "its thread mapping is recognised") if names else ""
    return edits, note


def _copies(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`int tx = threadIdx.x; int bx = blockIdx.x;` never written, where replacing their
    reads by the built-ins makes a later top-level declaration a coordinate."""
    assert fn.body is not None
    parents = _parents(fn)
    copies: dict[str, tuple[n.VarDecl, str]] = {}
    stmts: list[n.DeclStmt] = []
    for stmt in fn.body.body:
        if not isinstance(stmt, n.DeclStmt):
            continue
        found = [(d, _builtin(d)) for d in stmt.decls]
        if all(b for _, b in found):
            stmts.append(stmt)
            copies.update((d.decl, (d, b)) for d, b in found if b)
    if not copies:
        return [], ""
    uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl in copies]
    if any(_written(u, parents) or _own(data, u) != u.name for u in uses):
        return [], ""
    helped = [d for stmt in fn.body.body if isinstance(stmt, n.DeclStmt) for d in stmt.decls
              if d.init is not None and coordinate(d.init) is None and
              coordinate(_substitute(d.init, copies)) is not None]
    if not helped:
        return [], ""
    edits = [_Edit(s.span.start, s.span.end, _keep_lines(_own(data, s), "")) for s in stmts]
    edits += [_Edit(u.span.start, u.span.end, _spelling(*copies[u.decl])) for u in uses]
    names = ", ".join(f"'{d.name}'" for d, _ in copies.values())
    return edits, (f"copies of the thread and block indices ({names}) read as the built-ins, "
                   f"so that '{helped[0].name}' is recognised as its thread coordinate")


def _builtin(d: n.VarDecl) -> str:
    """'threadIdx.x' when `d` is an integral copy of that built-in, else ''."""
    e = d.init
    while isinstance(e, n.Cast):
        e = e.operand
    if d.array_dims or d.storage or not _INTEGRAL.match(d.var_type.strip()) or not (
            isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.kind == "builtin"
            and e.base.name in _BUILTINS and e.field_name in _FIELDS):
        return ""
    return f"{e.base.name}.{e.field_name}"


def _spelling(d: n.VarDecl, builtin: str) -> str:
    vtype = re.sub(r"^const\s+", "", d.var_type.strip())
    return builtin if vtype in ("unsigned int", "unsigned") else f"(({vtype}){builtin})"


def _substitute(e: n.Expr, copies: dict[str, tuple[n.VarDecl, str]]) -> n.Expr:
    """`e` with each read of a copy replaced by its built-in, in the tree (for `coordinate`)."""
    if isinstance(e, n.Ref) and e.decl in copies:
        base, field = copies[e.decl][1].split(".")
        return n.Member(n.Ref(base, kind="builtin"), field)
    if isinstance(e, n.Binary):
        return replace(e, lhs=_substitute(e.lhs, copies), rhs=_substitute(e.rhs, copies))
    if isinstance(e, n.Cast):
        return replace(e, operand=_substitute(e.operand, copies))
    return e


def parse_for_fusion(path: str, options: ParseOptions) -> tuple[ParseResult, bytes | None]:
    """`path` parsed for vertical fusion: respelled (see above) and parsed again when a kernel
    needs it. The second value is the file as written when it was respelled: the output to
    keep if nothing is fused after all (a respelling alone is no reason to touch a file)."""
    result = parse_file(path, options)
    found = respelled(result.unit)
    if found is None:
        return result, None
    text, notes = found
    again = parse_file(path, options, text=text)
    again.diagnostics += notes
    return again, result.unit.source.original or result.unit.source.data
