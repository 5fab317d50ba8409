"""Where the generated code sits, so that every name resolves as in the kernels' own files.

A kernel's body finds names through the namespaces it is a member of (PyTorch's kernels live
in `at::native`, their helpers beside them: `area_pixel_compute_source_index`, a file's own
`min` that hides CUDA's `::min`). The fused kernel and its launcher are therefore emitted in
the first kernel's namespaces, reopened at the end of the output, and every helper copy in
its own helper's. When the second kernel is a member of other namespaces:

- its part's scope begins with `using namespace ::<its namespaces>;`, so its body finds
  their names (a using-directive in a block makes them visible there; a name the first
  kernel's namespaces declare too would hide it, which the compile check after emission
  finds as an unresolved or mismatched name rather than letting it through);
- its parameters are declared in the fused kernel's signature through aliases of their
  written types declared in its own namespaces (`namespace at { namespace cuda { using
  cf_pt2_0 = const T *; } }`, then `::at::cuda::cf_pt2_0 cf_p2_x`): the text means there what
  it meant (in the fused kernel's namespace it could name something else, or nothing);
- its template arguments' aliases are declared in its own namespaces (a default argument's
  text is written there) and named qualified from elsewhere.

An anonymous namespace is reopened as `namespace {` (the same one, in one file) and left
out of qualified names (its members are found through its parent).
"""

from __future__ import annotations

Namespaces = tuple[tuple[str, bool], ...]


def opening(spaces: Namespaces) -> str:
    return "".join(("inline " if inline else "") + (f"namespace {name} {{\n" if name else
                                                    "namespace {\n")
                   for name, inline in spaces)


def closing(spaces: Namespaces) -> str:
    return "".join(f"}}  // namespace {name or '(anonymous)'}\n" for name, _ in reversed(spaces))


def wrapped(spaces: Namespaces, text: str) -> str:
    """`text` declared as a member of `spaces`."""
    if not spaces or not text:
        return text
    return opening(spaces) + text.rstrip("\n") + "\n" + closing(spaces)


def qualifier(spaces: Namespaces) -> str:
    """`::a::b::` for a member of `spaces` named from anywhere (anonymous ones left out)."""
    return "::" + "".join(f"{name}::" for name, _ in spaces if name)


def using_directive(spaces: Namespaces) -> str:
    """What makes the members of `spaces` visible in a block ("" when they already are)."""
    named = [name for name, _ in spaces if name]
    return f"using namespace ::{'::'.join(named)};" if named else ""


def named(spaces: Namespaces) -> Namespaces:
    """`spaces` without anonymous namespaces: where code finds the same names (an anonymous
    namespace's members are visible in its parent) and still has external linkage (the
    launcher is called from other files)."""
    return tuple((name, inline) for name, inline in spaces if name)


def encloses(outer: Namespaces, inner: Namespaces) -> bool:
    """Whether code in `inner` finds `outer`'s members by unqualified lookup."""
    return inner[:len(outer)] == outer


PARAM_TRAIT_NAME = "param"


def param_trait(prefix: str) -> str:
    """`<prefix>_param<K, F>::type`: the K-th parameter type of function pointer type F."""
    t = f"{prefix}_{PARAM_TRAIT_NAME}"
    # (the template's own names are lower case and prefixed: it follows the program's text,
    # whose macros, ccminer's `#define A 64`, would otherwise replace them)
    return (f"// The K-th parameter type of a kernel, as its own namespace declares it.\n"
            f"template <int cf_k, class cf_f> struct {t};\n"
            f"template <int cf_k, class cf_r, class cf_a, class... cf_p>\n"
            f"struct {t}<cf_k, cf_r (*)(cf_a, cf_p...)>\n"
            f"    : {t}<cf_k - 1, cf_r (*)(cf_p...)> {{}};\n"
            f"template <class cf_r, class cf_a, class... cf_p>\n"
            f"struct {t}<0, cf_r (*)(cf_a, cf_p...)> {{\n"
            f"  using type = cf_a;\n}};\n")
