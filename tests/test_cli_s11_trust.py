"""Issue 27's closing audit: what a run writes is the same from run to run and from machine
state to machine state (a copy of a kernel template's instantiation was read from a
temporary directory whose random name reached the notes and the report), a CRLF file stays
CRLF throughout, and the rounding barrier every fused file defines cannot be broken by a
program's own macros."""

from __future__ import annotations

import keyword
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cudafuse import api
from cudafuse.outputs import keep_line_endings
from cudafuse.passes.vertical.emit.rounding import MEMBERS, prologue

# A kernel template in a header, launched as one block with no bounds guard: the fused run
# reads a copy of each instantiation, and a note (--explain, --report) names where it is.
HEADER = """template <bool add>
__global__ void step(const float *s, float *d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  d[i] = add ? s[i] + 1.0f : s[i] * 2.0f;
}
"""
TEMPLATES = """#include "k.cuh"
void run(const float *a, float *b, float *c) {
  step<true><<<1, 256>>>(a, b);
  step<false><<<1, 256>>>(b, c);
}
"""
CHAIN = """__global__ void a(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * i;
}
__global__ void b(const float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i] + 1.0f;
}
void run(float *p, float *q, int n) {
  a<<<(n + 255) / 256, 256>>>(p, n);
  b<<<(n + 255) / 256, 256>>>(p, q, n);
}
"""
SPEC = """entry = "run"
[[args]]
name = "p"
dtype = "float32"
count = 300
role = "out"
[[args]]
name = "q"
dtype = "float32"
count = 300
role = "out"
[[args]]
name = "n"
value = 300
"""


def cudafuse(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cudafuse", *args], capture_output=True,
                          timeout=300, cwd=cwd, env={**os.environ, **env})


def test_fuse_is_the_same_from_run_to_run(tmp_path: Path) -> None:
    """Two processes with other hash seeds and other temporary folders: the fused file, the
    report, the explanation and the diagnostics byte for byte; the instantiation's note names
    its copy beside the template's file (at the template's line), never a temporary folder
    (a random name before); nothing is left there."""
    (tmp_path / "k.cuh").write_text(HEADER)
    (tmp_path / "t.cu").write_text(TEMPLATES)
    runs = []
    for seed in ("1", "2"):
        tmp = tmp_path / f"tmp{seed}"
        tmp.mkdir()
        res = cudafuse(tmp_path, {"PYTHONHASHSEED": seed, "TMPDIR": str(tmp)},
                       "fuse", "t.cu", "-o", f"o{seed}.cu", "--report", f"r{seed}.json",
                       "--explain")
        assert res.returncode == 0, res.stderr
        assert list(tmp.iterdir()) == []
        runs.append((res.stdout, res.stderr, (tmp_path / f"o{seed}.cu").read_bytes(),
                     (tmp_path / f"r{seed}.json").read_bytes()))
    assert runs[0] == runs[1]
    note = f"{tmp_path / 'k.cuh'}.step.0.cuh:2: kernel 'step' has no bounds guard"
    assert note in runs[0][1].decode() and note in runs[0][3].decode()
    # (the header's kernel template is read through its instantiations: kernels were found)
    assert "no kernels" not in runs[0][1].decode()


def test_hfuse_is_the_same_from_run_to_run(tmp_path: Path) -> None:
    (tmp_path / "c.cu").write_text(CHAIN)
    runs = []
    for seed in ("1", "2"):
        tmp = tmp_path / f"tmp{seed}"
        tmp.mkdir()
        res = cudafuse(tmp_path, {"PYTHONHASHSEED": seed, "TMPDIR": str(tmp)},
                       "hfuse", "c.cu", "--kernels", "a,b", "--block1", "256", "--block2",
                       "128", "-o", f"o{seed}.cu", "--report", f"r{seed}.json", "--explain")
        assert res.returncode == 0, res.stderr
        assert list(tmp.iterdir()) == []
        runs.append((res.stdout, res.stderr, (tmp_path / f"o{seed}.cu").read_bytes(),
                     (tmp_path / f"r{seed}.json").read_bytes()))
    assert runs[0] == runs[1]


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


