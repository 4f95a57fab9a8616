"""Laws on a box of lattice points and what separates two of them.

Total variation, the largest privacy loss and the hockey-stick divergence, with the slack the truncation leaves
(docs/method.md §11, "The audit").

A :class:`TruncatedLaw` is a truncation: the mass outside its box is carried with it and is what separates a
computed divergence from the true one (it can only add that much). The audit (:func:`exact_route_noise`,
:func:`chain_noise_path`) builds the laws of the routes' noise; this module compares them. Two laws are
compared as laws (:meth:`TruncatedLaw.max_privacy_loss`, :meth:`TruncatedLaw.hockey_stick_bound`, with the
truncations' slack) or, once aligned on the union of their points (:meth:`TruncatedLaw.aligned_with`), as two
probability arrays (:meth:`TruncatedLaw.hockey_stick_divergence`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TruncatedLaw:
    """A law on integer vectors, truncated to a box.

    The audit's laws of noise and of outputs: finitely many points with their probabilities,
    normalised on the box, and a bound on the probability the box leaves out, which every
    comparison (:meth:`hockey_stick_bound`, :meth:`total_variation`) adds back as slack.

    Parameters
    ----------
    points : numpy.ndarray of int64, shape (m, n)
        The support on the box, one integer vector per row (a point may repeat; the comparisons
        add up repeated points).
    probs : numpy.ndarray of float, shape (m,)
        The probability of each row of ``points``, summing to 1 on the box.
    outside : float
        A bound on the mass the box leaves out (for :func:`exact_route_noise`, relative to the
        mass inside); 0 when the law is exact.

    See Also
    --------
    exact_route_noise : The law of an exact route's noise.
    chain_noise_path : The laws of the release chain's noise along its iterations.

    Examples
    --------
    A fair coin on {0, 1} shifted by 5, and its probabilities by point:

    >>> import numpy as np
    >>> from isdp.privacy import TruncatedLaw
    >>> coin = TruncatedLaw(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
    >>> coin.shifted([5]).points.tolist()
    [[5], [6]]
    >>> sorted(coin.as_dict().values())
    [0.5, 0.5]
    """

    points: np.ndarray
    probs: np.ndarray
    outside: float

    def shifted(self, x) -> TruncatedLaw:
        """Return the law of x + U for U of this law: the output law of a release of ``x``.

        Parameters
        ----------
        x : array_like of int, shape (n,)
            The table the noise is added to.

        Returns
        -------
        TruncatedLaw
            The points moved by ``x``; the same ``probs`` and ``outside``.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> TruncatedLaw(np.array([[0, 0], [1, -1]]), np.array([0.75, 0.25]), 0.0).shifted([3, 4]).points.tolist()
        [[3, 4], [4, 3]]
        """
        return TruncatedLaw(self.points + np.asarray(x, dtype=np.int64), self.probs, self.outside)

    def as_dict(self) -> dict[bytes, float]:
        """Return the probabilities keyed by point, repeated points added up.

        Returns
        -------
        dict of bytes to float
            ``point.astype(int64).tobytes()`` → its probability on the box.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> law = TruncatedLaw(np.array([[0], [1], [1]]), np.array([0.5, 0.25, 0.25]), 0.0)
        >>> {int(np.frombuffer(k, dtype=np.int64)[0]): v for k, v in law.as_dict().items()}
        {0: 0.5, 1: 0.5}
        """
        out: dict[bytes, float] = {}
        for point, p in zip(self.points, self.probs, strict=True):
            key = point.astype(np.int64).tobytes()
            out[key] = out.get(key, 0.0) + float(p)
        return out

    def aligned_with(self, other: TruncatedLaw) -> tuple[np.ndarray, np.ndarray]:
        """Return the two laws' probabilities on the union of their points (repeated points added up).

        These are the arrays :meth:`hockey_stick_divergence` compares.

        Parameters
        ----------
        other : TruncatedLaw
            The other law, on integer vectors of the same length.

        Returns
        -------
        tuple of numpy.ndarray
            (this law's probabilities, ``other``'s), both float of one length: one entry per distinct
            point of either law, in the points' lexicographic order, 0 where a law has no mass. The
            ``outside`` masses are not included.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0], [1]]), np.array([0.75, 0.25]), 0.0)
        >>> q = TruncatedLaw(np.array([[1], [2], [1]]), np.array([0.5, 0.25, 0.25]), 0.0)
        >>> [a.tolist() for a in p.aligned_with(q)]  # on the points 0, 1, 2
        [[0.75, 0.25, 0.0], [0.0, 0.75, 0.25]]
        """
        points = np.vstack([self.points, other.points])
        # the rows' ranks among the distinct rows in lexicographic order: np.unique(points, axis=0,
        # return_inverse=True)'s index, 6 times faster (it sorts the rows as structured records)
        order = np.lexsort(points.T[::-1])
        ordered = points[order]
        new = np.ones(len(points), dtype=bool)
        new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
        index = np.empty(len(points), dtype=np.int64)
        index[order] = np.cumsum(new) - 1
        m = index.max() + 1
        return (
            np.bincount(index[: len(self.points)], weights=self.probs, minlength=m),
            np.bincount(index[len(self.points) :], weights=other.probs, minlength=m),
        )

    def product(self, other: TruncatedLaw) -> TruncatedLaw:
        """Return the joint law of this law and an independent one: two mechanisms run on the same data.

        Parameters
        ----------
        other : TruncatedLaw
            The law of Z, independent of Y of this law.

        Returns
        -------
        TruncatedLaw
            The law of (Y, Z) as concatenated vectors (shape (m_p·m_q, n_p + n_q)); ``outside``
            bounds the mass either box leaves out.

        Notes
        -----
        Privacy losses add under independent composition: the largest loss of the joint laws of two
        inputs is the sum of the two mechanisms' largest losses.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
        >>> q = TruncatedLaw(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.01)
        >>> joint = p.product(q)
        >>> joint.points.tolist()
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
        >>> [round(float(v), 4) for v in joint.probs], joint.outside
        ([0.125, 0.075, 0.05, 0.375, 0.225, 0.15], 0.01)
        """
        p, q = self, other
        points = np.hstack([np.repeat(p.points, len(q.points), axis=0), np.tile(q.points, (len(p.points), 1))])
        return TruncatedLaw(points, np.outer(p.probs, q.probs).ravel(), min(1.0, p.outside + q.outside))

    def pushforward(self, f) -> TruncatedLaw:
        """Return the law of f(Y) for Y of this law: a post-processing of the release.

        Parameters
        ----------
        f : callable
            Maps one point (a 1-d int64 array) to an integer vector (of any fixed length).

        Returns
        -------
        TruncatedLaw
            The images f(y) with the probabilities of their points (images may repeat; the
            comparisons add them up); ``outside`` is unchanged.

        Examples
        --------
        Clipping a law at 1, then comparing two clipped laws: post-processing never increases the
        privacy loss.

        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.0)
        >>> q = TruncatedLaw(np.array([[0], [1], [2]]), np.array([0.2, 0.3, 0.5]), 0.0)
        >>> clip = lambda y: np.minimum(y, 1)
        >>> p.pushforward(clip).points.tolist()
        [[0], [1], [1]]
        >>> round(p.max_privacy_loss(q), 4), round(p.pushforward(clip).max_privacy_loss(q.pushforward(clip)), 4)
        (0.9163, 0.9163)
        """
        images = np.array([f(point) for point in self.points], dtype=np.int64)
        return TruncatedLaw(images, self.probs, self.outside)

    def total_variation(self, other: TruncatedLaw) -> float:
        """Return an upper bound on the total variation distance between this law and ``other``.

        Parameters
        ----------
        other : TruncatedLaw
            A law on integer vectors of the same length.

        Returns
        -------
        float
            ½ Σ |p − q| on the union of the boxes, plus both laws' mass outside them: an upper bound
            on the untruncated distance.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
        >>> q = TruncatedLaw(np.array([[1], [2]]), np.array([0.5, 0.5]), 0.0)
        >>> p.total_variation(q), p.total_variation(p)
        (0.5, 0.0)
        """
        a, b = self.aligned_with(other)
        return float(0.5 * np.abs(a - b).sum() + self.outside + other.outside)

    def max_privacy_loss(self, other: TruncatedLaw, floor: float = 1e-12) -> float:
        """Return the largest privacy loss max ln p(y)/q(y) of this output law p and ``other``, q.

        Parameters
        ----------
        other : TruncatedLaw
            The output law on the neighbouring input (the same noise law shifted by x and x',
            :meth:`shifted`).
        floor : float, default 1e-12
            Outputs where either probability is below ``floor`` are left out, which keeps the
            comparison away from the box edge, where truncation distorts the ratio.

        Returns
        -------
        float
            The largest ln p(y)/q(y) over the outputs where both are at least ``floor``: at most ε for a pure
            ε guarantee of this pair.

        Raises
        ------
        ValueError
            When no output has both probabilities at least ``floor``.

        See Also
        --------
        hockey_stick_bound : The δ of (ε, δ) for this ordered pair.

        Notes
        -----
        For the exact ℓ1 route the bound exp(ε‖v‖) of ISDP Thm 10 is attained at y = x, so the loss
        equals the stated ε for a change the invariants absorb (docs/method.md §11).

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0], [1]]), np.array([0.75, 0.25]), 0.0)
        >>> q = TruncatedLaw(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
        >>> round(p.max_privacy_loss(q), 6)  # ln 3
        1.098612
        """
        return _max_log_ratio(*self.aligned_with(other), floor)

    def hockey_stick_bound(self, other: TruncatedLaw, epsilon: float) -> float:
        """Return an upper bound on the hockey-stick divergence of this law and ``other``: the δ of (ε, δ).

        Parameters
        ----------
        other : TruncatedLaw
            The output law on the neighbouring input (this law is the first of the ordered pair).
        epsilon : float
            The ε at which δ is measured.

        Returns
        -------
        float
            Σ_y max(0, p(y) − e^ε q(y)) on the union of the boxes (the largest P(B) − e^ε Q(B) over
            sets B), plus :meth:`truncation_slack`: an upper bound on the untruncated divergence, so
            the pair meets (ε, δ) for every δ at least this.

        See Also
        --------
        truncation_slack : The part of the bound the truncation contributes.
        max_privacy_loss : The ε of a pure guarantee for the pair.
        hockey_stick_divergence : The divergence of two probability arrays.

        Examples
        --------
        The exact ℓ1 route under a total of three cells, one person moving, at ε = 1 per person: the
        divergence at the stated ε is 0 up to the truncation's slack, and clearly positive at half of it.

        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler
        >>> from isdp.privacy import exact_route_noise
        >>> noise = exact_route_noise(IntegerL1Sampler.build(np.array([[1, 1, 1]])), Fraction(1, 2), radius=30)
        >>> p, q = noise.shifted([1, 0, 2]), noise.shifted([0, 1, 2])
        >>> p.hockey_stick_bound(q, 1.0) - p.truncation_slack(q, 1.0) < 1e-10
        True
        >>> round(p.hockey_stick_bound(q, 0.5), 2)
        0.21
        """
        return self.hockey_stick_divergence(*self.aligned_with(other), epsilon) + self.truncation_slack(other, epsilon)

    def truncation_slack(self, other: TruncatedLaw, epsilon: float) -> float:
        """Return what the truncations can hide from the hockey-stick divergence of this law and ``other``.

        Parameters
        ----------
        other : TruncatedLaw
            The second law, as :meth:`hockey_stick_bound` takes it.
        epsilon : float
            The ε of the divergence.

        Returns
        -------
        float
            ``self.outside + exp(epsilon) * other.outside``: this law's mass outside its box and e^ε times
            the other's.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> p = TruncatedLaw(np.array([[0]]), np.array([1.0]), 0.001)
        >>> round(p.truncation_slack(p, 0.0), 6)
        0.002
        """
        return float(self.outside + np.exp(epsilon) * other.outside)

    @staticmethod
    def hockey_stick_divergence(a: np.ndarray, b: np.ndarray, epsilon: float) -> float:
        """Return Σ max(0, a − e^ε b) of two probability arrays on the same outputs.

        The largest P(B) − e^ε Q(B) over sets B, the smallest δ of (ε, δ) for this ordered pair (no truncation slack).

        The divergence itself, of two probability arrays; :meth:`hockey_stick_bound` bounds it for two truncated laws
        (their arrays :meth:`aligned_with`, plus the truncations' slack).

        Parameters
        ----------
        a, b : array_like of float
            The two laws' probabilities, one entry per output, the same outputs in the same order.
        epsilon : float
            The ε at which δ is measured.

        Returns
        -------
        float
            Σ max(0, a − e^ε b) ≥ 0; at ε = 0 the total variation distance.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import TruncatedLaw
        >>> a, b = np.array([0.75, 0.25]), np.array([0.25, 0.75])
        >>> divergence = TruncatedLaw.hockey_stick_divergence
        >>> divergence(a, b, 0.0), divergence(a, b, float(np.log(3)))
        (0.5, 0.0)
        """
        return float(np.maximum(np.asarray(a, dtype=float) - np.exp(epsilon) * np.asarray(b, dtype=float), 0.0).sum())


def _max_log_ratio(a: np.ndarray, b: np.ndarray, floor: float) -> float:
    """Return max ln a/b of two probability arrays on the same outputs, where both are at least ``floor``."""
    both = (a >= floor) & (b >= floor)
    return float(np.max(np.log(a[both]) - np.log(b[both])))
