"""Kernel parameters that are structs passed by value describing an array: PyTorch's
PackedTensorAccessor (`data_`, `sizes_`, `strides_` behind a constructor) and TensorInfo
(`data`, `sizes`, `strides`, `dims`), and classes written like them.

A spec describes such a parameter as the array it views, with its view:

    [[args]]
    name = "idata"            # the kernel's parameter (a struct by value)
    dtype = "float32"
    count = 378
    init = "uniform(-1, 1)"
    tensor = { sizes = [2, 3, 7, 9], strides = [189, 63, 9, 1] }   # strides: default
                                                                   # row-major
A run passes the array to a host function generated beside the kernel (`wrapper`) that
builds the struct over the array's device pointer: by the class's constructor
`(data, sizes, strides)` or `(data, dims, sizes, strides)`, else by assigning its public
`data`/`sizes`/`strides`/`dims` members; which one is decided by the C++ compiler from the
class itself (`HELPER`), never from its spelling. The sizes and strides are converted to the
class's own index type (read from `size(0)` or `sizes[0]`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_DIMS = 25  # PyTorch's MAX_TENSORINFO_DIMS


@dataclass(frozen=True)
class TensorView:
    sizes: tuple[int, ...]
    strides: tuple[int, ...]


def parse_tensor(raw: Any, where: str, count: int, integer: Any,
                 sizes: dict[str, Any]) -> TensorView:
    """The `tensor` table of an array argument; `integer(expr, sizes, where, low)` evaluates
    one size expression (spec.integer)."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a table {{ sizes = [...], strides = [...] }}, "
                         f"got {raw!r}")
    extra = set(raw) - {"sizes", "strides"}
    if extra:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(extra))}; expected sizes, "
                         "strides")
    dims = raw.get("sizes")
    if not isinstance(dims, list) or not 1 <= len(dims) <= MAX_DIMS:
        raise ValueError(f"{where}.sizes: expected a list of 1-{MAX_DIMS} sizes, got {dims!r}")
    shape = tuple(integer(d, sizes, f"{where}.sizes") for d in dims)
    if "strides" in raw:
        st = raw["strides"]
        if not isinstance(st, list) or len(st) != len(shape):
            raise ValueError(f"{where}.strides: expected {len(shape)} strides (one per size), "
                             f"got {st!r}")
        strides = tuple(integer(s, sizes, f"{where}.strides") for s in st)
    else:
        strides, step = [], 1
        for d in reversed(shape):
            strides.insert(0, step)
            step *= max(d, 1)
        strides = tuple(strides)
    reach = sum((d - 1) * s for d, s in zip(shape, strides, strict=True)) + 1 \
        if all(shape) else 0
    if reach > count:
        raise ValueError(f"{where}: the view {list(shape)} with strides {list(strides)} reaches "
                         f"element {reach - 1}, past the array's {count}")
    return TensorView(shape, strides)


# The helper a generated wrapper builds its structs with (C++17). `P` is the pointer type of
# the array the wrapper receives; the class's index type and element type are read from it.
HELPER = r"""// ---- Structs by value over an array (cudafuse runtime/spec_struct.py).
#include <type_traits>
// The element type, by dereferencing the data pointer (which drops a __restrict__ that
// remove_pointer would keep, as g++ does).
template <class S, class = void> struct cudafuse_tensor_data {
  using type = std::remove_reference_t<decltype(*std::declval<S &>().data)>;
};
template <class S>
struct cudafuse_tensor_data<S, std::void_t<decltype(std::declval<S &>().data())>> {
  using type = std::remove_reference_t<decltype(*std::declval<S &>().data())>;
};
template <class S, class = void> struct cudafuse_tensor_index {
  using type = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<S &>().sizes[0])>>;
};
template <class S>
struct cudafuse_tensor_index<S, std::void_t<decltype(std::declval<const S &>().size(0))>> {
  using type = std::remove_cv_t<decltype(std::declval<const S &>().size(0))>;
};
template <class S, class = void> struct cudafuse_tensor_has_dims : std::false_type {};
template <class S>
struct cudafuse_tensor_has_dims<S, std::void_t<decltype(std::declval<S &>().dims)>>
    : std::true_type {};
template <class S, class P>
S cudafuse_tensor(P *data, int dims, const long long *sizes, const long long *strides) {
  using I = typename cudafuse_tensor_index<S>::type;
  using D = typename cudafuse_tensor_data<S>::type *;
  I sz[25] = {}, st[25] = {};
  for (int i = 0; i < dims; ++i) {
    sz[i] = static_cast<I>(sizes[i]);
    st[i] = static_cast<I>(strides[i]);
  }
  D p = const_cast<D>(data);
  if constexpr (std::is_constructible_v<S, D, const I *, const I *>) {
    return S(p, sz, st);
  } else if constexpr (std::is_constructible_v<S, D, int, I *, I *>) {
    return S(p, dims, sz, st);
  } else {
    S s{};
    s.data = p;
    for (int i = 0; i < dims; ++i) {
      s.sizes[i] = sz[i];
      s.strides[i] = st[i];
    }
    if constexpr (cudafuse_tensor_has_dims<S>::value) s.dims = dims;
    return s;
  }
}
"""


def data_param(param_type: str, name: str) -> str:
    """The wrapper's parameter for a struct parameter of type `param_type`: a pointer to
    the struct's elements."""
    return f"typename cudafuse_tensor_data<std::remove_cv_t<{param_type}>>::type *{name}"


def build_lines(param_type: str, name: str, view: TensorView, local: str) -> list[str]:
    """Statements declaring `local`, the struct built over the array `name`."""
    sizes = ", ".join(f"{d}LL" for d in view.sizes)
    strides = ", ".join(f"{s}LL" for s in view.strides)
    return [f"const long long {local}_sz[] = {{{sizes}}}, {local}_st[] = {{{strides}}};",
            f"auto {local} = cudafuse_tensor<std::remove_cv_t<{param_type}>>({name}, "
            f"{len(view.sizes)}, "
            f"{local}_sz, {local}_st);"]


def wrapper_params(types: list[str], params: list[str], views: dict[int, TensorView]
                   ) -> tuple[list[str], list[str], list[str]]:
    """A wrapper's parameter declarations, the statements building its structs, and the
    arguments it passes on: a struct parameter with a view (by its index) is received as
    its array (`verify --hfuse`'s and `hfuse --profile`'s wrappers)."""
    decls, lines, passed = [], [], []
    for i, (t, p) in enumerate(zip(types, params, strict=True)):
        if i in views:
            decls.append(data_param(t, p))
            lines += build_lines(t, p, views[i], f"cudafuse_s{i}")
            passed.append(f"cudafuse_s{i}")
        else:
            decls.append(f"{t} {p}")
            passed.append(p)
    return decls, lines, passed
