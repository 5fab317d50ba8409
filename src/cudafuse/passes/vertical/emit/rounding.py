"""The rounding barrier every fused file defines once: `<prefix>_round(v)`.

The original program stores each intermediate to memory, so the consumer reads it rounded
to its type. Fused, the value flows in a register, and nvcc may contract the producer's
last multiply with the consumer's add into one FMA, which rounds once instead of twice and
changes the last bit. An empty `asm` does not prevent that: it stops NVVM, but leaves
nothing in the PTX, and ptxas contracts a `mul.f32` and an `add.f32` that carry no rounding
modifier (the PTX ISA allows it; seen on sm_90 with nvcc 13.0: `FMUL` + `FADD` unfused, one
`FFMA` fused). So the barrier is a real PTX instruction with an explicit rounding modifier,
`add.rn` of -0.0: the PTX ISA never contracts an instruction with one, and x + (-0.0) is x
for every x, zeros and infinities included (a NaN comes back NaN; its payload may not).

What this does not give: nvcc's contraction of a kernel's own expressions (`a*b + c*d`
inside the consumer) depends on the code around them, so fused and unfused code compiled
with `--fmad=true` (nvcc's default) may still differ in the last bit there; see
docs/fp-exactness.md. The host and emulator path (no `__CUDA_ARCH__`) is the identity.
"""

from __future__ import annotations

# The barrier is one instruction with -0.0 as an operand (the emulator translates that form,
# emu/inline_asm.py). f16 and bf16 values travel in 16-bit integer registers, as their bits.

# Every name the prologue spells is one no program may define (reserved: `__cf_`), NVIDIA's,
# or a keyword; a program's own macro (`-D v=1`, `#define w 640` for an image width) would
# otherwise rewrite it. The vector members x, y, z, w cannot be renamed: they are set aside
# around their uses (push_macro/pop_macro, which clang, g++ and nvcc all read).
V = "__cf_v"
U = "__cf_u"
MEMBERS = "xyzw"


def prologue(prefix: str) -> str:
    """Definitions every fused file needs once, before the first fused kernel."""
    r = f"{prefix}_round"
    t = f"{prefix}_T"  # (not `T`: the user's file may #define T, as tiled kernels do)
    return f"""// cudafuse: a producer's result is rounded to its type when the original stored it.
// An empty asm would not do: ptxas contracts a mul.f32 and an add.f32 without a rounding
// modifier into one FFMA across it. An add.rn of -0.0 is never contracted (PTX ISA) and
// gives back x for every x (a NaN stays a NaN): one FADD per evaluation. Not volatile, so
// nvcc may still merge two evaluations of a producer at one element into one.
template <class {t}> __device__ __forceinline__ {t} {r}({t} {V}) {{ return {V}; }}
__device__ __forceinline__ float {r}(float {V}) {{
#ifdef __CUDA_ARCH__
  asm("add.rn.f32 %0, %0, %1;" : "+f"({V}) : "f"(-0.0f));
#endif
  return {V};
}}
__device__ __forceinline__ double {r}(double {V}) {{
#ifdef __CUDA_ARCH__
  asm("add.rn.f64 %0, %0, %1;" : "+d"({V}) : "d"(-0.0));
#endif
  return {V};
}}
{_vectors(r)}{_halves(r)}"""


def _vectors(r: str) -> str:
    """CUDA's vector types, member by member (device code only: the host and emulator keep
    the template's identity)."""
    out = ["#ifdef __CUDA_ARCH__"]
    out += [f'#pragma push_macro("{m}")\n#undef {m}' for m in MEMBERS]
    for base in ("float", "double"):
        for n in (1, 2, 3, 4):
            members = "".join(f" {V}.{m} = {r}({V}.{m});" for m in MEMBERS[:n])
            out.append(f"__device__ __forceinline__ {base}{n} {r}({base}{n} {V}) "
                       f"{{{members} return {V}; }}")
    out += [f'#pragma pop_macro("{m}")' for m in MEMBERS]
    out.append("#endif")
    return "\n".join(out) + "\n"


def _halves(r: str) -> str:
    """__half and __nv_bfloat16 (a pair: each half), when the program includes their headers
    and the target has the rounded add (f16: sm_53; bf16: sm_90, where cuda_bf16.h's
    arithmetic is a contractible mul.bf16; below that it is an fma.rn, already rounded).
    The emulator defines __CUDA_ARCH__ too and translates this add (emu/inline_asm.py)."""
    out = []
    for t, t2, n, ptx, arch, macro in (
            ("__half", "__half2", "half", "f16", 530, "__CUDA_FP16_TYPES_EXIST__"),
            ("__nv_bfloat16", "__nv_bfloat162", "bfloat16", "bf16", 900,
             "__CUDA_BF16_TYPES_EXIST__")):
        pair = "half2" if n == "half" else "bfloat162"
        out.append(
            f"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= {arch} && defined({macro})\n"
            f"__device__ __forceinline__ {t} {r}({t} {V}) {{\n"
            f"  unsigned short {U} = __{n}_as_ushort({V});\n"
            f"  asm(\"add.rn.{ptx} %0, %0, %1;\" : \"+h\"({U}) : \"h\"((unsigned short)0x8000));\n"
            f"  return __ushort_as_{n}({U});\n}}\n"
            f"__device__ __forceinline__ {t2} {r}({t2} {V}) {{\n"
            f"  return __halves2{pair}({r}(__low2{n}({V})), {r}(__high2{n}({V})));\n}}\n"
            "#endif\n")
    return "".join(out)