@pytest.mark.parametrize("command", ["fuse", "hfuse"])
def test_a_crlf_file_stays_crlf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                command: str) -> None:
    """Every line of the output ends as every line of the input does, and the input's lines
    are all in it unchanged (was: cudafuse's own lines ended in LF alone)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.cu").write_bytes(_crlf(CHAIN))
    if command == "fuse":
        out = api.fuse("c.cu").text.encode()
        assert b"cf_run_fused0" in out
    else:
        out = api.hfuse("c.cu", kernels="a,b", block1=256, block2=128, output="o.cu").text.encode()
        assert b"a_b_hfused" in out
    assert out.count(b"\n") == out.count(b"\r\n") > _crlf(CHAIN).count(b"\n")
    assert b"\r\r" not in out
    if command == "hfuse":  # (fuse replaces the launches)
        assert _crlf(CHAIN) in out


def test_line_endings_follow_the_inputs_convention() -> None:
    made = b"// added\nint x;\r\nint y;\n"
    assert keep_line_endings(made, [b"a\r\nb\r\n"]) == b"// added\r\nint x;\r\nint y;\r\n"
    assert keep_line_endings(made, [b"a\nb\n"]) == made
    assert keep_line_endings(made, [b"a\r\nb\n"]) == made  # mixed: the user's bytes stay
    assert keep_line_endings(made, [b"a\r\n", b"b\n"]) == made  # one LF file of two
    assert keep_line_endings(made, [b"one line"]) == made


# Names any program may define as macros; a macro of the program's sees the fused file's
# added text as it sees the program's.
_KEYWORDS = set(keyword.kwlist) | {
    "template", "class", "return", "unsigned", "short", "float", "double", "asm", "defined",
    "ifdef", "endif", "if", "include", "pragma", "push_macro", "pop_macro", "undef"}
_CUDA_TYPES = {f"{b}{n}" for b in ("float", "double") for n in (1, 2, 3, 4)}


def test_the_rounding_prologue_spells_no_name_a_program_may_define() -> None:
    """Outside comments, strings and the vector members' push_macro/pop_macro bracket, every
    identifier is reserved (`__`), cudafuse's prefix, a keyword or a CUDA vector type; inside
    it x, y, z, w only, each set aside (was: parameters v and u)."""
    text = prologue("cf_p")
    code = re.sub(r"//[^\n]*|\"[^\"\n]*\"", " ", text)
    start, end = code.index('#pragma push_macro'), code.rindex('#pragma pop_macro')
    inside = code[start:code.index("\n", end)]
    outside = code[:start] + code[code.index("\n", end):]

    def plain(names: set[str]) -> set[str]:
        return {n for n in names if not n.startswith("__") and not n.startswith("cf_p_")
                and n not in _KEYWORDS | _CUDA_TYPES}

    assert plain(set(re.findall(r"(?<!\w)[A-Za-z_]\w*", outside))) == set()
    assert plain(set(re.findall(r"(?<!\w)[A-Za-z_]\w*", inside))) == set(MEMBERS)
    for m in MEMBERS:
        assert f'#pragma push_macro("{m}")\n#undef {m}' in text
        assert f'#pragma pop_macro("{m}")' in text


def test_a_programs_macro_v_no_longer_breaks_the_fused_file(tmp_path: Path) -> None:
    """`-D v=1` (or `#define v` in the file) made the prologue's `cf_round(cf_T v)` read
    `cf_round(cf_T 1)`: 'the fused program does not parse', nothing written."""
    src = tmp_path / "c.cu"
    src.write_text("#define u 2\n" + CHAIN)
    fused = api.fuse(str(src), defines=["v=1"])
    assert "cf_run_fused0<<<" in fused.text


@pytest.mark.slow
@pytest.mark.nvcc
def test_macros_named_like_the_prologues_words_fuse_compile_and_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program with cuda_fp16.h (the __half barrier's local), `#define w 640` (an image
    width) and `#define u`, `#define v`: nvcc compiles the fused file (it checks it before
    writing) and the emulator, which defines __CUDA_ARCH__ as nvcc does, runs it equal to
    the original. Was: nvcc 'expected a member name' at the float4 barrier."""
    from click.testing import CliRunner

    from cudafuse.cli import main

    monkeypatch.delenv("CUDAFUSE_NO_NVCC_CHECK", raising=False)
    monkeypatch.chdir(tmp_path)
    program = "#include <cuda_fp16.h>\n#define w 640\n#define u 2\n#define v 1\n" + CHAIN
    Path("c.cu").write_bytes(_crlf(program))
    Path("s.toml").write_text(SPEC)
    res = CliRunner().invoke(main, ["fuse", "c.cu", "-o", "f.cu"])
    assert res.exit_code == 0, res.output
    fused = Path("f.cu").read_bytes()
    assert b"cf_run_fused0<<<" in fused and fused.count(b"\n") == fused.count(b"\r\n")
    res = CliRunner().invoke(main, ["verify", "c.cu", "f.cu", "--spec", "s.toml"])
    assert res.exit_code == 0, res.output
    assert "all outputs match" in res.output


