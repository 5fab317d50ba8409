"""The fused kernel and its host launcher.

Thread mode (HFuse): a block of N1 + N2 threads; threads [0, N1) run part 1, the rest part 2,
each with its own block shape rebuilt from the linear thread id, and `__syncthreads()` becomes
`bar.sync <part>, <Ni>`. The fused grid is one-dimensional and covers the larger grid; each
part rebuilds its block index from the linear block id with its own grid, and blocks beyond a
part's grid skip that part (all of its threads together, so no barrier is left half-full).

Block mode: blocks [0, G1) run part 1 and the rest part 2, with max(N1, N2) threads; threads
beyond a part's block exit at once, which releases block-wide barriers (they wait only for
non-exited threads), so `__syncthreads()` is kept as it is.

Streams mode: no fused kernel. The launcher has the same signature and runs the two original
kernels unchanged, the second on a stream of its own, joined to the caller's stream by events
on both sides, so it is ordered in `stream` like one launch. It is the native baseline that
profiling falls back to when no fused kernel is faster.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.codegen.templates import DEDUCED, alias_name, deduced_params, substitute
from cudafuse.passes.horizontal.discarded import dep_param, discards
from cudafuse.passes.horizontal.parts import Part
from cudafuse.passes.horizontal.remap import Names, part_scope
from cudafuse.passes.horizontal.scopes import Namespaces, named, qualifier
from cudafuse.passes.horizontal.shared_split import class_copies

BAR_SYNC_DEFINITION = """\
#ifndef CUDAFUSE_BAR_SYNC
#ifdef __CUDA_ARCH__
// A barrier for `n` threads (a multiple of 32) of the block, counted per warp: only one
// part's threads wait at it.
#define CUDAFUSE_BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory")
#else
// Host compilation pass: kernel bodies are never run on the host.
#define CUDAFUSE_BAR_SYNC(id, n) asm volatile("" ::"r"(id), "r"(n) : "memory")
#endif
#endif
"""

BAR_RED_DEFINITION = r"""#ifndef CUDAFUSE_BAR_RED
// __syncthreads_count / _and / _or (kind 0, 1, 2) over `n` threads: bar.red on the part's
// named barrier, which waits for the part's warps only and reduces their predicates.
__device__ __forceinline__ int cudafuse_bar_red(int kind, int id, int n, int p) {
#ifdef __CUDA_ARCH__
  int r;
  if (kind == 0)
    asm volatile("{ .reg .pred q; setp.ne.s32 q, %3, 0; bar.red.popc.u32 %0, %1, %2, q; }"
                 : "=r"(r) : "r"(id), "r"(n), "r"(p) : "memory");
  else if (kind == 1)
    asm volatile("{ .reg .pred q, s; setp.ne.s32 q, %3, 0; bar.red.and.pred s, %1, %2, q; "
                 "selp.s32 %0, 1, 0, s; }"
                 : "=r"(r) : "r"(id), "r"(n), "r"(p) : "memory");
  else
    asm volatile("{ .reg .pred q, s; setp.ne.s32 q, %3, 0; bar.red.or.pred s, %1, %2, q; "
                 "selp.s32 %0, 1, 0, s; }"
                 : "=r"(r) : "r"(id), "r"(n), "r"(p) : "memory");
  return r;
#else
  return (void)kind, (void)id, (void)n, p * 0;  // host pass: never run
#endif
}
#define CUDAFUSE_BAR_RED(kind, id, n, p) cudafuse_bar_red((kind), (id), (n), (p))
#endif
"""


@dataclass(frozen=True)
class Config:
    mode: str  # thread | block
    regcap: int | None
    name: str
    space: Namespaces = ()  # the namespaces the fused kernel and launcher are members of


def foreign(part: Part, space: Namespaces) -> bool:
    """The part's kernel is a member of other namespaces than the fused kernel (anonymous
    ones aside, scopes.named)."""
    return named(part.fn.namespaces) != space


def _declared_types(part: Part, names: Names) -> list[str]:
    """Each parameter's declaration without its name, as written (the kernel's template
    parameters named by their namespace-scope aliases)."""
    out = []
    unit = part.unit
    for prm in part.fn.params:
        text = unit.code_text(prm.span) if prm.span.file == unit.path else ""
        pos = text.rfind(prm.name) if prm.name else -1
        if pos >= 0 and text[pos:].strip() == prm.name:
            decl = text[:pos]
        else:
            decl = prm.type if prm.type.endswith("*") else prm.type + " "
        out.append(substitute(decl, part.bindings, names.prefix, part.index))
    return out


def _names_deduced(decl: str, part: Part, names: Names) -> bool:
    """Whether a parameter's declaration names a deduced template parameter (then only the
    fused kernel's own template parameter can declare it: templates.deduced_params)."""
    return any(re.search(rf"\b{t}\b", decl)
               for t in deduced_params(part.bindings, names.prefix, part.index))


