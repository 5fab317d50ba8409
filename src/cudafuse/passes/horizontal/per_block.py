"""Results per block: a dependence on the block size that index arithmetic does not show.

A block reduction writes one partial result per block (`partials[blockIdx.x] = s[0]`): how
many results there are, and which elements each one sums, is set by the number of blocks,
which the caller derives from the block size (`(n + B - 1) / B`). Run with another block
size under the same launch, such a kernel computes other results, so profiling must not
change its size. Judged by meaning: a store to memory (an assignment through a subscript, or
an atomic's address) whose index depends on `blockIdx` or `gridDim`, directly or through
local variables, and not on `threadIdx`; a store every thread makes at its own element
(`out[blockIdx.x * blockDim.x + threadIdx.x]`) is not one.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function

_BLOCK = frozenset({"blockIdx", "gridDim"})


def _uses(expr: n.Node, env: dict[str, set[str]]) -> set[str]:
    """The builtins `expr` depends on (through the locals in `env`)."""
    out: set[str] = set()
    for node in expr.walk():
        if isinstance(node, n.Ref):
            if node.kind == "builtin":
                out.add(node.name)
            else:
                out |= env.get(node.decl or node.name, set())
    return out


def _target(lhs: n.Expr) -> n.Index | None:
    while isinstance(lhs, n.Cast):
        lhs = lhs.operand
    return lhs if isinstance(lhs, n.Index) else None


def per_block_stores(fn: Function) -> list[str]:
    """Why `fn` writes results per block (empty: it does not)."""
    if fn.body is None:
        return []
    env: dict[str, set[str]] = {}
    nodes = list(fn.body.walk())
    for _ in range(2):  # twice: a local assigned later in a loop reaches earlier uses
        for node in nodes:
            if isinstance(node, n.VarDecl) and node.init is not None:
                env.setdefault(node.decl or node.name, set()).update(_uses(node.init, env))
            elif isinstance(node, n.Binary) and node.is_assignment and \
                    isinstance(node.lhs, n.Ref) and node.lhs.kind != "builtin":
                env.setdefault(node.lhs.decl or node.lhs.name, set()).update(
                    _uses(node.rhs, env))
    out = []
    for node in nodes:
        index: n.Expr | None = None
        if isinstance(node, n.Binary) and node.is_assignment:
            target = _target(node.lhs)
            index = target.index if target is not None else None
        elif isinstance(node, n.Call) and node.callee.split("::")[-1].startswith("atomic") \
                and node.args:
            address = node.args[0]
            if isinstance(address, n.Unary) and address.op == "&":
                target = _target(address.operand)
                index = target.index if target is not None else None
        if index is None:
            continue
        deps = _uses(index, env)
        if deps & _BLOCK and "threadIdx" not in deps:
            out.append(f"it stores one result per block (line {node.span.line}): how many, "
                       "and what each covers, is set by the number of blocks, which the "
                       "caller derives from the block size")
            break
    return out
