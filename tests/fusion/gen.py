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
over c (`loop`: the tool refuses it as a producer). A stage reads a buffer of channels at
constant channels of its own element (`reads`: for each input, the layout spelling and the
channels, in any order and with repetition) or, as a stencil's first input, over one plane
(the tool refuses both that and a read of an unstored channel).
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


def _at(style: str, buf: str, x: str, y: str, plane: ChannelRead | None = None) -> str:
    """`buf` subscripted at pixel (x, y) in the stage's style (in `plane`'s first channel)."""
    own = f"IDX({x}, {y})" if style == "macro" else f"{y} * w + {x}"
    if plane is not None:
        own = channel_index(plane.layout, plane.k, plane.chans[0], own)
    return f"{buf}[{own}]"


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


def _read(border: str, buf: str, style: str = "plain", plane: ChannelRead | None = None
          ) -> str:
    xs = {"clamp": "min(max(xx, 0), w - 1)",
          "mirror": "(xx < 0 ? -xx - 1 : (xx >= w ? 2 * w - xx - 1 : xx))",
          "mirror101": "(xx < 0 ? -xx : (xx >= w ? 2 * w - xx - 2 : xx))",
          "wrap": "((xx % w + w) % w)"}
    if border == "constant":
        return (f"((xx >= 0 && xx < w && yy >= 0 && yy < h) ? "
                f"{_at(style, buf, 'xx', 'yy', plane)} : 0.25f)")
    xexpr = xs[border]
    yexpr = xexpr.replace("xx", "yy").replace("w", "h")
    return _at(style, buf, xexpr, yexpr, plane)


_POINT_OPS = ("{v} * 0.75f + 0.125f", "sqrtf(fabsf({v})) - 0.5f", "{v} * {v} + 0.25f")


_COEFS = ("", "0.5f * ", "0.25f * ", "0.75f * ")  # of the channels a stage reads, in turn
# Channel c of a channel stage: a function of its value v and u, its first input's own
# element.
_CHANNEL_OPS = ("{v}", "{v} * 0.5f + 0.25f", "sqrtf(fabsf({v})) - {u}", "0.75f - {v} * {u}")


def kernel_source(name: str, stage: Stage, index: int) -> str:
    if stage.style == "gridstride":
        return _gridstride_source(name, stage, index)
    if stage.style == "gridstride2d":
        return _gridstride2d_source(name, stage, index)
    lines = [_signature(name, stage)]
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
    if stage.style == "flat":
        body.append("  const int idx = y * w + x;")
    idx = own_index(stage.style)
    store = f"out[{idx}]"

    def own(j: int) -> str:
        """Input j at the own element: plainly, or a sum of the channels the stage reads."""
        r = stage.read_of(j)
        if r is None:
            return f"s{j}[{idx}]"
        return "(" + " + ".join(f"{_COEFS[m % 4]}s{j}[{channel_index(r.layout, r.k, c, idx)}]"
                                for m, c in enumerate(r.chans)) + ")"

    extra = " + ".join("0.5f * " + own(j) for j in range(1, len(stage.inputs)))
    if stage.kind == "stencil":
        read = _read(stage.border, "s0", stage.style, stage.read_of(0))
        body += ["  float acc = 0.0f;",
                 f"  for (int dy = -{stage.ry}; dy <= {stage.ry}; ++dy) {{",
                 f"    for (int dx = -{stage.rx}; dx <= {stage.rx}; ++dx) {{",
                 f"      const int xx = {x} + dx;",
                 f"      const int yy = {y} + dy;",
                 f"      const float wt = 0.0625f * (float)(dx * 3 + dy * 5 + {index + 7});",
                 f"      acc += wt * {read};",
                 "    }",
                 "  }"]
        value = f"acc{' + ' + extra if extra else ''}"
    else:
        value = f"{_POINT_OPS[index % 3].format(v=own(0))}{' + ' + extra if extra else ''}"
    if stage.channels:
        assert stage.store == "plain", stage
        body += _channel_stores(stage, idx, value, own(0))
    else:
        body += _STORE_WRITERS[stage.store](stage, store, value, own(0), extra)
    lines += body if stage.style == "linear" else _guarded(stage, x, y, body)
    lines.append("}")
    return "\n".join(lines) + "\n"


def own_index(style: str) -> str:
    """A stage's own element, as its style spells it."""
    return {"flat": "idx", "macro": "IDX(x, y)", "rowcol": "row * w + col",
            "int2": "p.y * w + p.x", "rows_first": "r * w + c"}.get(style, "y * w + x")


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


def _signature(name: str, stage: Stage) -> str:
    """An in-place stage's first parameter is the buffer it updates; it has no `out`."""
    params = [f"const float *__restrict__ s{j}" for j in range(len(stage.inputs))]
    if stage.in_place:
        assert stage.kind == "point" and stage.inputs[0] != 0, stage
        params[0] = "float *__restrict__ s0"
    else:
        params.append("float *__restrict__ out")
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


def pipeline_source(name: str, stages: list[Stage]) -> str:
    """Kernels `<name>_k<i>` and `extern "C" void <name>(const float *in0, float *b1, ...,
    int w, int h)` (no b<i + 1> for a stage i that updates a buffer in place; `float *io0`
    after in0 when a stage reads or updates it)."""
    parts = [kernel_source(f"{name}_k{i}", s, i) for i, s in enumerate(stages)]
    bufs = ", ".join(["float *io0"] * any(IO in s.inputs for s in stages)
                     + [f"float *b{i + 1}" for i, s in enumerate(stages) if not s.in_place])
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
    for i, s in enumerate(stages):
        args = [buffer_name(j) for j in s.inputs]
        args += [] if s.in_place else [f"b{i + 1}"]
        grid = {"gridstride2d": "quarter", "rows_first": "rows"}.get(s.style, "grid")
        if s.style == "linear":
            body.append(f"  {name}_k{i}<<<(w * h + 127) / 128, 128>>>({', '.join(args)}, w, h);")
        else:
            body.append(f"  {name}_k{i}<<<{grid}, block>>>({', '.join(args)}, w, h);")
    parts.append(f'extern "C" void {name}(const float *in0, {bufs}, int w, int h) {{\n'
                 + "\n".join(body) + "\n}\n")
    return "\n".join(parts)


def file_source(pipelines: dict[str, list[Stage]]) -> str:
    # IDX takes the row width from the scope it expands in (each kernel's `w`).
    # PLANE(c, i): channel c of element i of a planar buffer (w and h from the scope too).
    return ("#include <cuda_runtime.h>\n\n#define IDX(X, Y) ((Y) * w + (X))\n"
            "#define PLANE(c, i) ((c) * w * h + (i))\n\n") + "\n".join(
        pipeline_source(name, stages) for name, stages in pipelines.items())


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
