"""The emulator tests build into the run's shared cache (tests/conftest.py, _build_cache);
their program paths are in conftest_emu.py (conftest.py cannot be imported)."""
