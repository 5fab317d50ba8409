"""A check, evaluated when the program runs, for a producer's grid that cudafuse cannot show
covers its kernel's domain.

Recomputing a producer in a consumer's threads equals the original only where the original
launch computed every element of the producer's domain: gridDim * blockDim >= bound in each
dimension (coverage.py). Often that is true but not provable from the text: PolyBench sizes
the grid from a `#define N` while the kernel's bound is the parameter `n` the host passes
(`n` is N at run time), a grid rounds a quotient in float (`ceil((float)w / b)`, exact below
2^24), a dim3 comes from a helper or the caller. The last kernel's grid is checked the same
way when it must store the group's intermediates over its producers' domain. Such a group
is fused under a run-time condition instead of being refused: at the group's launch

    if (<grid.x * block.x >= bound.x && ...>) { <the fused launch> }
    else { <the group's original launches, in order> }

so a run on which the condition fails runs exactly the original launches. The condition is
built only from what has the same value at the group's launch as at the producer's: the
producer's own grid and block expressions when they are free of side effects and read only
host variables that are never assigned after their declaration (nor a member of them, nor
their address taken), and its bound with the kernel's parameters replaced by the launch's
arguments (which fusion already evaluates at the group's position). Anything else: no check,
and the group stays refused.
"""

from __future__ import annotations

from cudafuse.analysis.memo import per_object
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.substitute import replace_nodes
from cudafuse.passes.vertical.host.hostexprs import side_effect_free
from cudafuse.passes.vertical.host.hostview import LaunchSite
from cudafuse.passes.vertical.host.stmtnodes import _assigned


def covers_meaning(kernel: str, storing: bool = False) -> str:
    """What a coverage check (coverage_check) stands for, as --explain and --report say it;
    `storing`: the last kernel's, which stores the group's intermediates over that domain."""
    where = "the domain where it stores the group's intermediates" if storing else \
        "its domain"
    return (f"the grid of '{kernel}' covers {where} (grid * block >= bound in each "
            "dimension), not shown from the text")


# Coverage reasons that say "not shown", not "does not cover" (coverage._covers_dim).
_UNKNOWN = ("does not provably cover", "cannot show", "is not a rounded-up division",
            "is not a dim3 built in the host function", "is not a simple expression")


def unknown(reason: str) -> bool:
    """Whether a coverage reason only says that coverage was not shown."""
    return any(u in reason for u in _UNKNOWN)


@per_object()
def _unstable(host: n.Node) -> frozenset[str]:
    """Host variables assigned after their declaration (a dim3's `operator=` and a member of
    it too), or whose address is taken. Once per host body: legality asks per group."""
    return frozenset(r.decl for node in host.walk() for r in _assigned(node))


def _stable(e: n.Expr, unstable: frozenset[str]) -> bool:
    """Free of side effects, reading only never-assigned host locals and parameters, const
    globals and enumerators (a mutable global could change between the two launches)."""
    return side_effect_free(e) and not any(
        isinstance(x, n.Ref) and (x.decl in unstable or not (
            x.kind in ("param", "local", "enum", "function") or
            (x.kind == "global" and "const" in x.type)))
        for x in e.walk())


def _components(e: n.Expr) -> list[n.Expr | None] | None:
    """The x, y, z of a dim3 built in place (`dim3(w / 16, h / 16)`, or the conversion of
    an integer, `<<<num_blks, 1024>>>`), None for each one left to its default of 1."""
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Call) and e.callee == "dim3":
        items: list[n.Expr] = list(e.args)
    elif isinstance(e, n.InitList) and "dim3" in e.type:
        items = list(e.items)
    else:
        return None
    comps: list[n.Expr | None] = [
        None if isinstance(c, n.OtherExpr) and not c.items and c.span.end == c.span.start
        else c for c in items[:3]]
    return comps + [None] * (3 - len(comps))


def _dim_text(e: n.Expr, i: int, unstable: frozenset[str]) -> str | None:
    """Dimension i of a launch's grid or block expression, as C text."""
    comps = _components(e)
    if comps is not None:
        c = comps[i]
        return "1" if c is None else _dim_text(c, 0, unstable)
    if not _stable(e, unstable):
        return None
    try:
        text = to_c(e)
    except Unprintable:
        return None
    if "dim3" in e.type:
        return f"({text}).{'xyz'[i]}"
    if i > 0:
        return "1"
    return f"({text})"


