"""Elements of a table of device buffers read at run-time positions, as buffers of their own.

    float *levels[LEVELS];  // or float **levels = malloc(...), a sized std::vector<float *>,
                            // a host global float ** another function allocates
    for (int l = 0; l < LEVELS; ++l) cudaMalloc(&levels[l], bytes(l));
    for (int l = 0; l + 1 < LEVELS; ++l) {
        down<<<g, b>>>(levels[l], levels[l + 1], w >> l, h >> l);
        blur<<<g, b>>>(levels[l + 1], w >> (l + 1), h >> (l + 1));
    }

A pyramid's levels, a scan's per-level block sums (Rodinia's `g_scanBlockSums[level]`): each
element of the table is a buffer of its own, set once by an allocation, and a launch names
one through a position the host computes. pointer_tables.py follows tables read at constant
positions only; here `levels[l]` and `levels[l + 1]` become two buffers when it is proved
that

* every element the table ever holds is a fresh allocation: its elements are written only
  as the allocated pointer of an allocator (`cudaMalloc(&t[i], n)`), the table itself (a
  host pointer) only given an allocation or null, never its address taken, never passed
  whole to a function (`free(t)` and `delete` aside; a local table pointer given its
  table before the first launch, in no loop around a launch; a vector: declared empty or with a
  size and null elements, then only indexed, read by `front`/`back`/`size`/`empty` or a
  range-for by value, never resized): two elements are then two buffers, distinct from
  every other buffer the function names (as a global or a parameter is);
* nothing re-allocates an element between the launches: in the host function, the
  allocations come before its first launch, in no loop around a launch; a global table is
  written by no function the host function calls (at any depth);
* each position is a value fixed wherever the launches run (a parameter never assigned, a
  local written only by its initialiser or by one assignment before the first launch, the
  variable a `for` declares, or one only `for` loops' starts and steps write (C89), read
  in such a loop's body and written only by its step), and any two positions read in one
  block (the function's body, or the body of a loop holding a launch, which splits every
  sequence around it) are provably equal or
  provably different: their difference, as a linear form over those variables, is zero or
  a non-zero constant (`l` and `l + 1`; not `l` and `m`).

Each such read becomes a reference to a pseudo-variable named by the table and the
position's linear form (kind "global": a buffer of its own, never assigned in the function),
spanning the read's text, so the fused launch passes it as written. Reads outside the part
of the function that launches (before its first launch or after its last, in no loop
around a launch: the frees at the end) are left as they are. Any other table, or position,
is left as an element of an array, which splits the launch sequence there, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.memo import per_object
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.substitute import replace_nodes
from cudafuse.passes.vertical.host.pointsto import ALLOCATORS, FRESH_CALLS

# Calls that may be handed the table whole without changing what it holds.
_RELEASES = frozenset({"free", "cudaFreeHost", "operator delete", "operator delete[]"})

Form = tuple[tuple[tuple[str, int], ...], int]  # ((var decl, coefficient), ...), constant


def _linear(e: n.Expr, known: dict[str, int] | None = None) -> dict[str, int] | None:
    """`e` as {var decl: coefficient, '': constant}, or None when it is not linear in
    variables (Refs) and integer literals; `known`: variables that hold one integer."""
    e = strip_casts(e)
    if isinstance(e, n.IntLit):
        return {"": e.value}
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int):
            return {"": e.const_value}
        if known and e.decl in known:
            return {"": known[e.decl]}
        if e.kind in ("param", "local") and e.decl:
            return {e.decl: 1}
        return None
    if isinstance(e, n.Unary) and e.op in ("-", "+") and not e.postfix:
        inner = _linear(e.operand, known)
        return None if inner is None else {k: (-v if e.op == "-" else v)
                                           for k, v in inner.items()}
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _linear(e.lhs, known), _linear(e.rhs, known)
        if a is None or b is None:
            return None
        if e.op == "*":
            if set(a) <= {""}:
                a, b = b, a
            if not set(b) <= {""}:
                return None
            k = b.get("", 0)
            return {v: c * k for v, c in a.items()}
        sign = -1 if e.op == "-" else 1
        out = dict(a)
        for v, c in b.items():
            out[v] = out.get(v, 0) + sign * c
        return out
    return None


def _form(e: n.Expr, known: dict[str, int] | None = None) -> Form | None:
    lin = _linear(e, known)
    if lin is None:
        return None
    terms = tuple(sorted((v, c) for v, c in lin.items() if v and c))
    return terms, lin.get("", 0)


def _comparable(a: Form, b: Form) -> bool:
    """Provably equal or provably different positions."""
    return a[0] == b[0]


def _parents(root: n.Node) -> dict[int, n.Node]:
    out: dict[int, n.Node] = {}
    for node in root.walk():
        for c in node.children():
            if c is not None:
                out[id(c)] = node
    return out


def _up(node: n.Node, parents: dict[int, n.Node]) -> tuple[n.Node, n.Node | None]:
    """The node above `node`'s casts, and its parent."""
    parent = parents.get(id(node))
    while isinstance(parent, n.Cast):
        node, parent = parent, parents.get(id(parent))
    return node, parent


