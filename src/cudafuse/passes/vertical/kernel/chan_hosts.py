"""Whether two pointer parameters of a kernel name different buffers at every launch the
file makes of it, as the host code shows (distinct `cudaMalloc`s, a host function's pointer
parameter and a buffer it allocates itself).

kernel/chan_accumulate.py keeps a channel a loop updates in a local only when nothing else
in the loop may read or write that channel's memory. Two plain `float *` parameters of the
kernel say nothing about each other (felixchu's shrink kernels read `const float *target`
beside `float *target_a`), but the launches do: `shrink_a<<<g, b>>>(target, target_a, ...)`
in a host function that takes `target` as a parameter and allocated `target_a` itself
passes two buffers that cannot overlap. The respelling changes the kernel for every launch,
so it needs that of each one:

  * the kernel is used only by `<<<...>>>` launches of the file (no `cudaLaunchKernel`, no
    pointer to it, no launch from device code), at least one, each resolved to this kernel,
    with one argument per parameter;
  * at each, the host function's may-point-to sets (host/pointsto.py) of the two arguments
    are known and disjoint: a fresh allocation of the function is a buffer of its own, and
    two pointer parameters of a host function are distinct buffers as fusion takes them
    everywhere (README, "Pointer parameters"), unless a call in the file visibly passes
    them one buffer (pointsto.visible_aliasing, the check every fused group passes too).

A launch in another translation unit is not seen: a `__global__` function of this file is
launched elsewhere only with relocatable device code and an `extern` declaration, and the
host functions the file's own launches sit in are read as the rest of fusion reads them.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.passes.vertical.host.hostexprs import launched_kernel
from cudafuse.passes.vertical.host.pointsto import PointsTo, visible_aliasing


def _bodies(unit: TranslationUnit) -> list[Function]:
    seen: set[int] = set()
    out = []
    for f in (*unit.functions, *unit.methods, *unit.method_hosts):
        if f.body is not None and id(f) not in seen:
            seen.add(id(f))
            out.append(f)
    return out


def launches_of(unit: TranslationUnit, kernel: Function
                ) -> list[tuple[Function, n.KernelLaunch]] | None:
    """Every launch of `kernel` in the file with the function it is in, or None when the
    kernel may also start another way (its name used other than as a launch's callee, a
    launch not resolved to one definition, a launch from device code) or is never
    launched."""
    out: list[tuple[Function, n.KernelLaunch]] = []
    for f in _bodies(unit):
        assert f.body is not None
        for x in f.body.walk():
            if isinstance(x, n.Ref) and kernel.decl and x.decl == kernel.decl:
                return None  # (its address taken, cudaLaunchKernel, a table of kernels)
            if not isinstance(x, n.KernelLaunch):
                continue
            target = launched_kernel(unit, x)
            if target is kernel:
                if f.space != "host" or x.via_variable or \
                        len(x.args) != len(kernel.params):
                    return None
                out.append((f, x))
            elif target is None and x.kernel.split("<", 1)[0].rsplit("::", 1)[-1] == \
                    kernel.name.split("<", 1)[0]:
                return None  # (may be this kernel: not resolved)
    return out or None


def distinct_at_launches(unit: TranslationUnit, kernel: Function, a: Param, b: Param
                         ) -> bool:
    """Whether parameters `a` and `b` of `kernel` provably name different buffers at every
    launch of it in the file (see the module text)."""
    sites = launches_of(unit, kernel)
    if sites is None:
        return False
    ia = next(i for i, p in enumerate(kernel.params) if p.decl == a.decl)
    ib = next(i for i, p in enumerate(kernel.params) if p.decl == b.decl)
    points: dict[int, PointsTo] = {}
    for host, launch in sites:
        if id(host) not in points:
            points[id(host)] = PointsTo(host)
        ea, eb = launch.args[ia], launch.args[ib]
        if not points[id(host)].disjoint(ea, eb):
            return False
        if visible_aliasing(unit, host, [(ea, True), (eb, True)]) is not None:
            return False
    return True
