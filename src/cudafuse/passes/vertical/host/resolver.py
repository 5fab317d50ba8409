"""What a launch's host expressions are, for the coverage check and the grid-size bounds:
the x, y, z of a `dim3` (a local, a constructor call, braces), linear forms over the host
function's never-reassigned locals and the kernel's parameters bound to the launch's
arguments, helpers whose body is one `return` inlined at the call, and a kernel's integer
locals set once where declared from its parameters and constants (`int n = w * h; if (i >= n)
return;`, llm.c's `int total_threads = B * NH * T * T;`) read as their initialisers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cudafuse.analysis.memo import per_object
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.substitute import inline_helper
from cudafuse.ir.types import is_integral
from cudafuse.passes.vertical.host.hostview import _shape
from cudafuse.passes.vertical.host.linear import Linear
from cudafuse.passes.vertical.host.linear import add as _add
from cudafuse.passes.vertical.host.linear import scale as _scale
from cudafuse.passes.vertical.host.stmtnodes import _assigned

if TYPE_CHECKING:
    from cudafuse.ir.program import TranslationUnit


@per_object()
def _kernels_by_param(unit: TranslationUnit) -> dict[str, n.Compound]:
    """Each kernel parameter's declaration id -> the body of its kernel."""
    return {p.decl: k.body for k in unit.kernels if k.body is not None
            for p in k.params if p.decl}


@per_object()
def _once_set(body: n.Compound) -> dict[str, n.Expr]:
    """The kernel's integer locals given their value where declared and never assigned (nor
    their address taken), by declaration: their initialisers. Each declaration id is unique,
    so a local declared in a branch or a loop still names one value wherever it is read."""
    assigned = {r.decl for node in body.walk() for r in _assigned(node)}
    # A local bound to a reference (`int &r = n;`) or handed to a call (whose parameter may
    # be a reference) may change through it: not followed.
    for node in body.walk():
        if isinstance(node, n.VarDecl) and "&" in node.var_type and node.init is not None:
            assigned.update(r.decl for r in [_strip(node.init)] if isinstance(r, n.Ref))
        elif isinstance(node, n.Call):
            assigned.update(a.decl for a in map(_strip, node.args) if isinstance(a, n.Ref))
    return {d.decl: d.init for d in body.walk() if isinstance(d, n.VarDecl) and
            d.init is not None and not d.array_dims and d.decl and d.decl not in assigned
            and is_integral(d.var_type.replace("const ", "").replace("constexpr ", "").strip())}


