"""`cudafuse verify --hfuse A.cu B.cu FUSED.cu`: an hfuse output against its two originals.

Each original kernel is launched alone on its spec's inputs, with its own grid, block and
dynamic shared memory; the fused file's launcher (`A_B_hfused_launch`, docs/hfuse.md) is
called once with both argument lists and both launch configurations, on fresh copies of
the same inputs; every output of both kernels is compared. The launches come from a pair
spec (`--spec PAIR.toml [--pair NAME]`, the format `hfuse --profile` reads, e.g.
samples/hfuse/pairs.toml) or from two kernel specs (`--spec1`/`--spec2`, each with the
kernel as `entry` and a [launch] table).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.execute import execute, report, run_bound
from cudafuse.frontend import ParseOptions
from cudafuse.runtime.spec_values import make_value

if TYPE_CHECKING:
    from cudafuse.runtime.spec import Spec
    from cudafuse.runtime.spec_bind import Slot


@dataclass(frozen=True)
class Side:
    file: str  # the original program
    spec: Spec  # entry = the kernel, grid/block/shared = its launch


def _sides(files: tuple[str, str], spec_path: str | None, pair: str | None,
           spec1: str | None, spec2: str | None, opts: ParseOptions, backend: str
           ) -> tuple[Side, Side]:
    from cudafuse.runtime.spec import load_spec

    if spec_path:
        from cudafuse.profile.pairspec import load_pair_spec

        ps = load_pair_spec(spec_path, pair)
        sides = []
        for f, s in zip(files, ps.sides, strict=True):
            kernel = s.kernel or _only_kernel(f, opts, backend, spec_path)
            sides.append(Side(f, dataclasses.replace(s.spec, entry=kernel, grid=s.grid,
                                                     block=s.block, shared=s.shared)))
        return sides[0], sides[1]
    out = []
    for option, f, path in (("--spec1", files[0], spec1), ("--spec2", files[1], spec2)):
        assert path is not None
        spec = load_spec(path)
        if spec.grid is None:
            raise error(f"{option}: 'entry' must be the kernel, with a [launch] table (its "
                        "grid, block and shared bytes)", path)
        out.append(Side(f, spec))
    return out[0], out[1]


def _only_kernel(path: str, opts: ParseOptions, backend: str, spec_path: str) -> str:
    from cudafuse.frontend import parse_file

    unit = parse_file(path, opts).unit
    kernels = sorted({f.name for f in unit.functions if f.is_kernel and f.body is not None})
    if len(kernels) != 1:
        raise error(f"the pair names no kernel for {path}, which has "
                    f"{len(kernels)} ({', '.join(kernels) or 'none'}): add kernel1/kernel2",
                    spec_path)
    return kernels[0]


def _base(kernel: str) -> str:
    """`at::native::im2col_kernel<float>` -> `im2col_kernel` (what hfuse names after)."""
    return kernel.split("<", 1)[0].rsplit("::", 1)[-1].strip()


def _launcher(signatures: dict[str, Any], k1: str, k2: str, fused: str) -> Any:
    want = f"{_base(k1)}_{_base(k2)}_hfused_launch"
    found = [s for s in signatures.values() if s.kind == "host" and
             s.name.endswith("_hfused_launch")]
    exact = [s for s in found if s.name == want]
    if exact:
        return exact[0]
    if len(found) == 1:
        return found[0]
    raise error(f"no launcher '{want}' (what `cudafuse hfuse` writes for {k1} and {k2}); "
                f"the file has {', '.join(s.name for s in found) or 'none'}", fused)


def verify_hfuse(files: tuple[str, ...], spec_path: str | None, pair: str | None,
                 spec1: str | None, spec2: str | None, backend: str, timeout: float,
                 sanitize: bool, opts: ParseOptions) -> bool:
    """Run both originals and the fused launcher; print one line per output; True when all
    match."""
    import tempfile

    first, second, fused = files
    s1, s2 = _sides((first, second), spec_path, pair, spec1, spec2, opts, backend)
    want, orders = [], []
    for side in (s1, s2):
        try:
            with tempfile.TemporaryDirectory(prefix="cudafuse-verify-") as tmp:
                path, spec = _runnable(side, opts, tmp)
                values, order = run_bound(path, spec, backend, opts, timeout, sanitize)
        except CudafuseError as exc:
            exc.diagnostics.append(Diagnostic(
                Severity.NOTE, f"the original kernel '{side.spec.entry}' fails with its "
                "spec, so the fused program was not checked: the spec or the original is at "
                "fault, not the transformation", side.file))
            raise
        want.append(values[:len(side.spec.args)])  # (then the [[symbols]] arrays)
        orders.append([i for i in order if i < len(side.spec.args)])
    got = [s1.spec.inputs(), s2.spec.inputs()]
    scratch = tempfile.TemporaryDirectory(prefix="cudafuse-verify-")
    program, wrapper = _fused_runnable(fused, (s1, s2), orders, opts, scratch.name)

    def body(lib: Any, slots: list[Slot]) -> None:
        sig = lib.signatures[wrapper] if wrapper else \
            _launcher(lib.signatures, s1.spec.entry, s2.spec.entry, fused)
        n = len(orders[0]) + len(orders[1]) + 5
        if len(sig.codes) != n + len(s1.spec.symbols) + len(s2.spec.symbols):
            raise error(f"'{sig.name}' takes {len(sig.codes)} parameters; the two kernels' "
                        f"{n - 5} and 5 for the launches were expected", fused)
        args: list[Any] = []
        for side, values, order in zip((s1, s2), got, orders, strict=True):
            args += [values[i] for i in order]
            slots.extend((side.spec.args[i], side.spec.path) for i in order)
        args += [s1.spec.grid, s2.spec.grid, s1.spec.shared, s2.spec.shared, None]
        slots.extend([None] * 5)
        for side in (s1, s2):  # the variables the wrapper sets first (_symbol_params)
            args += [make_value(sym) for sym in side.spec.symbols]
            slots.extend((sym, side.spec.path) for sym in side.spec.symbols)
        lib.call(sig.name, *args)

    with scratch:
        execute(program, backend, opts, timeout, sanitize, body)
    outputs = []
    for side, w, g in zip((s1, s2), want, got, strict=True):
        for a, wv, gv in zip(side.spec.args, w, g, strict=True):
            if a.is_output:
                outputs.append((dataclasses.replace(a, name=f"{side.spec.entry}.{a.name}"),
                                wv, gv))
    if not outputs:
        raise error("neither spec marks an argument as an output (role = \"out\" or "
                    "\"inout\")", spec_path or spec1 or "")
    if not any(w.size for _, w, _ in outputs):
        raise error("every output of the specs has count 0: there would be nothing to "
                    "compare", spec_path or spec1 or "")
    return report(outputs, max(s1.spec.rtol, s2.spec.rtol), max(s1.spec.atol, s2.spec.atol))


def _runnable(side: Side, opts: ParseOptions, tmp: str) -> tuple[str, Spec]:
    """The program and spec that run the side's kernel. A template instantiation or a
    kernel named with its namespaces (`at::native::im2col_kernel<float>`) is launched, as
    the spec says, by a host function appended to a copy of the file, in the kernel's
    namespaces, its parameters typed as the instantiation's: the kernel itself unchanged."""
    from pathlib import Path

    from cudafuse.codegen.templates import parse_kernel_ref
    from cudafuse.frontend import parse_file
    from cudafuse.passes.horizontal.driver import find_kernel, rehomed_includes
    from cudafuse.passes.horizontal.scopes import named, wrapped
    from cudafuse.profile.structs import wrapper_helpers
    from cudafuse.runtime.spec_struct import wrapper_params

    spec = side.spec
    if "<" not in spec.entry and "::" not in spec.entry and not _wrapped(spec):
        return side.file, spec
    unit = parse_file(side.file, opts).unit
    ref = find_kernel(unit, spec.entry, opts)
    name, args = parse_kernel_ref(spec.entry)
    kernel = ref.fn.name + (f"<{', '.join(args)}>" if args is not None else "")
    wrapper = f"cudafuse_verify_{ref.fn.name}"
    params = [p.name or f"arg{i}" for i, p in enumerate(ref.fn.params)]
    types = [f"typename cudafuse_param<{i}, decltype(&{kernel})>::type"
             for i in range(len(params))]
    decls, lines, passed = wrapper_params(types, params, _views(spec, params))
    sym_decls, sym_lines = _symbol_params(spec.symbols, 0)
    decls, lines = decls + sym_decls, sym_lines + lines
    assert spec.grid is not None and spec.block is not None
    grid, block = (", ".join(map(str, d)) for d in (spec.grid, spec.block))
    text = (f"void {wrapper}({', '.join(decls)}) {{\n" + "".join(f"  {x}\n" for x in lines) +
            f"  {kernel}<<<dim3({grid}), dim3({block}), {spec.shared}>>>"
            f"({', '.join(passed)});\n}}\n")
    data = rehomed_includes(side.file, unit.source.data, tmp)
    data += b"\n// ---- appended by cudafuse verify --hfuse\n" + wrapper_helpers(spec) + \
        wrapped(named(ref.fn.namespaces), text).encode()
    path = Path(tmp) / Path(side.file).name
    path.write_bytes(data)
    return str(path), dataclasses.replace(spec, entry=wrapper, grid=None, block=None,
                                          shared=0, args=spec.args + _symbol_args(spec, 0),
                                          symbols=[])


