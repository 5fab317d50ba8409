# cudafuse: `make demo` and `make test` are all a fresh clone needs.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow lint bench bench-analyze bench-emu bench-emu-build bench-vertical \
	bench-verify bench-hfuse gpu-session gpu-session-dry clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	# An editable install leaves the bytecode to the first import, which never writes it
	# where PYTHONDONTWRITEBYTECODE is set: compile it now, as a regular install would.
	$(BIN)/python -m compileall -q src/cudafuse
	touch $(STAMP)

install: $(STAMP)

DEMO := build/demo
DEMO_SCRATCH := --scratch dx --scratch dy --scratch sx --scratch sy --scratch sxy \
	--scratch gx --scratch gy --scratch gxy

# The main job on a bundled sample, no GPU: analyse Harris, fuse it (explaining every
# decision), then run original and fused under CPU emulation and compare every output element.
demo: $(STAMP)
	@mkdir -p $(DEMO)
	$(BIN)/cudafuse analyze samples/harris.cu
	$(BIN)/cudafuse fuse samples/harris.cu -o $(DEMO)/harris.fused.cu --explain \
	    $(DEMO_SCRATCH) --report $(DEMO)/harris.report.json --dot $(DEMO)/harris.dot
	$(BIN)/cudafuse verify samples/harris.cu $(DEMO)/harris.fused.cu --spec samples/harris.toml
	@echo "fused source: $(DEMO)/harris.fused.cu"
	@echo "to run cudafuse yourself (the README's tour): . $(BIN)/activate"

lint: $(STAMP)
	$(BIN)/ruff check src tests

# Two workers (the CI machine has two cores). worksteal: each worker takes a contiguous half
# (a module's tests, and its module-scoped builds, stay on one worker) and steals from the
# other at the end, so one long test does not leave a core idle; the slowest tests are
# listed at the end, to see where the time goes.
test: lint
	$(BIN)/pytest -q -n 2 --dist worksteal --durations=25

# What `make test` leaves out (marker `slow`), built at -O2 as users' runs are (the default
# suite builds emulated programs at -O0: tests/conftest.py): the long generated-case runs,
# the cases of a parametrized check whose path a kept case already runs (each such test
# says which it keeps and why), and nvcc checks of the tests' own fixed programs (issue 27).
test-slow: $(STAMP)
	CUDAFUSE_EMU_OPT=-O2 $(BIN)/pytest -q -n 2 --dist worksteal -m slow

# verify's fixed cost, cold and warm (docs/benchmarks.md, issue 27).
bench-verify: $(STAMP)
	$(BIN)/python benchmarks/bench_verify.py

bench-analyze: $(STAMP)
	$(BIN)/python benchmarks/bench_analyze.py

bench-emu: $(STAMP)
	$(BIN)/python benchmarks/bench_emu.py

# What one emulator build costs (g++ CPU seconds): every program's share and its kernels'.
bench-emu-build: $(STAMP)
	$(BIN)/python benchmarks/bench_emu_build.py

# Needs an NVIDIA GPU and nvcc: times every sample unfused and fused at 4096^2 and 8192^2
# and writes the table into docs/benchmarks.md.
bench-vertical: $(STAMP)
	$(BIN)/python benchmarks/bench_vertical.py --write docs/benchmarks.md

# Needs an NVIDIA GPU, nvcc and PyCUDA (pip install -e '.[gpu]'): profiles the HFuse paper's
# 16 kernel pairs with `cudafuse hfuse --profile` and writes the table into docs/benchmarks.md.
bench-hfuse: $(STAMP)
	$(BIN)/python benchmarks/bench_hfuse.py --write docs/benchmarks.md

# Every GPU benchmark, each writing its table into docs/benchmarks.md.
bench: bench-vertical bench-hfuse

# On a fresh, offline GPU machine (docs/gpu-session.md): installs what it needs from the
# wheels in .device-wheels (no network, no $(STAMP)), then, within 520 s, the device's
# figures, bench-vertical, pytest -m gpu, bench-hfuse, the HFuse paper's ATen pair (from
# .device-cache: gpu_session.py --prepare, here) and the fuse --profile column, every
# table with device, driver and date in $OUT (else build/gpu-session). Run it again to go on.
gpu-session:
	$(PY) benchmarks/gpu_session.py

# The same steps on the CPU: every harness built, the emulator path timed at small sizes,
# the GPU tests collected and skipped (results in build/gpu-session-dry).
gpu-session-dry: $(STAMP)
	$(BIN)/python benchmarks/gpu_session.py --dry

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache
