"""Horizontal fusion: two independent kernels run by disjoint thread (or block) ranges of one
launch. parts.py (what each kernel needs, what is refused), remap.py (a part's body with its
own builtins, barriers and shared memory), codegen.py (the fused kernel and its launcher),
driver.py (inputs, name clashes, the result)."""