def _vector_of_pointers(t: str) -> str | None:
    """The element type of `std::vector<float *>` (None for any other type)."""
    t = t.replace("const ", "").strip()
    for head in ("std::vector<", "vector<"):
        if t.startswith(head) and t.endswith("*>"):
            return t[len(head):-1].strip()
    return None


def _element(node: n.Node) -> tuple[n.Ref, n.Expr] | None:
    """`t[i]` of an array or pointer, or a vector's `operator[]`: the table and the
    position."""
    if isinstance(node, n.Index):
        base, index = strip_casts(node.base), node.index
    elif isinstance(node, n.Call) and node.callee == "operator[]" and len(node.args) == 2:
        base, index = strip_casts(node.args[0]), node.args[1]
        if not (isinstance(base, n.Ref) and _vector_of_pointers(base.type)):
            return None
    else:
        return None
    return (base, index) if isinstance(base, n.Ref) else None


def _table_of(node: n.Node) -> n.Ref | None:
    got = _element(node)
    return None if got is None else got[0]


def _sized_vector(d: n.VarDecl) -> bool:
    """`std::vector<float *> v;`, `v(n)` or `v(n, nullptr)`: elements null until allocated
    into (not a list of pointers: pointer_tables.py reads those)."""
    if _vector_of_pointers(d.var_type) is None:
        return False
    init = strip_casts(d.init)
    if init is None:
        return True
    if not (isinstance(init, n.Call) and init.callee == "vector"):
        return False
    given = [a for a in init.args
             if not (isinstance(a, n.OtherExpr) and a.span.end == a.span.start)]
    return len(given) <= 2 and not any(isinstance(strip_casts(a), n.InitList) for a in given) \
        and all(_is_fresh(a) for a in given[1:]) and \
        not (given and _vector_of_pointers(strip_casts(given[0]).type))  # (not a copy)


def _is_fresh(e: n.Expr | None) -> bool:
    """An allocation or a null pointer (what a table pointer may be given)."""
    e = strip_casts(e)
    if isinstance(e, n.IntLit) and e.value == 0 or \
            isinstance(e, n.OtherExpr) and e.kind in ("CXX_NULL_PTR_LITERAL_EXPR",
                                                      "CXX_NEW_EXPR", "GNU_NULL_EXPR"):
        return True
    return isinstance(e, n.Call) and e.callee in FRESH_CALLS


def _dimension_only(d: n.VarDecl) -> bool:
    """An array declared without an initialiser (the IR's init then holds its size)."""
    return bool(d.array_dims) and not isinstance(strip_casts(d.init), n.InitList)


