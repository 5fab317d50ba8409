"""The emulator's precompiled header (runtime/emu_pch.py): which options name it, when it is
made, and when builds go on without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.emu import header_path
from cudafuse.runtime import emu_pch

FLAGS = ["-std=c++17", "-O2", "-fPIC", "-shared", "-Wl,-Bsymbolic", "-x", "c++", "-include",
         str(header_path()), "-iquote", "/src/dir", "-I", "/inc", "-DN=3", "-include",
         "/user/forced.h", "-Wl,--no-undefined"]


def test_the_options_that_name_it():
    assert emu_pch._header_flags(FLAGS) == ["-std=c++17", "-O2", "-fPIC", "-I", "/inc", "-DN=3"]


@pytest.fixture
def made(monkeypatch) -> list[Path]:
    """emu_pch._make without g++ (an empty .gch): the directories it made."""
    calls: list[Path] = []

    def make(tool, own, header, where):
        where.mkdir(parents=True)
        (where / header.name).write_text("")
        (where / f"{header.name}.gch").write_bytes(b"")
        calls.append(where)
        return True

    monkeypatch.setattr(emu_pch, "_make", make)
    return calls


def test_made_the_second_time_and_then_used(tmp_path, made):
    assert emu_pch.with_pch(FLAGS, "g++", tmp_path) == FLAGS
    assert made == []
    second = emu_pch.with_pch(FLAGS, "g++", tmp_path)
    [where] = made
    at = FLAGS.index("-include") + 1
    assert second == [*FLAGS[:at], str(where / header_path().name), *FLAGS[at + 1:]]
    # another program's directory: the same header
    other = [f if f != "/src/dir" else "/elsewhere" for f in FLAGS]
    assert emu_pch.with_pch(other, "g++", tmp_path)[at] == second[at]
    assert len(made) == 1
    # other macros: another header, noted the first time only
    defined = [*FLAGS, "-DM=1"]
    assert emu_pch.with_pch(defined, "g++", tmp_path) == defined


def test_builds_go_on_without_it(tmp_path, made, monkeypatch):
    thrust_first = ["-include", "/cccl/prelude.h", *FLAGS]
    for _ in range(2):
        assert emu_pch.with_pch(thrust_first, "g++", tmp_path) == thrust_first
    monkeypatch.setenv("CUDAFUSE_EMU_PCH", "0")
    for _ in range(2):
        assert emu_pch.with_pch(FLAGS, "g++", tmp_path) == FLAGS
    assert made == []


def test_a_header_gxx_rejects_is_not_tried_again(tmp_path):
    bad = [*FLAGS, "-fno-such-option-for-cudafuse"]
    for _ in range(3):
        assert emu_pch.with_pch(bad, "g++", tmp_path) == bad
    [failed] = tmp_path.glob("*.failed")
    assert "no-such-option" in failed.read_text()
