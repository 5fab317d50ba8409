"""Front-end robustness: missing and unreadable headers, -I/-D/-include, error mapping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cudafuse.diagnostics import CudafuseError, Severity
from cudafuse.frontend import ParseOptions, parse_file

MISSING = """\
#include "mylib.h"
#include <cuda_runtime.h>

__global__ void good(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * p[i];
}

__global__ void bad(MyType *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].v = lib_fn(p[i].v);
}

struct Wrapper { MyType inner; };
MyType g_value;

__global__ void bad2(float *p, int n) { p[n] = lib_scale(p[n]); }

extern "C" void host(float *p, int n) {
  good<<<(n + 255) / 256, 256>>>(p, n);
  bad2<<<(n + 255) / 256, 256>>>(p, n);
}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_missing_header_breaking_a_kernel_is_an_error(tmp_path: Path) -> None:
    # A kernel that does not compile without the header is not analysed, and the file is
    # not analysed as if it had only its other kernels: a pipeline would lose a stage.
    path = write(tmp_path, "m.cu", MISSING)
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    diags = info.value.diagnostics
    text = [d.format(caret=False) for d in diags]
    assert text[0] == f"{path}:1:10: warning: 'mylib.h' file not found; analysing without it"
    assert f"{path}:9:21: warning: skipping 'bad': unknown type name 'MyType'" in text
    assert any(t.startswith(f"{path}:17:") and "skipping 'bad2'" in t and "lib_scale" in t
               for t in text)
    assert any("skipping 'g_value'" in t for t in text)
    assert any(t.startswith(f"{path}:14:") and "ignoring a declaration" in t for t in text)
    assert text[-1] == (f"{path}:9:1: error: 2 of the 3 kernels this file defines could not "
                        "be analysed ('bad', 'bad2'): see the warnings above for why each "
                        "was skipped")
    # Warnings carry the source line for the caret display.
    (bad,) = [d for d in diags if "skipping 'bad'" in d.message]
    assert bad.source_line == "__global__ void bad(MyType *p, int n) {"


def test_missing_header_keeps_what_can_be_analysed(tmp_path: Path) -> None:
    # Only host code and globals depend on the header: every kernel is analysed.
    text = MISSING.replace("__global__ void bad(MyType *p, int n) {\n  int i",
                           "void bad(MyType *p, int n) {\n  int i")
    text = text.replace("__global__ void bad2(float *p, int n) { p[n] = lib_scale(p[n]); }",
                        "__global__ void bad2(float *p, int n) { p[n] = 3.0f * p[n]; }\n"
                        "void host_lib(float *p) { p[0] = lib_scale(p[0]); }")
    path = write(tmp_path, "m.cu", text)
    result = parse_file(path)
    unit = result.unit
    assert [k.name for k in unit.kernels] == ["good", "bad2"]
    assert [ln.kernel for ln in unit.launches["host"]] == ["good", "bad2"]
    assert all(d.severity is Severity.WARNING for d in result.diagnostics)
    messages = [d.message for d in result.diagnostics]
    assert "skipping 'bad': unknown type name 'MyType'" in messages
    assert any("skipping 'host_lib'" in m and "lib_scale" in m for m in messages)
    assert sorted(msg.split(":")[0] for _, msg in unit.skipped) == [
        "skipping 'bad'", "skipping 'g_value'", "skipping 'host_lib'"]


