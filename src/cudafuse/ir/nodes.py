"""Expression and statement nodes lowered from libclang cursors.

Nodes are frozen: passes build new trees or, more often, splice text by span. `Ref.decl`
identifies a declaration uniquely within a translation unit ("name@file:offset"), so two
variables that share a name never alias in the analyses.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cudafuse.ir.source import NO_SPAN, Span


@dataclass(frozen=True)
class Node:
    span: Span = field(default=NO_SPAN, compare=False, kw_only=True)

    def children(self) -> tuple[Node, ...]:
        return ()

    def walk(self) -> Iterator[Node]:
        """Pre-order over this node and everything below it."""
        return iter(self.preorder())

    def preorder(self) -> tuple[Node, ...]:
        """walk() as a tuple."""
        out: list[Node] = []
        stack: list[Node | None] = [self]
        pop, push, append = stack.pop, stack.extend, out.append
        while stack:
            node = pop()
            if node is None:  # an absent child (children() may hold None)
                continue
            append(node)
            kids = node.children()
            if kids:
                push(kids[::-1])
        return tuple(out)

    def nodes_of(self, classes: type[NodeT] | tuple[type[NodeT], ...]) -> tuple[NodeT, ...]:
        """The nodes of walk() that are instances of `classes`, in walk order."""
        return tuple([x for x in self.preorder() if isinstance(x, classes)])


NodeT = TypeVar("NodeT", bound=Node)


def _by_class(nodes: tuple[Node, ...]) -> dict[type, list[int]]:
    """The positions in `nodes` of each class's nodes (by exact class), in order."""
    out: dict[type, list[int]] = {}
    get = out.get
    for i, x in enumerate(nodes):
        got = get(x.__class__)
        if got is None:
            out[x.__class__] = [i]
        else:
            got.append(i)
    return out


def _select(nodes: tuple[Node, ...], groups: dict[type, list[int]],
            classes: type | tuple[type, ...]) -> tuple[Node, ...]:
    found = [g for cls, g in groups.items() if issubclass(cls, classes)]
    if not found:
        return ()
    at = found[0] if len(found) == 1 else sorted(itertools.chain.from_iterable(found))
    return tuple([nodes[i] for i in at])


# ---- expressions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Expr(Node):
    type: str = field(default="", compare=False, kw_only=True)


@dataclass(frozen=True)
class IntLit(Expr):
    value: int


@dataclass(frozen=True)
class FloatLit(Expr):
    value: float
    is_double: bool = True


@dataclass(frozen=True)
class BoolLit(Expr):
    value: bool


@dataclass(frozen=True)
class StrLit(Expr):
    text: str


@dataclass(frozen=True)
class Ref(Expr):
    """A name. kind: param, local, global, function, enum, builtin (threadIdx...),
    template_param (a non-type template parameter such as `R` in `template <int R>`), other.

    const_value holds the value of a const/constexpr scalar or enumerator whose initialiser
    clang could fold, so `const int R = 2;` works like the literal in index arithmetic.
    """

    name: str
    kind: str = "other"
    decl: str = ""
    const_value: int | float | None = None


@dataclass(frozen=True)
class Member(Expr):
    base: Expr
    field_name: str
    arrow: bool = False

    def children(self) -> tuple[Node, ...]:
        return (self.base,)


@dataclass(frozen=True)
class Binary(Expr):
    """Binary operators, assignments ('=', '+=', ...) and the comma operator."""

    op: str
    lhs: Expr
    rhs: Expr

    def children(self) -> tuple[Node, ...]:
        return (self.lhs, self.rhs)

    @property
    def is_assignment(self) -> bool:
        op = self.op
        got = _ASSIGNMENT.get(op)
        if got is None:  # asked for every Binary by several analyses: cached per operator
            got = _ASSIGNMENT[op] = op.endswith("=") and op not in ("==", "!=", "<=", ">=")
        return got


_ASSIGNMENT: dict[str, bool] = {}


