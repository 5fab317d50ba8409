"""A compiler failure without a file:line diagnostic says what failed on its first line (the
line reach tables show), not only "g++ failed:"."""

from __future__ import annotations

import re

import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime.build import _GCC_DIAG, _compile


@pytest.mark.parametrize("stderr, first", [
    ("g++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.",
     "g++ failed: g++: fatal error: Killed signal terminated program cc1plus"),
    ("some note\nlast words", "g++ failed: last words"),
    ("", "g++ failed: exit status 3, no output"),
])
def test_failure_without_location_names_the_cause(tmp_path, stderr, first):
    script = f"printf '%s' '{stderr}' >&2; exit 3"
    with pytest.raises(CudafuseError) as exc:
        _compile(["sh", "-c", script, "sh"], tmp_path / "x.so", _GCC_DIAG, True, "g++")
    assert str(exc.value).splitlines()[0].endswith(first)
    assert not list(tmp_path.iterdir())
    assert re.search("no output" if not stderr else re.escape(stderr.splitlines()[-1]),
                     str(exc.value))
