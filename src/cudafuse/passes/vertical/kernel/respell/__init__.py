"""Kernel code written in shapes the fusion view does not read, respelled into the ones it
does, before vertical fusion (fuse, plan, fuse --profile) parses the file again.

Two spellings are common in real code and mean exactly a plain coordinate declaration:

  * a vector of coordinates (Udacity cs344 style), used only through its members:
        const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                                 blockIdx.y * blockDim.y + threadIdx.y);   ... p.x ... p.y
    becomes `const int p_x = (...), p_y = (...);` and every `p.x` becomes `p_x`;
  * copies of the built-ins, never written (Rodinia style):
        int bx = blockIdx.x; int tx = threadIdx.x; int i = bx * BLOCK + tx;
    every read of `tx` becomes `((int)threadIdx.x)` (the copy's type, so arithmetic on it
    keeps its signedness) and the copies' declaration goes; done only where it turns a later
    declaration into a coordinate.

Others mean exactly a plain guard and plain subscripts:

  * early returns in a row, `if (x >= w) return; if (y >= h) return;` (coordinates declared
    between them moving up), are one `if ((x >= w) || (y >= h)) return;` (guards.py);
  * `__ldg(&p[i])`, `__ldg(p + i)` and `*(p + i)` on a pointer parameter are `p[i]` (__ldg
    promises the element does not change while the kernel runs, so a plain load reads the
    same value), and a row pointer `float *row = p + y * w;` only subscripted is `p` at an
    offset (access.py);
  * a one-return device helper in a subscript, a guard or a coordinate declaration,
    `p[idx(x, y, w)]`, `if (!inside(x, y, w, h)) return;`, `int x = col();`, is the
    expression it returns (helpers.py);
  * a guard after statements that only compute locals, through a bool local, or joined
    with tests of data, is read where and as the view reads a guard (guardplace.py);
  * scalars declared without a value and given their one value later (`int i; i =
    blockIdx.x * blockDim.x + threadIdx.x;`) are declared there with it (lateinit.py).

A statement storing to a local that nothing reads afterwards (`tid += blockDim.x *
gridDim.x;` left at the end of a guarded body) is left out (dead_stores.py).

A `switch` whose cases each end in `break` is the if/else chain it means (switches.py), and
a call statement of a void device helper that stores through a pointer it is given is the
helper's body at the call (void_helpers.py).

And a loop of a few constant iterations, each storing an element of its own (`for (int c =
0; c < 3; ++c) out[i * 3 + c] = ...`), is one block per iteration, its variable a constant
in each (unroll.py): each store is then a statement at an element the view evaluates.

Each rewrite keeps the statement's lines (missing line breaks are appended), so every line
number stays the user's. The text is checked against the tree before anything is changed:
a use hidden in a macro, a coordinate vector that is passed whole, assigned, or has its
address taken, leaves the kernel as written. Rewrites that overlap wait for the next round:
parse_for_fusion parses again after each, up to four times (a helper calling a helper).
"""

from __future__ import annotations

import dataclasses

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.frontend.parse import ParseOptions, ParseResult, parse_file
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.kernel import chan_accumulate
from cudafuse.passes.vertical.kernel.respell.access import loads, rows
from cudafuse.passes.vertical.kernel.respell.coords import copies, vectors
from cudafuse.passes.vertical.kernel.respell.dead_stores import dead_stores
from cudafuse.passes.vertical.kernel.respell.guardplace import (
    guard_locals,
    hoisted,
    later_returns,
    split_data,
    split_data_return,
)
from cudafuse.passes.vertical.kernel.respell.guards import guards, nested
from cudafuse.passes.vertical.kernel.respell.helpers import helpers
from cudafuse.passes.vertical.kernel.respell.lateinit import assigned_once
from cudafuse.passes.vertical.kernel.respell.member_stores import whole_elements
from cudafuse.passes.vertical.kernel.respell.switches import switches
from cudafuse.passes.vertical.kernel.respell.text import Edit
from cudafuse.passes.vertical.kernel.respell.unroll import unrolled
from cudafuse.passes.vertical.kernel.respell.void_helpers import void_helpers


def respelled(unit: TranslationUnit) -> tuple[bytes, list[Diagnostic]] | None:
    """The main file's bytes (the user's, as written) with every kernel's coordinates
    respelled, and a note per rewrite; None when no kernel needs one."""
    data = unit.source.original or unit.source.data
    edits: list[Edit] = []
    notes: list[Diagnostic] = []
    for fn in unit.kernels:
        if fn.span.file != unit.path or fn.body is None:
            continue
        for found, note in (assigned_once(fn, data), dead_stores(fn, data),
                            vectors(unit, fn, data),
                            copies(unit, fn, data),
                            guards(fn, data), nested(fn, data), switches(fn, data),
                            hoisted(fn, data),
                            guard_locals(fn, data), split_data(fn, data),
                            split_data_return(fn, data), later_returns(fn, data),
                            loads(fn, data),
                            helpers(unit, fn, data), void_helpers(unit, fn, data),
                            rows(fn, data), unrolled(fn, data),
                            whole_elements(unit, fn, data),
                            chan_accumulate.channel_locals(unit, fn, data)):
            # One edit per place: a node reached twice in the tree (the element of a struct
            # store is also its operator='s callee) gives the same edit twice.
            found = sorted(set(found), key=lambda e: (e.start, e.end))
            if any(a.end > b.start for a, b in zip(found, found[1:], strict=False)):
                continue  # its own edits overlap: left as written
            if found and any(a.start < b.end and b.start < a.end
                             for a in found for b in edits):
                continue  # it overlaps one taken: the next round (parse_for_fusion) does it
            if found:
                edits += found
                line, col = unit.source.line_col(found[0].start)
                notes.append(Diagnostic(Severity.NOTE, f"kernel '{fn.name}': {note}",
                                        unit.path, line, col))
    if not edits:
        return None
    out = bytearray(data)
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out[e.start:e.end] = e.text.encode()
    return bytes(out), notes


def parse_for_fusion(path: str, options: ParseOptions) -> tuple[ParseResult, bytes | None]:
    """`path` parsed for vertical fusion: respelled (see above) and parsed again when a kernel
    needs it. The second value is the file as written when it was respelled: the output to
    keep if nothing is fused after all (a respelling alone is no reason to touch a file)."""
    # (Launches of kernel templates are read through concrete copies: instantiate.py.)
    options = dataclasses.replace(options, instantiate=True)
    result = parse_file(path, options)
    as_written = result.unit.source.original or result.unit.source.data
    notes: list[Diagnostic] = []
    for _ in range(4):  # (a helper inlined may call another: one more round each)
        found = respelled(result.unit)
        if found is None:
            break
        text, more = found
        try:
            again = parse_file(path, options, text=text)
        except CudafuseError:
            break  # a respelling the front end rejects is cudafuse's mistake: not applied
        if _errors(again) > _errors(result) or \
                len(again.unit.kernels) != len(result.unit.kernels):
            break
        notes += more
        result = again
    from cudafuse.frontend.host_instances import copies_written, host_templates

    if host_templates(result.unit):  # host function templates: copied into the final text
        with copies_written():
            result = parse_file(path, options, text=result.unit.source.data if notes else None)
    if not notes:
        return result, None
    result.diagnostics += notes
    return result, as_written


def _errors(result: ParseResult) -> int:
    return sum(d.severity is Severity.ERROR for d in result.diagnostics)