def template_head(p1: Part, p2: Part, names: Names, kernel: bool = False) -> str:
    """`template <typename cf_tp2_Op> ` for the parts' parameters left to the launch to
    deduce (a functor, often a lambda), or ''; the fused `kernel`'s also has `int cf_dep`
    when a part's `if constexpr` needs its names dependent (discarded.py)."""
    params = ["typename " + t for t in (*deduced_params(p1.bindings, names.prefix, 1),
                                        *deduced_params(p2.bindings, names.prefix, 2))]
    if kernel and (discards(p1) or discards(p2)):
        params.insert(0, f"int {dep_param(names.prefix)}")
    return f"template <{', '.join(params)}>\n" if params else ""


def template_args(p1: Part, p2: Part, names: Names, kernel: bool = False) -> str:
    """The arguments of template_head's parameters, as the launcher passes them."""
    params = [*deduced_params(p1.bindings, names.prefix, 1),
              *deduced_params(p2.bindings, names.prefix, 2)]
    if kernel and (discards(p1) or discards(p2)):
        params.insert(0, "0")
    return f"<{', '.join(params)}>" if params else ""


def param_type_aliases(part: Part, names: Names) -> str:
    """For a kernel of other namespaces than the fused kernel: its parameter types as
    aliases declared in its own namespaces, where their written text means what it meant
    (`using cf_pt2_0 = const T *;`); the fused kernel names them qualified. A type naming a
    deduced parameter has none (the fused kernel's template parameter is not declared
    there)."""
    return "".join(f"using {names.prefix}_pt{part.index}_{k} = {decl.strip()};\n"
                   for k, decl in enumerate(_declared_types(part, names))
                   if not _names_deduced(decl, part, names))


def _param_text(part: Part, names: Names, space: Namespaces = ()) -> list[str]:
    """The kernel's parameter declarations, renamed apart (user's text where it is its own;
    a kernel of other namespaces: the aliases of param_type_aliases)."""
    out = []
    qual = qualifier(part.fn.namespaces)
    for k, decl in enumerate(_declared_types(part, names)):
        new = names.param(part.index, part.fn.params[k].name or f"unnamed{k}")
        if foreign(part, space) and not _names_deduced(decl, part, names):
            decl = f"{qual}{names.prefix}_pt{part.index}_{k} "
        out.append(decl + new)
    return out


def uses_dynamic_shared(p: Part) -> bool:
    return bool(p.dyn_shared or p.dyn_globals)


def shared_prelude(p2: Part, names: Names, mode: str) -> str:
    """Namespace-scope declarations part 2's helper copies and class copies use to find its
    dynamic shared memory (thread mode; shared_split.py), and the class copies."""
    if mode != "thread" or not (p2.split.classes or p2.split.needs_offset):
        return ""
    return ("// Every extern __shared__ array starts at this address; part 2's region at the "
            "offset below.\n"
            f"extern __shared__ __align__(16) unsigned char {names.dyn}[];\n"
            f"__shared__ unsigned {names.off2_shared};  // set by the fused kernel's thread 0\n" +
            class_copies(p2.unit, p2.split, names.part2_ns,
                         f"({names.dyn} + {names.off2_shared})") + "\n")