@contextlib.contextmanager
def structs_wrapped(path: str, spec: Spec, opts: ParseOptions
                    ) -> Iterator[tuple[str, Spec]]:
    """`path` and `spec` as given, or, for a kernel entry that takes a struct by value the
    spec gives as an array (`tensor`), a copy of the program with a host function that
    builds the structs and launches the kernel, and the spec calling it (for `run` and
    `verify`)."""
    import tempfile

    if spec.grid is None or not _wrapped(spec):
        yield path, spec
        return
    with tempfile.TemporaryDirectory(prefix="cudafuse-structs-") as tmp:
        yield _runnable(Side(path, spec), opts, tmp)


def _wrapped(*specs: Spec) -> bool:
    """Whether a spec needs a generated host function to run its kernel: it gives a struct
    parameter as an array, or sets __device__/__constant__ variables first."""
    return any(a.tensor for s in specs for a in s.args) or any(s.symbols for s in specs)


def _symbol_params(symbols: list[Any], first: int) -> tuple[list[str], list[str]]:
    """A wrapper's parameters receiving [[symbols]] arrays, and the copies into the
    variables (device to device: a run passes arrays as device memory)."""
    decls, lines = [], []
    for i, sym in enumerate(symbols, first):
        decls.append(f"const std::remove_all_extents_t<decltype({sym.name})> *cudafuse_sym{i}")
        lines.append(f"cudaMemcpyToSymbol({sym.name}, cudafuse_sym{i}, {sym.nbytes}, 0, "
                     "cudaMemcpyDeviceToDevice);")
    return decls, lines


