"""Analyses over the IR: facts about kernels and host pipelines. No libclang here."""