SHARED = """__global__ void k(const float *p, float *q, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = p[i];
  __syncthreads();
  if (i < n) q[i] = tile[threadIdx.x];
}
"""
SHARED_SPEC = """entry = "k"
[launch]
grid = 1
block = 32
shared = {}
[[args]]
name = "p"
dtype = "float32"
count = 32
[[args]]
name = "q"
dtype = "float32"
count = 32
role = "out"
[[args]]
name = "n"
value = 32
"""


@pytest.mark.slow  # (an emulator build: 14 CPU-s on the shared 2-core machine)
def test_a_spec_launch_short_of_extern_shared_is_the_specs_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec's [launch] gives the launch, so its fault is said at launch.shared (was:
    'k.cu: error: <python>:0: kernel 'k' wrote ...', the emulator's harness for a place)."""
    from click.testing import CliRunner

    from cudafuse.cli import main

    monkeypatch.chdir(tmp_path)
    Path("k.cu").write_text(SHARED)
    Path("k.toml").write_text(SHARED_SPEC.format(0))
    res = CliRunner().invoke(main, ["run", "k.cu", "--spec", "k.toml"])
    assert res.exit_code == 1, res.output
    assert res.stderr == ("k.toml: error: launch.shared: kernel 'k' wrote dynamic shared "
                          "memory (extern __shared__) at byte 0, past the 0 bytes its launch "
                          "gives (launch.shared = 0): on a GPU the launch fails\n")
    Path("k.toml").write_text(SHARED_SPEC.format(128))
    res = CliRunner().invoke(main, ["run", "k.cu", "--spec", "k.toml"])
    assert res.exit_code == 0, res.output


# tests/runtime/test_spec_extremes.py feeds extremes to a host entry's keys; these are the
# keys it does not reach: a kernel entry's [launch] table, an argument's name, dtype and
# tensor, and every key of a [[symbols]] table.
EXTREMES = ["inf", "-inf", "nan", "1e400", "-1", "1e308", "340282366920938463463",
            "-9223372036854775809", '"1e400"', '"nan"', '"2 ** 256"', '"10 ** 30"',
            '"uniform(0, 1e400)"', '"const(1e39)"', "true", "[]", "[1e400]", "{a = 1}", '""',
            "0"]
KERNEL_KEYS = {"launch.grid": "1", "launch.block": "32", "launch.shared": "0",
               "p.name": '"p"', "p.dtype": '"float32"', "p.tensor": "false"}
SYMBOL_KEYS = {"name": '"g"', "dtype": '"float32"', "count": "4", "init": '"zeros"',
               "seed": "1"}


def _kernel_spec(values: dict[str, str]) -> str:
    return ('entry = "k"\n[launch]\n' + "".join(
        f"{k[7:]} = {v}\n" for k, v in values.items() if k.startswith("launch.")) +
        "[[args]]\n" + "".join(f"{k[2:]} = {v}\n" for k, v in values.items()
                               if k.startswith("p.")) + "count = 32\n" +
        '[[args]]\nname = "q"\ndtype = "float32"\ncount = 32\nrole = "out"\n')


