"""A tiled kernel written over blockDim, read with the block every launch gives it.

Tiles are sized by a constant (`__shared__ float s[TILE + 2][TILE + 2]`) while the
coordinates are often written `blockIdx.x * blockDim.x + threadIdx.x`: the kernel is right
only for blocks of TILE threads, which every launch in the file uses (`dim3 block(TILE,
TILE)`). Which thread stages which element (tile_writers.py) needs that block. When every
launch of such a kernel in the file has a block whose sizes are the same constants (host
values, host/resolver.py), the kernel is analysed with blockDim.d replaced by them: its
coordinates are then `blockIdx.d * K + threadIdx.d`, a mapping whose block size legality
checks at each launch of a group (`KernelView.block_sizes`: "assumes x blocks of 16
threads, which its launch does not provably use"). The rewrite is kept only when the tile is
then read, or shown to be a race in the original (its reason is then the kernel's); code
generation keeps the user's text.
"""

from __future__ import annotations

import dataclasses

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.substitute import replace_nodes
from cudafuse.passes.vertical.host.hostview import host_locals
from cudafuse.passes.vertical.host.resolver import Resolver
from cudafuse.passes.vertical.kernel.launchshape import _Launches
from cudafuse.passes.vertical.kernel.staged_copy import StagedCopy, staged_copy
from cudafuse.passes.vertical.kernel.tile_writers import RACE, UNKNOWN_BLOCK, staged_writers


def _block_dims(fn: Function) -> set[str]:
    assert fn.body is not None
    return {x.field_name for x in fn.body.walk() if isinstance(x, n.Member) and
            isinstance(x.base, n.Ref) and x.base.kind == "builtin" and
            x.base.name == "blockDim"}


def _stages_a_tile(fn: Function) -> bool:
    assert fn.body is not None
    return any(isinstance(x, n.VarDecl) and "shared" in x.storage for x in fn.body.walk()) \
        and any(isinstance(x, n.Call) and x.callee == "__syncthreads" for x in fn.body.walk())


def _launch_block(unit: TranslationUnit, sites) -> tuple[int, int, int] | None:
    """The block every launch uses, when it is one constant per dimension."""
    found: set[tuple[int, ...]] = set()
    for host, launch in sites:
        if host.body is None:
            return None
        resolver = Resolver(host_locals(host), unit=unit)
        comps = resolver.dim3(launch.block)
        if comps is None:
            return None
        sizes = []
        for c in comps:
            lin = resolver.linear(c)
            if lin is None or lin[0]:
                return None
            sizes.append(lin[1])
        found.add(tuple(sizes))
    if len(found) != 1:
        return None
    (block,) = found
    return block  # type: ignore[return-value]


def with_tile_blocks(unit: TranslationUnit) -> tuple[TranslationUnit, list[str]]:
    """A copy of `unit` whose tiled kernels written over blockDim are read with the block
    every launch gives them, when that makes their tile readable; a note per kernel."""
    launches: _Launches | None = None
    changed: dict[str, Function] = {}
    notes: list[str] = []
    for fn in unit.functions:
        if not fn.is_kernel or fn.body is None or fn.is_template or not _stages_a_tile(fn):
            continue
        dims = _block_dims(fn)
        first = staged_writers(fn)
        if not dims or not isinstance(first, str) or UNKNOWN_BLOCK not in first or \
                staged_copy(fn) is not None:  # (a copied table: staged_copy.py's)
            continue  # (already read, or no tile of this kind)
        launches = launches or _Launches(unit)
        sites = launches.by_kernel.get(fn.decl, [])
        if not sites or fn.decl in launches.other_use:
            continue
        block = _launch_block(unit, sites)
        if block is None:
            continue
        sizes = dict(zip("xyz", block, strict=True))

        def change(x: n.Node, sizes=sizes) -> n.Node | None:
            if isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
                    x.base.kind == "builtin" and x.base.name == "blockDim":
                return n.IntLit(sizes[x.field_name], type="unsigned int", span=x.span)
            return None

        body = replace_nodes(fn.body, change)
        assert isinstance(body, n.Compound)
        new = dataclasses.replace(fn, body=body)
        got = staged_writers(new)
        if not isinstance(got, StagedCopy) and not (isinstance(got, str) and RACE in got):
            continue  # (kept when the tile is read, or is shown to be a race)
        changed[fn.decl] = new
        shown = " x ".join(str(s) for s in block)
        notes.append(f"{fn.span.file or unit.path}:{fn.span.line}: kernel '{fn.name}' stages "
                     f"a tile and every launch in the file gives it blocks of {shown} "
                     "threads: analysed with that blockDim")
    if not changed:
        return unit, notes
    return dataclasses.replace(unit, functions=[changed.get(f.decl, f)
                                                for f in unit.functions]), notes