def kernel_text(p1: Part, p2: Part, names: Names, cfg: Config) -> str:
    params = [*_param_text(p1, names, cfg.space), *_param_text(p2, names, cfg.space),
              f"dim3 {names.grid(1)}", f"dim3 {names.grid(2)}"]
    if cfg.mode == "thread":
        params.append(f"unsigned {names.off2}")
    # Without a cap, __launch_bounds__ keeps nvcc from using more registers than a block of
    # the fused size can have (the launch would fail); never both (nvcc 13 rejects that).
    threads = p1.block.count + p2.block.count if cfg.mode == "thread" else \
        max(p1.block.count, p2.block.count)
    cap = f"__maxnreg__({cfg.regcap}) " if cfg.regcap else f"__launch_bounds__({threads}) "
    # A part given more threads than its own kernel's __launch_bounds__ (blocksize.
    # bound_waiver): that bound is the kernel's launched alone; this one counts the block.
    over = [f"{p.fn.name}'s __launch_bounds__({p.fn.launch_bounds}) ({p.block.count} threads "
            "here)" for p in (p1, p2) if p.bound_note]
    note = f"// {cap.strip()} counts the whole fused block; it replaces " + \
        " and ".join(over) + "\n" if over else ""
    sig = note + template_head(p1, p2, names, kernel=True) + \
        f"__global__ void {cap}{cfg.name}(" + \
        ",\n    ".join(params) + ")"
    body = [f"  const unsigned {names.tid} = threadIdx.x;",
            f"  const unsigned {names.bid} = blockIdx.x;"]
    # Block mode needs only the first grid's size: the blocks after it run part 2.
    for i in (1, 2) if cfg.mode == "thread" else (1,):
        g = names.grid(i)
        body.append(f"  const unsigned {names.nblocks(i)} = {g}.x * {g}.y * {g}.z;")
    if p1.uses_coop or p2.uses_coop:
        body += ["#ifdef __CUDAFUSE_SHIM__",
                 "  // Read by cudafuse's front end only (never compiled): the parts' block groups",
                 "  // wait in member functions, which the emulator's choice of fibers does not",
                 "  // follow; this barrier, never reached, makes the kernel run as fibers there.",
                 "  if (false) __syncthreads();",
                 "#endif"]
    if uses_dynamic_shared(p1) or uses_dynamic_shared(p2):
        body.append(f"  extern __shared__ __align__(16) unsigned char {names.dyn}[];")
    if cfg.mode == "thread" and p2.split.needs_offset:
        body += ["  // Part 2's region offset for its helpers and classes, which cannot take it",
                 "  // as a parameter (a conversion operator is called implicitly).",
                 f"  if ({names.tid} == 0) {names.off2_shared} = {names.off2};",
                 "  __syncthreads();"]
    n1, n2 = p1.block.count, p2.block.count
    if cfg.mode == "thread":
        s1 = part_scope(p1, names, "thread", 0, "0", "      ", cfg.space)
        s2 = part_scope(p2, names, "thread", n1, "0", "      ", cfg.space)
        body += [f"  if ({names.tid} < {n1}u) {{",
                 f"    if ({names.bid} < {names.nblocks(1)}) {{", s1.rstrip("\n"), "    }",
                 "  } else {",
                 f"    if ({names.bid} < {names.nblocks(2)}) {{", s2.rstrip("\n"), "    }",
                 "  }"]
    else:
        s1 = part_scope(p1, names, "block", 0, "0", "    ", cfg.space)
        s2 = part_scope(p2, names, "block", 0, names.nblocks(1), "    ", cfg.space)
        body += [f"  if ({names.bid} < {names.nblocks(1)}) {{",
                 f"    if ({names.tid} >= {n1}u) return;  // surplus threads of a smaller "
                 "block: exiting releases __syncthreads", s1.rstrip("\n"),
                 "  } else {",
                 f"    if ({names.tid} >= {n2}u) return;", s2.rstrip("\n"), "  }"]
    return sig + " {\n" + "\n".join(body) + "\n}\n"


def _launcher_params(p1: Part, p2: Part, names: Names, space: Namespaces) -> list[str]:
    """The launcher's parameters: both kernels', then the two launches' configurations."""
    # __grid_constant__ is for kernel parameters only.
    host = [" ".join(t.replace("__grid_constant__", "").split())
            for t in (*_param_text(p1, names, space), *_param_text(p2, names, space))]
    return [*host, "dim3 grid1", "dim3 grid2", "size_t smem1", "size_t smem2",
            "cudaStream_t stream"]


