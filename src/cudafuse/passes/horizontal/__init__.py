"""Horizontal fusion: two independent kernels run by disjoint thread (or block) ranges of one
launch. inputs.py (finding the kernels, their blocks, renaming a second file apart),
parts.py (what each kernel needs, what is refused), remap.py (a part's body with its own
builtins, barriers and shared memory), codegen.py (the fused kernel and its launcher),
regbound.py (HFuse's register bound), driver.py (name clashes, the result), entry.py (its
registry entry)."""
