"""A report (or any long command's output file) is all there or as it was, never half."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import typer

from boundless.cli.words import write_whole


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("old")
    write_whole(out, b"new report", "--out")
    assert out.read_bytes() == b"new report"
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    out.write_text("old")

    def disk_full(source: Path, target: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("boundless.cli.words.os.replace", disk_full)
    with pytest.raises(typer.Exit):
        write_whole(out, b"new report", "--out")
    assert out.read_text() == "old"
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]
    error = capsys.readouterr().err.strip()
    assert error == f"error: cannot write --out {out}: No space left on device"
