"""The parts of a release run on a Dask cluster (docs/release.md, "Scale"): ``isdp release --engine dask``.

A release made part by part (:func:`isdp.release.release_partitioned`) hands its parts to a
``run_parts`` callable; :class:`DaskParts` is one that submits each part as a task to a Dask
cluster — a :class:`distributed.LocalCluster` of worker processes started for the release, a
running scheduler joined by its address, or an HPC site's cluster from ``dask-jobqueue`` (a
``SLURMCluster``'s client). A part is whole partitions, so a block never splits across workers;
each worker draws its own operating-system entropy (or, seeded, the part's own stream), and the
parts' results come back in table order, so the statement is the single process's, byte for
byte. The workers read the input and write their parts beside the output: both must be on a
filesystem every worker sees.

A part that fails (a refusal, a worker that dies) fails the release: nothing is published, and
the files an earlier release wrote are as they were. A cluster started here retries no task
(``distributed.scheduler.allowed-failures`` 0): a part whose worker died is not drawn again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError

from ..errors import ReleaseError


class DaskParts:
    """Run a release's parts as tasks on a Dask cluster, their results in the parts' order.

    Parameters
    ----------
    scheduler : str, optional
        A running scheduler's address (``tcp://host:8786``) to join; else a
        :class:`distributed.LocalCluster` is started for the release and closed after it.
    workers : int, optional
        The local cluster's worker processes (one thread each); default: the machine's cores.
    client : distributed.Client, optional
        A client to use as it is (a ``SLURMCluster``'s, say); it is not closed.
    progress : bool, default True
        Show Dask's progress bar (on stderr) until every part is done.

    See Also
    --------
    isdp.release.release_partitioned : Takes it as ``run_parts``.

    Examples
    --------
    A release of 12,000 cells in three parts on two local worker processes (``isdp release
    … --engine dask --workers 2``):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as pq
    >>> from isdp.release import Request
    >>> from isdp.release._dask_parts import DaskParts
    >>> from isdp.release._partitioned_release import release_partitioned
    >>> tmp = Path(tempfile.mkdtemp())
    >>> cells = np.arange(12_000)
    >>> pq.write_table(pa.table({"group": cells // 100, "cell": cells, "count": np.full(12_000, 5)}), tmp / "t.parquet")
    >>> req = Request(epsilon="1", rules=("by:group",), progress=False)
    >>> done = release_partitioned(tmp / "t.parquet", req.rules, req, tmp / "o.parquet", tmp / "s.json",
    ...                            tmp / "a.json", part_cells=4_000, run_parts=DaskParts(workers=2, progress=False))
    >>> done.cells, done.audit["partitions"]["parts"]
    (12000, 3)
    """

    def __init__(self, scheduler: str | None = None, workers: int | None = None, client=None,
                 progress: bool = True) -> None:
        self.scheduler, self.workers, self.client, self.progress = scheduler, workers, client, progress

    @contextlib.contextmanager
    def _connected(self):
        import dask  # deferred: Dask is the optional extra isdp[distributed], loaded only for --engine dask
        from distributed import Client, LocalCluster

        if self.client is not None:
            yield self.client
            return
        if self.scheduler is not None:
            with Client(self.scheduler) as client:
                yield client
            return
        quiet = logging.getLogger("distributed")  # the scheduler runs here: its INFO lines are not the release's
        level = quiet.level
        quiet.setLevel(logging.WARNING)
        try:
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                with LocalCluster(n_workers=self.workers or os.cpu_count(), threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, Client(cluster) as client:
                    yield client
        finally:
            quiet.setLevel(level)

    def __call__(self, release_one: Callable, parts: Iterable[int]) -> Iterator:
        """Submit ``release_one(k)`` for every part ``k``; yield the results in the parts' order.

        Parameters
        ----------
        release_one : callable
            Releases one part (picklable: it travels to the workers).
        parts : iterable of int
            The parts.

        Yields
        ------
        object
            ``release_one(k)``, part by part.

        Raises
        ------
        isdp.errors.ReleaseError
            The first failing part's refusal, as raised; a part the cluster lost (a worker that
            died, a connection closed) as the base class (exit status 1). The other parts are
            cancelled.
        """
        from distributed import KilledWorker, progress  # deferred: as above
        from distributed.comm.core import CommClosedError  # deferred: as above

        with self._connected() as client:
            parts = list(parts)
            futures = client.map(release_one, parts, key=[f"isdp-part-{k}" for k in parts], pure=False)
            try:
                if self.progress:  # Dask's bar, on stderr: stdout is the command's report
                    with contextlib.redirect_stdout(sys.stderr):
                        progress(futures, interval="100ms" if sys.stderr.isatty() else "5s")
                for k, future in zip(parts, futures, strict=True):
                    try:
                        result = future.result()
                    except (KilledWorker, CancelledError, CommClosedError) as err:  # the cluster, not the part
                        raise ReleaseError(f"the Dask cluster lost part {k} ({type(err).__name__}: {err}): nothing "
                                           "was written, and earlier files are as they were") from None
                    yield result
            except BaseException:
                client.cancel(futures)  # the other parts are not needed: their files would never be published
                raise
