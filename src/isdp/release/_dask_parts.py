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

A part that fails (a refusal, a worker that dies while drawing it) fails the release: nothing is
published, and the files an earlier release wrote are as they were. A cluster started here retries
no task (``distributed.scheduler.allowed-failures`` 0). A part already drawn whose worker dies
before its result reaches the release is drawn once more by the cluster (Dask recomputes a result
lost with its worker): the new draw replaces the part's file, and only that draw is published. A
part's result is dropped from the cluster as soon as the release holds it, so a worker lost after
that costs nothing.

A scheduler is joined only after it has answered as one: its address must be
``SCHEME://HOST:PORT`` (or ``HOST:PORT``, TCP), and on TCP it must send a Dask greeting within
:data:`CONNECT_TIMEOUT` seconds (Dask's own connection waits for that greeting without a limit, and
believes the length its first 8 bytes claim).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import struct
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from urllib.parse import urlsplit

from ..errors import ReleaseError, UsageError
from ._workers import checked_workers, cores

#: seconds a scheduler has to accept the connection and greet (``--scheduler``)
CONNECT_TIMEOUT = 10.0

#: the address schemes of Dask's communication layers that reach another process
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")

#: the longest greeting a Dask scheduler sends (it is about 60 bytes): a longer claim is not Dask's
_GREETING_LIMIT = 1 << 16


def scheduler_address(address: str) -> str:
    """Return a scheduler's address checked for its form, as Dask spells it: ``SCHEME://HOST:PORT``.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT`` (also ``tls``, ``ws``, ``wss``, ``ucx``), or ``HOST:PORT`` for TCP; an
        IPv6 host in brackets.

    Returns
    -------
    str
        The address with its scheme.

    Raises
    ------
    isdp.errors.UsageError
        Any other form (no port, a path, the dashboard's ``http://`` address, ...), naming
        ``--scheduler``.

    Examples
    --------
    >>> from isdp.release._dask_parts import scheduler_address
    >>> scheduler_address("10.0.0.5:8786"), scheduler_address("tls://[::1]:8786")
    ('tcp://10.0.0.5:8786', 'tls://[::1]:8786')
    >>> scheduler_address("http://10.0.0.5:8787")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    isdp.errors.UsageError: --scheduler 'http://10.0.0.5:8787' is not ... (http:// is the dashboard's): write ...
    """
    text = str(address)
    parts = urlsplit(text if "://" in text else f"tcp://{text}")
    try:
        port = parts.port
    except ValueError:
        port = None
    well_formed = (
        text.isascii()
        and text.isprintable()
        and parts.scheme in SCHEMES
        and parts.hostname
        and port is not None
        and port > 0
        and not (parts.path or parts.query or parts.fragment)
        and "@" not in parts.netloc
    )
    if not well_formed:
        hint = f" ({parts.scheme}:// is the dashboard's)" if parts.scheme in ("http", "https") else ""
        raise UsageError(
            f"--scheduler {text!r} is not a Dask scheduler's address{hint}: write tcp://HOST:PORT, "
            "e.g. tcp://10.0.0.5:8786"
        )
    return f"{parts.scheme}://{parts.netloc}"


