"""Where our numba kernels' compiled code is kept, so that a compile survives a reinstall.

numba's own locators put the cache in ``__pycache__`` beside the source (empty after every
install into a fresh environment) or in a user folder keyed on the source folder's absolute path
(a new path for every new environment). Ours keys the folder on the source file's content hash
instead: the same source, wherever it is installed, finds the code compiled before, and a
changed source gets a folder of its own. A kernel's compiled code also holds the kernels it
calls from other files, which numba does not track; so the key also holds the hash of every
kernel file of the package, and a change to any of them compiles all again (once per release
installed; deleting stale folders is always safe). numba still checks what it always checks
inside the folder (its version, the Python version, the CPU and the function's bytecode).

The folder is ``$BOUNDLESS_NUMBA_CACHE`` when set, else numba's own ``$NUMBA_CACHE_DIR`` when
set, else ``boundless/numba`` under the user's cache folder (``$XDG_CACHE_HOME``, else
``~/.cache``). Only functions of ``boundless`` modules use it; other libraries' numba functions
keep numba's locators. The folders of sources since changed stay behind (up to a few MB each);
deleting any of them is always safe.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from numba import njit
from numba.core.caching import CacheImpl, _CacheLocator

CACHE_ENV = "BOUNDLESS_NUMBA_CACHE"
Function = TypeVar("Function", bound=Callable[..., Any])


def cache_root() -> Path:
    """The folder every kernel's cache folder goes under."""
    chosen = os.environ.get(CACHE_ENV) or os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boundless" / "numba"


@functools.cache
def _digest(path: str, modified_ns: int, size: int) -> str:
    # the stat figures are in the key only so that a file edited while we run is hashed again
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_digest(path: str) -> str:
    """The SHA-256 of a source file's bytes (hex)."""
    status = os.stat(path)
    return _digest(path, status.st_mtime_ns, status.st_size)


@functools.cache
def package_kernels_digest() -> str:
    """The SHA-256 over every file of the ``boundless`` package that defines or calls kernels
    (it names numba or this module): a kernel's cache is stale when any of them changed."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        if b"numba" in data or b"kernel_cache" in data:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def kernel_stamp(py_file: str) -> str:
    """The key of ``py_file``'s kernels: its own bytes and the package's kernel files."""
    both = f"{source_digest(py_file)}:{package_kernels_digest()}"
    return hashlib.sha256(both.encode()).hexdigest()


def cache_folder(py_file: str) -> Path:
    """The cache folder of the kernels defined in ``py_file``: its name and :func:`kernel_stamp`."""
    stem = Path(py_file).stem
    return cache_root() / f"{stem}-{kernel_stamp(py_file)[:24]}"


class ContentKeyedLocator(_CacheLocator):
    """numba's locator interface, answering only for functions of ``boundless`` modules."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._stamp = kernel_stamp(py_file)
        self._cache_path = str(cache_folder(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> ContentKeyedLocator | None:
        module = getattr(py_func, "__module__", "") or ""
        if not module.startswith("boundless.") or not os.path.isfile(py_file):
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()  # type: ignore[no-untyped-call]
        except OSError:
            return None  # an unwritable folder: numba's own locators are tried next
        return locator


def register_locator() -> None:
    """Put our locator first in numba's list (once); numba reads it when a kernel is defined."""
    locators: list[Any] = CacheImpl._locator_classes
    if ContentKeyedLocator not in locators:
        locators.insert(0, ContentKeyedLocator)


def kernel(function: Function) -> Function:
    """``njit(cache=True, nogil=True)`` with its cache under :func:`cache_root`."""
    register_locator()
    return cast(Function, njit(cache=True, nogil=True)(function))
