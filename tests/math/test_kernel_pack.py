"""The shipped generic kernels: used on a fresh cache, refused when not made from the installed
kernels, copied into the user cache (never run from the install folder)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from boundless.math import kernel_pack
from boundless.math.kernel_cache import CACHE_ENV
from boundless.math.kernel_pack import PACK, PACK_ENV

# In a process of its own: import the packed kernels, say which CPU numba compiles for; with
# "run", analyse a title and count what numba loaded from the cache and what it compiled.
PROBE = """
import json, os, sys
from numba.core.registry import CPUDispatcher
from boundless.math.exact import analyse_main_game, fast_dealer, fast_kernels
from boundless.titles import load_title
report = {"cpu": os.environ.get("NUMBA_CPU_NAME")}
if sys.argv[1:] == ["run"]:
    report["rtp"] = analyse_main_game(load_title("boundless")).optimal.return_to_player
    kernels = [k for m in (fast_kernels, fast_dealer) for k in vars(m).values()
               if isinstance(k, CPUDispatcher)]
    report["hits"] = sum(sum(k.stats.cache_hits.values()) for k in kernels)
    report["misses"] = sum(sum(k.stats.cache_misses.values()) for k in kernels)
print(json.dumps(report))
"""

packed_here = pytest.mark.skipif(
    not kernel_pack.pack_matches(), reason="the pack is for linux-x86_64, Python 3.11, numba pin"
)


def _probe(cache: Path, *arguments: str, **extra: str) -> dict[str, object]:
    env = {**os.environ, CACHE_ENV: str(cache), **extra}
    for name in ("NUMBA_CPU_NAME", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    env.setdefault(PACK_ENV, "on")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_shipped_pack_was_made_from_the_installed_kernels() -> None:
    manifest = kernel_pack.read_manifest()
    assert manifest is not None, f"no readable pack at {PACK}"
    assert manifest["folders"] == kernel_pack.packed_folders(), (
        "a kernel file (or what it imports) changed since the pack was made: it is refused, and "
        "a fresh install compiles again; remake it: python -m boundless.math.kernel_pack"
    )


@packed_here
def test_a_fresh_cache_loads_the_pack_and_compiles_nothing(tmp_path: Path) -> None:
    first = _probe(tmp_path, "run")
    assert first["cpu"] == "generic"
    assert first["misses"] == 0 and isinstance(first["hits"], int) and first["hits"] > 0
    assert list((tmp_path / "generic").glob("fast_kernels-*/*.nbi"))
    assert not list(tmp_path.glob("fast_kernels-*"))  # nothing written for this CPU
    assert _probe(tmp_path / "off", **{PACK_ENV: "off"})["cpu"] is None
    assert not (tmp_path / "off" / "generic").exists()


@packed_here
def test_once_this_cpu_is_compiled_its_code_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert _probe(tmp_path)["cpu"] == "generic"
    marker = kernel_pack.host_marker()
    marker.touch()
    assert _probe(tmp_path / "other")["cpu"] == "generic"  # another cache: its own marker
    assert _probe(tmp_path)["cpu"] is None  # this CPU's code from now on


@packed_here
def test_where_the_pack_cannot_be_copied_the_kernels_are_this_cpus(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("", encoding="utf-8")  # unwritable as a folder even for root
    assert _probe(not_a_folder)["cpu"] is None


def _pack_with(tmp_path: Path, **changes: object) -> Path:
    """A copy of the shipped pack whose manifest differs by ``changes``."""
    manifest = kernel_pack.read_manifest()
    assert manifest is not None
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(PACK) as source, zipfile.ZipFile(forged, "w") as target:
        for member in source.namelist():
            if member != kernel_pack.MANIFEST:
                target.writestr(member, source.read(member))
        target.writestr(kernel_pack.MANIFEST, json.dumps({**manifest, **changes}))
    return forged


@packed_here
@pytest.mark.parametrize(
    "changes",
    [
        {"folders": ["fast_kernels-000000000000000000000000", "fast_dealer-0"]},  # other kernels
        {"numba": "0.0.0"},
        {"python": "py27"},
        {"platform": "linux-aarch64"},
    ],
)
def test_a_pack_not_made_from_these_kernels_is_refused_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changes: dict[str, object]
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    forged = _pack_with(tmp_path, **changes)
    assert not kernel_pack.pack_matches(forged)
    assert kernel_pack.seed(forged) == []
    assert not (tmp_path / "cache").exists()


@packed_here
def test_the_pack_is_copied_from_a_read_only_install_into_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    install = tmp_path / "install"
    install.mkdir()
    pack = Path(shutil.copy(PACK, install / "generic.zip"))
    install.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        copied = kernel_pack.seed(pack)
    finally:
        install.chmod(stat.S_IRWXU)
    assert list(install.iterdir()) == [pack]  # only read there
    assert [path.name for path in copied] == kernel_pack.packed_folders()
    assert all(path.parent == tmp_path / "cache" / "generic" for path in copied)
    index = next(copied[0].glob("*.nbi"))
    index.write_bytes(b"compiled here")
    assert kernel_pack.seed(pack) == []  # a folder with an index is never overwritten
    assert index.read_bytes() == b"compiled here"


def test_the_background_compile_starts_only_after_generic_code(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[tuple[list[str], dict[str, str]]] = []

    class Recorder:
        def __init__(self, command: list[str], env: dict[str, str], **_: object) -> None:
            started.append((command, env))

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    monkeypatch.setattr(kernel_pack.subprocess, "Popen", Recorder)
    monkeypatch.setattr(kernel_pack, "chose_generic", False)
    assert kernel_pack.compile_in_background() is None
    monkeypatch.setattr(kernel_pack, "chose_generic", True)
    monkeypatch.delitem(sys.modules, "boundless.math.simulation.kernels", raising=False)
    assert kernel_pack.compile_in_background() is not None
    [(command, env)] = started
    assert command[1:] == ["-m", "boundless.math.kernel_warm", "--background"]
    assert "NUMBA_CPU_NAME" not in env and env[PACK_ENV] == "off"  # this CPU's code
    monkeypatch.setitem(sys.modules, "boundless.math.simulation.kernels", sys)  # it simulated
    assert kernel_pack.compile_in_background() is not None
    assert started[-1][0][-1] == "--simulation"
    kernel_pack.host_marker().touch()
    assert kernel_pack.compile_in_background() is None  # done before: nothing to start


def test_a_second_background_compile_leaves_it_to_the_first(tmp_path: Path) -> None:
    env = {**os.environ, CACHE_ENV: str(tmp_path), PACK_ENV: "off"}
    env.pop("NUMBA_CPU_NAME", None)
    marker = Path(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from boundless.math import kernel_pack as k\nprint(k.host_marker())",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    marker.parent.mkdir(parents=True, exist_ok=True)
    with open(marker.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running background compile
        subprocess.run(
            [sys.executable, "-m", "boundless.math.kernel_warm", "--background"],
            env=env,
            check=True,
            timeout=60,
        )
    assert not marker.exists()
    assert not list(tmp_path.glob("fast_kernels-*/*.nbi"))  # it compiled nothing


def test_the_command_starts_it_after_running_only_if_kernels_were_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from boundless.cli import main as cli_main

    calls: list[str] = []

    def command() -> None:
        calls.append("command")
        raise SystemExit(0)  # as typer ends every command

    monkeypatch.setattr(cli_main, "app", command)
    monkeypatch.setattr(kernel_pack, "compile_in_background", lambda: calls.append("compile"))
    with pytest.raises(SystemExit):
        cli_main.main()
    assert calls == ["command", "compile"]
    monkeypatch.delitem(sys.modules, "boundless.math.kernel_pack")  # a command with no kernels
    with pytest.raises(SystemExit):
        cli_main.main()
    assert calls == ["command", "compile", "command"]
