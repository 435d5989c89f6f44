"""The exact-math kernels, compiled for a generic x86-64 CPU and shipped with the package.

A fresh install has no numba cache: its first ``boundless rtp`` compiled the kernels for about
7 s. The package ships them compiled (``packed_kernels/generic.zip``, made by
``python -m boundless.math.kernel_pack``): code for the baseline x86-64 CPU, which numba loads on
any x86-64 machine (its cache index keys each entry on the CPU name and features, ``generic``
and none here). A process with no kernels compiled for its own CPU yet switches numba to the
generic CPU before its first kernel (:func:`choose_cpu`), copies the pack into the user cache
(never into the install folder, which may be read-only) and loads from there. The ``boundless``
command then compiles the kernels for this CPU in a background process
(:mod:`boundless.math.kernel_warm`; the simulator's kernels too after a command that loaded
them), which leaves a marker when done; from then on processes use this CPU's code (the
simulator's kernels run 5-9% faster on it; the exact analysis the same).

A pack is used only when it was made from the kernels installed: its manifest names the cache
folders it holds, and a folder's name carries the kernel file's content key
(:func:`boundless.math.kernel_cache.kernel_stamp`); numba checks the key again in each index, with
its own version, the Python version and the function's bytecode. A pack made before a kernel
changed is refused whole, and the kernels compile as they did before it existed.
``BOUNDLESS_KERNEL_PACK=off`` turns it off; a ``NUMBA_CPU_NAME`` set beforehand is respected.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

from boundless.math.kernel_cache import (
    PACKAGE_ROOT,
    cache_folder,
    cache_root,
    generic_cpu,
    kernel_root,
)

PACK_ENV = "BOUNDLESS_KERNEL_PACK"
PACK = Path(__file__).resolve().parent / "packed_kernels" / "generic.zip"
MANIFEST = "manifest.json"
PACKED_FILES = (  # the kernels of rtp, strategy, warm-up and report's exact part
    "math/exact/fast_kernels.py",
    "math/exact/fast_dealer.py",
)
chose_generic = False  # set when this process switched itself to the pack's generic code


def packed_folders() -> list[str]:
    """The cache folder names the installed kernels need, in :data:`PACKED_FILES` order."""
    return [cache_folder(str(PACKAGE_ROOT / name)).name for name in PACKED_FILES]


def environment() -> dict[str, str]:
    """What the pack's code was compiled under: numba's cache holds nothing else."""
    import numba

    return {
        "numba": numba.__version__,
        "python": f"py{sys.version_info.major}{sys.version_info.minor}",
        "platform": sysconfig.get_platform(),
    }


def read_manifest(pack: Path = PACK) -> dict[str, object] | None:
    """The pack's manifest, or None when there is no readable pack."""
    try:
        with zipfile.ZipFile(pack) as archive:
            manifest: dict[str, object] = json.loads(archive.read(MANIFEST))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    return manifest


def pack_matches(pack: Path = PACK) -> bool:
    """Whether ``pack`` was made from the installed kernels, for this numba and Python."""
    manifest = read_manifest(pack)
    if manifest is None:
        return False
    return manifest.get("folders") == packed_folders() and all(
        manifest.get(name) == value for name, value in environment().items()
    )


def host_marker() -> Path:
    """The file :mod:`boundless.math.kernel_warm` leaves once this CPU's code of the packed
    kernels (as installed, for this numba and Python) is in the cache."""
    named = [*packed_folders(), *environment().values()]
    key = hashlib.sha256(" ".join(named).encode()).hexdigest()[:24]
    return cache_root() / f"compiled-{key}.done"


def _codegen_started() -> bool:
    # numba makes its CPU code generator once per process; after that the CPU cannot change
    from numba.core.registry import cpu_target

    return "_toplevel_target_context" in vars(cpu_target)


def _seeded() -> bool:
    return all(any((kernel_root() / name).glob("*.nbi")) for name in packed_folders())


