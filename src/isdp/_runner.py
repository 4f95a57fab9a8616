"""What every sampler entry point shares: argument checks, the chunked run loop and the threads.

Compiled kernels run a chunk of iterations per call; chunks grow towards about half a second of
work so that a long run makes few Python round trips yet still logs its progress regularly. Each
call runs the streams (chains, pairs, draws) on numba's threads, a range per thread
(:func:`over_streams`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._validate import positive
from .errors import ArgumentError


def check_positive(name: str, value) -> float:
    """``value`` as a float, or an ArgumentError unless it is a finite positive number (:mod:`isdp._validate`)."""
    return float(positive(name, value))


#: ε of a double geometric proposal must lie here: below, e^{-ε} rounds towards 1 (jumps beyond
#: any integer range, a zero-probability centre); above, e^{-ε} underflows to 0.
DG_EPS_RANGE = (1e-9, 700.0)


def check_dg_eps(name: str, value) -> float:
    """``value`` as a float, or a ValueError unless it is a usable double geometric ε."""
    v = check_positive(name, value)
    lo, hi = DG_EPS_RANGE
    if not lo <= v <= hi:
        raise ArgumentError(
            f"{name} = {value!r} is outside [{lo:g}, {hi:g}]: the double geometric law "
            "e^(-ε|k|) is numerically degenerate there"
        )
    return v


def check_grid(name: str, grid) -> np.ndarray:
    """Return a non-empty 1-D grid of usable double geometric ε (each in DG_EPS_RANGE), or a ValueError."""
    try:
        arr = np.asarray(grid, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name} must be a list of numbers, got {grid!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ArgumentError(f"{name} must be a non-empty list of numbers, got {grid!r}")
    return np.array([check_dg_eps(f"{name}[{i}]", v) for i, v in enumerate(arr)])


def check_range(name: str, value, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """Return a pair (lo, hi) of finite numbers with ``low`` ≤ lo ≤ hi ≤ ``high``, or a ValueError."""
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name} must be a pair (lo, hi), got {value!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and low <= lo <= hi <= high):
        raise ArgumentError(f"{name} = {value!r} must satisfy {low:g} <= lo <= hi <= {high:g}")
    return lo, hi


def run_chunked(
    step: Callable[[int, int], None],
    n_iter: int,
    *,
    log: logging.Logger,
    label: str,
    progress: bool = True,
    min_chunk: int = 1,
) -> float:
    """Call ``step(t, n)`` for consecutive chunks covering ``n_iter`` iterations; return the seconds.

    With ``progress``, a line goes to ``log`` about every 5 s.
    """
    start = time.perf_counter()
    t, chunk, last_log = 0, min_chunk, start
    while t < n_iter:
        n = min(chunk, n_iter - t)
        tick = time.perf_counter()
        step(t, n)
        t += n
        elapsed = time.perf_counter() - tick
        chunk = max(min_chunk, int(n / max(elapsed, 1e-6))) if elapsed < 0.5 else n
        now = time.perf_counter()
        if progress and now - last_log > 5 and t < n_iter:
            log.info("%s: %d/%d iterations (%.0f%%), %.1f s", label, t, n_iter, 100 * t / n_iter, now - start)
            last_log = now
    return time.perf_counter() - start


def over_streams(kernel: Callable[..., None], n_streams: int, *args) -> None:
    """Call ``kernel(lo, hi, *args)`` for contiguous ranges [lo, hi) covering streams 0..``n_streams``.

    One range per thread, ``min(numba.get_num_threads(), n_streams)`` threads: numba's setting
    (``NUMBA_NUM_THREADS``, :func:`numba.set_num_threads`,
    :func:`isdp_papers.jobs.set_numba_threads`) stays the one knob. With one thread the kernel
    runs in the calling thread; with more, on a thread pool, and an exception in any range is raised
    here. The kernels are serial ``@njit(nogil=True)`` loops over their range, so the threads run
    in parallel; each stream owns its random state (:mod:`isdp._rng`), so the results do not depend
    on the thread count.

    Why threads and not numba's ``parallel=True`` (parfors): a parfor kernel costs several seconds
    more to compile on a fresh clone, and the workflow runs one thread per job, where parfors buy
    nothing (docs/performance.md).

    Parameters
    ----------
    kernel : callable
        ``kernel(lo, hi, *args)`` runs streams lo..hi − 1 and writes its results into ``args``'
        arrays (rows lo..hi − 1 only). ``lo`` and ``hi`` are Python ints, so numba compiles one
        signature.
    n_streams : int
        The number of streams, ≥ 0 (0: the kernel is not called).
    *args
        The kernel's other arguments, the same for every range.

    Examples
    --------
    >>> import numpy as np
    >>> def squares(lo, hi, out):
    ...     for c in range(lo, hi):
    ...         out[c] = c * c
    >>> out = np.zeros(5, dtype=np.int64)
    >>> over_streams(squares, 5, out)
    >>> out.tolist()
    [0, 1, 4, 9, 16]
    """
    import numba  # here, not at the top: modules that only check arguments need not load numba

    n_streams = int(n_streams)
    threads = min(numba.get_num_threads(), n_streams)
    if threads <= 1:
        if n_streams > 0:
            kernel(0, n_streams, *args)
        return
    bounds = [n_streams * i // threads for i in range(threads + 1)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(threads)]
        for future in futures:
            future.result()
