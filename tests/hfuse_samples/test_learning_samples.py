"""HFuse samples upsample_bilinear2d and im2col: emulator output equals a numpy reference,
and `cudafuse run` accepts their specs."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime import load

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
F = np.float32


def upsample_ref(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    """PyTorch's bilinear upsampling, align_corners=False, every step in float32 in the
    kernel's order."""
    nc, ih, iw = x.shape

    def axis(n_in: int, n_out: int):
        scale = F(n_in) / F(n_out)
        src = scale * (np.arange(n_out, dtype=F) + F(0.5)) - F(0.5)
        src = np.maximum(src, F(0))
        i1 = src.astype(np.int64)  # src >= 0: truncation is floor
        i1p = np.where(i1 < n_in - 1, 1, 0)
        l1 = src - i1.astype(F)
        l0 = F(1) - l1
        assert l1.dtype == F and l0.dtype == F
        return i1, i1 + i1p, l0, l1

    y1, y2, ly0, ly1 = axis(ih, oh)
    x1, x2, lx0, lx1 = axis(iw, ow)
    ly0, ly1 = ly0[:, None], ly1[:, None]
    a, b = x[:, y1][:, :, x1], x[:, y1][:, :, x2]
    c, d = x[:, y2][:, :, x1], x[:, y2][:, :, x2]
    out = ly0 * (lx0 * a + lx1 * b) + ly1 * (lx0 * c + lx1 * d)
    assert out.dtype == F
    return out


@pytest.mark.parametrize("nc,ih,iw,oh,ow", [
    (3, 7, 9, 16, 13),   # non-integer scale factors, 624 outputs: a partial last block
    (2, 5, 4, 10, 8),    # exact 2x
    (2, 6, 11, 9, 11),   # 1.5x rows, identity columns
    (1, 8, 12, 5, 7),    # downsampling (scale > 1) goes through the same formula
])
def test_upsample_bilinear2d_emu(nc, ih, iw, oh, ow):
    rng = np.random.default_rng(10 + nc * ih * iw)
    x = rng.standard_normal((nc, ih, iw)).astype(F)
    out = np.full(nc * oh * ow, np.nan, F)
    lib = load(SAMPLES / "upsample_bilinear2d.cu", backend="emu")
    lib.call("upsample_bilinear2d_run", x.ravel(), out, nc, ih, iw, oh, ow)
    # Exact equality: the emulator is g++ on x86-64 without FMA (no contraction), so each
    # float32 operation rounds exactly as numpy's float32 one in the same order. (On a GPU,
    # nvcc contracts into FMAs and results can differ in the last bits.)
    np.testing.assert_array_equal(out.reshape(nc, oh, ow), upsample_ref(x, oh, ow))


def test_upsample_ref_matches_torch_semantics():
    """The reference itself: known values for a 1D ramp upsampled 2x (align_corners=False)."""
    x = np.arange(4, dtype=F).reshape(1, 1, 4)
    got = upsample_ref(x, 1, 8)[0, 0]
    np.testing.assert_array_equal(got, F([0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3]))


def im2col_ref(im: np.ndarray, kh: int, kw: int, ph: int, pw: int, sh: int,
               sw: int) -> np.ndarray:
    c, h, w = im.shape
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    p = np.pad(im, ((0, 0), (ph, ph), (pw, pw)))
    col = np.empty((c, kh, kw, oh, ow), im.dtype)
    for dy in range(kh):
        for dx in range(kw):
            col[:, dy, dx] = p[:, dy:dy + sh * (oh - 1) + 1:sh, dx:dx + sw * (ow - 1) + 1:sw]
    return col.reshape(c * kh * kw, oh * ow)


@pytest.mark.parametrize("c,h,w,kh,kw,ph,pw,sh,sw", [
    (4, 23, 21, 3, 2, 1, 1, 2, 2),   # the spec's case: 528 threads, a partial last block
    (3, 9, 14, 2, 3, 0, 2, 1, 3),    # no row padding, wide column padding, unequal strides
    (2, 6, 5, 3, 3, 2, 1, 1, 1),     # padding wider than a stride: whole rows of zeros
])
def test_im2col_emu(c, h, w, kh, kw, ph, pw, sh, sw):
    rng = np.random.default_rng(20 + c * h * w)
    # strictly positive inputs, so that a padding tap (0) never equals an image value
    im = rng.uniform(0.5, 1.5, (c, h, w)).astype(F)
    ref = im2col_ref(im, kh, kw, ph, pw, sh, sw)
    col = np.full(ref.size, np.nan, F)  # every entry must be written
    lib = load(SAMPLES / "im2col.cu", backend="emu")
    lib.call("im2col_run", im.ravel(), col, c, h, w, kh, kw, ph, pw, sh, sw)
    np.testing.assert_array_equal(col.reshape(ref.shape), ref)


@pytest.mark.parametrize("name", ["upsample_bilinear2d", "im2col"])
def test_cli_run_spec(name):
    res = CliRunner().invoke(main, ["run", str(SAMPLES / f"{name}.cu"),
                                    "--spec", str(SAMPLES / f"{name}.toml")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
