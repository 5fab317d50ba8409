"""Calls on a path that ends the process: an error check's `cudaDeviceReset(); exit(1);`.

A compound statement whose last statement ends the process (`exit`, `abort`, ...) and that
no other way leaves (no `return`, `break`, `continue`, `goto` or `throw` in it) runs on a
path after which nothing of the program runs. What its calls that only release device
resources do (`cudaDeviceReset`, `cudaFree`, destroying streams and events) is then seen by
nothing: no launch, copy or host statement runs after them. Such a call is no reason to
keep launches apart, as printing an error there is not (hoststmts.py); its arguments are
judged as anywhere else. A release anywhere else (a `cudaDeviceReset` the function returns
from) is judged as before.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts

# Ending the process (std::exit and std::abort are spelled exit and abort).
ENDERS = frozenset({"exit", "abort", "_Exit", "_exit", "quick_exit", "terminate"})

# CUDA runtime calls that only release device resources or reset the device.
RELEASES = frozenset({
    "cudaDeviceReset", "cudaFree", "cudaFreeHost", "cudaFreeArray", "cudaFreeAsync",
    "cudaStreamDestroy", "cudaEventDestroy", "cudaGraphDestroy", "cudaGraphExecDestroy",
    "cudaProfilerStop",
})

_LEAVING = frozenset({"GOTO_STMT", "INDIRECT_GOTO_STMT", "LABEL_STMT", "CXX_THROW_EXPR"})


def releases_before_exit(body: n.Node) -> frozenset[int]:
    """Ids of the calls to RELEASES made as statements of a compound statement that ends
    the process (see the module docstring)."""
    out: set[int] = set()
    for block in body.walk():
        if not isinstance(block, n.Compound) or not block.body or \
                not _ends_process(block.body[-1]) or _leaves(block):
            continue
        for stmt in block.body[:-1]:
            call = _called(stmt)
            if call is not None and call.callee in RELEASES:
                out.add(id(call))
    return frozenset(out)


def _called(stmt: n.Stmt) -> n.Call | None:
    if not isinstance(stmt, n.ExprStmt):
        return None
    e = strip_casts(stmt.expr)
    return e if isinstance(e, n.Call) else None


def _ends_process(stmt: n.Stmt) -> bool:
    call = _called(stmt)
    return call is not None and call.callee in ENDERS


def _leaves(block: n.Compound) -> bool:
    """Whether a path may leave the block other than by reaching its end."""
    for node in block.walk():
        if isinstance(node, (n.Return, n.Break, n.Continue, n.KernelLaunch)):
            return True
        if isinstance(node, (n.OtherStmt, n.OtherExpr)) and node.kind in _LEAVING:
            return True
    return False