@dataclass(frozen=True)
class Unary(Expr):
    """op is one of + - ! ~ * & ++ -- ; `postfix` tells x++ from ++x."""

    op: str
    operand: Expr
    postfix: bool = False

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True)
class Call(Expr):
    """A call. `callee` is the called function's name ('' for calls through expressions)."""

    callee: str
    args: tuple[Expr, ...]
    callee_decl: str = ""
    callee_expr: Expr | None = None

    def children(self) -> tuple[Node, ...]:
        return (*((self.callee_expr,) if self.callee_expr else ()), *self.args)


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr

    def children(self) -> tuple[Node, ...]:
        return (self.base, self.index)


@dataclass(frozen=True)
class Cond(Expr):
    cond: Expr
    then: Expr
    else_: Expr

    def children(self) -> tuple[Node, ...]:
        return (self.cond, self.then, self.else_)


@dataclass(frozen=True)
class Cast(Expr):
    """An explicit cast, or a conversion clang made implicit where it changes the type."""

    operand: Expr
    explicit: bool = True

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True)
class KernelLaunch(Expr):
    """k<<<grid, block, shared, stream>>>(args): `shared`/`stream` are None when omitted."""

    kernel: str
    grid: Expr
    block: Expr
    shared: Expr | None
    stream: Expr | None
    args: tuple[Expr, ...]
    kernel_decl: str = ""
    template_args: str = ""
    callee_span: Span = field(default=NO_SPAN, compare=False)
    config_span: Span = field(default=NO_SPAN, compare=False)
    # The callee is a variable holding the kernel (a function pointer, a lambda's `auto`
    # parameter, a member), not a function or function template's name.
    via_variable: bool = field(default=False, compare=False)

    def children(self) -> tuple[Node, ...]:
        cfg = tuple(e for e in (self.grid, self.block, self.shared, self.stream) if e is not None)
        return (*cfg, *self.args)


@dataclass(frozen=True)
class InitList(Expr):
    items: tuple[Expr, ...]

    def children(self) -> tuple[Node, ...]:
        return self.items


@dataclass(frozen=True)
class OtherExpr(Expr):
    """Anything the IR does not model (sizeof, lambdas, new...): analyses treat it as opaque."""

    kind: str
    items: tuple[Node, ...] = ()

    def children(self) -> tuple[Node, ...]:
        return self.items


# ---- statements --------------------------------------------------------------------------


@dataclass(frozen=True)
class Stmt(Node):
    pass


@dataclass(frozen=True)
class VarDecl(Stmt):
    """A variable. storage holds the qualifiers that matter: shared, constant, static, extern."""

    name: str
    var_type: str
    init: Expr | None = None
    decl: str = ""
    storage: frozenset[str] = frozenset()
    array_dims: tuple[Expr | None, ...] = ()

    def children(self) -> tuple[Node, ...]:
        return (*self.array_dims, self.init) if self.init else tuple(self.array_dims)


@dataclass(frozen=True)
class DeclStmt(Stmt):
    decls: tuple[VarDecl, ...]

    def children(self) -> tuple[Node, ...]:
        return self.decls


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr

    def children(self) -> tuple[Node, ...]:
        return (self.expr,)


@dataclass(frozen=True)
class Compound(Stmt):
    body: tuple[Stmt, ...]

    def children(self) -> tuple[Node, ...]:
        return self.body

    def preorder(self) -> tuple[Node, ...]:
        # Function bodies are walked by many analyses in turn: flatten each once. (Cached on
        # blocks only, so that walking every subexpression of a deep tree stays linear.)
        cached = self.__dict__.get("_preorder")
        if cached is None:
            cached = super().preorder()
            object.__setattr__(self, "_preorder", cached)
        return cached

    def nodes_of(self, classes: type[NodeT] | tuple[type[NodeT], ...]) -> tuple[NodeT, ...]:
        # The analyses each ask a body for a few classes of nodes (calls, assignments,
        # declarations...): the walk is grouped by class once, and each answer kept.
        memo: dict[object, tuple[Any, ...]] | None = self.__dict__.get("_nodes_of")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_nodes_of", memo)
            object.__setattr__(self, "_groups", _by_class(self.preorder()))
        got = memo.get(classes)
        if got is None:
            got = memo[classes] = _select(self.preorder(), self.__dict__["_groups"], classes)
        return got


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    else_: Stmt | None = None

    def children(self) -> tuple[Node, ...]:
        return (self.cond, self.then, self.else_) if self.else_ else (self.cond, self.then)


