"""Host work a wrapper does on memory of its own, besides its launches (issue 25, session 12).

A helper that launches often also allocates, fills, copies and frees buffers of its own:

    void stage(const float *in, float *t, int n) {
      float *scratch;  cudaMalloc(&scratch, 64 * sizeof(float));
      cudaMemset(scratch, 0, 64 * sizeof(float));
      scale<<<(n + 127) / 128, 128>>>(in, t, n);
      cudaFree(scratch);
    }

Memory a local of the helper is given by an allocation (`cudaMalloc(&p, ...)`, `malloc`,
`new`: pointsto.py's fresh roots), or a local array, exists only inside the helper: no launch
of its caller, nor of any other function, can name it, so a call that touches only such
memory, and none of it that a launch of the helper is given, touches nothing any launch
fused across the call may use. Such calls (an allocation into a local of the helper's, a
memset, a copy between two of its buffers, a free) are read as statuses when the helper's
statements are judged (wrappers.py), and the call of the helper is then written as a copy
at the call site (helper_calls.py), where that work stays in its place.

A buffer of its own the helper *gives* a launch is another matter: in the caller's terms,
where the helper's launches are fused with the caller's, it has no name, and a launch of
the helper that a group moves to a later launch of the caller would use it after the helper
freed it (cle3_canny's `gaussian_filter_device` frees `d_min` and `d_max`, which its
`normalize_kernel` reads). Such a helper is refused, naming the buffer, the line that
allocates it and the one that frees it.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.host.hoststmts import MEMORY_CALLS
from cudafuse.passes.vertical.host.pointsto import ALLOCATORS, FRESH_CALLS, PointsTo, Roots

# Free functions of the C library that release memory through their first argument.
FREES = frozenset({"free", "cudaFree", "cudaFreeHost", "cudaFreeAsync"})


class OwnMemory:
    """The memory of `fn`'s own (module text), and which of it `launches` are given."""

    def __init__(self, fn: Function, points: PointsTo, launches: list[n.KernelLaunch]):
        assert fn.body is not None
        self.fn, self.points = fn, points
        self.locals = {d.decl: d for d in fn.body.walk() if isinstance(d, n.VarDecl) and
                       "&" not in d.var_type and not d.storage & {"static", "extern"}}
        given: set[str] | None = set()
        for la in launches:
            for a in la.args:
                if "*" in a.type or "[" in a.type or not a.type:
                    roots = points.roots(a)
                    if roots is None:
                        given = None
                        break
                    given |= roots  # type: ignore[operator]
            if given is None:
                break
        self.given = given  # None: not known (then no memory is taken to be its own only)

    def own(self, root: str) -> bool:
        """Whether the root is memory only `fn` can name: what a local of its own was
        allocated, a `new@` allocation, a local array, the address of a local."""
        if root.startswith("new@"):
            return True
        decl = root[1:] if root.startswith("&") else root
        d = self.locals.get(decl)
        return d is not None and (root.startswith("&") or bool(d.array_dims) or
                                  decl in self.points.fresh)

    def touched(self, call: n.Call) -> Roots | None:
        """The roots of the memory a memory call touches through its pointer arguments (for
        an allocation into `&p`: `p`'s own buffer); None when not known or not such a call."""
        name = call.callee
        if name in ALLOCATORS:
            first = _strip(call.args[0]) if call.args else None
            if isinstance(first, n.Unary) and first.op == "&":
                v = _strip(first.operand)
                if isinstance(v, n.Ref) and v.decl in self.locals:
                    return frozenset({v.decl})
            return None
        if name in FRESH_CALLS:
            return frozenset() if all(not ("*" in a.type or "[" in a.type)
                                      for a in call.args) else None
        if name in MEMORY_CALLS:
            writes, reads = MEMORY_CALLS[name]
            where = set(writes) | set(reads)
        elif name in FREES:
            where = {0}
        else:
            return None
        out: set[str] = set()
        for i, a in enumerate(call.args):
            if i in where:
                roots = self.points.roots(a)
                if roots is None:
                    return None
                out |= roots
        return frozenset(out)

    def calls(self, stmt: n.Stmt) -> list[n.Call] | str:
        """The calls of `stmt` that touch only memory of `fn`'s own that no launch is given
        (to be read as statuses), or why one touching memory of its own cannot stay."""
        out: list[n.Call] = []
        for node in stmt.walk():
            if not isinstance(node, n.Call):
                continue
            roots = self.touched(node)
            if roots is None or not all(self.own(r) for r in roots):
                continue
            mine = {r.lstrip("&") for r in roots}
            shared = sorted(mine & self.given) if self.given is not None else sorted(mine)
            if shared:
                return self._given_reason(shared[0])
            out.append(node)
        return out

    def _given_reason(self, decl: str) -> str:
        d = self.locals.get(decl)
        name = d.name if d is not None else decl.split("@")[0]
        assert self.fn.body is not None
        lines = {"allocates": None, "frees": None}
        for node in self.fn.body.walk():
            if not isinstance(node, n.Call) or not node.args:
                continue
            first = _strip(node.args[0])
            if isinstance(first, n.Unary) and first.op == "&":
                first = _strip(first.operand)
            if not (isinstance(first, n.Ref) and first.decl == decl):
                continue
            kind = "allocates" if node.callee in ALLOCATORS else \
                "frees" if node.callee in FREES else None
            if kind is not None and lines[kind] is None:
                lines[kind] = node.span.line
        if lines["allocates"] is None and d is not None:
            lines["allocates"] = d.span.line
        freed = f" and frees (line {lines['frees']})" if lines["frees"] else ""
        after = ", and a launch of it moved to a later launch of the caller would use it " \
            "freed" if freed else ""
        return (f"gives its launches '{name}', a buffer it allocates (line "
                f"{lines['allocates']}){freed} itself: it has no name in the caller, where "
                f"launches are fused across the call{after}")