def launcher_text(p1: Part, p2: Part, names: Names, cfg: Config) -> str:
    p = names.prefix
    params = _launcher_params(p1, p2, names, cfg.space)
    args = [names.param(i, prm.name or f"unnamed{k}")
            for i, part in ((1, p1), (2, p2)) for k, prm in enumerate(part.fn.params)]
    args += ["grid1", "grid2"]
    n1, n2 = p1.block.count, p2.block.count
    lines = [f"  const unsigned long long {p}_g1 = (unsigned long long)grid1.x * grid1.y * "
             "grid1.z;",
             f"  const unsigned long long {p}_g2 = (unsigned long long)grid2.x * grid2.y * "
             "grid2.z;"]
    if cfg.mode == "thread":
        lines += [
            f"  const unsigned long long {p}_blocks = {p}_g1 > {p}_g2 ? {p}_g1 : {p}_g2;",
            "  // Part 2's dynamic shared memory starts at the next 16-byte boundary.",
            f"  const size_t {p}_off2 = (smem1 + 15) & ~(size_t)15;",
            f"  const size_t {p}_smem = smem2 ? {p}_off2 + smem2 : smem1;",
            f"  const unsigned {p}_threads = {n1 + n2}u;"]
        args.append(f"(unsigned){p}_off2")
    else:
        lines += [
            f"  const unsigned long long {p}_blocks = {p}_g1 + {p}_g2;",
            "  // A block runs one part only: both parts' regions start at offset 0.",
            f"  const size_t {p}_smem = smem1 > smem2 ? smem1 : smem2;",
            f"  const unsigned {p}_threads = {max(n1, n2)}u;"]
    kernel = cfg.name + template_args(p1, p2, names, kernel=True)
    # An instantiation over a lambda's type has no linkage: the runtime's template overload
    # over it could not be defined elsewhere (clang refuses it), its address as a plain
    # pointer can.
    func = f"(const void *){kernel}" if kernel != cfg.name else kernel
    lines += [
        f"  if ({p}_smem > 48 * 1024)",
        f"    cudaFuncSetAttribute({func}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
        f"(int){p}_smem);",
        f"  {kernel}<<<dim3((unsigned){p}_blocks), dim3({p}_threads), {p}_smem, stream>>>(",
        "      " + ", ".join(args) + ");"]
    sig = template_head(p1, p2, names) + f"void {cfg.name}_launch(" + \
        ",\n    ".join(params) + ")"
    return sig + " {\n" + "\n".join(lines) + "\n}\n"


def kernel_ref(part: Part, prefix: str, space: Namespaces = ()) -> str:
    """The original kernel as code in `space` names it (a template with the part's
    aliases, which are members of the kernel's namespaces)."""
    qual = qualifier(part.fn.namespaces) if foreign(part, space) else ""
    if not part.bindings:
        return qual + part.fn.name
    # A template template argument is passed as written (an alias template may not match
    # the parameter's kind before C++17's relaxed matching).
    args = ", ".join(arg if p.kind == "template" else
                     alias_name(prefix, part.index, p.name) if arg == DEDUCED else
                     qual + alias_name(prefix, part.index, p.name)
                     for p, arg in part.bindings)
    return f"{qual}{part.fn.name}<{args}>"


def streams_launcher_text(p1: Part, p2: Part, names: Names, cfg: Config,
                          sequential: bool = False) -> str:
    """The unfused launcher: the two kernels as they are, on two streams (the native
    baseline a user would write) or, `sequential`, one after the other on `stream`."""
    p = names.prefix
    params = _launcher_params(p1, p2, names, cfg.space)
    lines = [] if sequential else [
        "  // Created once and kept for the process: a non-blocking stream, so that it does not",
        "  // wait for the legacy default stream implicitly (the events below order it instead).",
        f"  static cudaStream_t {p}_side = [] {{ cudaStream_t s; "
        "cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }();",
        f"  static cudaEvent_t {p}_fork = [] {{ cudaEvent_t e; "
        "cudaEventCreateWithFlags(&e, cudaEventDisableTiming); return e; }();",
        f"  static cudaEvent_t {p}_join = [] {{ cudaEvent_t e; "
        "cudaEventCreateWithFlags(&e, cudaEventDisableTiming); return e; }();",
        f"  cudaEventRecord({p}_fork, stream);  // the side stream starts after stream's work",
        f"  cudaStreamWaitEvent({p}_side, {p}_fork, 0);"]
    second = "stream" if sequential else f"{p}_side"
    for part, grid, smem, stream in ((p1, "grid1", "smem1", "stream"),
                                     (p2, "grid2", "smem2", second)):
        kernel = kernel_ref(part, p, cfg.space)
        b = part.block
        args = ", ".join(names.param(part.index, prm.name or f"unnamed{k}")
                         for k, prm in enumerate(part.fn.params))
        # (const void *): an instantiation over a lambda's type (launcher_text).
        func = f"(const void *){kernel}" if deduced_params(part.bindings, p, part.index) \
            else kernel
        lines += [f"  if ({smem} > 48 * 1024)",
                  f"    cudaFuncSetAttribute({func}, "
                  f"cudaFuncAttributeMaxDynamicSharedMemorySize, (int){smem});",
                  f"  {kernel}<<<{grid}, dim3({b.x}, {b.y}, {b.z}), {smem}, {stream}>>>({args});"]
    if not sequential:
        lines += [f"  cudaEventRecord({p}_join, {p}_side);  // stream's later work waits for "
                  "both", f"  cudaStreamWaitEvent(stream, {p}_join, 0);"]
    sig = template_head(p1, p2, names) + f"void {cfg.name}_launch(" + \
        ",\n    ".join(params) + ")"
    return sig + " {\n" + "\n".join(lines) + "\n}\n"
