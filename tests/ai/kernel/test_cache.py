"""The kernel loads lazily and from its on-disk cache: ``import ai.kernel`` does not import numba, and a second process
runs the compiled code that the first one left in the cache without compiling anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ai.kernel.cache import base_dir, cache_dir

ROOT = Path(__file__).resolve().parents[3]


def _python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=os.environ | env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _files(folder: Path) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def test_importing_the_kernel_does_not_import_numba() -> None:
    out = _python("import sys, ai, ai.kernel; ai.kernel.KernelPlayer(); print('numba' in sys.modules)")
    assert out.strip() == "False"


def test_a_second_process_runs_the_cached_kernel(tmp_path: Path) -> None:
    """In a cache of its own: the suite's other processes (tests run in parallel) compile into the shared one."""
    warm = "import ai.kernel; print(ai.kernel.warm_up())"
    _python(warm, NUMBA_CACHE_DIR=str(tmp_path))
    cached = _files(tmp_path)
    assert any(path.suffix == ".nbi" for path in cached)
    _python(warm, NUMBA_CACHE_DIR=str(tmp_path))
    assert _files(tmp_path) == cached  # loaded and ran every entry point, compiled nothing


def test_cache_folder_follows_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """One cache per user and machine: the data folder never moves it (a sandbox's is new at every start)."""
    for name in ("NUMBA_CACHE_DIR", "KINGME_DATA", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if sys.platform.startswith("linux"):
        assert base_dir() == tmp_path / "home" / ".cache" / "kingme" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as the XDG rules ask
    assert not base_dir().is_relative_to("relative")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert base_dir() == tmp_path / "xdg" / "kingme" / "numba"
    monkeypatch.setenv("KINGME_DATA", str(tmp_path / "data"))
    assert base_dir() == tmp_path / "xdg" / "kingme" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert base_dir() == tmp_path / "numba"
    assert cache_dir().parent == tmp_path / "numba" and cache_dir().name.startswith("kernel-")