@dataclass(frozen=True)
class For(Stmt):
    init: Stmt | None
    cond: Expr | None
    inc: Expr | None
    body: Stmt

    def children(self) -> tuple[Node, ...]:
        return tuple(c for c in (self.init, self.cond, self.inc, self.body) if c is not None)


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: Stmt
    do_while: bool = False

    def children(self) -> tuple[Node, ...]:
        return (self.cond, self.body)


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None = None

    def children(self) -> tuple[Node, ...]:
        return (self.value,) if self.value else ()


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Asm(Stmt):
    text: str


@dataclass(frozen=True)
class OtherStmt(Stmt):
    """switch, goto, labels, try...: kept opaque, with whatever children could be lowered."""

    kind: str
    items: tuple[Node, ...] = ()

    def children(self) -> tuple[Node, ...]:
        return self.items


def int_constant(e: Expr | None) -> int | None:
    """The integer an expression is whatever thread evaluates it: a literal, a constant
    declaration's value (not a bool's: a flag is no count or bound), their negation, through
    casts; None otherwise."""
    while isinstance(e, Cast):
        e = e.operand
    if isinstance(e, IntLit):
        return e.value
    if isinstance(e, Ref) and isinstance(e.const_value, int) and \
            not isinstance(e.const_value, bool):
        return e.const_value
    if isinstance(e, Unary) and e.op == "-":
        v = int_constant(e.operand)
        return None if v is None else -v
    return None


# ---- construction ------------------------------------------------------------------------
# A frozen dataclass's generated __init__ sets each field through object.__setattr__, a
# call per field; the front end builds one node per cursor (257,000 at 20,000 lines), and
# that was a third of a node's cost. The nodes here (no slots, no __post_init__) get an
# __init__ of the same signature, defaults and order that writes the instance's __dict__
# directly. Frozen after construction as before (__setattr__ still refuses); equality,
# hashing, repr and dataclasses.replace are the dataclass's own.


def _fast_init(cls: type) -> None:
    from dataclasses import MISSING, fields

    fs = fields(cls)
    env: dict[str, Any] = {"MISSING": MISSING}
    params: list[str] = []
    kw_params: list[str] = []
    body: list[str] = []
    for f in fs:
        default = f"_d_{f.name}"
        if f.default is not MISSING:
            env[default] = f.default
        elif f.default_factory is not MISSING:
            env[default] = f.default_factory
        if not f.init:
            if f.default is not MISSING:
                body.append(f"d[{f.name!r}] = {default}")
            elif f.default_factory is not MISSING:
                body.append(f"d[{f.name!r}] = {default}()")
            continue
        if f.default_factory is not MISSING:
            param = f"{f.name}=MISSING"
            body.append(f"d[{f.name!r}] = {default}() if {f.name} is MISSING else {f.name}")
        else:
            param = f"{f.name}={default}" if f.default is not MISSING else f.name
            body.append(f"d[{f.name!r}] = {f.name}")
        (kw_params if f.kw_only else params).append(param)
    sig = ", ".join(["self", *params, *(["*", *kw_params] if kw_params else [])])
    src = f"def __init__({sig}):\n    d = self.__dict__\n" + \
        "".join(f"    {line}\n" for line in body)
    exec(src, env)  # noqa: S102 - code built from the dataclass's own fields
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init


for _cls in [c for c in list(globals().values())
             if isinstance(c, type) and issubclass(c, Node) and c.__module__ == __name__]:
    assert "__post_init__" not in vars(_cls) and "__slots__" not in vars(_cls)
    _fast_init(_cls)
del _cls
