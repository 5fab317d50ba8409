"""hostview's pointer-alias check between the launches of a sequence (issue 27), counted.

_Splitter._may_alias asked every launch added to a sequence about every buffer of the
launches before it (the sequence's keys rebuilt, and each chosen or rotated pointer's roots
tested against every other buffer): quadratic in the launches of a sequence. It now keeps
an index of the sequence's buffers by root (_AliasIndex). Checked here: the same answers
as the pairwise check on generated host functions (choices, aliases, offsets, unknown
pointers, in any order), and the number of root look-ups growing with the launches, not
with their square.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.host import hostview
from cudafuse.passes.vertical.host.hostexprs import touched_key
from cudafuse.passes.vertical.host.pointsto import PointsTo

KERNEL = """#include <cuda_runtime.h>
__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f + 1.0f;
}
__global__ void k3(const float *x, const float *z, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + z[i];
}
float *pick(float *a, float *b);
"""


def _pairwise(self, current, site):  # the check as it was (every pair of buffers)
    paired = {d: pair for pair, (a, b) in self.parity.items()
              if a <= site.launch.span.start < b for d in pair}
    for s_ in (*current.launches, site):
        for decl in self._selections(s_):
            paired.setdefault(decl, frozenset())
    if not paired:
        return None
    keys = {}
    for s_ in (*current.launches, site):
        for p, a in s_.bindings:
            k = touched_key(a) if p.is_pointer else None
            if k is not None:
                keys.setdefault(k, a)
    for k, a in keys.items():
        if k not in paired:
            continue
        for k2, a2 in keys.items():
            if k2 == k or k2 in paired.get(k, ()) and k in paired.get(k2, ()):
                continue
            if not self.points.disjoint(a, a2):
                names = [x.name if isinstance(x, n.Ref) else hostview._text_of(x)
                         for x in (a, a2)]
                return f"pointer '{names[0]}' may name the same buffer as '{names[1]}'"
    return None


def _host(rng: random.Random, name: str, launches: int) -> str:
    """A host function of `launches` launches over parameters, allocations, pointers set
    once to a choice, aliases, offsets and pointers of unknown origin."""
    body = ["  size_t bytes = (size_t)n * sizeof(float);"]
    bufs = ["a", "b", "c"]
    for i in range(4):
        body.append(f"  float *t{i}; cudaMalloc(&t{i}, bytes);")
        bufs.append(f"t{i}")
    for i in range(3):
        x, y = rng.sample(bufs, 2)
        kind = rng.choice(("choice", "choice", "alias", "unknown", "offset"))
        init = {"choice": f"flip ? {x} : {y}", "alias": x, "unknown": f"pick({x}, {y})",
                "offset": f"{x} + {rng.randint(0, 8)}"}[kind]
        body.append(f"  float *s{i} = {init};")
        bufs.append(f"s{i}")
    for _ in range(launches):
        if rng.random() < 0.3:
            x, z, y = rng.sample(bufs, 3)
            body.append(f"  k3<<<(n + 127) / 128, 128>>>({x}, {z}, {y}, n);")
        else:
            x, y = rng.sample(bufs, 2)
            body.append(f"  k<<<(n + 127) / 128, 128>>>({x}, {y}, n);")
    return (f"void {name}(const float *in, float *a, float *b, float *c, int n, bool flip) {{\n"
            + "\n".join(body) + "\n}\n")


def _views(path: Path) -> list[tuple[str, object]]:
    unit = parse_file(str(path), ParseOptions()).unit
    out = []
    for f in unit.functions:
        if f.body is not None and not f.is_kernel and f.body.nodes_of((n.KernelLaunch,)):
            seqs, breaks, places = hostview.host_view(unit, f)
            out.append((f.name, ([[s.index for s in q.launches] for q in seqs],
                                 [(b.span.start, why) for b, why in breaks],
                                 [(p.index, p.sequence, p.why) for p in places])))
    return out


def test_same_answers_as_every_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(27)
    path = tmp_path / "hosts.cu"
    path.write_text(KERNEL + "".join(_host(rng, f"h{i}", rng.randint(2, 9))
                                     for i in range(40)))
    indexed = hostview._Splitter._may_alias
    answers: list[str | None] = []

    def both(self, current, site):  # type: ignore[no-untyped-def]
        want = _pairwise(self, current, site)
        got = indexed(self, current, site)
        assert got == want, (site.launch.span.line, got, want)
        answers.append(got)
        return got

    monkeypatch.setattr(hostview._Splitter, "_may_alias", both)
    views = _views(path)
    assert len(views) == 40
    # Both kinds of answer were compared, many times each.
    assert sum(a is None for a in answers) > 20, answers
    assert sum(a is not None for a in answers) > 20, answers


def _chain(launches: int) -> str:
    """One sequence: a chain over allocations, a pointer chosen at run time among two
    parameters given to one of its launches (so every later launch is checked)."""
    body = ["  size_t bytes = (size_t)n * sizeof(float);", "  float *s = flip ? a : b;"]
    names = ["in", *(f"t{i}" for i in range(1, launches)), "out"]
    body += [f"  float *t{i}; cudaMalloc(&t{i}, bytes);" for i in range(1, launches)]
    for i in range(launches):
        src = "s" if i == 1 else names[i]
        body.append(f"  k3<<<(n + 127) / 128, 128>>>({src}, {names[i]}, {names[i + 1]}, n);")
    return (KERNEL + "void chain(const float *in, float *out, float *a, float *b, int n, "
            "bool flip) {\n" + "\n".join(body) + "\n}\n")


def _roots_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launches: int) -> int:
    path = tmp_path / f"chain_{launches}.cu"
    path.write_text(_chain(launches))
    unit = parse_file(str(path), ParseOptions()).unit
    host = unit.function("chain")
    asked = 0
    original = PointsTo.roots

    def counting(self, e):  # type: ignore[no-untyped-def]
        nonlocal asked
        asked += 1
        return original(self, e)

    checked: list[int] = []
    may_alias = hostview._Splitter._may_alias

    def seen(self, current, site):  # type: ignore[no-untyped-def]
        checked.append(len(current.launches))
        return may_alias(self, current, site)

    monkeypatch.setattr(PointsTo, "roots", counting)
    monkeypatch.setattr(hostview._Splitter, "_may_alias", seen)
    seqs, _, _ = hostview.host_view(unit, host)
    monkeypatch.undo()
    assert [len(q.launches) for q in seqs] == [launches]  # one sequence, never cut
    assert max(checked) == launches - 1  # the check ran at every launch
    return asked


def test_root_lookups_grow_with_the_launches(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    small = _roots_asked(tmp_path, monkeypatch, 20)
    large = _roots_asked(tmp_path, monkeypatch, 40)
    assert small > 20  # the count sees the look-ups (the rest of the host view asks too)
    # Linear: twice the launches, about twice the look-ups (pairwise: about four times).
    assert large <= 2 * small + 10, (small, large)
