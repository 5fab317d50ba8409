"""One declaration of the CUDA runtime API, cuBLAS(Lt) and cuFFT (cuda_api/*.h), accepted by both
sides: a program calling every function declared there parses in the front end without an
error, and the emulator either refuses a call with a located reason (mipmapped arrays, and
the functions the header marks CUDAFUSE_NOT_EMULATED) or builds it: its link
(-Wl,--no-undefined) fails for any function declared in the header that the emulator does
not define."""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci
import pytest

from cudafuse import cuda_api
from cudafuse.diagnostics import CudafuseError, Severity
from cudafuse.emu.rewrite import check_text
from cudafuse.frontend.parse import ParseOptions, clang_args, parse_file
from cudafuse.runtime.build import BuildOptions, build

Call = tuple[str, list[str], bool]  # name, argument expressions, emulated

# What a program includes to see every shared header's declarations (the runtime's through
# the shim, which every parse force-includes).
_INCLUDES = "".join(f"#include <{h}>\n" for h in ("cuda_runtime.h", "cublas_v2.h", "cublasLt.h",
                                                   "cufftXt.h", "cuda_bf16.h",
                                                   "math_constants.h", "omp.h", "cusparse.h"))
K = ci.CursorKind
_SCOPES = (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL, K.ENUM_DECL, K.LINKAGE_SPEC,
           K.UNEXPOSED_DECL)  # extern "C" { ... } (libclang 18 reports it as unexposed)
_TYPES = (K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL, K.ENUM_DECL, K.TYPEDEF_DECL)


@dataclass(frozen=True)
class Use:
    """One statement that uses one declaration: a call, a member call, a type named, an
    enumerator or a macro read."""
    kind: str  # "function", "template", "member", "type", "enumerator", "macro"
    name: str
    stmt: str
    device: bool  # __device__ only: used from a __device__ function
    emulated: bool  # False: the declaration says CUDAFUSE_NOT_EMULATED


def _in_api(c: ci.Cursor, headers: set[str]) -> bool:
    f = c.location.file
    return f is not None and str(Path(f.name).resolve()) in headers


def _device_only(c: ci.Cursor) -> bool:
    attrs = {k.kind for k in c.get_children()}
    return K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR not in attrs


def _emulated(c: ci.Cursor) -> bool:
    return not any(k.kind == K.ANNOTATE_ATTR and k.spelling.startswith("cudafuse-not-emulated")
                   for k in c.get_children())


def _args(c: ci.Cursor) -> str:
    return ", ".join(f"value<{_decayed(a.type.spelling)}>()" for a in c.get_arguments())


def _uses_of(c: ci.Cursor) -> Use | None:
    """The statement that uses declaration `c`, or None for what needs none (fields, defaulted
    members, access specifiers, nameless types)."""
    dev, emu = _device_only(c), _emulated(c)
    if c.kind == K.FUNCTION_TEMPLATE and c.semantic_parent.kind != K.TRANSLATION_UNIT:
        return None  # member templates: none declared today
    if c.kind == K.FUNCTION_TEMPLATE:
        name, args = _template_call(c)
        return Use("template", c.spelling, f"(void){name}({', '.join(args)});", dev, emu)
    if c.kind == K.FUNCTION_DECL:
        return Use("function", c.spelling, f"(void){c.spelling}({_args(c)});", dev, emu)
    owner = c.semantic_parent.type.spelling if c.semantic_parent is not None else ""
    if c.kind == K.CONSTRUCTOR and not (c.is_default_method() or c.is_deleted_method()):
        return Use("member", f"{owner}::{c.spelling}", f"(void){owner}({_args(c)});", dev, emu)
    if c.kind in (K.CXX_METHOD, K.CONVERSION_FUNCTION) and not c.is_deleted_method():
        target = f"{owner}::" if c.is_static_method() else f"value<{owner} &>()."
        return Use("member", f"{owner}::{c.spelling}",
                   f"(void){target}{c.spelling}({_args(c)});", dev, emu)
    if c.kind in _TYPES and c.spelling and "(unnamed" not in c.type.spelling \
            and "(anonymous" not in c.type.spelling:
        return Use("type", c.type.spelling,
                   f"(void)static_cast<{c.type.spelling} *>(nullptr);", False, True)
    if c.kind == K.ENUM_CONSTANT_DECL:
        return Use("enumerator", c.spelling, f"(void){c.spelling};", False, True)
    return None