class Resolver:
    def __init__(self, host_locals: dict[str, n.VarDecl],
                 params: dict[str, n.Expr] | None = None,
                 unit: TranslationUnit | None = None):
        self.locals = host_locals
        self.params = params or {}  # kernel parameter decl -> host argument
        self.unit = unit  # for the bodies of helpers a grid calls (div_up(n, b))

    def with_params(self, params: dict[str, n.Expr]) -> Resolver:
        return Resolver(self.locals, params, self.unit)

    def kernel_local(self, e: n.Ref) -> n.Expr | None:
        """The initialiser of a once-set integer local of the kernel whose parameters this
        resolver binds, when it reads only those parameters, constants and other such locals
        (no thread index, no memory, no call): it has that value wherever the kernel reads
        it. None otherwise."""
        if e.kind != "local" or not self.params or self.unit is None:
            return None
        bodies = _kernels_by_param(self.unit)
        body = next((bodies[d] for d in self.params if d in bodies), None)
        if body is None:
            return None
        consts = _once_set(body)
        init = consts.get(e.decl)
        if init is None:
            return None
        for x in init.walk():
            if isinstance(x, n.Ref):
                if not (x.kind == "param" and x.decl in self.params or x.kind == "enum" or
                        isinstance(x.const_value, int) or
                        x.kind == "local" and x.decl in consts and x.decl != e.decl):
                    return None
            elif not isinstance(x, (n.IntLit, n.Binary, n.Unary, n.Cast, n.Cond)) or \
                    isinstance(x, n.Binary) and x.is_assignment or \
                    isinstance(x, n.Unary) and x.op in ("++", "--", "&", "*"):
                return None
        return init

    def inline(self, call: n.Call) -> n.Expr | None:
        """A call of a helper whose body is `return e;`, as e over the call's arguments.
        The helper may be in a user header (frontend/header_callees.py), and a template
        when the call's result and arguments are integers (llm.c's `ceil_div<T>` in
        common.h): its arithmetic is then that of the call's type."""
        fn = None
        if self.unit is not None and call.callee_decl:
            fn = self.unit.callee(call.callee_decl) or next(
                (f for f in self.unit.header_functions if f.decl == call.callee_decl), None)
        if fn is None or fn.body is None or len(fn.body.body) != 1 or \
                len(fn.params) != len(call.args):
            return None
        if fn.is_template and not (is_integral(call.type) and
                                   all(is_integral(a.type) for a in call.args)):
            return None
        ret = fn.body.body[0]
        if not isinstance(ret, n.Return) or ret.value is None:
            return None
        if any(isinstance(x, n.Call) and x.callee_decl == fn.decl for x in ret.value.walk()):
            return None
        return inline_helper(fn.params, ret.value, call.args,
                             call.type if fn.is_template else fn.return_type)

    def dim3(self, e: n.Expr) -> list[n.Expr] | None:
        """The x, y, z components of a dim3-valued (or integer) host expression."""
        e = _strip(e)
        if isinstance(e, n.Ref) and e.decl in self.locals:
            d = self.locals[e.decl]
            if d.init is None:
                return None
            if d.var_type.replace("const ", "").strip() != "dim3":
                return [e]
            return self.dim3(d.init)
        if isinstance(e, n.Call) and e.callee != "dim3" and \
                e.type.replace("const ", "").strip() == "dim3":
            # A helper returning the dim3 (`dim3 grid_for(int w, int h, dim3 b) { return
            # dim3((w + b.x - 1) / b.x, ...); }`): its one return over the call's arguments.
            body = self.inline(e)
            if body is not None:
                return self.dim3(body)
        if isinstance(e, n.Call) and e.callee == "dim3":
            comps = list(e.args)
        elif isinstance(e, n.InitList):
            comps = list(e.items)
        elif e.type.replace("const ", "").strip() == "dim3":
            return None
        else:
            comps = [e]
        # An omitted dim3 argument shows up as a default-argument expression with no text.
        comps = [n.IntLit(1) if isinstance(c, n.OtherExpr) and not c.items and
                 c.span.end == c.span.start else c for c in comps]
        return comps + [n.IntLit(1)] * (3 - len(comps))

    def linear(self, e: n.Expr, depth: int = 0) -> Linear | None:
        e = _strip(e)
        if depth > 20:
            return None
        if isinstance(e, n.IntLit):
            return ((), e.value)
        if isinstance(e, n.Ref) and e.kind == "param" and e.decl in self.params:
            return Resolver(self.locals).linear(self.params[e.decl], depth + 1)
        if isinstance(e, n.Ref):
            if e.const_value is not None and isinstance(e.const_value, int):
                return ((), e.const_value)
            init = self.kernel_local(e)
            if init is not None:
                return self.linear(init, depth + 1)
            d = self.locals.get(e.decl)
            if d is not None and d.init is not None and \
                    d.var_type.replace("const ", "").strip() != "dim3":
                return self.linear(d.init, depth + 1)
            return (((e.decl or e.name, 1),), 0)
        if isinstance(e, n.Member) and e.field_name in ("x", "y", "z"):
            comps = self.dim3(e.base)
            if comps is not None:
                return self.linear(comps["xyz".index(e.field_name)], depth + 1)
        if isinstance(e, n.Binary) and e.op in ("+", "-"):
            a, b = self.linear(e.lhs, depth + 1), self.linear(e.rhs, depth + 1)
            if a is None or b is None:
                return None
            return _add(a, b, 1 if e.op == "+" else -1)
        if isinstance(e, n.Binary) and e.op == "*":
            a, b = self.linear(e.lhs, depth + 1), self.linear(e.rhs, depth + 1)
            if a is None or b is None:
                return None
            if not a[0]:
                return _scale(b, a[1])
            if not b[0]:
                return _scale(a, b[1])
            # A product of two resolved forms (`w * h` in two kernels, or `h * w`): one
            # opaque term named by both factors, in either order; not by the kernel's text,
            # whose parameters differ from kernel to kernel.
            return (((repr(sorted((a, b))), 1),), 0)
        return (((_shape(e), 1),), 0)
