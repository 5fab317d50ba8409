"""The horizontal pass's inputs: the two kernels found in one or two parsed files, the
second file's clashing names renamed apart, each kernel's block shape and where it came from,
the register cap as given (`--regcap auto`: chosen from ptxas' figures), the pass run on them
and its output checked. Diagnostics worth showing (parse warnings, renaming
notes) are collected in the caller's list, not printed: the CLI prints them, the API returns
them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions, parse_file

if TYPE_CHECKING:
    from cudafuse.codegen.templates import KernelRef
    from cudafuse.frontend.parse import ParseResult
    from cudafuse.ir.program import TranslationUnit
    from cudafuse.passes.horizontal.driver import HFuseOptions, HFuseResult
    from cudafuse.passes.horizontal.parts import Shape
    from cudafuse.passes.horizontal.regcap_auto import Choice


@dataclass(frozen=True)
class Inputs:
    """The parsed inputs of an hfuse command: units, the two kernels, their block shapes
    and where each shape came from."""

    results: tuple[ParseResult, ...]
    units: tuple[TranslationUnit, TranslationUnit]
    refs: tuple[KernelRef, KernelRef]
    shapes: tuple[Shape, Shape]
    sources: tuple[str, str]
    renamed: dict[str, str]  # the second file's names renamed apart from the first's


def resolve_inputs(files: tuple[str, ...], kernels: str | None, block1: str | None,
                   block2: str | None, parse_opts: ParseOptions,
                   diagnostics: list[Diagnostic]) -> Inputs:
    from cudafuse.analysis.blocksize import default_block
    from cudafuse.codegen.templates import split_top
    from cudafuse.passes.horizontal.driver import find_kernel
    from cudafuse.passes.horizontal.parts import Shape

    if len(files) > 2:
        raise error("hfuse takes one or two input files", status=2)
    names: list[str | None] = [None, None]
    if kernels is not None:
        parts = split_top(kernels)
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise error(f"--kernels takes two kernel names, A,B, not '{kernels}'", status=2)
        names = [p.strip() for p in parts]
    elif len(files) == 1:
        raise error("with one input file, name the two kernels with --kernels A,B", status=2)
    given: list[Shape | None] = []
    for opt, text in (("--block1", block1), ("--block2", block2)):
        try:
            given.append(Shape.parse(text) if text is not None else None)
        except ValueError:
            raise error(f"{opt} takes a block shape X, XxY or XxYxZ, not '{text}'",
                        status=2) from None
    results = [parse_file(f, parse_opts) for f in dict.fromkeys(files)]
    for r in results:
        diagnostics.extend(r.diagnostics)
    renamed: dict[str, str] = {}
    if len(results) == 2:
        results[1], renamed = _rename_apart(results[0], results[1], parse_opts, diagnostics)
        if names[1] is not None:
            base, _, rest = names[1].partition("<")
            qual, _, base = base.strip().rpartition("::")
            if base in renamed:
                names[1] = (qual + "::" if qual else "") + renamed[base] + \
                    ("<" + rest if rest else "")
    u1, u2 = results[0].unit, results[-1].unit
    k1, k2 = find_kernel(u1, names[0], parse_opts), find_kernel(u2, names[1], parse_opts)
    shapes, sources = [], []
    for i, (unit, ref, shape) in enumerate(((u1, k1, given[0]), (u2, k2, given[1])), 1):
        if shape is None:
            threads, source = default_block(unit, ref, f"--block{i}")
            shape = Shape(threads)
        else:
            source = f"--block{i}"
        shapes.append(shape)
        sources.append(source)
    return Inputs(tuple(results), (u1, u2), (k1, k2), (shapes[0], shapes[1]),
                  (sources[0], sources[1]), renamed)


def _rename_apart(r1: ParseResult, r2: ParseResult, parse_opts: ParseOptions,
                  diagnostics: list[Diagnostic]) -> tuple[ParseResult, dict[str, str]]:
    """The second input, re-parsed with the names it shares with the first renamed apart
    (rename.py), and what was renamed."""
    from cudafuse.passes.horizontal.driver import (
        _prefix,
        macro_clashes,
        one_sided_macros,
        type_clashes,
    )
    from cudafuse.passes.horizontal.guards import shared_guards
    from cudafuse.passes.horizontal.rename import rename_apart

    u1, u2 = r1.unit, r2.unit
    types = type_clashes(u1, u2)
    macros_of_2, macros_of_1 = one_sided_macros(u1, u2)
    shared = shared_guards(u1, u2)
    renaming = rename_apart(u1, u2, _prefix([u1.source.data, u2.source.data]) + "_in2",
                            types, (*macro_clashes(u1, u2), *macros_of_2), macros_of_1,
                            shared.names)
    if shared.diagnostics or renaming.diagnostics:
        raise CudafuseError([*shared.diagnostics, *renaming.diagnostics])
    if not renaming.renamed:
        return r2, {}
    try:
        result = parse_file(u2.path, parse_opts, text=renaming.text)
    except CudafuseError as exc:
        first = exc.diagnostics[0].message if exc.diagnostics else ""
        raise error(f"renaming {', '.join(sorted(renaming.renamed))} apart from "
                    f"{u1.path}'s names does not compile ({first}); rename them in one of "
                    "the files", u2.path) from None
    one_sided = set(macros_of_1) | set(macros_of_2)
    diagnostics.extend([Diagnostic(
        Severity.NOTE, f"'{old}' is " + (renaming.reasons.get(old) or (
            "a macro in one input and an identifier in the other" if old in one_sided
            else "defined in both inputs"))
        + f": in the output, this file's is '{new}'", u2.path)
        for old, new in renaming.renamed.items()])
    return result, renaming.renamed


def auto_regcap(inputs: Inputs, opts: HFuseOptions, parse_opts: ParseOptions) -> Choice:
    """`--regcap auto`: the cap chosen from ptxas' figures of the fused kernel at the caps
    that would gain an occupancy step (regcap_auto.py), with every compile read."""
    import dataclasses
    import shutil
    from pathlib import Path

    from cudafuse.codegen.templates import DEDUCED
    from cudafuse.passes import run_pass
    from cudafuse.passes.horizontal.regbound import SMS
    from cudafuse.passes.horizontal.regcap_auto import decide

    if shutil.which("nvcc") is None:
        raise error("--regcap auto needs nvcc on PATH (it reads the fused kernel's register "
                    "counts and spills from ptxas)", status=2)
    if parse_opts.arch not in SMS:
        raise error(f"--regcap auto knows {', '.join(SMS)}, not '{parse_opts.arch}'",
                    status=2)
    deduced = [p.name for ref in inputs.refs for p, a in ref.bindings if a == DEDUCED]
    if deduced:
        # Its code exists only once a caller instantiates it with its functor (a lambda).
        raise error(f"--regcap auto compiles the fused kernel for ptxas' figures, but it is a "
                    f"template over '{deduced[0]}', the type of a functor its launch deduces "
                    "(a lambda): no file instantiates it; give --regcap N or none", status=2)

    def emit(cap: int | None) -> tuple[bytes, str]:
        res = run_pass("horizontal", inputs.units, dataclasses.replace(opts, regcap=cap),
                       kernels=inputs.refs)
        return res.output, res.name

    # The output's relative #includes resolve from its folder (or the inputs' own).
    dirs = [opts.out_dir, *(str(Path(u.path).resolve().parent) for u in inputs.units),
            *parse_opts.include_dirs]
    flags = (*(f"-I{d}" for d in dict.fromkeys(dirs) if d), *(f"-D{d}" for d in parse_opts.defines))
    return decide(emit, opts.block1.count + opts.block2.count, parse_opts.arch, flags)


def regcap_value(regcap: int | str | None) -> int | None:
    """A register cap as given (a number, 'none', 'auto' or None): the number, or None."""
    if regcap is None or regcap in ("none", "auto"):
        return None
    text = str(regcap)
    if not text.isdigit() or not 16 <= int(text) <= 255:
        raise error(f"--regcap must be 'none', 'auto' or a register count in 16-255, not "
                    f"'{regcap}'", status=2)
    return int(text)


def run_on_inputs(inputs: Inputs, mode: str, regcap: int | str | None, name: str,
                  parse_opts: ParseOptions, regcap_how: str = "", out_dir: str = ""
                  ) -> HFuseResult:
    """The horizontal pass on resolved inputs with the user's mode, register cap (a number,
    'none', 'auto' or None) and name: the API's path, and the CLI's after --profile or
    --from-profile may have chosen the mode, cap and blocks."""
    import dataclasses

    from cudafuse.passes import run_pass
    from cudafuse.passes.horizontal.driver import HFuseOptions

    cap, how = regcap_value(regcap), regcap_how
    if mode == "streams" and cap is not None:
        raise error("a register cap applies to a fused kernel; mode 'streams' has none",
                    status=2)
    if regcap == "auto" and mode != "thread":
        raise error("--regcap auto is HFuse's bound for the thread split; give a number "
                    "in block mode", status=2)
    opts = HFuseOptions(inputs.shapes[0], inputs.shapes[1], mode, cap, name, how,
                        inputs.sources, out_dir)
    if regcap != "auto":
        return run_pass("horizontal", inputs.units, opts, kernels=inputs.refs)
    # From ptxas' figures of the fused kernel at each useful cap; --explain gets the table.
    choice = auto_regcap(inputs, opts, parse_opts)
    opts = dataclasses.replace(opts, regcap=choice.cap, regcap_how=choice.how)
    res = run_pass("horizontal", inputs.units, opts, kernels=inputs.refs)
    res.explain[1:1] = choice.table()
    return res


def check_emitted(res: HFuseResult, inputs: Inputs, where: str,
                  parse_opts: ParseOptions) -> list[Diagnostic]:
    """The emitted program, as the file `where` it will be written to, compiles (the front
    end, then nvcc where it is on PATH: codegen/compile_check.py) and its calls bind as in
    the inputs (bindings.py); raises a located error otherwise. Returns the warnings worth
    showing."""
    from cudafuse.codegen.compile_check import nvcc_check, reparse
    from cudafuse.passes.horizontal.bindings import mismatches
    from cudafuse.passes.horizontal.driver import UNFUSED, emitted_names

    files = list(dict.fromkeys(r.unit.path for r in inputs.results))
    known = [d for r in inputs.results for d in r.diagnostics]
    what = "fused output"
    out = reparse(res.output, where, parse_opts, known=known, generated=emitted_names(res),
                  what=what)
    if res.options.mode not in UNFUSED:
        markers = [res.output.find(f"{{  // part {i}: kernel".encode()) for i in (1, 2)]
        if min(markers) >= 0:
            wrong = mismatches(out, res.name, [(p.unit, p.fn) for p in res.parts], markers)
            if wrong:
                raise CudafuseError(wrong)
    return nvcc_check(res.output, where, parse_opts, inputs=files, what=what)