def choose_cpu() -> None:
    """Before the first kernel: use the pack's generic code when this CPU's is not cached yet
    and the pack could be copied into the user cache."""
    global chose_generic
    if os.environ.get(PACK_ENV, "").lower() in ("off", "0", "no"):
        return
    if "NUMBA_CPU_NAME" in os.environ:  # a parent process on the pack, or the user's choice
        if generic_cpu():
            seed()
        return
    if host_marker().exists() or _codegen_started() or not pack_matches():
        return
    os.environ["NUMBA_CPU_NAME"] = "generic"  # children (simulation workers) follow
    seed()
    if not _seeded():  # an unwritable cache: compile for this CPU, as without a pack
        del os.environ["NUMBA_CPU_NAME"]
        return
    from numba.core import config

    config.reload_config()  # type: ignore[no-untyped-call]
    chose_generic = True


def seed(pack: Path = PACK) -> list[Path]:
    """Copy the pack's folders into the generic cache where that folder holds no index yet
    (one folder at a time, renamed into place whole); returns the folders copied."""
    if not pack_matches(pack):
        return []
    copied: list[Path] = []
    try:
        root = kernel_root()
        root.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(pack) as archive:
            for name in packed_folders():
                target = root / name
                if target.is_dir() and any(target.glob("*.nbi")):
                    continue  # compiled or seeded before: never mixed with the pack's files
                staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
                for member in archive.namelist():
                    if member.startswith(f"{name}/") and not member.endswith("/"):
                        (staging / Path(member).name).write_bytes(archive.read(member))
                try:
                    staging.replace(target)  # over an empty folder too; a full one stays
                    copied.append(target)
                except OSError:
                    shutil.rmtree(staging, ignore_errors=True)  # another process was first
    except OSError:
        return copied  # an unwritable cache: the kernels compile, as without a pack
    return copied


def compile_in_background() -> subprocess.Popen[bytes] | None:
    """After a command that ran on the pack's generic code: compile this CPU's kernels in a
    process of its own, detached and at low priority, for the commands after this one."""
    if not chose_generic or host_marker().exists():
        return None
    env = {**os.environ, PACK_ENV: "off"}
    env.pop("NUMBA_CPU_NAME", None)
    command = [sys.executable, "-m", "boundless.math.kernel_warm", "--background"]
    if "boundless.math.simulation.kernels" in sys.modules:  # this command simulated
        command.append("--simulation")
    return subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # outlives the command; a Ctrl-C of the shell does not reach it
    )


def write_pack(pack: Path = PACK) -> dict[str, object]:
    """Compile the packed kernels for a generic CPU in a fresh process and an empty cache, and
    write them with their manifest to ``pack``; returns the manifest."""
    with tempfile.TemporaryDirectory(prefix="boundless-pack-") as scratch:
        env = {**os.environ, "NUMBA_CPU_NAME": "generic", PACK_ENV: "off"}
        env["BOUNDLESS_NUMBA_CACHE"] = scratch
        env.pop("NUMBA_CPU_FEATURES", None)
        subprocess.run([sys.executable, "-m", "boundless.math.kernel_warm"], env=env, check=True)
        folders = packed_folders()
        manifest: dict[str, object] = {**environment(), "folders": folders}
        pack.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(pack, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            archive.writestr(zipfile.ZipInfo(MANIFEST), json.dumps(manifest, indent=1) + "\n")
            for name in folders:
                for path in sorted((Path(scratch) / "generic" / name).iterdir()):
                    info = zipfile.ZipInfo(f"{name}/{path.name}")  # fixed date: same bytes in
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, path.read_bytes())
    return manifest


def main() -> None:
    manifest = write_pack()
    size = PACK.stat().st_size
    print(f"wrote {PACK.relative_to(PACKAGE_ROOT.parent)} ({size / 1024:.0f} KiB): {manifest}")


if __name__ == "__main__":
    main()
