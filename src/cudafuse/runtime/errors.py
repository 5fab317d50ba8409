"""How a program run fails: the exceptions every backend and the prepared calls raise (kept
apart from the executors so that each module can import them without importing another)."""

from __future__ import annotations

from cudafuse.runtime.asan import Access


class KernelError(RuntimeError):
    """The program failed while running: an emulator report, a crash, a CUDA error (then
    `code` is the cudaError_t it returned)."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code

    @classmethod
    def cuda(cls, what: str, code: int) -> KernelError:
        return cls(f"{what}: CUDA error {code}", code)


class BoundsError(KernelError):
    """AddressSanitizer stopped the program at a bad access (see asan.Access); the message
    is the report's essentials, `access` the parsed details."""

    def __init__(self, message: str, access: Access):
        super().__init__(message)
        self.access = access