def test_kernels_dropped_by_clang_without_a_word(tmp_path: Path) -> None:
    # An unknown macro from a missing header swallows a kernel's declaration: clang reports
    # the macro, not the kernel, so only the file's text shows that a kernel was lost.
    path = write(tmp_path, "d.cu", '#include <mylib_config.h>\n'
                 "MYLIB_DECL(__global__ void hidden(float *x));\n"
                 "__global__ void a(float *x) { x[0] = 1; }\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    *_, err, note = [d.format(caret=False) for d in info.value.diagnostics]
    assert err == (f"{path}:2:12: error: 1 of the 2 kernels this file defines could not be "
                   "analysed ('hidden'): clang dropped their declarations after an earlier "
                   "error")
    assert note == (f"{path}:2:1: note: the first error clang reported: unknown type name "
                    "'MYLIB_DECL'")


def test_kernel_census_reads_only_code(tmp_path: Path) -> None:
    # Disabled branches, comments, strings and macro bodies spell no kernel; attributes
    # before the name, template kernels, explicit instantiations and forward declarations
    # are read to the right name.
    path = write(tmp_path, "c.cu", """\
#if 0
__global__ void hidden(float *x) { x[0] = 1; }
#endif
// __global__ void commented(float *x)
/* __global__ void block_commented(float *x) */
#define K __global__ void via_macro(float *x) \\
  { x[0] = 1; }
const char *s = "__global__ void in_string(float *x)";
__global__ void __launch_bounds__(128, 2) a(float *x) { x[0] = 1; }
template <typename T> __global__ void b(T *x) { x[1] = 2; }
template __global__ void b<float>(float *);
__global__ void c(float *x);
__global__ void c(float *x) { x[2] = 2; }
""")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["a", "b", "c"]


def test_missing_header_in_a_subdirectory_name(tmp_path: Path) -> None:
    path = write(tmp_path, "t.cu", '#include <thrust/device_vector.h>\n'
                 "__global__ void k(float *p) { p[0] = 1; }\n"
                 "void h() { thrust::device_vector<float> v(4); }\n")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["k"]
    assert any("skipping 'h'" in d.message for d in result.diagnostics)


def test_errors_without_missing_headers_fail(tmp_path: Path) -> None:
    path = write(tmp_path, "s.cu", "__global__ void k(float *p) {\n  p[0] = 1.0f\n}\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    (d,) = info.value.diagnostics
    assert d.format() == (f"{path}:2:14: error: expected ';' after expression\n"
                          "  p[0] = 1.0f\n             ^")


def test_error_in_a_user_header_shows_its_line(tmp_path: Path) -> None:
    write(tmp_path, "inc/bad.h", "struct X { int a };\n")
    path = write(tmp_path, "u.cu", '#include "inc/bad.h"\n__global__ void k(int *p) {}\n')
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.col) == (str(tmp_path / "inc/bad.h"), 1, 17)
    assert d.source_line == "struct X { int a };"


def test_define_selects_a_kernel(tmp_path: Path) -> None:
    path = write(tmp_path, "d.cu", "#ifdef USE_FAST\n__global__ void fast(float *p) {}\n#else\n"
                 "__global__ void slow(float *p) {}\n#endif\n"
                 "__global__ void sized(float *p) { p[WIDTH] = 0; }\n")
    plain = parse_file(path, ParseOptions(defines=("WIDTH",)))
    fast = parse_file(path, ParseOptions(defines=("USE_FAST", "WIDTH=3")))
    assert [k.name for k in plain.unit.kernels] == ["slow", "sized"]
    assert [k.name for k in fast.unit.kernels] == ["fast", "sized"]


def test_include_dir_provides_a_header(tmp_path: Path) -> None:
    write(tmp_path, "inc/params.h", "struct Params { float gain; int n; };\n")
    path = write(tmp_path, "src/i.cu", '#include "params.h"\n'
                 "__global__ void k(float *p, Params q) { p[q.n] *= q.gain; }\n")
    with pytest.raises(CudafuseError) as without:
        parse_file(path)  # the kernel needs the header: it cannot be analysed without it
    assert any("params.h" in d.message for d in without.value.diagnostics)
    found = parse_file(path, ParseOptions(include_dirs=(str(tmp_path / "inc"),)))
    assert found.diagnostics == [] and [k.name for k in found.unit.kernels] == ["k"]
    assert str(tmp_path / "inc/params.h") in found.unit.includes


def test_forced_include(tmp_path: Path) -> None:
    pre = write(tmp_path, "pre.h", "#define SCALE 2.0f\n")
    path = write(tmp_path, "f.cu", "__global__ void k(float *p) { p[0] *= SCALE; }\n")
    with pytest.raises(CudafuseError):
        parse_file(path)
    assert [k.name for k in parse_file(path, ParseOptions(forced_includes=(pre,))).unit.kernels
            ] == ["k"]


def test_missing_forced_include_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "f.cu", "__global__ void k(float *p) {}\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path, ParseOptions(forced_includes=(str(tmp_path / "nope.h"),)))
    assert "-include file" in str(info.value) and "nope.h" in str(info.value)


def test_errors_in_the_shim_are_reported_against_the_user_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only without the precompiled shim can a -D reach the shim's text.
    monkeypatch.setenv("CUDAFUSE_NO_PCH", "1")
    path = write(tmp_path, "k.cu", "__global__ void k(float *p) { p[0] = 1; }\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path, ParseOptions(defines=("__syncthreads=1",)))
    for d in info.value.diagnostics:
        assert d.file == path and "shim" not in d.message
    assert "built-in CUDA declarations" in info.value.diagnostics[0].message


def test_include_of_a_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "adir.h").mkdir()
    path = write(tmp_path, "k.cu", '#include "adir.h"\n__global__ void k(float *p) {}\n')
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    (d,) = info.value.diagnostics
    assert d.format(caret=False) == (
        f"{path}:1:10: error: cannot read included file 'adir.h': is a directory")


def test_include_of_a_dangling_symlink_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "gone.h").symlink_to(tmp_path / "does-not-exist.h")
    path = write(tmp_path, "k.cu", '#include "gone.h"\n__global__ void k(float *p) {}\n')
    with pytest.raises(CudafuseError, match="cannot read included file 'gone.h'"):
        parse_file(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_include_without_read_permission_is_an_error(tmp_path: Path) -> None:
    secret = tmp_path / "secret.h"
    secret.write_text("int x;\n")
    secret.chmod(0)
    path = write(tmp_path, "k.cu", '#include "secret.h"\n__global__ void k(float *p) {}\n')
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    (d,) = info.value.diagnostics
    assert (d.line, d.col) == (1, 10) and "cannot read included file" in d.message
    assert "secret.h" in d.message


def test_includes_are_normalised_and_exclude_bundled_headers(tmp_path: Path) -> None:
    path = write(tmp_path, "k.cu", "#include <cmath>\n#include <cuda_runtime.h>\n"
                 "__global__ void k(float *p) {}\n")
    includes = parse_file(path).unit.includes
    assert includes and all(os.path.normpath(i) == i for i in includes)
    assert not any("cudafuse" in i for i in includes)


def test_deeply_nested_expressions_lower(tmp_path: Path) -> None:
    terms = " + ".join(f"p[{i % 7}]" for i in range(1500))
    ifs = "if (p[0] > 0) p[1] = 0; " + " ".join(
        f"else if (p[0] > {i}) p[1] = {i};" for i in range(1, 1500))
    path = write(tmp_path, "deep.cu", f"__global__ void sum(float *p) {{ p[0] = {terms}; }}\n"
                 f"__global__ void chain(float *p) {{ {ifs} }}\n")
    result = parse_file(path)
    assert result.diagnostics == []
    assert [k.name for k in result.unit.kernels] == ["sum", "chain"]


def test_too_deep_nesting_skips_the_function_only(tmp_path: Path) -> None:
    terms = " + ".join(f"p[{i % 7}]" for i in range(3000))
    path = write(tmp_path, "deeper.cu", f"__device__ float sum(float *p) {{ return {terms}; }}\n"
                 "__global__ void ok(float *p) { p[1] = 2; }\n")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["ok"]
    (d,) = result.diagnostics
    assert d.severity is Severity.WARNING and (d.line, d.col) == (1, 18)
    assert d.message == "skipping 'sum': cannot lower it (expressions nested more than 2000 deep)"
    # The same in a kernel: the file's kernels are not all analysed, an error.
    write(tmp_path, "deeper.cu", f"__global__ void sum(float *p) {{ p[0] = {terms}; }}\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    assert "1 of the 1 kernels this file defines could not be analysed ('sum')" in str(
        info.value)


def test_stand_in_headers_cover_common_helpers(tmp_path: Path) -> None:
    path = write(tmp_path, "h.cu", """\
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <cuda_fp16.h>
__global__ void half_k(__half *h, const float *f, int n) {
  int i = threadIdx.x;
  if (i < n) h[i] = __hadd(__float2half(f[i]), h[i]);
}
int main(int argc, char **argv) {
  int dev = findCudaDevice(argc, (const char **)argv);
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  __half *h;
  checkCudaErrors(cudaMalloc(&h, 8));
  cudaFuncSetAttribute(half_k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 16);
  half_k<<<1, 4>>>(h, nullptr, prop.multiProcessorCount);
  getLastCudaError("half_k");
  return 0;
}
""")
    result = parse_file(path)
    assert result.diagnostics == []
    assert [ln.kernel for ln in result.unit.launches["main"]] == ["half_k"]


def test_unknown_cuda_api_names_skip_only_their_functions(tmp_path: Path) -> None:
    path = write(tmp_path, "u.cu", """\
__global__ void k(float *p) { p[threadIdx.x] = 1; }
__device__ float exotic(float *p) { return __nv_new_intrinsic(p[1]); }
void host(float *p) {
  cudaFutureGraph_t graph;
  k<<<1, 32>>>(p);
}
""")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["k"]
    messages = [d.message for d in result.diagnostics]
    assert messages == [
        "skipping 'exotic': use of undeclared identifier '__nv_new_intrinsic' "
        "(not among cudafuse's CUDA declarations)",
        "skipping 'host': unknown type name 'cudaFutureGraph_t' (not among cudafuse's CUDA "
        "declarations)"]


def test_other_undeclared_names_still_fail(tmp_path: Path) -> None:
    path = write(tmp_path, "e.cu", "__global__ void k(float *p) { p[0] = cudaFoo + typo; }\n")
    with pytest.raises(CudafuseError) as info:
        parse_file(path)
    assert [d.message for d in info.value.diagnostics] == [
        "use of undeclared identifier 'cudaFoo'", "use of undeclared identifier 'typo'"]


def test_kernels_in_an_included_user_file_are_named(tmp_path: Path) -> None:
    # Rodinia-style: main.cu #includes the .cu files that define its kernels. Only the main
    # file's kernels are analysed, and a warning says which ones are not (not a silent "no
    # kernels"). A system or library header with kernels would not be named.
    write(tmp_path, "k/step_kernel.cu", "__global__ void step(float *p) { p[0] = 1; }\n"
          "__global__ void halve(float *p);\n")
    path = write(tmp_path, "main.cu", '#include "k/step_kernel.cu"\n'
                 "void run(float *p) { step<<<1, 1>>>(p); }\n")
    result = parse_file(path)
    (warning, note) = result.diagnostics
    assert warning.severity is Severity.WARNING and warning.file == path
    assert warning.message == (f"kernels defined in the included file {tmp_path}/k/"
                               "step_kernel.cu are not analysed, only this file's: 'step'; "
                               "analyse (or fuse) the file that defines them")
    assert note.message.startswith("no kernels")


def test_kernels_in_branches_not_taken_are_named(tmp_path: Path) -> None:
    # llm.c's dev/cuda files define a kernel under #ifndef ENABLE_BF16 after defining it: the
    # kernel is not analysed, and a note says so (not a kernel that silently went missing).
    path = write(tmp_path, "b.cu", "#define ENABLE_BF16\n"
                 "__global__ void both(float *p) { p[0] = 0; }\n"
                 "#ifndef ENABLE_BF16\n__global__ void fp32_only(float *p) { p[0] = 1; }\n"
                 "#else\n__global__ void both(float *p, int n);\n#endif\n"
                 "#if 0\n__global__ void off(float *p) {}\n__global__ void off(int *p) {}\n"
                 "#endif\n")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["both"]
    (note,) = result.diagnostics
    assert note.severity is Severity.NOTE and (note.line, note.col) == (4, 1)
    assert note.message == ("2 kernels defined only in preprocessor branches not taken, not "
                            "analysed: 'fp32_only' (line 4), 'off' (line 9)")


def test_every_missing_header_is_stubbed(tmp_path: Path) -> None:
    # A missing header is a fatal error: clang names only the first and is silent about
    # every error after it, while dropping the statements that do not compile. With one
    # round of stand-ins, a call into the second missing library between two launches
    # vanished without a word (the launches then fused across it). Each missing header is
    # named, and a function using what they lack is skipped with a warning.
    path = write(tmp_path, "two.cu", '#include "first_lib.h"\n'
                 "__global__ void k1(float *p) { p[0] = 1; }\n"
                 '#include "second_lib.h"\n'
                 '#include <third/lib.h>\n'
                 "__global__ void k2(float *p) { p[1] = p[0]; }\n"
                 "void host(float *p) {\n"
                 "  k1<<<1, 1>>>(p);\n"
                 "  second_lib_fill(p, 4);\n"
                 "  k2<<<1, 1>>>(p);\n"
                 "}\n")
    result = parse_file(path)
    assert [k.name for k in result.unit.kernels] == ["k1", "k2"]
    assert "host" not in result.unit.launches
    assert any(d.message.startswith("skipping 'host'") and "second_lib_fill" in d.message
               for d in result.diagnostics)
    named = [d.message for d in result.diagnostics if "file not found" in d.message]
    assert [m.split("'")[1] for m in named] == ["first_lib.h", "second_lib.h", "third/lib.h"]
