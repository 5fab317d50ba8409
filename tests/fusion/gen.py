"""Generating image pipelines as plain CUDA, for differential tests of fusion.

A pipeline is a list of stages; stage i reads earlier buffers (0 is the external input
`in0`, 1.. are the stages' outputs) and writes buffer i + 1. The first input of a stencil
stage is read over a (2 rx + 1) x (2 ry + 1) window with the stage's border mode; every other
input is read at the thread's own pixel.

Stages are written in one of several styles people use (STYLES): plain `y * w + x`
subscripts; an indexing macro `IDX(x, y)` taking `w` from the kernel's scope; the row
computed first under other names (`row`, `col`, const); a flat index variable; a point
stage as a 1-D grid-stride loop over the w * h pixels (`gridstride`, in a pipeline of point
stages only, launched on a 1-D grid); any stage as a 2-D grid-stride loop (`gridstride2d`,
y or x outside, launched on a grid covering about a quarter of the image).

Orthogonal to the indexing style, a stage's guard (GUARDS) may write only part of the image
(PARTIAL_GUARDS: interior only, lower bounds in x or y, as enclosing ifs or early returns;
the elements it skips keep the buffer's previous contents), and its store (STORES) may be an
if/else at the own element (`ifelse`) or an in-place update of its first input (`inplace`:
`a[i] = a[i] * 0.5f + ...`, `addto`: `a[i] += ...`), in which case the stage writes that
buffer and has no output of its own (`written`).

A stage may store K (2..4) channels of its element instead of one value (`channels`, issue
15), planar (`out[c * w * h + i]`) or interleaved (`out[i * K + c]`), spelled in one of
several ways (LAYOUTS), each channel a different function of the stage's value (channel 0
the value itself), perhaps leaving one channel unstored (`skip`), or all of them in a loop
over c (`loop`: the tool unrolls it, kernel/respell/unroll.py, and fuses it). A stage reads
a buffer of channels at constant channels of its own element (`reads`: for each input, the
layout spelling and the channels, in any order and with repetition) or, as a stencil's
first input, over one plane (the tool refuses both that and a read of an unstored channel).

Third-party spellings (issue 25), orthogonal to the above: a stage may take its coordinates
from `__device__` helpers (`coords="helper"`), declare locals before its guard (`late`),
spell a clamped border as reassigned locals and conditionals (`clamp="locals"`: `int sx =
x + dx; sx = sx < 0 ? 0 : sx; if (sx >= w) sx = w - 1;`), store a `struct px { float v; }`
element instead of a float (`px`: `out[i].v = ...` or a whole `px` stored; `pair`: a
`struct px2 { float a, b; }` stored whole, both read), or, as the last
stage of a pipeline, stage its stencil's input in a shared-memory tile with its halo
(`tiled`: tile, `__syncthreads()`, then the stencil under `if (x < w && y < h)`; its
copies of threadIdx declared `const` are not read today, and the edge is refused). A whole
pipeline may be launched one block per image row with no guard (`rowblock`: `c =
threadIdx.x, r = blockIdx.x`, launched `<<<h, w>>>`: kernel/launchshape.py). Its host
function (Host) may spell buffers through pointer variables, exchange two of them with
`std::swap` between launches, carry them in a struct passed by value to a helper that
launches, cudaMalloc (and cudaFree) its intermediates itself, and wrap launches and runtime
calls in an error-check macro (`CHECK(cudaGetLastError())`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BORDERS = ("clamp", "mirror", "mirror101", "wrap", "constant")
STYLES = ("plain", "macro", "rowcol", "flat", "gridstride2d")  # any stage
# gridstride: point pipelines only. linear: a 1-D grid over the w * h pixels taking x = i % w,
# y = i / w (analysis/delinearise.py), its guard i < w * h whatever GUARDS says (whole only).
LINEAR_STYLES = ("linear",)
# Spellings `cudafuse fuse` respells before planning (passes/vertical/kernel/respell/): int2
# coordinates (`const int2 p = make_int2(...)`, used as p.x and p.y), and copies of the
# built-ins (`int tx = threadIdx.x; ... int x = bx * blockDim.x + tx;`).
RESPELLED_STYLES = ("int2", "copies")
# The grid's x walking the rows (`r = blockIdx.x * ...`, `c = blockIdx.y * ...`, elements at
# r * w + c), launched on a grid over (h, w): whole pipelines only (a group mixing the two
# mappings is refused).
ROWS_FIRST_STYLES = ("rows_first",)

# Guard name -> (form, condition over {x} and {y}): `return` is an early return when the
# condition holds, `enclose` an if around the body.
GUARDS = {
    "return": ("return", "{x} >= w || {y} >= h"),
    "if": ("enclose", "{x} < w && {y} < h"),
    "interior": ("enclose", "{x} >= 1 && {x} < w - 1 && {y} >= 1 && {y} < h - 1"),
    "interior_gt": ("enclose", "{x} > 0 && {x} < w - 1 && {y} > 0 && {y} < h - 1"),
    "interior_return": ("return", "{x} < 1 || {x} >= w - 1 || {y} < 1 || {y} >= h - 1"),
    "lower_x": ("enclose", "{x} >= 1 && {x} < w && {y} < h"),
    "lower_y": ("enclose", "{y} > 0 && {y} < h && {x} < w"),
    "lower_x_return": ("return", "{x} < 1 || {x} >= w || {y} >= h"),
    # two early returns (respelled into one guard), and the bounds written `w - 1`
    "return_split": ("split", "{x} > w - 1|{y} >= h"),
    "if_le": ("enclose", "{x} <= w - 1 && {y} <= h - 1"),
    # nested ifs, one bound each (respelled into one guard)
    "nested": ("nested", "{y} < h|{x} < w"),
}
WHOLE_GUARDS = ("return", "if", "return_split", "if_le", "nested")  # every element of the image
PARTIAL_GUARDS = tuple(g for g in GUARDS if g not in WHOLE_GUARDS)
STORES = ("plain", "ifelse", "inplace", "addto")  # inplace, addto: point stages only
IN_PLACE = ("inplace", "addto")
# Layout spelling -> kind. With i the stage's own element (`y * w + x`, `IDX(x, y)`...):
# planar: c * w * h + i; planar_local: c * plane + i (a `const int plane = w * h` local);
# planar_macro: PLANE(c, i); planar_after: i + c * w * h; interleaved: (i) * K + c;
# interleaved_k: K * (i) + c; interleaved_c: c + (i) * K. Channel 0 is spelled plainly
# (`i`, `(i) * K`) except through the macro.
LAYOUTS = {"planar": "planar", "planar_local": "planar", "planar_macro": "planar",
           "planar_after": "planar", "interleaved": "interleaved",
           "interleaved_k": "interleaved", "interleaved_c": "interleaved"}
# Whole pipelines launched one block per row, block w threads, no guard (kernel/launchshape.py).
LAUNCH_SHAPED_STYLES = ("rowblock",)
# Styles whose coordinates are `int x = ...; int y = ...;` (the ones `coords="helper"` respells
# as calls of __device__ helpers) and whose guard is a statement of its own (`late`).
HELPER_STYLES = ("plain", "macro", "flat")
TILE_W, TILE_H = 8, 4  # the block of every 2-D launch, and a tiled stage's tile
IO = -1  # buffer `io0`: an extra read-write parameter of the pipeline for in-place updates


@dataclass(frozen=True)
class ChannelRead:
    """How a stage reads one input that holds channels: in `layout`'s spelling of the
    producer's layout (K channels), channels `chans` at its own element (a stencil's first
    input: plane chans[0] over the window)."""

    layout: str
    k: int
    chans: tuple[int, ...]


def buffer_name(j: int) -> str:
    return "in0" if j == 0 else "io0" if j == IO else f"b{j}"


@dataclass(frozen=True)
class Stage:
    kind: str  # point or stencil
    inputs: tuple[int, ...]
    rx: int = 1
    ry: int = 1
    border: str = "clamp"
    guard: str = "return"  # return: if (x >= w || y >= h) return;  if: if (x < w && y < h) ...
    style: str = "plain"  # STYLES, or gridstride
    store: str = "plain"  # STORES; in place: the stage updates buffer inputs[0] (not in0)
    channels: int = 0  # K > 1: the stage stores K channels of its element (LAYOUTS)
    layout: str = "planar"  # the spelling of its channels' indices
    skip: int = -1  # a channel it leaves unstored (-1: none)
    loop: bool = False  # it stores every channel in a loop over c
    reads: tuple[ChannelRead | None, ...] = ()  # per input: None (or absent) read plainly
    # Issue 25's spellings (module docstring): all off by default.
    coords: str = ""  # "helper": x and y from __device__ helpers (HELPER_STYLES)
    late: bool = False  # locals declared before the guard (not linear, rowblock)
    clamp: str = ""  # "locals": a clamp border as reassigned locals and conditionals
    # "member" (out[i].v = ...), "whole" (px pix; pix.v = ...; out[i] = pix;) or "pair" (a
    # px2 { float a, b; } stored whole; a pair buffer is two images long)
    px: str = ""
    # A stencil staged in shared memory (clamp border, plain style), its threadIdx copies
    # declared `int tx = ..., ty = ...;` ("int") or const ("const": refused today).
    tiled: str = ""

    @property
    def in_place(self) -> bool:
        return self.store in IN_PLACE

    def read_of(self, j: int) -> ChannelRead | None:
        return self.reads[j] if j < len(self.reads) else None

    @property
    def stored(self) -> tuple[int, ...]:
        """The channels it stores (none: one value per element)."""
        return tuple(c for c in range(self.channels) if c != self.skip or self.loop)


def written(stages: list[Stage], i: int) -> int:
    """The buffer stage i writes: its own (i + 1), or the one it updates in place."""
    return stages[i].inputs[0] if stages[i].in_place else i + 1


def _at(style: str, buf: str, x: str, y: str, plane: ChannelRead | None = None,
        member: str = "") -> str:
    """`buf` subscripted at pixel (x, y) in the stage's style (in `plane`'s first channel),
    then `member` (`.v` of a px buffer)."""
    own = f"IDX({x}, {y})" if style == "macro" else f"{y} * w + {x}"
    if plane is not None:
        own = channel_index(plane.layout, plane.k, plane.chans[0], own)
    return f"{buf}[{own}]{member}"


def channel_index(layout: str, k: int, c: int | str, own: str) -> str:
    """The index of channel `c` (a number, or a loop variable's name) of element `own`."""
    paren = own if re.fullmatch(r"\w+(\(.*\))?", own) else f"({own})"
    zero = c == 0
    return {
        "planar": own if zero else f"w * h + {own}" if c == 1 else f"{c} * w * h + {own}",
        "planar_local": own if zero else f"plane + {own}" if c == 1 else f"{c} * plane + {own}",
        "planar_macro": f"PLANE({c}, {own})",
        "planar_after": own if zero else f"{own} + {c} * w * h",
        "interleaved": f"{paren} * {k}" if zero else f"{paren} * {k} + {c}",
        "interleaved_k": f"{k} * {paren}" if zero else f"{k} * {paren} + {c}",
        "interleaved_c": f"{paren} * {k}" if zero else f"{c} + {paren} * {k}",
    }[layout]


def _read(border: str, buf: str, style: str = "plain", plane: ChannelRead | None = None,
          member: str = "") -> str:
    xs = {"clamp": "min(max(xx, 0), w - 1)",
          "mirror": "(xx < 0 ? -xx - 1 : (xx >= w ? 2 * w - xx - 1 : xx))",
          "mirror101": "(xx < 0 ? -xx : (xx >= w ? 2 * w - xx - 2 : xx))",
          "wrap": "((xx % w + w) % w)"}
    if border == "constant":
        return (f"((xx >= 0 && xx < w && yy >= 0 && yy < h) ? "
                f"{_at(style, buf, 'xx', 'yy', plane, member)} : 0.25f)")
    xexpr = xs[border]
    yexpr = xexpr.replace("xx", "yy").replace("w", "h")
    return _at(style, buf, xexpr, yexpr, plane, member)


_POINT_OPS = ("{v} * 0.75f + 0.125f", "sqrtf(fabsf({v})) - 0.5f", "{v} * {v} + 0.25f")


_COEFS = ("", "0.5f * ", "0.25f * ", "0.75f * ")  # of the channels a stage reads, in turn
# Channel c of a channel stage: a function of its value v and u, its first input's own
# element.
_CHANNEL_OPS = ("{v}", "{v} * 0.5f + 0.25f", "sqrtf(fabsf({v})) - {u}", "0.75f - {v} * {u}")


def kernel_source(name: str, stage: Stage, index: int, px_in: dict[int, str] | None = None
                  ) -> str:
    """Stage `index` as kernel `name`; `px_in`: the element type of each input position
    holding structs (px or px2)."""
    px_in = px_in or {}
    if stage.style == "gridstride":
        return _gridstride_source(name, stage, index)
    if stage.style == "gridstride2d":
        return _gridstride2d_source(name, stage, index)
    if stage.tiled:
        return _tiled_source(name, stage, index, px_in)
    lines = [_signature(name, stage, px_in)]
    if stage.style == "rowcol":  # other names, the row first; x and y are macros below
        lines += ["  const int row = blockDim.y * blockIdx.y + threadIdx.y;",
                  "  const int col = threadIdx.x + blockIdx.x * blockDim.x;"]
        x, y = "col", "row"
    elif stage.style == "int2":
        lines += ["  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,",
                  "                           blockIdx.y * blockDim.y + threadIdx.y);"]
        x, y = "p.x", "p.y"
    elif stage.style == "linear":  # a 1-D grid over the w * h pixels, x and y derived
        lines += ["  const int i = blockIdx.x * blockDim.x + threadIdx.x;",
                  "  if (i >= w * h) return;",
                  "  const int x = i % w;",
                  "  const int y = i / w;"]
        x, y = "x", "y"
    elif stage.style == "rows_first":
        lines += ["  const int r = blockIdx.x * blockDim.x + threadIdx.x;",
                  "  const int c = blockIdx.y * blockDim.y + threadIdx.y;"]
        x, y = "c", "r"
    elif stage.style == "rowblock":  # one block per row, no thread too many: no guard
        lines += ["  const int c = threadIdx.x;", "  const int r = blockIdx.x;"]
        x, y = "c", "r"
    elif stage.coords == "helper":
        lines += ["  int x = gen_x();", "  int y = gen_y();"]
        x, y = "x", "y"
    elif stage.style == "copies":
        lines += ["  int tx = threadIdx.x, ty = threadIdx.y;",
                  "  int bx = blockIdx.x;",
                  "  int by = blockIdx.y;",
                  "  int x = bx * blockDim.x + tx;",
                  "  int y = by * blockDim.y + ty;"]
        x, y = "x", "y"
    else:
        lines += ["  int x = blockIdx.x * blockDim.x + threadIdx.x;",
                  "  int y = blockIdx.y * blockDim.y + threadIdx.y;"]
        x, y = "x", "y"
    spellings = {r.layout for r in stage.reads if r is not None}
    if stage.channels:
        spellings.add(stage.layout)
    if "planar_local" in spellings:
        lines.append("  const int plane = w * h;")
    body = []  # the statements under the guard
    early = []  # (late) the statements before it
    if stage.style == "flat":
        (early if stage.late else body).append("  const int idx = y * w + x;")
    if stage.late:  # a local the value uses, declared before the guard
        early.append("  const float scale = 1.0f;")
    idx = own_index(stage.style)
    store = f"out[{idx}]"

    def own(j: int) -> str:
        """Input j at the own element: plainly, or a sum of the channels the stage reads."""
        r = stage.read_of(j)
        if r is None:
            return _own_px(f"s{j}[{idx}]", px_in.get(j, ""))
        return "(" + " + ".join(f"{_COEFS[m % 4]}s{j}[{channel_index(r.layout, r.k, c, idx)}]"
                                for m, c in enumerate(r.chans)) + ")"

    extra = " + ".join("0.5f * " + own(j) for j in range(1, len(stage.inputs)))
    member = _MEMBER[px_in.get(0, "")]
    if stage.kind == "stencil":
        read = _read(stage.border, "s0", stage.style, stage.read_of(0), member)
        (early if stage.late else body).append("  float acc = 0.0f;")
        body += [f"  for (int dy = -{stage.ry}; dy <= {stage.ry}; ++dy) {{",
                 f"    for (int dx = -{stage.rx}; dx <= {stage.rx}; ++dx) {{"]
        if stage.clamp == "locals":
            assert stage.border == "clamp" and stage.read_of(0) is None, stage
            body += _clamp_locals(x, y)
            read = _at(stage.style, "s0", "sx", "sy", None, member)
        else:
            body += [f"      const int xx = {x} + dx;", f"      const int yy = {y} + dy;"]
        body += [f"      const float wt = 0.0625f * (float)(dx * 3 + dy * 5 + {index + 7});",
                 f"      acc += wt * {read};",
                 "    }",
                 "  }"]
        value = f"acc{' + ' + extra if extra else ''}"
    else:
        value = f"{_POINT_OPS[index % 3].format(v=own(0))}{' + ' + extra if extra else ''}"
    if stage.late:
        value = f"scale * ({value})"
    if stage.channels:
        assert stage.store == "plain", stage
        body += _channel_stores(stage, idx, value, own(0))
    elif stage.px:
        assert stage.store == "plain", stage
        body += {"member": [f"  {store}.v = {value};"],
                 "whole": ["  px pix;", f"  pix.v = {value};", f"  {store} = pix;"],
                 "pair": ["  px2 pix;", f"  pix.a = {value};", "  pix.b = pix.a * 0.5f + 0.25f;",
                          f"  {store} = pix;"]}[stage.px]
    else:
        body += _STORE_WRITERS[stage.store](stage, store, value, own(0), extra)
    lines += early
    lines += body if stage.style in ("linear", "rowblock") else _guarded(stage, x, y, body)
    lines.append("}")
    return "\n".join(lines) + "\n"


def own_index(style: str) -> str:
    """A stage's own element, as its style spells it."""
    return {"flat": "idx", "macro": "IDX(x, y)", "rowcol": "row * w + col",
            "int2": "p.y * w + p.x", "rows_first": "r * w + c",
            "rowblock": "r * w + c"}.get(style, "y * w + x")


def _clamp_locals(x: str, y: str) -> list[str]:
    """A clamp to the image spelled as reassigned locals: a conditional and an if each."""
    return [f"      int sx = {x} + dx;",
            "      sx = sx < 0 ? 0 : sx;",
            "      if (sx >= w) sx = w - 1;",
            f"      int sy = {y} + dy;",
            "      if (sy < 0) sy = 0;",
            "      sy = sy >= h ? h - 1 : sy;"]


# The member a stencil reads of a struct element; an element read at its own pixel.
_MEMBER = {"": "", "px": ".v", "px2": ".a"}


def _own_px(at: str, kind: str) -> str:
    """`at` (an element of a buffer of `kind`) read as a float: both members of a px2."""
    return f"({at}.a + 0.5f * {at}.b)" if kind == "px2" else at + _MEMBER[kind]


def element_type(stage: Stage) -> str:
    """The type of the elements a stage stores."""
    return {"": "float", "pair": "px2"}.get(stage.px, "px")


def _tiled_source(name: str, stage: Stage, index: int, px_in: dict[int, str]) -> str:
    """A stencil whose block stages its input's tile and halo (clamped into the image) in
    shared memory, waits, then computes under `if (x < w && y < h)`: the form the tool keeps
    as a group's last kernel (docs/fusion.md, "Stencils staged in shared memory")."""
    assert stage.kind == "stencil" and stage.border == "clamp" and not stage.reads, stage
    assert stage.store == "plain" and not stage.channels and not stage.px, stage
    rx, ry, m = stage.rx, stage.ry, _MEMBER[px_in.get(0, "")]
    extra = " + ".join("0.5f * " + _own_px(f"s{j}[y * w + x]", px_in.get(j, ""))
                       for j in range(1, len(stage.inputs)))
    lines = [_signature(name, stage, px_in),
             f"  __shared__ float tile[TILE_H + {2 * ry}][TILE_W + {2 * rx}];",
             f"  {'const ' if stage.tiled == 'const' else ''}int tx = threadIdx.x, "
             "ty = threadIdx.y;",
             "  const int x = blockIdx.x * TILE_W + tx;",
             "  const int y = blockIdx.y * TILE_H + ty;",
             f"  for (int dy = ty; dy < TILE_H + {2 * ry}; dy += TILE_H)",
             f"    for (int dx = tx; dx < TILE_W + {2 * rx}; dx += TILE_W) {{",
             f"      const int gx = min(max((int)(blockIdx.x * TILE_W) + dx - {rx}, 0), w - 1);",
             f"      const int gy = min(max((int)(blockIdx.y * TILE_H) + dy - {ry}, 0), h - 1);",
             f"      tile[dy][dx] = s0[gy * w + gx]{m};",
             "    }",
             "  __syncthreads();",
             "  if (x < w && y < h) {",
             "    float acc = 0.0f;",
             f"    for (int dy = -{ry}; dy <= {ry}; ++dy)",
             f"      for (int dx = -{rx}; dx <= {rx}; ++dx)",
             f"        acc += 0.0625f * (float)(dx * 3 + dy * 5 + {index + 7}) * "
             f"tile[ty + {ry} + dy][tx + {rx} + dx];",
             f"    out[y * w + x] = acc{' + ' + extra if extra else ''};",
             "  }",
             "}"]
    return "\n".join(lines) + "\n"


def _channel_stores(stage: Stage, idx: str, value: str, u: str) -> list[str]:
    """The stage's value v in a local, then its channels' stores: one statement each (in
    ascending order), or one in a loop over c."""
    k, layout = stage.channels, stage.layout
    out = [f"  const float v = {value};"]
    if stage.loop:
        return out + [f"  for (int c = 0; c < {k}; ++c)",
                      f"    out[{channel_index(layout, k, 'c', idx)}] = "
                      f"v * (0.5f + 0.25f * c) + {u};"]
    return out + [f"  out[{channel_index(layout, k, c, idx)}] = "
                  f"{_CHANNEL_OPS[c].format(v='v', u=u)};" for c in stage.stored]


def _signature(name: str, stage: Stage, px_in: dict[int, str] | None = None) -> str:
    """An in-place stage's first parameter is the buffer it updates; it has no `out`."""
    px_in = px_in or {}
    params = [f"const {px_in.get(j, 'float')} *__restrict__ s{j}"
              for j in range(len(stage.inputs))]
    if stage.in_place:
        assert stage.kind == "point" and stage.inputs[0] != 0 and not px_in, stage
        params[0] = "float *__restrict__ s0"
    else:
        params.append(f"{element_type(stage)} *__restrict__ out")
    return f"__global__ void {name}({', '.join(params)}, int w, int h) {{"


def _guarded(stage: Stage, x: str, y: str, body: list[str]) -> list[str]:
    """`body` under the stage's guard: after an early return, or in an if (unbraced when the
    body is a single line)."""
    form, cond = GUARDS[stage.guard]
    cond = cond.format(x=x, y=y)
    if form == "return":
        return [f"  if ({cond}) return;", *body]
    if form == "split":
        return [f"  if ({c}) return;" for c in cond.split("|")] + body
    if form == "nested":
        outer, inner = cond.split("|")
        return [f"  if ({outer}) {{", f"   if ({inner}) {{", *body, "   }", "  }"]
    if len(body) == 1:
        return [f"  if ({cond})", *body]
    return [f"  if ({cond}) {{", *body, "  }"]


def _store_plain(stage: Stage, store: str, value: str, own: str, extra: str) -> list[str]:
    return [f"  {store} = {value};"]


def _store_ifelse(stage: Stage, store: str, value: str, own: str, extra: str) -> list[str]:
    """Both branches store the own element (the condition on the stage's own input, or on
    the stencil's sum)."""
    cond = "acc > 1.0f" if stage.kind == "stencil" else f"{own} > 0.5f"
    alt = "acc * 0.5f - 0.25f" if stage.kind == "stencil" else f"{own} * -0.5f + 1.0f"
    return [f"  if ({cond})", f"    {store} = {value};", "  else", f"    {store} = {alt};"]


def _store_inplace(stage: Stage, store: str, value: str, own: str, extra: str) -> list[str]:
    """`a[i] = a[i] * 0.75f + 0.125f + 0.5f * b[i]`: the first input updated in place."""
    return [f"  {own} = {value};"]


def _store_addto(stage: Stage, store: str, value: str, own: str, extra: str) -> list[str]:
    """`a[i] += ...`: the first input updated in place."""
    return [f"  {own} += {extra or own + ' * 0.25f'};"]


_STORE_WRITERS = {"plain": _store_plain, "ifelse": _store_ifelse, "inplace": _store_inplace,
                  "addto": _store_addto}


def _gridstride_source(name: str, stage: Stage, index: int) -> str:
    """A point stage over the w * h pixels as a 1-D grid-stride loop."""
    assert stage.kind == "point", "grid-stride stages are point stages"
    assert not stage.channels and not any(stage.reads), "grid-stride stages read no channels"
    params = ", ".join(f"const float *__restrict__ s{j}" for j in range(len(stage.inputs)))
    extra = " + ".join(f"0.5f * s{j}[i]" for j in range(1, len(stage.inputs)))
    op = _POINT_OPS[index % 3].format(v="s0[i]")
    return (f"__global__ void {name}({params}, float *__restrict__ out, int w, int h) {{\n"
            "  const int n = w * h;\n"
            "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
            "       i += blockDim.x * gridDim.x) {\n"
            f"    out[i] = {op}{' + ' + extra if extra else ''};\n"
            "  }\n}\n")


def _gridstride2d_source(name: str, stage: Stage, index: int) -> str:
    """A stage as a 2-D grid-stride loop over the image (y outside for even stages, x for
    odd ones), the steps in variables; no guard (the loops are the bounds)."""
    assert not stage.channels and not any(stage.reads), "grid-stride stages read no channels"
    params = ", ".join(f"const float *__restrict__ s{j}" for j in range(len(stage.inputs)))
    loops = ["for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += sy)",
             "for (int x = threadIdx.x + blockIdx.x * blockDim.x; x < w; x += sx)"]
    outer, inner = loops if index % 2 == 0 else loops[::-1]
    extra = " + ".join(f"0.5f * s{j}[y * w + x]" for j in range(1, len(stage.inputs)))
    tail = f" + {extra}" if extra else ""
    lines = [f"__global__ void {name}({params}, float *__restrict__ out, int w, int h) {{",
             "  const int sx = blockDim.x * gridDim.x;",
             "  const int sy = gridDim.y * blockDim.y;",
             f"  {outer} {{", f"    {inner} {{"]
    if stage.kind == "stencil":
        lines += ["      float acc = 0.0f;",
                  f"      for (int dy = -{stage.ry}; dy <= {stage.ry}; ++dy) {{",
                  f"        for (int dx = -{stage.rx}; dx <= {stage.rx}; ++dx) {{",
                  "          const int xx = x + dx;",
                  "          const int yy = y + dy;",
                  f"          const float wt = 0.0625f * (float)(dx * 3 + dy * 5 + {index + 7});",
                  f"          acc += wt * {_read(stage.border, 's0')};",
                  "        }",
                  "      }",
                  f"      out[y * w + x] = acc{tail};"]
    else:
        op = _POINT_OPS[index % 3].format(v="s0[y * w + x]")
        lines.append(f"      out[y * w + x] = {op}{tail};")
    lines += ["    }", "  }", "}"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Host:
    """How a pipeline's host function spells its buffers and launches (issue 25); the
    defaults are the plain spelling."""

    ptrvars: bool = False  # `float *d1 = b1; ... k<<<...>>>(src, d1, ...)`
    # (a, b, after): `float *pa = a, *pb = b;`, `std::swap(pa, pb);` after each launch in
    # `after`; an argument is spelled by the variable holding its buffer
    swap: tuple[int, int, tuple[int, ...]] | None = None
    struct: bool = False  # buffers in a struct passed by value to a helper that launches
    malloc: bool = False  # intermediates cudaMalloc'd (and cudaFree'd) by the host function
    check: bool = False  # CHECK(...) around runtime calls and after each launch

    def allocated(self, stages: list[Stage]) -> list[int]:
        """The buffers the host function allocates itself: every stage's own output but the
        last stage's (none unless `malloc`)."""
        if not self.malloc:
            return []
        return [i + 1 for i, s in enumerate(stages[:-1]) if not s.in_place]


PLAIN_HOST = Host()


def px_buffers(stages: list[Stage]) -> dict[int, str]:
    """The buffers holding structs, with their element type (px or px2)."""
    return {written(stages, i): element_type(s) for i, s in enumerate(stages) if s.px}


def pipeline_source(name: str, stages: list[Stage], host: Host = PLAIN_HOST) -> str:
    """Kernels `<name>_k<i>` and `extern "C" void <name>(const float *in0, float *b1, ...,
    int w, int h)` (no b<i + 1> for a stage i that updates a buffer in place; `float *io0`
    after in0 when a stage reads or updates it; none for a buffer `host` allocates)."""
    pxs = px_buffers(stages)
    parts = [kernel_source(f"{name}_k{i}", s, i,
                           {p: pxs[j] for p, j in enumerate(s.inputs) if j in pxs})
             for i, s in enumerate(stages)]
    local = host.allocated(stages)
    outs = [IO] * any(IO in s.inputs for s in stages) + [
        i + 1 for i, s in enumerate(stages) if not s.in_place]
    params = [j for j in outs if j not in local]
    bufs = ", ".join(f"float *{buffer_name(j)}" for j in params)
    if any(s.style == "gridstride" for s in stages):
        # A small grid on purpose: each thread strides over several pixels.
        body = ["  const int block = 64;",
                "  const int grid = (w * h + 4 * block - 1) / (4 * block);"]
    else:
        body = ["  dim3 block(8, 4);",
                "  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);"]
        if any(s.style == "gridstride2d" for s in stages):  # each thread loops in x and y
            body.append("  dim3 quarter((w + 15) / 16, (h + 7) / 8);")
        if any(s.style == "rows_first" for s in stages):  # the grid's x over the rows
            body.append("  dim3 rows((h + block.x - 1) / block.x, (w + block.y - 1) / block.y);")
    # How the launches name each buffer: through the struct, a pointer variable, a swapped one.
    spelled = {j: buffer_name(j) for j in [0, *outs]}
    if host.struct:
        spelled |= {j: f"bufs.{buffer_name(j)}" for j in outs}
    if host.ptrvars:
        body.append(f"  const float *src = {spelled[0]};")
        body += [f"  float *d{buffer_name(j)} = {spelled[j]};" for j in outs]
        spelled = {0: "src"} | {j: f"d{buffer_name(j)}" for j in outs}
    holder: dict[int, str] = {}
    if host.swap is not None:
        a, b, _ = host.swap
        body.append(f"  float *pa = {spelled[a]}, *pb = {spelled[b]};")
        holder = {a: "pa", b: "pb"}
    for i, s in enumerate(stages):
        args = [holder.get(j, spelled[j]) if j else spelled[0] for j in s.inputs]
        args += [] if s.in_place else [holder.get(i + 1, spelled[i + 1])]
        args = [f"({pxs[j]} *){a}" if j in pxs else a
                for j, a in zip([*s.inputs, i + 1], args, strict=False)]
        grid = {"gridstride2d": "quarter", "rows_first": "rows"}.get(s.style, "grid")
        shape = {"linear": "(w * h + 127) / 128, 128", "rowblock": "h, w"}.get(
            s.style, f"{grid}, block")
        body.append(f"  {name}_k{i}<<<{shape}>>>({', '.join(args)}, w, h);")
        if host.check:
            body.append("  CHECK(cudaGetLastError());")
        if host.swap is not None and i in host.swap[2]:
            body.append("  std::swap(pa, pb);")
            holder = {j: {"pa": "pb", "pb": "pa"}[v] for j, v in holder.items()}
    if host.struct:  # the launches in a helper given the buffers in a struct by value
        fields = " ".join(f"float *{buffer_name(j)};" for j in outs)
        parts.append(f"struct {name}_bufs {{ {fields} }};\n\n"
                     f"static void {name}_run(const float *in0, {name}_bufs bufs, int w, "
                     f"int h) {{\n" + "\n".join(body) + "\n}\n")
        body = [f"  {name}_bufs bufs;"] + [f"  bufs.{buffer_name(j)} = {buffer_name(j)};"
                                           for j in outs] + [f"  {name}_run(in0, bufs, w, h);"]
    def size(j: int) -> str:
        return f"(size_t)w * h * sizeof({pxs.get(j, 'float')})"

    alloc = [f"  float *{buffer_name(j)} = nullptr;\n  " + (
        f"CHECK(cudaMalloc(&{buffer_name(j)}, {size(j)}));" if host.check else
        f"cudaMalloc((void **)&{buffer_name(j)}, {size(j)});") for j in local]
    free = [f"  CHECK(cudaFree({buffer_name(j)}));" if host.check else
            f"  cudaFree({buffer_name(j)});" for j in local]
    parts.append(f'extern "C" void {name}(const float *in0, {bufs}, int w, int h) {{\n'
                 + "\n".join(alloc + body + free) + "\n}\n")
    return "\n".join(parts)


HEADER = ("#include <cuda_runtime.h>\n\n#define IDX(X, Y) ((Y) * w + (X))\n"
          "#define PLANE(c, i) ((c) * w * h + (i))\n\n")
# What issue 25's spellings need: std::swap, an error-check macro, the px element, the
# coordinate helpers, the tile's shape.
HEADER_25 = (
    "#include <cstdio>\n#include <cstdlib>\n#include <utility>\n\n"
    "#define CHECK(call) do { cudaError_t err_ = (call); if (err_ != cudaSuccess) { "
    "fprintf(stderr, \"%s\\n\", cudaGetErrorString(err_)); exit(1); } } while (0)\n"
    f"#define TILE_W {TILE_W}\n#define TILE_H {TILE_H}\n\n"
    "struct px { float v; };\nstruct px2 { float a, b; };\n\n"
    "__device__ int gen_x() { return blockIdx.x * blockDim.x + threadIdx.x; }\n"
    "__device__ int gen_y() { return blockIdx.y * blockDim.y + threadIdx.y; }\n\n")


def file_source(pipelines: dict[str, list[Stage]], hosts: dict[str, Host] | None = None
                ) -> str:
    # IDX takes the row width from the scope it expands in (each kernel's `w`).
    # PLANE(c, i): channel c of element i of a planar buffer (w and h from the scope too).
    # (HEADER_25 only with `hosts`, so that the files of the other generated tests stay as
    # they were.)
    header = HEADER if hosts is None else HEADER + HEADER_25
    return header + "\n".join(pipeline_source(name, stages, (hosts or {}).get(name, PLAIN_HOST))
                               for name, stages in pipelines.items())


def chains(border: str) -> dict[str, list[Stage]]:
    """Point/stencil chains of depth 1-3, shared inputs, multi-input stages, for one border."""
    def S(*ins: int, rx: int = 1, ry: int = 1, g: str = "return") -> Stage:  # noqa: N802
        return Stage("stencil", ins, rx, ry, border, g)

    def P(*ins: int, g: str = "return") -> Stage:  # noqa: N802
        return Stage("point", ins, guard=g)

    return {
        "ps": [P(0), S(1)],
        "sp": [S(0), P(1, g="if")],
        "ss": [S(0), S(1, rx=2, ry=1)],
        "psp": [P(0, g="if"), S(1, g="if"), P(2, g="if")],
        "sss": [S(0), S(1), S(2, rx=1, ry=2)],
        "sps": [S(0, rx=2, ry=2), P(1), S(2)],
        # two stages share the input, the third joins them
        "shared": [S(0, g="if"), P(0), P(1, 2, g="if")],
        "diamond": [P(0), S(1), S(1), P(2, 3)],
        "multi": [S(0), S(1, 0), P(2, 1)],  # a stencil of one buffer plus a point read of in0
    }
