"""The decorator our numba kernels are made with, and the one-time set-up before the first.

Apart from :mod:`boundless.math.kernel_cache` (where compiled code is kept and under which key)
so that the set-up can consult the shipped pack (:mod:`boundless.math.kernel_pack`, which reads
that module's keys) without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit
from numba.core.caching import CacheImpl

from boundless.math.kernel_cache import ContentKeyedLocator

Function = TypeVar("Function", bound=Callable[..., Any])


def register_locator() -> None:
    """Put our locator first in numba's list (once); numba reads it when a kernel is defined.
    The first time, the shipped pack may switch this process to generic code
    (:func:`boundless.math.kernel_pack.choose_cpu`): before any kernel is compiled or loaded."""
    locators: list[Any] = CacheImpl._locator_classes
    if ContentKeyedLocator not in locators:
        from boundless.math.kernel_pack import choose_cpu  # not a kernel's import: not in keys

        choose_cpu()
        locators.insert(0, ContentKeyedLocator)


def kernel(function: Function) -> Function:
    """``njit(cache=True, nogil=True)``, its cache under
    :func:`boundless.math.kernel_cache.cache_root`."""
    register_locator()
    return cast(Function, njit(cache=True, nogil=True)(function))
