"""Laws on a box of lattice points and what separates two of them.

Total variation, the largest privacy loss and the hockey-stick divergence, with the slack the truncation leaves
(docs/method.md §11, "The audit").

A :class:`Law` is a truncation: the mass outside its box is carried with it and is what separates a
computed divergence from the true one (it can only add that much). :mod:`isdp.release`'s audit
(``exact_route_noise``, ``chain_noise``) builds the laws of the routes' noise; this module compares them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Law:
    """A law on integer vectors, truncated to a box.

    The audit's laws of noise and of outputs: finitely many points with their probabilities,
    normalised on the box, and a bound on the probability the box leaves out, which every
    comparison (:func:`hockey_stick`, :func:`total_variation`) adds back as slack.

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
    chain_noise : The law of the release chain's noise after t iterations.

    Examples
    --------
    A fair coin on {0, 1} shifted by 5, and its probabilities by point:

    >>> import numpy as np
    >>> from isdp.privacy import Law
    >>> coin = Law(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
    >>> coin.shifted([5]).points.tolist()
    [[5], [6]]
    >>> sorted(coin.as_dict().values())
    [0.5, 0.5]
    """

    points: np.ndarray
    probs: np.ndarray
    outside: float

    def shifted(self, x) -> Law:
        """Return the law of x + U for U of this law: the output law of a release of ``x``.

        Parameters
        ----------
        x : array_like of int, shape (n,)
            The table the noise is added to.

        Returns
        -------
        Law
            The points moved by ``x``; the same ``probs`` and ``outside``.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import Law
        >>> Law(np.array([[0, 0], [1, -1]]), np.array([0.75, 0.25]), 0.0).shifted([3, 4]).points.tolist()
        [[3, 4], [4, 3]]
        """
        return Law(self.points + np.asarray(x, dtype=np.int64), self.probs, self.outside)

    def as_dict(self) -> dict[bytes, float]:
        """Return the probabilities keyed by point, repeated points added up.

        Returns
        -------
        dict of bytes to float
            ``point.astype(int64).tobytes()`` → its probability on the box.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import Law
        >>> law = Law(np.array([[0], [1], [1]]), np.array([0.5, 0.25, 0.25]), 0.0)
        >>> {int(np.frombuffer(k, dtype=np.int64)[0]): v for k, v in law.as_dict().items()}
        {0: 0.5, 1: 0.5}
        """
        out: dict[bytes, float] = {}
        for point, p in zip(self.points, self.probs, strict=True):
            key = point.astype(np.int64).tobytes()
            out[key] = out.get(key, 0.0) + float(p)
        return out


def total_variation(p: Law, q: Law) -> float:
    """Return an upper bound on the total variation distance between two truncated laws.

    Parameters
    ----------
    p, q : Law
        The two laws, on integer vectors of the same length.

    Returns
    -------
    float
        ½ Σ |p − q| on the union of the boxes, plus both laws' mass outside them: an upper bound
        on the untruncated distance.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import Law, total_variation
    >>> p = Law(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
    >>> q = Law(np.array([[1], [2]]), np.array([0.5, 0.5]), 0.0)
    >>> total_variation(p, q), total_variation(p, p)
    (0.5, 0.0)
    """
    a, b = aligned(p, q)
    return float(0.5 * np.abs(a - b).sum() + p.outside + q.outside)


def product(p: Law, q: Law) -> Law:
    """Return the joint law of two independent laws: two mechanisms run on the same data.

    Parameters
    ----------
    p, q : Law
        The laws of Y and of Z, independent.

    Returns
    -------
    Law
        The law of (Y, Z) as concatenated vectors (shape (m_p·m_q, n_p + n_q)); ``outside``
        bounds the mass either box leaves out.

    Notes
    -----
    Privacy losses add under independent composition: the largest loss of the joint laws of two
    inputs is the sum of the two mechanisms' largest losses.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import Law, product
    >>> p = Law(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
    >>> q = Law(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.01)
    >>> joint = product(p, q)
    >>> joint.points.tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    >>> [round(float(v), 4) for v in joint.probs], joint.outside
    ([0.125, 0.075, 0.05, 0.375, 0.225, 0.15], 0.01)
    """
    points = np.hstack([np.repeat(p.points, len(q.points), axis=0), np.tile(q.points, (len(p.points), 1))])
    return Law(points, np.outer(p.probs, q.probs).ravel(), min(1.0, p.outside + q.outside))


def pushforward(law: Law, f) -> Law:
    """Return the law of f(Y) for Y ~ ``law``: a post-processing of the release.

    Parameters
    ----------
    law : Law
        The law of Y.
    f : callable
        Maps one point (a 1-d int64 array) to an integer vector (of any fixed length).

    Returns
    -------
    Law
        The images f(y) with the probabilities of their points (images may repeat; the
        comparisons add them up); ``outside`` is unchanged.

    Examples
    --------
    Clipping a law at 1, then comparing two clipped laws: post-processing never increases the
    privacy loss.

    >>> import numpy as np
    >>> from isdp.privacy import Law, max_privacy_loss, pushforward
    >>> p = Law(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.0)
    >>> q = Law(np.array([[0], [1], [2]]), np.array([0.2, 0.3, 0.5]), 0.0)
    >>> clip = lambda y: np.minimum(y, 1)
    >>> pushforward(p, clip).points.tolist()
    [[0], [1], [1]]
    >>> round(max_privacy_loss(p, q), 4), round(max_privacy_loss(pushforward(p, clip), pushforward(q, clip)), 4)
    (0.9163, 0.9163)
    """
    images = np.array([f(point) for point in law.points], dtype=np.int64)
    return Law(images, law.probs, law.outside)


def aligned(p: Law, q: Law) -> tuple[np.ndarray, np.ndarray]:
    """Return the two laws' probabilities on the union of their points (repeated points added up).

    The arrays :func:`hockey_stick_divergence` and :func:`max_loss` compare.

    Parameters
    ----------
    p, q : Law
        The two laws, on integer vectors of the same length.

    Returns
    -------
    tuple of numpy.ndarray
        (p's probabilities, q's probabilities), both float of one length: one entry per distinct
        point of either law, in the points' lexicographic order, 0 where a law has no mass. The
        ``outside`` masses are not included.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import Law, aligned
    >>> p = Law(np.array([[0], [1]]), np.array([0.75, 0.25]), 0.0)
    >>> q = Law(np.array([[1], [2], [1]]), np.array([0.5, 0.25, 0.25]), 0.0)
    >>> [a.tolist() for a in aligned(p, q)]  # on the points 0, 1, 2
    [[0.75, 0.25, 0.0], [0.0, 0.75, 0.25]]
    """
    points = np.vstack([p.points, q.points])
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
        np.bincount(index[: len(p.points)], weights=p.probs, minlength=m),
        np.bincount(index[len(p.points) :], weights=q.probs, minlength=m),
    )


def max_loss(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """Max ln a/b of two probability arrays on the same outputs, where both are at least ``floor``.

    :func:`max_privacy_loss` for laws already aligned (:func:`aligned`), e.g. product laws built as
    outer products of aligned arrays without enumerating their points.

    Parameters
    ----------
    a, b : numpy.ndarray
        float, one entry per output, the same outputs in the same order.
    floor : float, default 1e-12
        Outputs where either probability is below ``floor`` are left out.

    Returns
    -------
    float
        The largest ln a/b over the outputs where both are at least ``floor``.

    Raises
    ------
    ValueError
        When no output has both probabilities at least ``floor``.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import max_loss
    >>> a, b = np.array([0.75, 0.25]), np.array([0.25, 0.75])
    >>> round(max_loss(a, b), 6), round(max_loss(np.outer(a, a).ravel(), np.outer(b, b).ravel()), 6)  # ln 3, ln 9
    (1.098612, 2.197225)
    """
    both = (a >= floor) & (b >= floor)
    return float(np.max(np.log(a[both]) - np.log(b[both])))


def max_privacy_loss(p: Law, q: Law, floor: float = 1e-12) -> float:
    """Return the largest privacy loss max ln p(y)/q(y) of two output laws.

    Parameters
    ----------
    p, q : Law
        The output laws of a mechanism on two neighbouring inputs (the same noise law shifted by
        x and x', :meth:`Law.shifted`).
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
    hockey_stick : The δ of (ε, δ) for this ordered pair.

    Notes
    -----
    For the exact ℓ1 route the bound exp(ε‖v‖) of ISDP Thm 10 is attained at y = x, so the loss
    equals the stated ε for a change the invariants absorb (docs/method.md §11).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import Law, max_privacy_loss
    >>> p = Law(np.array([[0], [1]]), np.array([0.75, 0.25]), 0.0)
    >>> q = Law(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
    >>> round(max_privacy_loss(p, q), 6)  # ln 3
    1.098612
    """
    return max_loss(*aligned(p, q), floor)


def hockey_stick_divergence(a: np.ndarray, b: np.ndarray, eps: float) -> float:
    """Σ max(0, a − e^ε b) of two probability arrays on the same outputs.

    The largest P(B) − e^ε Q(B) over sets B, the smallest δ of (ε, δ) for this ordered pair (no truncation slack).

    :func:`hockey_stick` for laws already aligned (:func:`aligned`), without its truncation slack.

    Parameters
    ----------
    a, b : array_like of float
        The two laws' probabilities, one entry per output, the same outputs in the same order.
    eps : float
        The ε at which δ is measured.

    Returns
    -------
    float
        Σ max(0, a − e^ε b) ≥ 0; at ε = 0 the total variation distance.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import hockey_stick_divergence
    >>> a, b = np.array([0.75, 0.25]), np.array([0.25, 0.75])
    >>> hockey_stick_divergence(a, b, 0.0), hockey_stick_divergence(a, b, float(np.log(3)))
    (0.5, 0.0)
    """
    return float(np.maximum(np.asarray(a, dtype=float) - np.exp(eps) * np.asarray(b, dtype=float), 0.0).sum())


def hockey_stick(p: Law, q: Law, eps: float) -> float:
    """Return an upper bound on the hockey-stick divergence of two truncated laws: the δ of (ε, δ).

    Parameters
    ----------
    p, q : Law
        The output laws on two neighbouring inputs, in this order.
    eps : float
        The ε at which δ is measured.

    Returns
    -------
    float
        Σ_y max(0, p(y) − e^ε q(y)) on the union of the boxes (the largest P(B) − e^ε Q(B) over
        sets B), plus :func:`truncation_slack`: an upper bound on the untruncated divergence, so
        the pair meets (ε, δ) for every δ at least this.

    See Also
    --------
    truncation_slack : The part of the bound the truncation contributes.
    max_privacy_loss : The ε of a pure guarantee for the pair.

    Examples
    --------
    The exact ℓ1 route under a total of three cells, one person moving, at ε = 1 per person: the
    divergence at the stated ε is 0 up to the truncation's slack, and clearly positive at half of it.

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import IntegerL1Sampler
    >>> from isdp.privacy import exact_route_noise, hockey_stick, truncation_slack
    >>> noise = exact_route_noise(IntegerL1Sampler.build(np.array([[1, 1, 1]])), Fraction(1, 2), radius=30)
    >>> p, q = noise.shifted([1, 0, 2]), noise.shifted([0, 1, 2])
    >>> hockey_stick(p, q, 1.0) - truncation_slack(p, q, 1.0) < 1e-10
    True
    >>> round(hockey_stick(p, q, 0.5), 2)
    0.21
    """
    return hockey_stick_divergence(*aligned(p, q), eps) + truncation_slack(p, q, eps)


def truncation_slack(p: Law, q: Law, eps: float) -> float:
    """Return what the truncations can hide from a hockey-stick divergence.

    Parameters
    ----------
    p, q : Law
        The two laws, in the order :func:`hockey_stick` takes them.
    eps : float
        The ε of the divergence.

    Returns
    -------
    float
        ``p.outside + exp(eps) * q.outside``: p's mass outside its box and e^ε times q's.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import Law, truncation_slack
    >>> p = Law(np.array([[0]]), np.array([1.0]), 0.001)
    >>> round(truncation_slack(p, p, 0.0), 6)
    0.002
    """
    return float(p.outside + np.exp(eps) * q.outside)
