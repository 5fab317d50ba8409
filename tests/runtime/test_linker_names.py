"""Reading the linker's demangled function names (runtime/linker_names.py), and locating
them among the program's definitions: never at a definition that only shares the name."""

from __future__ import annotations

import pytest

from cudafuse.runtime.linker_names import Definition, LinkerName, bare, locate, read


@pytest.mark.parametrize(("demangled", "scope", "params"), [
    ("f(int)", ("f",), 1),
    ("hash", ("hash",), None),  # a C function
    ("ns::(anonymous namespace)::g(int, float)", ("ns", "", "g"), 2),
    ("Acc::get(int) const", ("Acc", "get"), 1),
    ("int tw<int>(int)", ("tw",), 1),  # a function template's instance
    ("std::vector<int, std::allocator<int> > ns::mk<int>(int, float)", ("ns", "mk"), 2),
    ("ns::Box<int>::put(int)", ("ns", "Box", "put"), 1),
    ("f(int)::{lambda(int)#1}::operator()(int) const", ("f",), 1),  # the enclosing one
    ("g(void (*)(int, int), int)", ("g",), 2),
    ("(anonymous namespace)::h()", ("", "h"), 0),
    ("cooperator(int)", ("cooperator",), 1),  # not an operator
    ("ns::describe[abi:cxx11](int)", ("ns", "describe"), 1),  # returns a std::string
])
def test_a_demangled_name_is_read_by_its_structure(demangled: str, scope: tuple[str, ...],
                                                   params: int | None) -> None:
    assert read(demangled) == LinkerName(scope, params)
    assert bare(demangled) == scope[-1]


@pytest.mark.parametrize("demangled", ["operator<(A, B)", "f(int", "f<int(int)"])
def test_what_is_not_read_is_none(demangled: str) -> None:
    assert read(demangled) is None


def _d(namespaces: tuple[str, ...], owner: str, name: str, params: int, line: int
       ) -> Definition:
    return Definition(namespaces, owner, name, params, ("p.cu", line, 1))


DEFINED = [
    _d((), "", "run", 1, 1),
    _d(("ns",), "", "run", 1, 2),
    _d(("ns", ""), "", "run", 1, 3),
    _d((), "Meter", "read", 1, 4),
    _d((), "", "read", 1, 5),
    _d((), "", "over", 1, 6),
    _d((), "", "over", 2, 7),
    _d((), "A", "same", 0, 8),
    _d((), "A", "same", 0, 9),
]


@pytest.mark.parametrize(("demangled", "line"), [
    ("run(int)", 1),
    ("ns::run(int)", 2),
    ("ns::(anonymous namespace)::run(int)", 3),
    ("units::Meter::read(int) const", 4),  # a method's namespaces are not recorded
    ("Outer::Meter::read(int)", 4),  # nor a nested class's outer one
    ("read(int)", 5),
    ("over(int, int)", 7),  # overloads told apart by their parameter count
    ("over", None),  # a C name: either overload
    ("A::same()", None),  # two definitions fit: no place rather than a wrong one
    ("other::run(int)", None),
    ("run(int, int)", None),
])
def test_a_caller_is_located_only_at_the_one_definition_that_fits(demangled: str,
                                                                   line: int | None) -> None:
    where = locate(demangled, DEFINED)
    assert (where[1] if where else None) == line
