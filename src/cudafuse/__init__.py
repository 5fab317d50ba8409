"""cudafuse: a source-to-source CUDA compiler that fuses kernels."""

__version__ = "0.1.0"
