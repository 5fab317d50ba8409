"""Which functions defined in the file a function calls, directly and transitively."""

from __future__ import annotations

from cudafuse.analysis.unit_index import unit_index
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit


class CallGraph:
    """Memoised callees of the functions of one unit. The tables and the memo are the
    unit's (unit_index), so a CallGraph costs nothing to make, wherever one is made."""

    def __init__(self, unit: TranslationUnit):
        self.unit = unit
        index = unit_index(unit)
        self.by_decl = index.file_by_decl
        self.by_name = index.by_name
        self._direct = index.direct_callees

    def resolve(self, call: n.Call) -> Function | None:
        if call.callee_decl:
            return self.by_decl.get(call.callee_decl)
        return self.by_name.get(call.callee)

    def direct(self, fn: Function) -> list[Function]:
        if fn.decl not in self._direct:
            out: list[Function] = []
            for node in fn.body.nodes_of(n.Call) if fn.body is not None else ():
                f = self.resolve(node)
                if f is not None and f not in out:
                    out.append(f)
            self._direct[fn.decl] = out
        return self._direct[fn.decl]

    def transitive(self, fn: Function) -> list[Function]:
        """Every defined function reachable from fn, breadth first, fn itself excluded."""
        seen: list[Function] = []
        todo = [fn]
        while todo:
            for f in self.direct(todo.pop(0)):
                if f is not fn and f not in seen:
                    seen.append(f)
                    todo.append(f)
        return seen