def _uses_ok(fn: Function, decl: str, by_value: Callable[[n.Call, n.Node], bool]
             ) -> tuple[str | None, bool]:
    """Why some use of table `decl` in `fn` is not one the module allows (None: every one
    is), and whether `fn` writes the table (allocates into it or gives it a new value).
    `by_value(call, arg)`: whether the call takes that argument by value (it cannot change
    the element)."""
    assert fn.body is not None
    parents = _parents(fn.body)
    writes = False
    for node in fn.body.walk():
        if isinstance(node, n.VarDecl) and node.decl == decl and node.init is not None and \
                not _dimension_only(node) and not _sized_vector(node):
            if node.array_dims or not _is_fresh(node.init):
                return f"it is initialised with other pointers (line {node.span.line})", True
            writes = True
        if not (isinstance(node, n.Ref) and node.decl == decl):
            continue
        top, parent = _up(node, parents)
        if parent is not None and (got := _element(parent)) is not None and got[0] is node:
            elem, above = _up(parent, parents)
            if isinstance(above, n.Unary) and above.op == "&":
                addr, call = _up(above, parents)
                if isinstance(call, n.Call) and call.callee in ALLOCATORS and \
                        call.args and call.args[0] is addr:
                    writes = True
                    continue
                return (f"the address of an element is taken other than for an allocation "
                        f"(line {node.span.line}{_in(fn)})"), True
            if not _read(elem, above, by_value):
                return (f"an element is written or handed on by reference (line "
                        f"{node.span.line}{_in(fn)})"), True
            continue
        if isinstance(parent, n.Binary) and parent.is_assignment and parent.lhs is top:
            if parent.op != "=" or not _is_fresh(parent.rhs):
                return (f"it is given other pointers than an allocation (line "
                        f"{node.span.line}{_in(fn)})"), True
            writes = True
            continue
        if isinstance(parent, n.Call) and parent.callee in _RELEASES:
            continue
        if isinstance(parent, n.Member) and \
                isinstance(call := parents.get(id(parent)), n.Call) and \
                call.callee_expr is parent:
            if parent.field_name in ("size", "empty"):
                continue
            if parent.field_name in ("front", "back") and \
                    _read(*_up(call, parents), by_value):
                continue  # an element, read
            return (f"it is changed or handed on by '{parent.field_name}' (line "
                    f"{node.span.line}{_in(fn)})"), True
        if isinstance(parent, n.OtherStmt) and parent.kind == "CXX_FOR_RANGE_STMT" and \
                parent.items and isinstance(v := parent.items[0], n.VarDecl) and \
                "&" not in v.var_type:
            continue  # `for (float *p : t)`: each element copied
        if isinstance(parent, n.OtherExpr) and parent.kind == "CXX_DELETE_EXPR":
            continue
        return (f"it is used whole, other than freed (line {node.span.line}{_in(fn)})"), True
    return None, writes


def _in(fn: Function) -> str:
    return f" in '{fn.name}'"


def _read(elem: n.Node, above: n.Node | None, by_value: Callable[[n.Call, n.Node], bool]
          ) -> bool:
    """Whether an element (`elem`, under `above`) is only read as a value there."""
    if isinstance(above, n.Binary) and above.is_assignment and above.lhs is elem or \
            isinstance(above, n.Unary) and above.op in ("++", "--", "&") or \
            isinstance(above, n.VarDecl) and "&" in above.var_type:
        return False
    return not (isinstance(above, n.Call) and not isinstance(above, n.KernelLaunch) and
                not by_value(above, elem))


def _loops_around(node: n.Node, parents: dict[int, n.Node]) -> list[n.Node]:
    out = []
    p = parents.get(id(node))
    while p is not None:
        if isinstance(p, (n.For, n.While)):
            out.append(p)
        p = parents.get(id(p))
    return out


def _writes_of(x: n.Node) -> list[n.Ref]:
    """The variable a node assigns, increments or takes the address of (at most one)."""
    target = None
    if isinstance(x, n.Binary) and x.is_assignment:
        target = strip_casts(x.lhs)
    elif isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
        target = strip_casts(x.operand)
    return [target] if isinstance(target, n.Ref) else []


def _written(fn: Function) -> set[str]:
    """Variables the function writes after their declaration (assigned, incremented, or
    their address taken)."""
    assert fn.body is not None
    out: set[str] = set()
    for node in fn.body.walk():
        target = None
        if isinstance(node, n.Binary) and node.is_assignment:
            target = strip_casts(node.lhs)
        elif isinstance(node, n.Unary) and node.op in ("++", "--", "&"):
            target = strip_casts(node.operand)
        if isinstance(target, n.Ref):
            out.add(target.decl)
    return out


