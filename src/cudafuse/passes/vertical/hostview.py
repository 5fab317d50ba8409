"""The host side of a pipeline: straight-line launch sequences and what may move.

Fusion moves a producer's work from its own launch to the launch of the group's last kernel.
That is only sound if nothing in between changes what the producer would have computed: no
host statement between them may write a variable the launches use, or call anything that
might touch device memory. Launch arguments must be free of side effects, since they are
evaluated once, at the fused launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit

# Calls a host statement between fused launches may make: they touch no device buffer and
# no variable of the program's.
HARMLESS_CALLS = frozenset({
    "dim3", "cudaGetLastError", "cudaPeekAtLastError", "cudaDeviceSynchronize",
    "cudaStreamSynchronize", "cudaGetErrorString", "printf", "fprintf", "puts", "exit", "abort",
})


@dataclass(frozen=True)
class LaunchSite:
    index: int  # position in the host function's sequence
    stmt: n.ExprStmt
    launch: n.KernelLaunch
    kernel: Function
    bindings: tuple[tuple[Param, n.Expr], ...]  # kernel parameter -> host argument
    host: Function

    def arg_for(self, param_name: str) -> n.Expr | None:
        return next((a for p, a in self.bindings if p.name == param_name), None)


@dataclass
class Sequence:
    """Launches that may be fused with each other (same host block, nothing in between
    that could observe or change their effects)."""

    host: Function
    launches: list[LaunchSite] = field(default_factory=list)


def buffer_key(e: n.Expr) -> str | None:
    """A host pointer argument's identity: the variable it names. None for anything else
    (pointer arithmetic, calls), which fusion then treats as unknown memory."""
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Ref) and e.kind in ("param", "local", "global"):
        return e.decl or e.name
    return None


def value_key(e: n.Expr, type_: str) -> str:
    """Identity of a scalar argument: its expression, printed structurally, and the type it
    converts to (the same host value passed as int and as float are different values)."""
    return f"{_shape(e)}::{type_}"


def _shape(e: n.Node) -> str:
    parts = [type(e).__name__]
    for attr in ("value", "name", "decl", "op", "field_name", "callee", "postfix"):
        if hasattr(e, attr):
            parts.append(f"{attr}={getattr(e, attr)!r}")
    inner = ",".join(_shape(c) for c in e.children() if c is not None)
    return f"{'|'.join(parts)}({inner})"


def side_effect_free(e: n.Expr) -> bool:
    for node in e.walk():
        if isinstance(node, n.Call) and node.callee not in ("dim3",):
            return False
        if isinstance(node, n.Binary) and node.is_assignment:
            return False
        if isinstance(node, n.Unary) and node.op in ("++", "--"):
            return False
        if isinstance(node, (n.OtherExpr, n.KernelLaunch)):
            return False
    return True


def _writes(stmt: n.Node) -> set[str]:
    out: set[str] = set()
    for node in stmt.walk():
        target = None
        if isinstance(node, n.Binary) and node.is_assignment:
            target = node.lhs
        elif isinstance(node, n.Unary) and node.op in ("++", "--", "&"):
            target = node.operand
        while isinstance(target, (n.Member, n.Index, n.Cast)):
            target = target.base if not isinstance(target, n.Cast) else target.operand
        if isinstance(target, n.Ref):
            out.add(target.decl or target.name)
    return out


def break_reason(stmt: n.Stmt) -> str | None:
    """Why launches before and after this host statement may not be fused across it."""
    if any(isinstance(x, n.KernelLaunch) for x in stmt.walk()):
        return "it launches a kernel inside control flow"
    for node in stmt.walk():
        if isinstance(node, n.Call) and node.callee not in HARMLESS_CALLS:
            return f"its call to '{node.callee or '?'}' may touch device memory or variables"
        if isinstance(node, n.OtherExpr) and node.kind not in ("CXX_UNARY_EXPR",):
            return "it contains an expression cudafuse does not model"
    if isinstance(stmt, n.DeclStmt):
        return None  # a new variable cannot change values computed before it
    written = _writes(stmt)
    if written:
        return f"it assigns '{sorted(w.split('@')[0] for w in written)[0]}'"
    return None


def sequences(unit: TranslationUnit, host: Function
              ) -> tuple[list[Sequence], list[tuple[n.Stmt, str]]]:
    """Split the host function's top-level statements into fusible launch sequences; also
    return the statements that split them, with the reason."""
    assert host.body is not None
    result: list[Sequence] = []
    breaks: list[tuple[n.Stmt, str]] = []
    current = Sequence(host)
    count = 0
    for stmt in host.body.body:
        launch = stmt.expr if isinstance(stmt, n.ExprStmt) and \
            isinstance(stmt.expr, n.KernelLaunch) else None
        kernel = unit.function(launch.kernel) if launch is not None else None
        alias = pointer_alias_reason(host, launch) if launch is not None else None
        if launch is not None and kernel is not None and kernel.body is not None and \
                len(launch.args) == len(kernel.params) and alias is None:
            bindings = tuple(zip(kernel.params, launch.args, strict=True))
            current.launches.append(LaunchSite(count, stmt, launch, kernel, bindings, host))
            count += 1
            continue
        if launch is None:
            why = break_reason(stmt)
        elif kernel is None or kernel.body is None:
            why = f"kernel '{launch.kernel}' has no definition in this file"
        elif alias:
            why = alias
        else:
            why = "its argument count does not match the kernel"
        if why is None:
            continue
        if current.launches:
            result.append(current)
        if current.launches or launch is not None:
            breaks.append((stmt, why))
        current = Sequence(host)
        count += launch is not None
    if current.launches:
        result.append(current)
    # A launch left out is always worth a note; another statement only when it separates
    # launches.
    last = max((s.launches[-1].stmt.span.start for s in result), default=-1)
    breaks = [(b, why) for b, why in breaks if b.span.start < last or (
        isinstance(b, n.ExprStmt) and isinstance(b.expr, n.KernelLaunch))]
    return [s for s in result if len(s.launches) > 1], breaks


ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch"})


def pointer_alias_reason(host: Function, launch: n.KernelLaunch) -> str | None:
    """Buffers are identified by the host variable passed, so a pointer variable must not
    name memory another variable also names. A parameter or global is taken as its own
    buffer (distinct pointer parameters are assumed not to alias, as with __restrict__); a
    local pointer only when it is set once, by an allocation or a fresh value, never copied
    from another pointer or offset from one."""
    assert host.body is not None
    decls = {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}
    for arg in launch.args:
        while isinstance(arg, n.Cast):
            arg = arg.operand
        if not (isinstance(arg, n.Ref) and arg.kind == "local" and arg.decl in decls):
            continue
        if not arg.type.rstrip().endswith("*") and "*" not in decls[arg.decl].var_type:
            continue
        d = decls[arg.decl]
        if d.init is not None and not _fresh(d.init):
            return f"pointer '{d.name}' is initialised from another pointer"
        for node in host.body.walk():
            if isinstance(node, n.Binary) and node.is_assignment and \
                    isinstance(node.lhs, n.Ref) and node.lhs.decl == d.decl:
                return f"pointer '{d.name}' is assigned after its declaration"
            if isinstance(node, n.Call) and node.callee not in ALLOCATORS and any(
                    isinstance(a, n.Unary) and a.op == "&" and isinstance(a.operand, n.Ref)
                    and a.operand.decl == d.decl for a in node.args):
                return f"the address of pointer '{d.name}' is passed to '{node.callee}'"
    return None


def _fresh(e: n.Expr) -> bool:
    """nullptr, 0, or a call (an allocation): not a copy of another pointer."""
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, (n.IntLit, n.Call)) or (
        isinstance(e, n.OtherExpr) and e.kind == "CXX_NULL_PTR_LITERAL_EXPR")


def host_locals(host: Function) -> dict[str, n.VarDecl]:
    """Top-level locals of the host function that are never assigned after declaration."""
    assert host.body is not None
    decls: dict[str, n.VarDecl] = {}
    for stmt in host.body.body:
        if isinstance(stmt, n.DeclStmt):
            for d in stmt.decls:
                decls[d.decl] = d
    written = set().union(*(_writes(s) for s in host.body.body)) if host.body.body else set()
    return {k: v for k, v in decls.items() if k not in written}
