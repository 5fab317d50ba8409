"""Vertical fusion: the pipeline model, its cost model, and partitioning strategies."""