def _symbol_spec(values: dict[str, str]) -> str:
    return ('entry = "run"\n[[args]]\nname = "p"\ndtype = "float32"\ncount = 4\n'
            "[[symbols]]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()))


SPEC_CASES = [*((k, v, _kernel_spec({**KERNEL_KEYS, k: v})) for k in KERNEL_KEYS
                for v in EXTREMES),
              *(("symbols." + k, v, _symbol_spec({**SYMBOL_KEYS, k: v})) for k in SYMBOL_KEYS
                for v in EXTREMES)]


def test_every_other_spec_key_takes_extremes_or_is_an_error_at_the_spec(
        tmp_path: Path) -> None:
    """Each loads with finite sizes or is an error at the spec file (never another exception:
    the CLI's exit 3), and no numpy warning leaks."""
    import math
    import warnings

    from cudafuse.diagnostics import CudafuseError
    from cudafuse.runtime.spec import load_spec

    path = tmp_path / "s.toml"
    loaded = 0
    for key, value, text in SPEC_CASES:
        path.write_text(text)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                spec = load_spec(str(path))
                for a in spec.args:
                    if a.is_array and a.nbytes < 1 << 20:
                        spec.inputs()
        except CudafuseError as exc:
            assert exc.diagnostics[0].file == str(path), (key, value, exc)
            assert exc.status in (1, 2), (key, value, exc)
            continue
        loaded += 1
        assert all(math.isfinite(a.count) for a in spec.args if a.is_array), (key, value)
        if spec.grid is not None:
            assert 1 <= min(spec.grid) and 1 <= min(spec.block) and spec.shared >= 0
    assert 0 < loaded < len(SPEC_CASES)  # (the base specs load; most extremes do not)


# main calls a pipeline that cudafuse does not fuse across (it also copies to a symbol), and
# launches nothing else: the call ends no pipeline of main's, a note beside the request.
ASIDE = """__constant__ float c_k[4];
__global__ void a(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = c_k[i % 4] * i;
}
__global__ void b(const float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = p[i] + 1.0f;
}
void pipe(float *p, float *q, int n) {
  float k[4] = {1, 2, 3, 4};
  cudaMemcpyToSymbol(c_k, k, sizeof k);
  a<<<(n + 255) / 256, 256>>>(p, n);
  b<<<(n + 255) / 256, 256>>>(p, q, n);
}
int main() {
  float *p, *q;
  int n = 1000;
  cudaMalloc(&p, n * 4);
  cudaMalloc(&q, n * 4);
  pipe(p, q, n);
  cudaDeviceSynchronize();
  return 0;
}
"""


@pytest.mark.parametrize("args, shown", [
    (["fuse", "m.cu", "-o", "o.cu"], False),
    (["fuse", "m.cu", "-o", "o.cu", "-v"], True),
    (["-v", "plan", "m.cu"], True),
    (["plan", "m.cu", "--explain"], True),
])
def test_a_note_beside_the_request_needs_v_or_explain(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], shown: bool) -> None:
    """Issue 27's rule, reached (as harris.cu's and PolyBench's jacobi1D's main reach it):
    main's call of a pipeline it cannot fuse across is said only with -v or --explain; the
    pipeline itself still fuses, and the API keeps the note, marked as a detail."""
    from click.testing import CliRunner

    from cudafuse.cli import main

    monkeypatch.chdir(tmp_path)
    Path("m.cu").write_text(ASIDE)
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    note = ("m.cu:21:3: note: launches in 'main' are not fused across this statement: its call "
            "to 'pipe' launches a kernel through a function cudafuse does not fuse across")
    assert (note in res.stderr) == shown, res.stderr
    assert "note:" in res.stderr if shown else "note:" not in res.stderr
    if args[0] == "fuse" and not shown:
        assert "cf_pipe_fused0<<<" in Path("o.cu").read_text()
        details = [d for d in api.fuse("m.cu").diagnostics if d.detail]
        assert len(details) == 1 and details[0].format(caret=False).startswith(note)
