"""One declaration of the CUDA runtime API, cuBLAS(Lt) and cuFFT (cuda_api/*.h), accepted by both
sides: a program calling every function declared there parses in the front end without an
error, and the emulator either refuses a call with a located reason (mipmapped arrays, and
the functions the header marks CUDAFUSE_NOT_EMULATED) or builds it: its link
(-Wl,--no-undefined) fails for any function declared in the header that the emulator does
not define."""

from __future__ import annotations

import re
from pathlib import Path

import clang.cindex as ci
import pytest

from cudafuse import cuda_api
from cudafuse.diagnostics import CudafuseError, Severity
from cudafuse.emu.rewrite import check_text
from cudafuse.frontend.parse import ParseOptions, clang_args, parse_file
from cudafuse.runtime.build import BuildOptions, build

Call = tuple[str, list[str], bool]  # name, argument expressions, emulated


def _api_functions() -> tuple[list[Call], int]:
    """A call of each function the API header declares, as the front end reads it, and how
    many of them are templates."""
    headers = {str(h) for h in cuda_api.headers()}
    tu = ci.Index.create().parse("probe.cu", args=clang_args(ParseOptions()),
                                 unsaved_files=[("probe.cu", _INCLUDES)])
    functions: list[Call] = []
    templates = 0
    for c in tu.cursor.get_children():
        f = c.location.file
        if f is None or str(Path(f.name).resolve()) not in headers:
            continue
        emulated = not any(k.kind == ci.CursorKind.ANNOTATE_ATTR and
                           k.spelling.startswith("cudafuse-not-emulated")
                           for k in c.get_children())
        if c.kind == ci.CursorKind.FUNCTION_TEMPLATE:
            templates += 1
            functions.append((*_template_call(c), emulated))
        elif c.kind == ci.CursorKind.FUNCTION_DECL:
            functions.append((c.spelling, [f"value<{_decayed(a.type.spelling)}>()"
                                           for a in c.get_arguments()], emulated))
    return functions, templates


def _decayed(spelled: str) -> str:
    """A parameter's type as the function takes it: `const float *const[]` is a pointer."""
    return re.sub(r"\s*\[\d*\]$", " *", spelled)


def _template_call(c: ci.Cursor) -> tuple[str, list[str]]:
    """A call of a runtime template as programs write it: T is a kernel (a function), the
    element type of an allocation or a __device__ symbol; a dynamic shared memory size is a
    function of the block size."""
    params = [k.spelling for k in c.get_children()
              if k.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER]
    args = []
    for k in c.get_children():
        if k.kind != ci.CursorKind.PARM_DECL:
            continue
        spelled = k.type.spelling.replace(" ", "")
        if spelled.endswith("(*)(P...)"):
            args.append("probe_kernel")
        elif "..." in spelled:
            continue  # a pack of kernel arguments: one float * below
        elif spelled in ("T**",):
            args.append("value<float **>()")
        elif spelled == "constT&":
            args.append("probe_symbol")
        elif spelled in params and "smem" in k.spelling.lower():
            args.append("probe_bytes")
        elif spelled in ("T*", "T"):
            args.append("probe_kernel")
        else:
            args.append(f"value<{k.type.spelling}>()")
    name = c.spelling
    if not args or "A" in params:  # nothing to deduce T from, or a pack: name it
        name += "<float>" if not args else ""
        if "A" in params:
            args.append("value<float *>()")
    return name, args


# What a program includes to see every shared header's declarations (the runtime's through
# the shim, which every parse force-includes).
_INCLUDES = "".join(f"#include <{h}>\n" for h in ("cuda_runtime.h", "cublas_v2.h", "cublasLt.h",
                                                   "cufftXt.h"))


def _caller(functions: list[Call]) -> str:
    calls = "".join(f"  (void){name}({', '.join(args)});\n" for name, args, _ in functions)
    # Never run: built (and linked) only, so every callee must have a definition.
    return (_INCLUDES +
            "template <class T> T value() { return *static_cast<T *>(nullptr); }\n"
            "__global__ void probe_kernel(float *p) { p[threadIdx.x] = 0; }\n"
            "__device__ float probe_symbol;\n"
            "size_t probe_bytes(int block) { return block * sizeof(float); }\n"
            "void call_every_runtime_function() {\n" + calls + "}\n")


@pytest.fixture(scope="module")
def caller(tmp_path_factory) -> tuple[Path, int]:
    functions, _ = _api_functions()
    path = tmp_path_factory.mktemp("cuda_api") / "every_api.cu"
    path.write_text(_caller([f for f in functions if f[2]]))
    refused = path.with_name("not_emulated.cu")
    refused.write_text(_caller([f for f in functions if not f[2]]))
    return path, len(functions)


def test_the_header_declares_the_runtime_api(caller) -> None:
    functions, templates = _api_functions()
    names = {name for name, _, _ in functions}
    # A handful by meaning: allocation, copies, streams, events, graphs, textures, errors.
    assert {"cudaMalloc", "cudaMemcpy", "cudaStreamCreate", "cudaEventRecord",
            "cudaGraphLaunch", "cudaCreateTextureObject", "cudaGetErrorString",
            "cublasSgemm", "cublasGemmEx", "cublasSetStream", "cublasLtMatmul",
            "cufftPlan1d", "cufftExecR2C", "cufftXtSetCallback"} <= names
    assert len(functions) > 150 and templates > 10


def test_the_front_end_parses_every_declaration(caller) -> None:
    path, count = caller
    result = parse_file(str(path))
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert not errors, errors[:5]
    refused = path.with_name("not_emulated.cu")
    assert not [d for d in parse_file(str(refused)).diagnostics if d.severity == Severity.ERROR]
    assert (path.read_text() + refused.read_text()).count("(void)") == count
    assert "(void)cudaMalloc(value<float **>()" in path.read_text()


def _refused_lines(path: Path) -> set[int]:
    try:
        check_text(str(path), path.read_bytes())
    except CudafuseError as e:
        return {d.line for d in e.diagnostics}
    return set()


def test_the_emulator_defines_or_refuses_every_declaration(caller, tmp_path) -> None:
    path, count = caller
    refused = _refused_lines(path)
    assert len(refused) <= 5, sorted(refused)  # each one a located refusal with its reason
    lines = path.read_text().splitlines(keepends=True)
    kept = tmp_path / "defined_api.cu"
    kept.write_text("".join(t for n, t in enumerate(lines, 1) if n not in refused))
    built = build(str(kept), "emu", BuildOptions(opt="-O0"))
    assert built.library.is_file()


@pytest.mark.slow  # a second emulator build (the one above is the check that matters)
def test_the_emulator_refuses_what_it_does_not_emulate_at_the_call(caller) -> None:
    refused = caller[0].with_name("not_emulated.cu")
    with pytest.raises(CudafuseError) as e:
        build(str(refused), "emu", BuildOptions(opt="-O0"))
    text = str(e.value)
    assert f"{refused}:" in text and "not supported by the emulator" in text
