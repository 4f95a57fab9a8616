"""The parts of a release run on this machine's cores: ``isdp release``'s local engine.

A release made part by part (:func:`isdp.release.release_partitioned`) hands its parts to a
``run_parts`` callable; :class:`LocalParts` runs them in worker processes of this machine, one per
core by default, and yields their results in table order, so the statement is the one a single
process writes, byte for byte (each part draws its own operating-system entropy or, seeded, its
own stream: :func:`isdp.release._partitioned_release.part_seed`). A process per worker, not a
thread: a part's reading, planning and checks hold Python's lock, only its draw does not.

The workers are started fresh (``spawn``): the parent holds Arrow's and numba's threads, which a
forked child would inherit mid-state. They ignore Ctrl-C: the command stops them itself and says
so in one line, as in a single process. A part that fails, or a worker that dies (killed, out of
memory), fails the release at once, whichever part it is: the workers are stopped and nothing is
published (:func:`isdp.release.release_partitioned` publishes only when every part is done).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ..errors import ReleaseError
from ._workers import checked_workers, cores

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


def _ignore_interrupts() -> None:
    """Ignore Ctrl-C in a worker: it reaches the whole process group, and only the command answers it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalParts:
    """Run a release's parts in worker processes of this machine, one per core by default.

    Parameters
    ----------
    workers : int, optional
        The worker processes, at most 4 per core (:data:`isdp.release._workers.WORKERS_PER_CORE`); default the
        cores this process may run on. With one worker, or one part, the parts run in this process.
    progress : bool, default True
        Count the parts released on stderr.

    Raises
    ------
    isdp.errors.UsageError
        A number of workers that is not an integer in [1, 4 × cores].

    See Also
    --------
    isdp.release.DaskParts : The parts on a Dask cluster, for more than one machine.
    isdp.release.release_partitioned : Takes one as ``run_parts`` (its default on a large table).

    Examples
    --------
    >>> from isdp.release._local_parts import LocalParts
    >>> LocalParts(2).workers, LocalParts(1, progress=False).progress
    (2, False)
    """

    def __init__(self, workers: int | None = None, progress: bool = True) -> None:
        self.workers = cores() if workers is None else checked_workers(workers)
        self.progress = progress

    def __call__(self, release_one: Callable, parts: Iterable[int]) -> Iterator:
        """Run ``release_one(k)`` for every part ``k``; yield the results in the parts' order.

        Parameters
        ----------
        release_one : callable
            Releases one part (picklable: it travels to the workers).
        parts : iterable of int
            The parts.

        Yields
        ------
        object
            ``release_one(k)``, part by part, in order.

        Raises
        ------
        isdp.errors.ReleaseError
            The first failing part's refusal, as raised; a worker that died (killed, out of memory) as the base
            class (exit status 1). The other parts are stopped.
        """
        from ._release import Progress  # deferred: it loads the release's modules

        parts = list(parts)
        workers = min(self.workers, len(parts))
        bar = Progress(len(parts), "parts released", self.progress)
        try:
            if workers <= 1:
                for k in parts:
                    yield release_one(k)
                    bar.update()
                return
            # deferred: worker processes are for large tables (one per core from 2**23 cells) or --workers, and
            # loading their modules took 26 ms of every release
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed
            from concurrent.futures.process import BrokenProcessPool

            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts) as pool:
                futures = {pool.submit(release_one, k): i for i, k in enumerate(parts)}
                try:
                    done, ready = 0, {}
                    for future in as_completed(futures):  # a failure is seen as it happens, whichever part
                        ready[futures[future]] = future.result()
                        while done in ready:  # the results in the parts' order
                            yield ready.pop(done)
                            done += 1
                            bar.update()
                except BaseException as err:
                    for future in futures:
                        future.cancel()
                    _stop(pool)  # the parts running are not needed: their files would never be published
                    if isinstance(err, BrokenProcessPool):  # a worker killed (out of memory, a signal)
                        raise ReleaseError(
                            "a worker process of the local engine died while releasing a part (killed, or out of "
                            "memory): nothing was written, and earlier files are as they were"
                        ) from None
                    raise
        finally:
            bar.close()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, as Python 3.14's ``terminate_workers`` does (its private map of them before)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
