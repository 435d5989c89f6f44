"""Where our numba kernels' compiled code is kept, so that a compile survives a reinstall.

numba's own locators put the cache in ``__pycache__`` beside the source (empty after every
install into a fresh environment) or in a user folder keyed on the source folder's absolute path
(a new path for every new environment). Ours keys the folder on content instead: the same
source, wherever it is installed, finds the code compiled before, and a changed source gets a
folder of its own. A kernel's compiled code also holds what it took from other modules (the
kernels it calls, the constants it reads), which numba does not track; so the key of a file is
the hash of the file and of every ``boundless`` module it imports at module level, followed
through their own module-level imports (:func:`kernel_files`). A change to any of them compiles
again; a change elsewhere in the package does not. numba still checks what it always checks
inside the folder (its version, the Python version, the CPU and the function's bytecode).

The folder is ``$BOUNDLESS_NUMBA_CACHE`` when set, else numba's own ``$NUMBA_CACHE_DIR`` when
set, else ``boundless/numba`` under the user's cache folder (``$XDG_CACHE_HOME``, else
``~/.cache``); code compiled for a generic CPU (``NUMBA_CPU_NAME=generic``, see
:mod:`boundless.math.kernel_pack`) goes to its ``generic`` subfolder. Only functions of
``boundless`` modules use it; other libraries' numba functions keep numba's locators. The
folders of sources since changed stay behind (up to a few MB each); deleting any of them is
always safe.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

from numba.core.caching import _CacheLocator

CACHE_ENV = "BOUNDLESS_NUMBA_CACHE"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the ``boundless`` package folder


def cache_root() -> Path:
    """The folder every kernel's cache folder goes under (code compiled for this CPU)."""
    chosen = os.environ.get(CACHE_ENV) or os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boundless" / "numba"


def generic_cpu() -> bool:
    """Whether numba compiles for a generic CPU in this process (``NUMBA_CPU_NAME=generic``)."""
    return os.environ.get("NUMBA_CPU_NAME", "").lower() == "generic"


def kernel_root() -> Path:
    """Where this process's kernels are cached: generic code apart from this CPU's own (numba
    keeps both kinds apart inside a folder too; apart, the shipped pack can seed a folder)."""
    return cache_root() / "generic" if generic_cpu() else cache_root()


@functools.cache
def _digest(path: str, modified_ns: int, size: int) -> str:
    # the stat figures are in the key only so that a file edited while we run is hashed again
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_digest(path: str) -> str:
    """The SHA-256 of a source file's bytes (hex)."""
    status = os.stat(path)
    return _digest(path, status.st_mtime_ns, status.st_size)


def _module_file(name: str, root: Path) -> Path | None:
    """The file of module ``name`` (``boundless.x.y``) under the package folder ``root``."""
    parts = name.split(".")
    if parts[0] != root.name:
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_level(nodes: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports run at module level, under ``if``/``try``/``with`` too; not those inside a
    function or class body (their names are the function's or the class's, never a global)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    found.extend(_module_level([n for n in inner if isinstance(n, ast.stmt)]))
                    for handler in inner:
                        if isinstance(handler, ast.ExceptHandler):
                            found.extend(_module_level(handler.body))
    return found


@functools.cache
def _imported_files(path: str, modified_ns: int, root: str) -> tuple[str, ...]:
    """The package's files that ``path`` imports at module level (a module named in an import,
    and the submodule when an imported name is one)."""
    folder = Path(root)
    package = list(Path(path).resolve().relative_to(folder.parent).parts[:-1])
    found: set[str] = set()
    for statement in _module_level(ast.parse(Path(path).read_bytes()).body):
        if isinstance(statement, ast.Import):
            names = [alias.name for alias in statement.names]
        else:
            base = package[: len(package) - statement.level + 1] if statement.level else []
            origin = ".".join([*base, *([statement.module] if statement.module else [])])
            names = [origin, *(f"{origin}.{alias.name}" for alias in statement.names)]
        for name in names:
            target = _module_file(name, folder)
            if target is not None:
                found.add(str(target))
    return tuple(sorted(found))


def kernel_files(py_file: str, root: Path = PACKAGE_ROOT) -> list[Path]:
    """``py_file`` and every module of the package it imports at module level, followed
    through their module-level imports: all that its compiled kernels can have taken in."""
    seen: set[str] = set()
    waiting = [str(Path(py_file).resolve())]
    while waiting:
        path = waiting.pop()
        if path in seen:
            continue
        seen.add(path)
        if Path(path).is_relative_to(root):
            waiting.extend(_imported_files(path, os.stat(path).st_mtime_ns, str(root)))
    return sorted(Path(path) for path in seen)


def kernel_stamp(py_file: str, root: Path = PACKAGE_ROOT) -> str:
    """The key of ``py_file``'s kernels: the bytes of :func:`kernel_files`, each by its path
    inside the package (the install folder is not in it)."""
    digest = hashlib.sha256()
    for path in kernel_files(py_file, root):
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        digest.update(name.encode() + b"\0" + source_digest(str(path)).encode())
    return digest.hexdigest()


def cache_folder(py_file: str) -> Path:
    """The cache folder of the kernels defined in ``py_file``: its name and :func:`kernel_stamp`."""
    stem = Path(py_file).stem
    return kernel_root() / f"{stem}-{kernel_stamp(py_file)[:24]}"


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