class _Host:
    """One host function's reads of the tables, replaced where proved."""

    def __init__(self, unit: TranslationUnit, fn: Function, writers: dict[str, set[str]]):
        assert fn.body is not None
        self.unit, self.fn = unit, fn
        self.parents = _parents(fn.body)
        launches = [x for x in fn.body.walk() if isinstance(x, n.KernelLaunch)]
        self.first = min((la.span.start for la in launches), default=-1)
        self.last = max((la.span.end for la in launches), default=-1)
        self.launch_loops = {id(lp) for la in launches
                             for lp in _loops_around(la, self.parents)}
        self.written = _written(fn)
        self.params = {p.decl for p in fn.params}
        self.locals = {d.decl: d for d in fn.body.walk() if isinstance(d, n.VarDecl)}
        self.for_vars = {d.decl: f for f in fn.body.walk() if isinstance(f, n.For)
                         and isinstance(f.init, n.DeclStmt) for d in f.init.decls}
        self.callees = {f.decl for f in CallGraph(unit).transitive(fn)}
        self.writers = writers
        # Each variable's writes (_writes_of) in walk order, and the `for` loops, from one
        # walk: `fixed` is asked of every local declared without a value, and walking the
        # whole body each time made a host function of a thousand buffers quadratic.
        self.writes_of: dict[str, list[n.Node]] = {}
        self.fors: list[n.For] = []
        for x in fn.body.walk():
            for w in _writes_of(x):
                self.writes_of.setdefault(w.decl, []).append(x)
            if isinstance(x, n.For):
                self.fors.append(x)
        self.reasons: dict[str, str] = {}  # table decl -> why its reads are not followed
        # Locals that hold one integer wherever launches run (`const int L = 3;`, or C89's
        # `int L; ... L = 3;` once before any launch, in no loop).
        self.known: dict[str, int] = {}
        for v, d in self.locals.items():
            lit = strip_casts(d.init) if d.init is not None and not d.array_dims else None
            if isinstance(lit, n.IntLit) and v not in self.written:
                self.known[v] = lit.value
            elif d.init is None and not d.array_dims and self.fixed(v, fn.body):
                only = self.writes_of[v][0]
                if isinstance(only, n.Binary) and \
                        isinstance(value := strip_casts(only.rhs), n.IntLit):
                    self.known[v] = value.value

    def in_launch_region(self, node: n.Node) -> bool:
        return self.first <= node.span.start < self.last or \
            any(id(lp) in self.launch_loops for lp in _loops_around(node, self.parents))

    def fixed(self, var: str, read: n.Node) -> bool:
        """Whether variable `var` holds one value wherever `read` may run in one pass of
        the innermost block around it."""
        if var in self.params:
            return var not in self.written
        loop = self.for_vars.get(var)
        if loop is not None:
            assert isinstance(loop, n.For)
            return self._steps(loop, var, read)
        d = self.locals.get(var)
        if d is not None and d.init is not None and var not in self.written:
            return True
        writes = self.writes_of.get(var, [])
        if d is not None and d.init is None and len(writes) == 1 and \
                isinstance(writes[0], n.Binary) and writes[0].op == "=" and \
                writes[0].span.end <= self.first and \
                not _loops_around(writes[0], self.parents):
            return True  # C89: `int levels; ... levels = 3;` once, before any launch
        # C89: `int l; ... for (l = 1; l < L; ++l) { ... t[l] ... }`: written only by the
        # starts and steps of `for` loops, read in the body of one.
        loops = [f for f in self.fors if
                 any(w.decl == var for part in (f.init, f.inc) if part is not None
                     for x in part.walk() for w in _writes_of(x))]
        steps = {id(x) for f in loops for part in (f.init, f.inc) if part is not None
                 for x in part.walk()}
        if d is None or any(id(x) not in steps for x in writes):
            return False
        holder = [f for f in loops if any(x is read for x in f.body.walk())]
        return bool(holder) and self._steps(holder[-1], var, read)

    @staticmethod
    def _steps(loop: n.For, var: str, read: n.Node) -> bool:
        """Whether `read` is in the body of `loop`, which writes `var` only in its step."""
        inside = any(x is read for x in loop.body.walk())
        body_writes = any(w.decl == var for x in loop.body.walk() for w in _writes_of(x))
        cond_writes = loop.cond is not None and any(
            isinstance(x, n.Unary) and x.op in ("++", "--") or
            isinstance(x, n.Binary) and x.is_assignment for x in loop.cond.walk())
        return inside and not body_writes and not cond_writes

    def table_reason(self, decl: str, is_global: bool) -> str | None:
        """The host function's side of the proof for table `decl`: why it fails."""
        if is_global:
            writer = sorted(self.writers.get(decl, set()) & ({self.fn.decl} | self.callees))
            return None if not writer else \
                f"'{writer[0].split('@')[0]}', called here, allocates into it"
        assert self.fn.body is not None
        for node in self.fn.body.walk():
            if isinstance(node, n.Unary) and node.op == "&" and \
                    (t := _table_of(strip_casts(node.operand))) is not None and \
                    t.decl == decl and (node.span.start >= self.first >= 0 or any(
                        id(lp) in self.launch_loops
                        for lp in _loops_around(node, self.parents))):
                return (f"an element is allocated at line {node.span.line}, after a launch "
                        "or in a loop around one")
            if isinstance(node, n.Binary) and node.is_assignment and \
                    isinstance(t := strip_casts(node.lhs), n.Ref) and t.decl == decl and \
                    (node.span.start >= self.first >= 0 or any(
                        id(lp) in self.launch_loops
                        for lp in _loops_around(node, self.parents))):
                return (f"it is given a new table at line {node.span.line}, after a launch "
                        "or in a loop around one")
        return None

    def replacements(self, tables: dict[str, bool]) -> dict[int, n.Ref]:
        """Reads of the followed tables in the launch region -> their pseudo-variables."""
        reads: dict[str, list[tuple[n.Expr, Form | None]]] = {}
        types: dict[str, str] = {}
        assert self.fn.body is not None
        for node in self.fn.body.walk():
            t = _table_of(node)
            if t is None or t.decl not in tables or not self.in_launch_region(node):
                continue
            _, above = _up(node, self.parents)
            if isinstance(above, n.Unary) and above.op == "&":
                continue  # an allocation into the table (table_ok placed it)
            got = _element(node)
            assert got is not None and isinstance(node, n.Expr)
            form = _form(got[1], self.known)
            if form is not None and not all(self.fixed(v, node) for v, _ in form[0]) or \
                    self._spelled(t) != t.name:
                form = None  # (the fused launch prints the name: `ns::t` would not do)
            reads.setdefault(t.decl, []).append((node, form))
            types[t.decl] = t.type
        out: dict[int, n.Ref] = {}
        for decl, found in reads.items():
            name = decl.split("@")[0]
            bad = next((node for node, f in found if f is None), None)
            if bad is not None:
                self.reasons[decl] = (f"the position in '{self._text(bad)}' is no linear "
                                      "form of parameters never assigned, locals set once "
                                      "and a for's own variable")
                continue
            why = self.table_reason(decl, tables[decl])
            if why is not None:
                self.reasons[decl] = why
                continue
            # Reads meet in one sequence only inside one block: those in a loop that
            # launches are never in a sequence with reads outside it (the loop, holding a
            # launch, splits every sequence around it).
            pair = next(((a, b) for a, fa in found for b, fb in found
                         if self._scope(a) == self._scope(b) and
                         not _comparable(fa, fb)), None)  # type: ignore[arg-type]
            if pair is not None:
                self.reasons[decl] = (f"'{self._text(pair[0])}' and '{self._text(pair[1])}' "
                                      f"are not provably one element of '{name}' or two")
                continue
            for node, form in found:
                assert form is not None
                # One name per position (`levels[l+1]`), whatever its spelling: notes and
                # plans name a buffer by what precedes its key's '@'.
                pseudo = f"{name}[{_render(form)}]"
                elem = _vector_of_pointers(types[decl]) or node.type
                out[id(node)] = n.Ref(span=node.span, type=elem, name=pseudo,
                                      kind="global", decl=f"{pseudo}@{decl}")
        return out

    def _scope(self, node: n.Node) -> int:
        """The innermost loop around `node` that holds a launch (0: none)."""
        return next((id(lp) for lp in _loops_around(node, self.parents)
                     if id(lp) in self.launch_loops), 0)

    def _text(self, node: n.Node) -> str:
        try:
            return " ".join(self.unit.text(node.span).split())
        except (IndexError, ValueError):
            return "?"

    def _spelled(self, r: n.Ref) -> str:
        try:
            return self.unit.text(r.span).strip()
        except (IndexError, ValueError):
            return ""