@per_object()
def _kernel_constants(kernel: n.Node) -> dict[str, n.Expr]:
    """The kernel's locals set once, where declared, and never assigned
    (`const int half = ksize / 2;`): a bound may name them for their initialiser."""
    assigned = {r.decl for node in kernel.walk() for r in _assigned(node)}
    return {d.decl: d.init for d in kernel.walk() if isinstance(d, n.VarDecl) and
            d.init is not None and not d.array_dims and d.decl not in assigned}


def _bound_text(bound: n.Expr, site: LaunchSite, unstable: frozenset[str]) -> str | None:
    """The kernel's bound with its parameters replaced by the launch's arguments (and its
    once-set locals by their initialisers, when those read only parameters and constants)."""
    args = {p.decl: a for p, a in site.bindings}
    consts = _kernel_constants(site.kernel.body) if site.kernel.body is not None else {}
    ok = True

    def inline(node: n.Node) -> n.Node | None:
        return consts.get(node.decl) if isinstance(node, n.Ref) and node.kind == "local" \
            else None

    for _ in range(8):  # a local's initialiser may name another once-set local
        if not any(inline(x) is not None for x in bound.walk()):
            break
        bound = replace_nodes(bound, inline)  # type: ignore[assignment]

    def change(node: n.Node) -> n.Node | None:
        nonlocal ok
        if isinstance(node, n.Ref):
            if node.kind == "param" and node.decl in args:
                return args[node.decl]
            if isinstance(node.const_value, int):
                return n.IntLit(node.const_value, type=node.type)
            if node.kind not in ("enum",):
                ok = False
        return None

    host = replace_nodes(bound, change)
    assert isinstance(host, n.Expr)
    if not ok or not _stable(host, unstable):
        return None
    try:
        return to_c(host)
    except Unprintable:
        return None


def coverage_check(site: LaunchSite, bounds: list[n.Expr]) -> str | None:
    """C text of `grid * block >= bound` in every dimension of `site`'s launch (bounds in
    the grid's order), evaluable at the group's launch; None when it cannot be built."""
    if site.wrapper is not None or site.host.body is None:
        return None
    unstable = _unstable(site.host.body)
    terms = []
    for i, bound in enumerate(bounds):
        g = _dim_text(site.launch.grid, i, unstable)
        b = _dim_text(site.launch.block, i, unstable)
        bt = _bound_text(bound, site, unstable)
        if g is None or b is None or bt is None:
            return None
        terms.append(f"(long long){g} * (long long){b} >= (long long)({bt})")
    return " && ".join(terms) or None


def at_most_check(site: LaunchSite, a: n.Expr, b: n.Expr) -> str | None:
    """C text of `a <= b` for two of `site`'s kernel expressions (a guard's bound and the
    row stride its stores use: PolyBench's `x < n` against `A[y * N + x]` with `#define N`,
    where the host passes n = N), evaluable at the group's launch; None when it cannot be
    built."""
    if site.wrapper is not None or site.host.body is None:
        return None
    unstable = _unstable(site.host.body)
    at, bt = _bound_text(a, site, unstable), _bound_text(b, site, unstable)
    if at is None or bt is None:
        return None
    return f"(long long)({at}) <= (long long)({bt})"


def block_check(site: LaunchSite, a: n.Expr, dims: int) -> str | None:
    """C text of `a < blockDim.x * ...` over the first `dims` dimensions of `site`'s block,
    for a kernel expression `a` (a shared copy whose thread t copies element t covers the
    elements below the block's size: kernel/staged_copy.py), evaluable at the group's
    launch; None when it cannot be built."""
    if site.wrapper is not None or site.host.body is None:
        return None
    unstable = _unstable(site.host.body)
    at = _bound_text(a, site, unstable)
    sizes = [_dim_text(site.launch.block, i, unstable) for i in range(dims)]
    if at is None or any(size is None for size in sizes):
        return None
    return f"(long long)({at}) < " + " * ".join(f"(long long){size}" for size in sizes)
