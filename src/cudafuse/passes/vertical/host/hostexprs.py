"""Small facts about host expressions, shared by the host view (hostview.py) and the
wrapper calls it sees as launches (wrappers.py)."""

from __future__ import annotations

import dataclasses

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.members import is_this, this_member


def launched_kernel(unit: TranslationUnit, launch: n.KernelLaunch) -> Function | None:
    """The kernel definition a launch starts: the one clang resolved the launch to (its
    referenced declaration, so the right one of overloaded kernels); by name only when that
    declaration names no definition of the file and the name is not overloaded (a template
    kernel's specialisation)."""
    if launch.kernel_decl:
        fn = unit.callee(launch.kernel_decl)
        if fn is not None and fn.space == "global":
            return fn
    # (never a template's concrete copy: it is the kernel of its own launches only)
    copies = {f.decl for f in unit.instances.values() if isinstance(f, Function)}
    named = [f for f in unit.functions if f.name == launch.kernel and f.body is not None
             and f.decl not in copies]
    return named[0] if len(named) == 1 else None


def spells_kernel(callee_text: str, name: str) -> bool:
    """Whether a launch's callee text names the kernel `name` itself, qualified or not
    (`img::brighten`, `::k`, `blur<float, 3>`). Inside a macro's expansion libclang locates
    the launch at the macro's name (`CHECK(k<<<g, b>>>(x))`, `LAUNCH(k, g, b, x)`), whose text
    cannot be rewritten in place: that text names the macro instead."""
    head = callee_text.split("<", 1)[0]
    name = name.split("<", 1)[0]  # an instantiation named apart (kernel/instances.py)
    return head.rsplit("::", 1)[-1].strip() == name.rsplit("::", 1)[-1]


def shared_variables(unit: TranslationUnit, fns: list[Function]) -> set[str]:
    """Decls of the `__shared__` variables the functions may name: namespace-scope ones and
    those declared in their bodies (`extern __shared__ float data[];` included, which clang
    names as a global). Shared memory belongs to one block of one launch: writing it is no
    write other launches can see."""
    out = {g.decl for g in unit.globals if g.space == "shared"}
    for fn in fns:
        for node in fn.body.walk() if fn.body is not None else ():
            if isinstance(node, n.VarDecl) and "shared" in node.storage:
                out.add(node.decl)
    return out


def buffer_key(e: n.Expr) -> str | None:
    """A host pointer argument's identity: the variable it names, or the data member of
    `this` (`this->tmp_`, spelled `tmp_` or `this->tmp_`; members.py says when a member
    may be one). None for anything else (pointer arithmetic, calls), which fusion
    then treats as unknown memory."""
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Ref) and e.kind in ("param", "local", "global"):
        return e.decl or e.name
    carried = struct_field(e)
    if carried is not None:
        return carried
    field_name = this_member(e)
    return None if field_name is None else f"this->{field_name}"


def _pointer_typed(e: n.Expr) -> bool:
    return "*" in e.type or "[" in e.type


def part_root(e: n.Expr) -> n.Ref | None:
    """The buffer variable a pointer expression points inside, when it is an offset into one
    (`t + off`, `off + t`, `t - k`, `&t[k]`, through casts and repeated offsets): the memory
    it names is part of that variable's buffer, where in it known only at run time. None for
    a plain buffer variable (buffer_key names it) and for anything else (`bufs[0]`, a
    call's result, a struct field plus an offset): memory not followed."""
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Unary) and e.op == "&" and isinstance(e.operand, n.Index):
        base = e.operand.base
        while isinstance(base, n.Cast):
            base = base.operand
        if not _pointer_typed(base):
            return None
        e = base
    elif isinstance(e, n.Binary) and e.op in ("+", "-"):
        lhs, rhs = e.lhs, e.rhs
        while isinstance(lhs, n.Cast):
            lhs = lhs.operand
        while isinstance(rhs, n.Cast):
            rhs = rhs.operand
        if _pointer_typed(lhs):
            e = lhs
        elif e.op == "+" and _pointer_typed(rhs):
            e = rhs
        else:
            return None
    else:
        return None
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Ref) and e.kind in ("param", "local", "global") and e.decl:
        return e
    return part_root(e)


def with_root(e: n.Expr, root: n.Expr) -> n.Expr:
    """`e`, an offset into a variable (part_root), with that variable replaced by `root`
    (another name or key for the same buffer); the offset is kept as it is."""
    if isinstance(e, n.Ref):
        return root
    if isinstance(e, n.Cast):
        return dataclasses.replace(e, operand=with_root(e.operand, root))
    if isinstance(e, n.Unary) and isinstance(e.operand, n.Index):
        return dataclasses.replace(e, operand=dataclasses.replace(
            e.operand, base=with_root(e.operand.base, root)))
    if isinstance(e, n.Binary):
        lhs = e.lhs
        while isinstance(lhs, n.Cast):
            lhs = lhs.operand
        if _pointer_typed(lhs):
            return dataclasses.replace(e, lhs=with_root(e.lhs, root))
        return dataclasses.replace(e, rhs=with_root(e.rhs, root))
    raise ValueError("not an offset into a variable")


def touched_key(e: n.Expr) -> str | None:
    """The buffer a pointer argument touches: its buffer_key, or for an offset into a
    variable (part_root) that variable's: the dependences between launches then see it use
    the buffer, even where the part it names is not known."""
    k = buffer_key(e)
    if k is not None:
        return k
    root = part_root(e)
    return None if root is None else buffer_key(root)


