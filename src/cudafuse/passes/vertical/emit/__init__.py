"""Emitting: the fused kernels, their launches and the host edits (codegen.py and its
sibling/wrapper variants), and the human-readable renderings (render.py)."""
