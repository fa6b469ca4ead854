"""Type stubs of the shared Cython module (see _common.pyx)."""

from typing import Any

from typing_extensions import disjoint_base

@disjoint_base
class CoreBase:
    """The move stack and the thread guard of every compiled core."""

    @property
    def entries(self) -> list[Any]: ...
    def enter(self) -> None: ...
    def leave(self) -> None: ...