def _renamed(sym: Any, unit: Any) -> Any:
    """A second file's [[symbols]] entry under the name hfuse gave its variable when the
    first file defines the same name (rename.py: `cf_in2_d_data`)."""
    scope, _, base = sym.name.rpartition("::")
    found = sorted(g.name for g in unit.globals
                   if re.fullmatch(rf"cf\d*_in2_{re.escape(base)}", g.name))
    if not found:
        return sym
    return dataclasses.replace(sym, name=(scope + "::" if scope else "") + found[0])


def _symbol_args(spec: Spec, first: int) -> list[Any]:
    """The [[symbols]] arrays as arguments of the wrapper's parameters (inputs only)."""
    return [dataclasses.replace(sym, name=f"cudafuse_sym{i}", role="in", named=True)
            for i, sym in enumerate(spec.symbols, first)]


def _views(spec: Spec, params: list[str]) -> dict[int, Any]:
    """Parameter index -> the TensorView of the spec argument given to it (a struct by
    value over an array: runtime/spec_struct.py)."""
    out = {}
    for i, a in enumerate(spec.args):
        k = params.index(a.name) if a.named and a.name in params else i if not a.named else -1
        if a.tensor is not None and 0 <= k < len(params):
            out[k] = a.tensor
    return out


def _fused_runnable(fused: str, sides: tuple[Side, Side], orders: list[list[int]],
                    opts: ParseOptions, tmp: str) -> tuple[str, str | None]:
    """The fused file, or (when a kernel takes a struct by value that its spec gives as an
    array) a copy of it with a host function that builds the structs and calls the
    launcher, and that function's name."""
    from pathlib import Path

    from cudafuse.frontend import parse_file
    from cudafuse.passes.horizontal.driver import rehomed_includes
    from cudafuse.passes.horizontal.scopes import qualifier
    from cudafuse.profile.structs import wrapper_helpers
    from cudafuse.runtime.spec_struct import wrapper_params

    if not _wrapped(sides[0].spec, sides[1].spec):
        return fused, None
    unit = parse_file(fused, opts).unit
    want = f"{_base(sides[0].spec.entry)}_{_base(sides[1].spec.entry)}_hfused_launch"
    found = [f for f in unit.functions if f.body is not None and f.name == want]
    if len(found) != 1:
        raise error(f"no launcher '{want}' (what `cudafuse hfuse` writes for "
                    f"{sides[0].spec.entry} and {sides[1].spec.entry})", fused)
    fn = found[0]
    launcher = qualifier(fn.namespaces) + fn.name
    params = [p.name or f"arg{i}" for i, p in enumerate(fn.params)]
    types = [f"typename cudafuse_param<{i}, decltype(&{launcher})>::type"
             for i in range(len(params))]
    views: dict[int, Any] = {}
    at = 0
    for side, order in zip(sides, orders, strict=True):
        for k, i in enumerate(order):
            if side.spec.args[i].tensor is not None:
                views[at + k] = side.spec.args[i].tensor
        at += len(order)
    decls, lines, passed = wrapper_params(types, params, views)
    n1 = len(sides[0].spec.symbols)
    for side, first in ((sides[0], 0), (sides[1], n1)):
        symbols = side.spec.symbols if side is sides[0] else \
            [_renamed(sym, unit) for sym in side.spec.symbols]
        sym_decls, sym_lines = _symbol_params(symbols, first)
        decls, lines = decls[:len(params) + first] + sym_decls + decls[len(params) + first:], \
            sym_lines + lines
    wrapper = "cudafuse_verify_fused"
    text = (f"void {wrapper}({', '.join(decls)}) {{\n" + "".join(f"  {x}\n" for x in lines) +
            f"  {launcher}({', '.join(passed)});\n}}\n")
    data = rehomed_includes(fused, unit.source.data, tmp)
    data += b"\n// ---- appended by cudafuse verify --hfuse\n" + \
        wrapper_helpers(sides[0].spec, sides[1].spec) + text.encode()
    path = Path(tmp) / Path(fused).name
    path.write_bytes(data)
    return str(path), wrapper