def _render(form: Form) -> str:
    text = ""
    for v, c in form[0]:
        name = v.split("@")[0]
        term = name if abs(c) == 1 else f"{abs(c)}*{name}"
        text += (f"-{term}" if c < 0 else f"+{term}") if text else \
            (f"-{term}" if c < 0 else term)
    if form[1] or not text:
        text += f"{form[1]:+d}" if text else str(form[1])
    return text


def _pointer_table_type(t: str, array: bool) -> bool:
    """`float *[4]` (an array of pointers) or `float **` (a pointer to pointers)."""
    t = t.replace("const", " ").strip()
    if array:
        return t.split("[")[0].rstrip().endswith("*")
    return t.replace(" ", "").endswith("**")


def _functions(unit: TranslationUnit) -> list[Function]:
    seen: dict[int, Function] = {}
    for f in (*unit.functions, *unit.method_hosts, *unit.methods):
        if f.body is not None and f.space != "global":
            seen.setdefault(id(f), f)
    return list(seen.values())


# Runtime calls and C library functions take pointers by value.
_BY_VALUE = ("cuda", "memset", "memcpy", "printf", "fprintf", "free")


def _by_value(unit: TranslationUnit) -> Callable[[n.Call, n.Node], bool]:
    graph = CallGraph(unit)

    def check(call: n.Call, arg: n.Node) -> bool:
        fn = graph.resolve(call)
        if fn is None:
            return call.callee.startswith(_BY_VALUE)
        at = next((i for i, a in enumerate(call.args) if a is arg or strip_casts(a) is arg),
                  None)
        return at is not None and at < len(fn.params) and "&" not in fn.params[at].type
    return check