def _macro_use(c: ci.Cursor) -> Use | None:
    """An object-like macro of the API with a value (CUDART_INF_FP16, cudaStreamLegacy...), not
    a guard, an attribute or cudafuse's own (underscored, CUDAFUSE_, CF_)."""
    name, tokens = c.spelling, list(c.get_tokens())
    if name.startswith(("_", "CUDAFUSE", "CF_")) or len(tokens) < 2:
        return None
    if tokens[1].spelling == "(" and \
            tokens[1].extent.start.offset == tokens[0].extent.end.offset:
        return None  # function-like
    # Read in device code: CUDART_INF_F and its kin call __device__ intrinsics.
    return Use("macro", name, f"(void)({name});", True, True)


@functools.cache
def _api_uses() -> tuple[Use, ...]:
    """A use of every declaration the shared headers (cuda_api/) make, as the front end
    reads them: functions and templates, members, types, enumerators, macros."""
    headers = {str(h) for h in cuda_api.headers()}
    tu = ci.Index.create().parse("probe.cu", args=clang_args(ParseOptions()),
                                 unsaved_files=[("probe.cu", _INCLUDES)],
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    uses: list[Use] = []

    def walk(scope: ci.Cursor) -> None:
        for c in scope.get_children():
            if not _in_api(c, headers):
                continue
            use = _macro_use(c) if c.kind == K.MACRO_DEFINITION else _uses_of(c)
            if use is not None:
                uses.append(use)
            if c.kind in _SCOPES:
                walk(c)

    walk(tu.cursor)
    return tuple(uses)


def _decayed(spelled: str) -> str:
    """A parameter's type as the function takes it: `const float *const[]` is a pointer."""
    return re.sub(r"\s*\[\d*\]$", " *", spelled)


def _template_call(c: ci.Cursor) -> tuple[str, list[str]]:
    """A call of a runtime template as programs write it: T is a kernel (a function), the
    element type of an allocation or a __device__ symbol; a dynamic shared memory size is a
    function of the block size. A device template's T is float."""
    params = [k.spelling for k in c.get_children()
              if k.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER]
    if _device_only(c):  # a device intrinsic over any element type (__ldg, __stcg): float;
        # the 128-bit atomics take 16-byte types only
        t = "probe_wide" if "atomic_if" in c.result_type.spelling else "float"
        spelled = [k.type.spelling for k in c.get_children() if k.kind == ci.CursorKind.PARM_DECL]
        named = "" if any(re.search(r"\bT\b", a) for a in spelled) else f"<{t}>"  # tex2D<T>
        return c.spelling + named, ["value<" + re.sub(r"\bT\b", t, a) + ">()" for a in spelled]
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


def _program(uses: list[Use]) -> str:
    """A program that uses each declaration once: host uses in a host function, __device__
    ones in a __device__ function."""
    host = "".join(f"  {u.stmt}\n" for u in uses if not u.device)
    device = "".join(f"  {u.stmt}\n" for u in uses if u.device)
    # Never run: built (and linked) only, so every callee must have a definition.
    return (_INCLUDES +
            "template <class T> struct probe_ref { typedef T type; };\n"
            "template <class T> struct probe_ref<T &> { typedef T type; };\n"
            "template <class T> __host__ __device__ T value() {\n"
            "  return *static_cast<typename probe_ref<T>::type *>(nullptr);\n}\n"
            "__global__ void probe_kernel(float *p) { p[threadIdx.x] = 0; }\n"
            "__device__ float probe_symbol;\n"
            "struct __align__(16) probe_wide { long long a, b; };\n"
            "size_t probe_bytes(int block) { return block * sizeof(float); }\n"
            "void call_every_runtime_function() {\n" + host + "}\n"
            "__device__ void use_every_device_function() {\n" + device + "}\n")


@pytest.fixture(scope="module")
def caller(tmp_path_factory) -> tuple[Path, int]:
    uses = _api_uses()
    path = tmp_path_factory.mktemp("cuda_api") / "every_api.cu"
    path.write_text(_program([u for u in uses if u.emulated]))
    refused = path.with_name("not_emulated.cu")
    refused.write_text(_program([u for u in uses if not u.emulated]))
    return path, len(uses)


def test_the_headers_declare_the_cuda_apis(caller) -> None:
    uses = _api_uses()
    names = {(u.kind, u.name) for u in uses}
    # A handful by meaning: allocation, copies, streams, events, graphs, textures, errors;
    # cuBLAS, cuBLASLt, cuFFT; the 16-bit float types, their members, math and constants.
    assert {("function", n) for n in (
        "cudaMalloc", "cudaMemcpy", "cudaStreamCreate", "cudaEventRecord", "cudaGraphLaunch",
        "cudaCreateTextureObject", "cudaGetErrorString", "cublasSgemm", "cublasGemmEx",
        "cublasSetStream", "cublasLtMatmul", "cufftPlan1d", "cufftExecR2C",
        "cufftXtSetCallback", "__hadd", "__float2bfloat16_rn", "hsqrt", "__half2bfloat16",
        "operator+", "__popc", "__vadd4", "__fmaf_rz", "omp_get_wtime", "cusparseSpMV")} <= names
    assert {("type", "__half"), ("type", "__nv_bfloat162"), ("type", "cudaError_t"),
            ("member", "__half::operator float"), ("member", "__nv_bfloat16::__nv_bfloat16"),
            ("enumerator", "cudaErrorInvalidValue"), ("macro", "CUDART_INF_FP16"),
            ("macro", "CUDART_SQRT_HALF_F"), ("macro", "cudaStreamLegacy")} <= names
    kinds = Counter(u.kind for u in uses)
    assert kinds["function"] > 500 and kinds["template"] > 10 and kinds["member"] > 50, kinds
    assert any(u.device for u in uses) and not any(u.device for u in uses if u.kind == "type")


def test_the_front_end_parses_every_declaration(caller) -> None:
    path, count = caller
    result = parse_file(str(path))
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert not errors, errors[:5]
    refused = path.with_name("not_emulated.cu")
    assert not [d for d in parse_file(str(refused)).diagnostics if d.severity == Severity.ERROR]
    assert (path.read_text() + refused.read_text()).count("(void)") == count
    assert "(void)cudaMalloc(value<float **>()" in path.read_text()


# What the front end accepts and the emulator does not build, each refused at the call with
# its reason (CUDAFUSE_NOT_EMULATED): listed here so that a new one is a visible decision.
NOT_EMULATED = {
    # graphics interop (OpenGL/Direct3D resources)
    "cudaGraphicsMapResources", "cudaGraphicsResourceGetMappedPointer",
    "cudaGraphicsResourceSetMapFlags", "cudaGraphicsSubResourceGetMappedArray",
    "cudaGraphicsUnmapResources", "cudaGraphicsUnregisterResource",
    # address spaces: the emulator has one
    "__isGlobal", "__isShared", "__isConstant", "__isLocal", "__isGridConstant",
    "__cvta_generic_to_global", "__cvta_generic_to_shared", "__cvta_global_to_generic",
    "__cvta_shared_to_generic",
}


def test_what_the_emulator_does_not_build_is_listed() -> None:
    assert {u.name for u in _api_uses() if not u.emulated} == NOT_EMULATED


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