def _receive(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Exactly ``n`` bytes from ``sock`` before ``deadline`` (:func:`time.monotonic`)."""
    data = bytearray()
    while len(data) < n:
        sock.settimeout(max(deadline - time.monotonic(), 1e-3))
        chunk = sock.recv(min(n - len(data), 1 << 16))
        if not chunk:
            raise ConnectionResetError("the connection closed before its greeting")
        data += chunk
    return bytes(data)


def _greets(address: str, timeout: float) -> None:
    """Whether a Dask scheduler answers at the TCP ``address`` within ``timeout`` seconds.

    It sends one message first, a small set of frames (a length, then the frames' count and lengths, then the frames).

    Raises
    ------
    OSError
        No connection, or no greeting within ``timeout`` (:class:`TimeoutError`).
    ValueError
        Something that is not a Dask greeting.
    """
    parts = urlsplit(address)
    deadline = time.monotonic() + timeout
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        (size,) = struct.unpack("<Q", _receive(sock, 8, deadline))
        if not 8 <= size <= _GREETING_LIMIT:
            raise ValueError(f"its first message claims {size} bytes")
        body = _receive(sock, size, deadline)
        (frames,) = struct.unpack_from("<Q", body)
        if 8 * (1 + frames) > size or 8 * (1 + frames) + sum(struct.unpack_from(f"<{frames}Q", body, 8)) != size:
            raise ValueError("its first message is not a set of Dask frames")


class DaskParts:
    """Run a release's parts as tasks on a Dask cluster, their results in the parts' order.

    Parameters
    ----------
    scheduler : str, optional
        A running scheduler's address (``tcp://host:8786``) to join; else a
        :class:`distributed.LocalCluster` is started for the release and closed after it. Its form
        is checked here (:func:`scheduler_address`); on TCP it must greet as a Dask scheduler within
        :data:`CONNECT_TIMEOUT` seconds.
    workers : int, optional
        The local cluster's worker processes (one thread each), from 1 to :data:`WORKERS_PER_CORE`
        times the cores; default: the cores (:func:`cores`). Not with ``scheduler`` or ``client``.
    client : distributed.Client, optional
        A client to use as it is (a ``SLURMCluster``'s, say); it is not closed.
    progress : bool, default True
        Show the parts done on stderr (a bar on a terminal, else a line about every 5 s), as a
        release in one process does.

    Raises
    ------
    isdp.errors.UsageError
        A malformed scheduler address, a number of workers out of range, or workers with a
        scheduler or a client.

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

    def __init__(
        self, scheduler: str | None = None, workers: int | None = None, client=None, progress: bool = True
    ) -> None:
        if scheduler is not None:
            scheduler = scheduler_address(scheduler)
        if workers is not None:
            if scheduler is not None or client is not None:
                raise UsageError(
                    "--workers N starts a local cluster: with --scheduler (or a client) the cluster has its own workers"
                )
            workers = checked_workers(workers)
        self.scheduler, self.workers, self.client, self.progress = scheduler, workers, client, progress

    @contextlib.contextmanager
    def _connected(self):
        import dask  # deferred: Dask is the optional extra isdp[distributed], loaded only for --engine dask
        from distributed import Client, LocalCluster

        if self.client is not None:
            yield self.client
            return
        if self.scheduler is not None:
            try:
                if self.scheduler.startswith("tcp://"):
                    _greets(self.scheduler, CONNECT_TIMEOUT)
                client = Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, ValueError) as err:  # TimeoutError is an OSError
                why = err.strerror if isinstance(err, OSError) and err.strerror else err
                raise ReleaseError(
                    f"--scheduler {self.scheduler}: no Dask scheduler answered within "
                    f"{CONNECT_TIMEOUT:g} s ({type(err).__name__}: {why}); nothing was drawn"
                ) from None
            with client:
                yield client
            return
        quiet = logging.getLogger("distributed")  # the scheduler runs here: its INFO lines are not the release's
        level = quiet.level
        quiet.setLevel(logging.WARNING)
        try:
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                with (
                    LocalCluster(
                        n_workers=self.workers or cores(), threads_per_worker=1, processes=True, dashboard_address=None
                    ) as cluster,
                    Client(cluster) as client,
                ):
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
            ``release_one(k)``, part by part, once every part is done.

        Raises
        ------
        isdp.errors.ReleaseError
            The first failing part's refusal, as raised; a part the cluster lost (a worker that
            died, a connection closed) as the base class (exit status 1); a scheduler that does
            not answer, also as the base class. The other parts are cancelled.

        Notes
        -----
        A table of one part, with no scheduler or client given, is released in this process: a local
        cluster would add its start-up (seconds) and run the one task this process runs, with the same
        draws (a part's stream is the part's, whoever draws it). One line on stderr says so.
        """
        from ._release import Progress  # deferred: it loads the release's modules

        parts = list(parts)
        if len(parts) == 1 and self.client is None and self.scheduler is None:
            if self.progress:
                print(
                    "Dask: the table is one part: released in this process, with the draws a cluster would make, "
                    "without starting one",
                    file=sys.stderr,
                    flush=True,
                )
            yield release_one(parts[0])
            return

        from distributed import KilledWorker, as_completed  # deferred: as above
        from distributed.comm.core import CommClosedError  # deferred: as above

        with self._connected() as client:
            run = uuid.uuid4().hex  # keys of this release only: a shared scheduler holds other releases' too
            futures = client.map(release_one, parts, key=[f"isdp-part-{k}-{run}" for k in parts], pure=False)
            part_of = {future.key: k for k, future in zip(parts, futures, strict=True)}
            results = {}
            bar = Progress(len(parts), "parts released", self.progress)
            try:
                for future in as_completed(futures):
                    k = part_of[future.key]
                    try:
                        results[k] = future.result()
                    except (KilledWorker, CancelledError, CommClosedError) as err:  # the cluster, not the part
                        raise ReleaseError(
                            f"the Dask cluster lost part {k} ({type(err).__name__}: {err}): nothing "
                            "was written, and earlier files are as they were"
                        ) from None
                    future.release()  # its result is here: a worker lost from now on costs no second draw
                    bar.update()
            except BaseException:
                client.cancel(futures)  # the other parts are not needed: their files would never be published
                raise
            finally:
                bar.close()
        for k in parts:
            yield results[k]