def _global_tables(unit: TranslationUnit, fns: list[Function]
                   ) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Host globals that are tables of allocations: decl -> the functions writing them; and
    for the other host globals of pointer-table type, why not."""
    out: dict[str, set[str]] = {}
    refused: dict[str, str] = {}
    by_value = _by_value(unit)
    for g in unit.globals:
        if g.space != "host" or g.is_extern or not g.decl or \
                not _pointer_table_type(g.type, "[" in g.type):
            continue
        writers: set[str] = set()
        for f in fns:
            why, writes = _uses_ok(f, g.decl, by_value)
            if why is not None:
                refused[g.decl] = why
                break
            if writes:
                writers.add(f.decl)
        else:
            out[g.decl] = writers
    return out, refused


def _analyse(unit: TranslationUnit
             ) -> tuple[dict[int, dict[int, n.Ref]], dict[int, dict[str, str]]]:
    """For each host function that launches (by id): its reads to replace, and why the
    reads of each other table are not followed."""
    fns = _functions(unit)
    writers, refused = _global_tables(unit, fns)
    by_value = _by_value(unit)
    repl: dict[int, dict[int, n.Ref]] = {}
    reasons: dict[int, dict[str, str]] = {}
    for f in fns:
        if f.span.file != unit.path or f.body is None or \
                not any(isinstance(x, n.KernelLaunch) for x in f.body.walk()):
            continue
        tables = dict.fromkeys(writers, True)
        why = dict(refused)
        for d in f.body.walk():
            if isinstance(d, n.VarDecl) and (
                    _dimension_only(d) and _pointer_table_type(d.var_type, True) or
                    not d.array_dims and _pointer_table_type(d.var_type, False) or
                    _sized_vector(d)):
                bad = _uses_ok(f, d.decl, by_value)[0]
                if bad is None:
                    tables[d.decl] = False
                else:
                    why[d.decl] = bad
        host = _Host(unit, f, writers)
        repl[id(f)] = host.replacements(tables) if tables else {}
        reasons[id(f)] = {**why, **host.reasons}
    return repl, reasons


@per_object()
def _reasons(unit: TranslationUnit) -> dict[int, dict[str, str]]:
    return _analyse(unit)[1]


def why_unfollowed(unit: TranslationUnit, host: Function, e: n.Expr) -> str | None:
    """Why an element of a table given to a launch is not followed as a buffer of its own
    (None when `e` is no element of a table of pointers, or nothing is known)."""
    got = _element(strip_casts(e))
    if got is None:
        return None
    why = _reasons(unit).get(id(host), {}).get(got[0].decl)
    return None if why is None else f"'{got[0].name}' is not followed as a table of " \
        f"allocations: {why}"


def with_table_elements(unit: TranslationUnit) -> TranslationUnit:
    """A copy of `unit` whose host functions read elements of tables of allocations as
    pseudo-variables (see the module text); `unit` itself when there are none."""
    fns = _functions(unit)
    repl, _ = _analyse(unit)
    changed: dict[int, Function] = {}
    for f in fns:
        got = repl.get(id(f))
        if got and f.body is not None:
            body = replace_nodes(f.body, lambda x, r=got: r.get(id(x)))  # type: ignore[misc]
            changed[id(f)] = dataclasses.replace(f, body=body)
    if not changed:
        return unit
    launches = dict(unit.launches)
    for g in changed.values():
        assert g.body is not None
        launches[g.name] = sorted((x for x in g.body.walk() if isinstance(x, n.KernelLaunch)),
                                  key=lambda la: la.span.start)
    return dataclasses.replace(
        unit, functions=[changed.get(id(f), f) for f in unit.functions],
        method_hosts=[changed.get(id(f), f) for f in unit.method_hosts],
        methods=[changed.get(id(f), f) for f in unit.methods], launches=launches)
