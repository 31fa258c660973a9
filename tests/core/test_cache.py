"""Tests of warp.runtime.cache.KernelCache."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import warnings

import pytest

import warp.config
from warp.runtime import cache as cache_mod
from warp.runtime.cache import KernelCache, KernelCacheWarning, kernel_cache_for


def key_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def payload(i: int, size: int = 200_000) -> tuple[bytes, dict]:
    obj = hashlib.sha256(str(i).encode()).digest() * (size // 32)
    return obj, {"kernels": [f"k{i}"], "index": i}


def test_round_trip(tmp_path):
    cache = KernelCache(str(tmp_path / "sub" / "dir"))  # created on demand
    key = key_of("a")
    assert cache.get(key) is None
    obj, meta = payload(1)
    cache.put(key, obj, meta)
    assert cache.get(key) == (obj, meta)
    assert os.path.basename(cache.path_for(key)).startswith(key)  # full hash in the name
    assert cache.keys() == [key]


def test_overwrite_same_key(tmp_path):
    cache = KernelCache(str(tmp_path))
    key = key_of("a")
    cache.put(key, b"one", {"v": 1})
    cache.put(key, b"two", {"v": 2})
    assert cache.get(key) == (b"two", {"v": 2})


def test_uppercase_key_is_the_same_entry(tmp_path):
    cache = KernelCache(str(tmp_path))
    key = key_of("a")
    cache.put(key.upper(), b"x", {})
    assert cache.get(key) == (b"x", {})


def test_invalid_key_rejected(tmp_path):
    cache = KernelCache(str(tmp_path))
    for bad in ("../etc/passwd", "xyz", "abc"):
        with pytest.raises(ValueError):
            cache.get(bad)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:10],  # truncated inside the header
        lambda data: b"",  # empty
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),  # flipped byte in the object
        lambda data: data[:60] + bytes([data[60] ^ 0x01]) + data[61:],  # flipped byte in the meta
        lambda data: b"garbage" * 100,
        lambda data: data + b"extra",
    ],
)
def test_damaged_entry_is_a_miss_and_removed(tmp_path, damage):
    cache = KernelCache(str(tmp_path))
    key = key_of("a")
    cache.put(key, b"\x7fELF" + bytes(range(256)), {"name": "kernel"})
    path = cache.path_for(key)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(damage(data))
    assert cache.get(key) is None
    assert not os.path.exists(path)
    cache.put(key, b"fresh", {})
    assert cache.get(key) == (b"fresh", {})


def test_entry_renamed_to_another_key_is_rejected(tmp_path):
    cache = KernelCache(str(tmp_path))
    a, b = key_of("a"), key_of("b")
    cache.put(a, b"obj", {})
    os.replace(cache.path_for(a), cache.path_for(b))
    assert cache.get(b) is None


def test_clear(tmp_path):
    cache = KernelCache(str(tmp_path))
    for i in range(3):
        cache.put(key_of(str(i)), b"x", {})
    (tmp_path / ".tmp-leftover.part").write_bytes(b"partial")
    (tmp_path / "unrelated.txt").write_text("keep me")
    cache.clear()
    assert cache.keys() == []
    assert sorted(os.listdir(tmp_path)) == ["unrelated.txt"]


def test_unusable_directory_disables_cache(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("a file where the directory should be")
    cache = KernelCache(str(blocker / "cache"))
    key = key_of("a")
    with pytest.warns(KernelCacheWarning, match="disabled"):
        cache.put(key, b"x", {})
    assert not cache.enabled
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once only
        cache.put(key, b"x", {})
        assert cache.get(key) is None


def test_unreadable_entry_disables_cache(tmp_path):
    cache = KernelCache(str(tmp_path))
    key = key_of("a")
    os.mkdir(cache.path_for(key))  # reading it fails with an OSError other than "not found"
    with pytest.warns(KernelCacheWarning):
        assert cache.get(key) is None
    assert not cache.enabled


def test_kernel_cache_for_reads_config_at_call_time(tmp_path, monkeypatch):
    saved = warp.config.kernel_cache_dir
    try:
        warp.config.kernel_cache_dir = str(tmp_path / "one")
        c1 = kernel_cache_for(None)
        assert c1.directory == str(tmp_path / "one")
        assert kernel_cache_for(None) is c1
        warp.config.kernel_cache_dir = str(tmp_path / "two")
        assert kernel_cache_for(None).directory == str(tmp_path / "two")
        assert kernel_cache_for(str(tmp_path / "three")).directory == str(tmp_path / "three")
        warp.config.kernel_cache_dir = None
        monkeypatch.setenv("WARP_CACHE_PATH", str(tmp_path / "env"))
        assert kernel_cache_for(None).directory == str(tmp_path / "env")
    finally:
        warp.config.kernel_cache_dir = saved


def _writer(directory: str, worker: int, rounds: int, queue) -> None:
    """Child process: write and read back shared keys many times; report problems on the queue."""
    cache = KernelCache(directory)
    problems = []
    for r in range(rounds):
        for i in range(4):
            key = key_of(f"shared-{i}")
            obj, meta = payload(i)
            cache.put(key, obj, meta)
            got = cache.get(key)
            if got is not None and got != (obj, meta):
                problems.append(f"worker {worker}: wrong content for {i}")
    queue.put(problems)


@pytest.mark.slow
def test_concurrent_writers_do_not_corrupt(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 25, queue)) for w in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert results == [[]] * len(procs)
    cache = KernelCache(str(tmp_path))
    for i in range(4):
        assert cache.get(key_of(f"shared-{i}")) == payload(i)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def test_module_has_no_import_side_effects(tmp_path):
    # Constructing a cache touches nothing on disk.
    KernelCache(str(tmp_path / "never"))
    assert not (tmp_path / "never").exists()
    assert cache_mod.cache_directory(str(tmp_path)) == str(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_in_place_of_an_entry_is_a_damaged_entry_not_a_hang(tmp_path):
    # in a child process: reading the FIFO would block it forever (the timeout fails the test)
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from warp.runtime.cache import KernelCache\n"
        "cache = KernelCache(sys.argv[1])\n"
        "key = 'ab' * 32\n"
        "path = cache.path_for(key)\n"
        "os.makedirs(sys.argv[1], exist_ok=True)\n"
        "os.mkfifo(path)\n"
        "miss = cache.get(key) is None\n"
        "print('miss', miss, 'removed', not os.path.exists(path), 'enabled', cache.enabled)\n"
        "cache.put(key, b'fresh', {})\n"
        "print('round trip', cache.get(key) == (b'fresh', {}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "cache")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "miss True removed True enabled True" in proc.stdout
    assert "round trip True" in proc.stdout

