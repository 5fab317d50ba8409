"""cudafuse as a Python library: what the `analyze`, `fuse`/`plan` and `hfuse` commands do,
without files written or anything printed (docs/api.md).

    import cudafuse
    fused = cudafuse.fuse("pipeline.cu", include_dirs=["include"])
    Path("pipeline.fused.cu").write_text(fused.text)

Every function parses its inputs as the CLI does (the parse options below), runs the pass
registered in cudafuse.passes, and returns a result whose `.diagnostics` are the warnings and
notes the CLI would print. Bad input raises `cudafuse.Error` (CudafuseError) whose
`.diagnostics` locate it (file, line, column) after any warnings given before it; `.status`
is the exit status the CLI would use (1: bad input, 2: a bad option, 3: cudafuse's own bug).

Parse options (keyword arguments of every function): include_dirs, defines ("N" or "N=V"),
forced_includes, extra_args (more clang arguments), arch ("sm_90"), compdb (a build
directory or compile_commands.json, as `-p`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cudafuse.archs import arch_problem
from cudafuse.diagnostics import CudafuseError, Diagnostic, error
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.outputs import keep_line_endings
from cudafuse.passes import run_pass

if TYPE_CHECKING:
    from cudafuse.ir.program import TranslationUnit
    from cudafuse.passes.horizontal.driver import HFuseResult
    from cudafuse.passes.horizontal.inputs import Inputs
    from cudafuse.passes.vertical.driver import FuseResult

Error = CudafuseError


@dataclass
class Analysis:
    """`analyze`: `.report` is the JSON document of `analyze --format json`
    (docs/analyze-json.md); `.text` its text rendering."""

    report: dict[str, Any]
    diagnostics: list[Diagnostic]
    unit: TranslationUnit

    @property
    def text(self) -> str:
        from cudafuse.analysis.render import render_text

        return render_text(self.report)


@dataclass
class Fused:
    """`fuse`: `.text` the fused program (the input's text when nothing was fused), `.report`
    the `--report` document, `.explain` the `--explain` text; `.inputs` every file read (the
    input and the headers it includes: a depfile's prerequisites)."""

    text: str
    report: dict[str, Any]
    diagnostics: list[Diagnostic]
    explain: str
    inputs: list[str]
    result: FuseResult = field(repr=False)

    @property
    def changed(self) -> bool:
        return bool(self.result.groups)


@dataclass
class HFused:
    """`hfuse`: `.text` the output (the inputs and the fused kernel and its launcher),
    `.name` the fused kernel's name, `.report` the `--report` document, `.explain` the
    `--explain` lines; `.inputs` every file read."""

    text: str
    name: str
    report: dict[str, Any]
    diagnostics: list[Diagnostic]
    explain: list[str]
    inputs: list[str]
    result: HFuseResult = field(repr=False)


def parse_options(include_dirs: Iterable[str] = (), defines: Iterable[str] = (),
                  forced_includes: Iterable[str] = (), extra_args: Iterable[str] = (),
                  arch: str = "sm_90", compdb: str = "",
                  included_kernels: bool = False, instantiate: bool = False,
                  one_stub_round: bool = False) -> ParseOptions:
    """The front end's options from the API's keyword arguments (every field of
    ParseOptions: the CLI hands them over as asdict(ParseOptions))."""
    for name, value in (("include_dirs", include_dirs), ("defines", defines),
                        ("forced_includes", forced_includes), ("extra_args", extra_args)):
        if isinstance(value, str | bytes):
            raise TypeError(f"{name} takes a list of strings, not one string")
    problem = arch_problem(arch)  # what the CLI's --arch says, before libclang fails
    if problem:
        raise error(f"arch {problem}", status=2)
    return ParseOptions(tuple(map(str, include_dirs)), tuple(map(str, defines)),
                        tuple(map(str, forced_includes)), tuple(map(str, extra_args)),
                        arch, str(compdb), bool(included_kernels), bool(instantiate),
                        bool(one_stub_round))


class _Collected:
    """Diagnostics gathered on the way; an error raised meanwhile carries them first, so that
    warnings given before it (a parse warning, then a refusal) are not lost."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def __enter__(self) -> list[Diagnostic]:
        return self.items

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, CudafuseError) and self.items:
            exc.diagnostics[:0] = [d for d in self.items if d not in exc.diagnostics]
            exc.args = ("\n".join(d.format(caret=False) for d in exc.diagnostics),)


def analyze(path: str, **parse_opts: Any) -> Analysis:
    """What the front end and the analyses know about `path`'s kernels and launches."""
    from cudafuse.analysis.report import build_report

    # Kernels of the user's included files are analysed as the file's own (as by fuse).
    result = parse_file(str(path), dataclasses.replace(parse_options(**parse_opts),
                                                       included_kernels=True))
    return Analysis(build_report(result.unit), list(result.diagnostics), result.unit)


def fuse(path: str, *, partition: str = "auto", scratch: Iterable[str] = (),
         fuse_all: bool = False, tiles: str = "auto", block: tuple[int, int] | None = None,
         siblings: str = "auto", **parse_opts: Any) -> Fused:
    """Vertical fusion of `path`'s launch sequences, as `cudafuse fuse` (without --profile).

    partition: "auto", "mincut" or "exact"; scratch: pointer parameters of the host functions
    whose contents callers never read afterwards; fuse_all: fuse every legal group whatever
    the cost model says; tiles: "auto", "always" or "never"; block: (x, y), the block shape
    of fused 2-D groups; siblings: "auto", "always" or "never", independent launches of a
    sequence run as one launch (as the cost model decides, whenever legal, or not at all)."""
    from cudafuse.codegen.compile_check import nvcc_check, parses_in_place
    from cudafuse.passes.vertical.driver import FuseOptions, report_dict
    from cudafuse.passes.vertical.emit.render import explain_text
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
    from cudafuse.passes.vertical.notes import fuse_diagnostics
    from cudafuse.passes.vertical.plan.resources import annotate as annotate_resources

    _choice("partition", partition, ("auto", "mincut", "exact"))
    _choice("tiles", tiles, ("auto", "always", "never"))
    _choice("siblings", siblings, ("auto", "always", "never"))
    if isinstance(scratch, str):
        scratch = [scratch]
    try:
        scratch = list(scratch)
    except TypeError:
        scratch = [scratch]
    odd = [s for s in scratch if not isinstance(s, str)]
    if odd:
        raise error(f"scratch takes names of pointer parameters (strings), not {odd[0]!r}",
                    status=2)
    options = dataclasses.replace(parse_options(**parse_opts), included_kernels=True)
    with _Collected() as diags:
        result, as_written = parse_for_fusion(str(path), options)
        diags.extend(result.diagnostics)
        opts = FuseOptions(partition, options.arch, frozenset(scratch), fuse_all=fuse_all,
                           tiles=tiles, block=_block(block), siblings=siblings)
        fused = run_pass("vertical", [result.unit], opts)
        # ptxas figures per group; a group they make lose under the cost model: planned again
        fused = annotate_resources(fused, str(path), options.arch, options,
                                   rerun=lambda: run_pass("vertical", [result.unit], opts))
        if as_written is not None and fused.output in (result.unit.source.data,
                                                       result.unit.source.original):
            fused = dataclasses.replace(fused, output=as_written)  # nothing fused
        elif fused.output != result.unit.source.data:
            parses_in_place(str(path), options, fused.output, result.unit, result.diagnostics)
            diags.extend(nvcc_check(fused.output, str(path), options, inputs=[str(path)]))
            source = result.unit.source
            fused = dataclasses.replace(fused, output=keep_line_endings(
                fused.output, [source.original or source.data]))
        diags.extend(fuse_diagnostics(fused, result.unit, str(path)))
    return Fused(fused.output.decode("utf-8", errors="surrogateescape"), report_dict(fused),
                 diags, explain_text(fused), [str(path), *result.unit.includes], fused)


def hfuse(path1: str, path2: str | None = None, *, kernels: Sequence[str] | str | None = None,
          block1: str | int | None = None, block2: str | int | None = None,
          mode: str = "thread", regcap: int | str | None = None, name: str = "",
          output: str | None = None, **parse_opts: Any) -> HFused:
    """Horizontal fusion of two kernels, as `cudafuse hfuse` (without --profile).

    One file holding both kernels (kernels=("a", "b") or "a,b") or two files, one kernel
    each; block1/block2: each kernel's block ("256", "32x8" or an int; default: its
    __launch_bounds__); mode: "thread", "block", "streams" or "sequential"; regcap: a
    register cap (16-255), "auto" (from ptxas, needs nvcc: docs/hfuse.md) or None; name: the
    fused kernel's name (default <k1>_<k2>_hfused); output: where the text will be written
    (its relative #includes are rewritten for that folder and it is compiled there; default:
    beside the first file)."""
    from cudafuse.passes.horizontal.inputs import check_emitted, resolve_inputs, run_on_inputs

    _choice("mode", mode, ("thread", "block", "streams", "sequential"))
    if name and not (isinstance(name, str) and name.isascii() and name.isidentifier()):
        raise error(f"name must be a C identifier, not '{name}'", status=2)
    files = (str(path1),) if path2 is None else (str(path1), str(path2))
    names = ",".join(kernels) if isinstance(kernels, list | tuple) else kernels
    options = parse_options(**parse_opts)
    with _Collected() as diags:
        inputs = resolve_inputs(files, names, _shape(block1), _shape(block2), options, diags)
        where = str(output) if output else str(Path(path1).parent / f"{name or 'hfused'}.cu")
        res = run_on_inputs(inputs, mode, regcap, name, options,
                            out_dir=str(Path(where).parent))
        diags.extend(check_emitted(res, inputs, where, options))
    return hfused_result(with_line_endings(res, inputs), inputs, files, diags)


def with_line_endings(res: HFuseResult, inputs: Inputs) -> HFuseResult:
    """`res` whose added lines end as its input files' do (outputs.keep_line_endings)."""
    sources = [r.unit.source.original or r.unit.source.data for r in inputs.results]
    return dataclasses.replace(res, output=keep_line_endings(res.output, sources))


def hfused_result(res: HFuseResult, inputs: Inputs, files: tuple[str, ...],
            diags: list[Diagnostic]) -> HFused:
    from cudafuse.passes.horizontal.driver import report_dict

    read = list(dict.fromkeys([*files, *(i for r in inputs.results for i in r.unit.includes)]))
    return HFused(res.output.decode("utf-8", errors="surrogateescape"), res.name,
                  report_dict(res), diags, list(res.explain), read, res)


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise error(f"{option} must be one of {', '.join(allowed)}, not '{value}'", status=2)


def _block(block: tuple[int, int] | None) -> tuple[int, int] | None:
    if block is None:
        return None
    if len(block) != 2 or not all(isinstance(v, int) and v > 0 for v in block) or \
            block[0] * block[1] > 1024:
        raise error(f"block takes (x, y) with at most 1024 threads, not {block!r}", status=2)
    return int(block[0]), int(block[1])


def _shape(block: str | int | None) -> str | None:
    return None if block is None else str(block)
