"""`init = "values(v0, v1, ...)"` gives every element of an array (the shapes, strides and
index tables that kernels such as caffe's im2col_nd_gpu_kernel read): one value per element,
each a value of the dtype, or an error at the key."""

from __future__ import annotations

import numpy as np
import pytest

from cudafuse.runtime.spec_values import ArgSpec, make_value


def _arg(init: str, count: int, dtype: str = "int32") -> ArgSpec:
    return ArgSpec(name="shape", dtype=np.dtype(dtype), count=count, init=init,
                   key="args[0] 'shape'")


def test_values_gives_each_element_in_order() -> None:
    got = make_value(_arg("values(3, 12, 10)", 3))
    assert got.dtype == np.int32 and got.tolist() == [3, 12, 10]
    assert make_value(_arg("values(0.5, -2)", 2, "float32")).tolist() == [0.5, -2.0]


@pytest.mark.parametrize("init, count, message", [
    ("values(1, 2)", 3, "values takes 3 parameter(s), got 2"),
    ("values(1, 2.5)", 2, "2.5 is not a int32 value"),
    ("values(1, 3000000000)", 2, "3e+09 is not a int32 value"),
    ("values(1, x)", 2, "must be numbers"),
])
def test_values_mistakes_are_errors_at_the_key(init: str, count: int, message: str) -> None:
    with pytest.raises(ValueError, match=r"args\[0\] 'shape'\.init: .*" + message.replace(
            "(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        make_value(_arg(init, count))
