"""A template kernel whose functor parameter a launch deduces from a lambda (PyTorch's
kernelHistogram1D `Op getOp`): --kernels cannot name it, and the refusal says so at the
kernel."""

from __future__ import annotations

from pathlib import Path

from hfuse_helpers import PROGRAMS, hfuse

ATEN = PROGRAMS / "aten"


def test_a_functor_parameter_is_named_in_the_refusal(tmp_path: Path) -> None:
    res = hfuse(str(ATEN / "im2col.cu"), str(ATEN / "functor.cu"), "--kernels",
                "at::native::im2col_kernel<float>,count_bins", "--block1", "128", "--block2",
                "128", "-o", str(tmp_path / "o.cu"))
    assert res.exit_code == 2
    assert f"{ATEN / 'functor.cu'}:8:17: error: kernel 'count_bins' is a template" \
           in res.output
    assert "'Op' is the type of an argument (a functor): a lambda's type has no name" \
           in res.output
    assert "'IndexType' is the type" not in res.output  # it is named in other types too