def struct_field(e: n.Expr) -> str | None:
    """`img.data`: a pointer field of a struct the host function takes by value (`struct
    Image { float *data; int w, h; }`), or `nn->weights1`: one of a struct it is given a
    pointer to (`NeuralNetwork *nn`), keyed `<param>.<field>`; None for anything else.
    Like distinct pointer parameters, the fields of such parameters are taken as buffers of
    their own; hostview.pointer_alias_reason refuses a launch given one whose struct the
    function may change (changed_structs)."""
    while isinstance(e, n.Cast):
        e = e.operand
    if not isinstance(e, n.Member) or "*" not in e.type:
        return None
    base = e.base
    while isinstance(base, n.Cast):
        base = base.operand
    if not isinstance(base, n.Ref) or base.kind != "param" or "&" in base.type:
        return None
    through = base.type.count("*")
    if (e.arrow and through == 1) or (not e.arrow and through == 0):
        return f"{base.decl or base.name}.{e.field_name}"
    return None


def changed_structs(body: n.Node) -> set[str]:
    """Decls of the variables the body may change as a whole or by field: assigned (`img =
    ...`, `img.data = ...`), their address taken, or given whole to a call (which may take
    them by reference). A field of such a struct is no buffer of its own.
    A pointer parameter whose struct's fields are read (`nn->w`) is the caller's struct,
    which the body may change through that pointer wherever it uses it otherwise than to
    read a field (`update(nn)`, `*nn = ...`, `nn = other`), and through any other pointer
    (an alias of it) wherever it writes a member of memory it reaches through a pointer
    (`p->w = ...`, `(*p).w = ...`, `a[0].w = ...`): then none of its fields is a buffer of
    its own either."""
    out: set[str] = set()
    for node in body.walk():
        r = root_variable(write_target(node))
        if r is not None:
            out.add(r.decl or r.name)
        if isinstance(node, n.Call):
            for a in node.args:
                while isinstance(a, n.Cast):
                    a = a.operand
                if isinstance(a, n.Ref) and "*" not in a.type:
                    out.add(a.decl or a.name)
    read_through = {id(_strip_casts(m.base)) for m in body.walk()
                    if isinstance(m, n.Member) and m.arrow}
    pointed = {(r.decl or r.name) for r in body.walk() if isinstance(r, n.Ref) and
               id(r) in read_through and r.kind == "param"}
    for r in body.walk():
        if isinstance(r, n.Ref) and r.kind == "param" and (r.decl or r.name) in pointed and \
                id(r) not in read_through:
            out.add(r.decl or r.name)
    if pointed and any(_member_through_memory(write_target(node)) for node in body.walk()):
        out |= pointed
    return out


def _strip_casts(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


def _member_through_memory(target: n.Expr | None) -> bool:
    """Whether an lvalue is a member of memory reached through a pointer (`p->f`,
    `(*p).f`, `a[i].f`, `p->f[i]`), where a struct another pointer names may lie."""
    member = through = False
    while target is not None:
        target = _strip_casts(target)
        if isinstance(target, n.Member):
            member, through = True, through or target.arrow
            target = target.base
        elif isinstance(target, n.Index):
            through, target = True, target.base
        elif isinstance(target, n.Unary) and target.op == "*":
            through, target = True, target.operand
        else:
            break
    return member and through


def side_effect_free(e: n.Expr) -> bool:
    for node in e.walk():
        if isinstance(node, n.Call) and node.callee not in ("dim3",):
            return False
        if isinstance(node, n.Binary) and node.is_assignment:
            return False
        if isinstance(node, n.Unary) and node.op in ("++", "--"):
            return False
        if isinstance(node, (n.OtherExpr, n.KernelLaunch)) and not is_this(node):
            return False
    return True


def write_target(node: n.Node) -> n.Expr | None:
    """The lvalue `node` writes when it is an assignment, an increment or an address-of (a
    variable whose address is taken may be written through it), else None."""
    if isinstance(node, n.Binary) and node.is_assignment:
        return node.lhs
    if isinstance(node, n.Unary) and node.op in ("++", "--", "&"):
        return node.operand
    if isinstance(node, n.Call) and is_assign_operator(node):
        return node.args[0]  # `grid = dim3(...)`: a class's operator=
    return None


def is_assign_operator(call: n.Call) -> bool:
    """A call of a class's (compound) assignment operator: `grid = dim3(...)` is the call
    operator=(grid, dim3(...)), an assignment of its first argument."""
    name = call.callee
    return bool(call.args) and name.startswith("operator") and name.endswith("=") and \
        name not in ("operator==", "operator!=", "operator<=", "operator>=")


def root_variable(target: n.Expr | None) -> n.Ref | None:
    """The variable under an lvalue's subscripts, members and casts (`g[i].x` -> g)."""
    while isinstance(target, (n.Member, n.Index, n.Cast)):
        target = target.operand if isinstance(target, n.Cast) else target.base
    return target if isinstance(target, n.Ref) else None


def _writes(stmt: n.Node) -> set[str]:
    out: set[str] = set()
    for node in stmt.walk():
        target = write_target(node)
        while isinstance(target, (n.Member, n.Index, n.Cast)):
            field_name = this_member(target)
            if field_name is not None:  # `this->a_ = ...`, `a_[i] = ...`
                out.add(f"this->{field_name}")
                target = None
                break
            target = target.base if not isinstance(target, n.Cast) else target.operand
        if isinstance(target, n.Ref):
            out.add(target.decl or target.name)
    return out
