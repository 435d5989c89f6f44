"""The kernels' numba cache is keyed on the source's content, so it survives a reinstall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boundless.math import kernel_cache
from boundless.math.kernel_cache import CACHE_ENV, ContentKeyedLocator, cache_folder

# In a process of its own: compile (or load) one small kernel and say what numba did.
PROBE = """
import json
import numpy as np
from boundless.math.exact.split_exact_dealer import dealer_finals
counts = np.full(10, 4, dtype=np.int64)
counts[9] = 16
finals = dealer_finals(counts, 6, False)
stats = dealer_finals.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()),
                  "total": float(finals.sum())}))
"""


def test_the_folder_follows_the_source_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)  # this CPU's folders, not generic/
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    first = tmp_path / "install_a" / "kernels.py"
    second = tmp_path / "install_b" / "kernels.py"
    for path in (first, second):
        path.parent.mkdir()
        path.write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    folder = cache_folder(str(first))
    assert folder == cache_folder(str(first))  # stable
    assert folder == cache_folder(str(second))  # another install of the same source
    assert folder.parent == tmp_path / "cache"
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # numba's own setting next
    assert cache_folder(str(first)).parent == tmp_path / "numba"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    first.write_text("def f(x):\n    return x + 2\n", encoding="utf-8")
    os.utime(first, ns=(1, 1))  # even a changed file given an old time stamp
    assert cache_folder(str(first)) != folder
    assert cache_folder(str(second)) == folder


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_key_holds_what_the_kernels_import_and_nothing_else(tmp_path: Path):
    """A kernel's compiled code holds the kernels it calls and the constants it reads from
    other modules (numba tracks neither): those modules, followed through their own imports,
    are in its key; a module it does not import, or imports only inside a function, is not."""
    root = tmp_path / "boundless"
    kernels = _write(
        root / "math" / "kernels.py",
        "from boundless.math.consts import LIMIT\n"
        "from . import helpers\n"
        "if True:\n    import boundless.core.deep\n"
        "def f():\n    from boundless.math import lazy\n",
    )
    consts = _write(root / "math" / "consts.py", "from boundless.core.base import BASE\n")
    helpers = _write(root / "math" / "helpers.py", "X = 1\n")
    base = _write(root / "core" / "base.py", "BASE = 2\n")
    deep = _write(root / "core" / "deep.py", "Y = 3\n")
    lazy = _write(root / "math" / "lazy.py", "Z = 4\n")
    unrelated = _write(root / "cli" / "main.py", "import numba\n")
    for package in ("", "math", "core", "cli"):
        _write(root / package / "__init__.py", "")
    files = kernel_cache.kernel_files(str(kernels), root)
    assert {kernels, consts, helpers, base, deep} <= set(files)
    assert lazy not in files and unrelated not in files
    before = kernel_cache.kernel_stamp(str(kernels), root)
    unrelated.write_text("import numba  # edited\n", encoding="utf-8")
    lazy.write_text("Z = 5\n", encoding="utf-8")
    assert kernel_cache.kernel_stamp(str(kernels), root) == before
    base.write_text("BASE = 3\n", encoding="utf-8")  # two imports away
    assert kernel_cache.kernel_stamp(str(kernels), root) != before


def test_the_exact_kernels_keys_hold_the_cache_module_not_the_commands() -> None:
    from boundless.math.exact import fast_kernels

    names = {
        path.relative_to(kernel_cache.PACKAGE_ROOT).as_posix()
        for path in kernel_cache.kernel_files(fast_kernels.__file__)
    }
    assert names == {
        "math/exact/fast_kernels.py",
        "math/kernel_jit.py",
        "math/kernel_cache.py",
        "core/arrays.py",
    }


def test_only_our_functions_use_the_locator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    source = Path(kernel_cache.__file__)

    def ours() -> None: ...

    def theirs() -> None: ...

    ours.__module__ = "boundless.math.exact.probe"
    theirs.__module__ = "someone_else.kernels"
    locator = ContentKeyedLocator.from_function(ours, str(source))
    assert locator is not None
    assert Path(locator.get_cache_path()) == cache_folder(str(source))
    assert locator.get_source_stamp() == kernel_cache.kernel_stamp(str(source))
    assert ContentKeyedLocator.from_function(theirs, str(source)) is None


def test_a_second_process_loads_the_compiled_kernel(tmp_path: Path):
    env = {**os.environ, CACHE_ENV: str(tmp_path), "BOUNDLESS_KERNEL_PACK": "off"}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CPU_NAME", None)

    def run() -> dict[str, float]:
        done = subprocess.run(
            [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
        )
        result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    first = run()
    assert (first["hits"], first["misses"]) == (0, 1)
    from boundless.math.exact import split_exact_dealer

    folder = tmp_path / cache_folder(split_exact_dealer.__file__).name  # (name: any CPU)
    assert list(folder.glob("split_exact_dealer.dealer_finals-*.nbi"))
    second = run()
    assert (second["hits"], second["misses"]) == (1, 0)
    assert second["total"] == pytest.approx(first["total"])
    assert second["total"] == pytest.approx(1.0)