def _files(files: tuple[str, ...]) -> str:
    return f"{len(files)} file{'' if len(files) == 1 else 's'}"


def check_usage(files: tuple[str, ...], hfuse: bool, spec_path: str | None,
                pair: str | None, spec1: str | None, spec2: str | None) -> None:
    if not hfuse:
        if len(files) != 2:
            raise click.UsageError(f"verify takes ORIGINAL and TRANSFORMED ({_files(files)} "
                                   "given; --hfuse takes A.cu B.cu FUSED.cu)")
        for option, value in (("--spec1", spec1), ("--spec2", spec2), ("--pair", pair)):
            if value:
                raise click.UsageError(f"{option} is for --hfuse")
        if not spec_path:
            raise click.UsageError("missing option '--spec'")
        return
    if len(files) != 3:
        raise click.UsageError(f"verify --hfuse takes A.cu B.cu FUSED.cu ({_files(files)} "
                               "given)")
    if spec_path and (spec1 or spec2):
        raise click.UsageError("give --spec PAIR.toml or --spec1 and --spec2, not both")
    if not spec_path and not (spec1 and spec2):
        raise click.UsageError("verify --hfuse needs --spec PAIR.toml (a pair spec, as for "
                               "hfuse --profile) or both --spec1 and --spec2 (kernel specs)")
    if pair and not spec_path:
        raise click.UsageError("--pair chooses a pair of --spec PAIR.toml")
