"""The exact ℓ1 sampler's proposals and rejection steps compiled, for many blocks of one sampler at once.

:class:`isdp.exact.IntegerL1Sampler` draws a block's noise by rejection: the free cells i.i.d.
DG(ε), the solved cells X·z, the proposal kept with probability exp(−ε Σ_{solved, in the norm} |u_i|)
and, on the Gaussian route (σ = a/b, ε = 1/σ), kept again with probability
exp(−Σ (b|u_i| − a)² / 2a²). Here that loop runs compiled (numba) over the blocks of a table that
share one sampler, on a stream of random bits read from the source in bulk
(:class:`~isdp.exact._compiled_draws.WordSource`).

**Exact.** Every decision is CKS Algorithm 1 on a fraction in lowest terms, made by comparing
uniform integers (the stream's next bits, by rejection) with integers below 2**62: no floating-point
number decides anything. Before each step the kernel checks that its integers stay below 2**62;
when one could not (a draw hundreds of standard deviations out, an enormous σ), it stops at the
block's first bit and the block is drawn by :func:`reference_block`, the same algorithm in Python
integers, reading on from the same bit. So the law is the one the integer arithmetic defines,
and the draws are those of :func:`reference_block` on the same bits: one attempt after another,
each the free cells' DG draws (:func:`~isdp.exact._exact_draws.double_geometric` on a
:class:`~isdp.exact._compiled_draws.WordSource`), then the ℓ1 decision, then the Gaussian one.
``tests/core/exact/test_compiled_l1.py`` compares them block for block.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

from ._compiled_draws import _LIMIT, WordSource, _below, _bernoulli_exp, _draw
from ._exact_draws import _bernoulli_exp as _python_bernoulli_exp
from ._exact_draws import _double_geometric
from ._integer_sources import IntegerSource

#: kernel outcomes: every block drawn; a block accepted nothing; the words ran out; an integer would reach 2**62
_DONE, _FAILED, _MORE_WORDS, _TOO_LARGE = 0, 1, 2, 3
_BIG = np.int64(1) << np.int64(62)
#: words in the first buffer, and the most a buffer holds unless one block needs more
_FIRST_WORDS, _MAX_WORDS = 1 << 12, 1 << 20
#: at most this many cells in all are drawn by :func:`reference_block` (the same draws from the same words)
_PYTHON_CELLS = 64


@njit(cache=True, nogil=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True, nogil=True)
def _bernoulli_exp_any(num, den, words, pos):
    """Bernoulli(exp(−num/den)) for any num ≥ 0 (CKS Algorithm 1, as :func:`isdp.exact._exact_draws.bernoulli_exp`).

    1 or 0 and the next position; -1 when the words run out, -2 when den·k would reach 2**62.
    """
    g = _gcd(num, den)
    num, den = num // g, den // g
    while num > den:
        success, pos = _bernoulli_exp(np.int64(1), np.int64(1), words, pos)
        if success <= 0:
            return success, pos
        num -= den
    k = np.int64(1)
    while True:
        if den >= _BIG // k:
            return np.int64(-2), pos
        x, pos = _below(words, pos, den * k)
        if x < 0:
            return np.int64(-1), pos
        if x >= num:
            return k % 2, pos
        k += 1


@njit(cache=True, nogil=True)
def _attempts(s, t, X, scale, in_norm, a, b, accept, max_attempts, words, pos, row):
    """One block: attempts until a proposal is kept (``row`` = free cells then solved cells).

    The outcome, the attempts made and the next position.
    """
    k, m = X.shape[1], X.shape[0]
    attempt = 0
    while attempt < max_attempts:
        attempt += 1
        largest = np.int64(0)
        for j in range(k):
            value, pos, complete = _draw(s, t, words, pos)
            if not complete:
                return _MORE_WORDS, attempt, pos
            row[j] = value
            largest = max(largest, abs(value))
        # every |u_i| ≤ largest · (X's largest row ℓ1 norm, at least 1) = bound; γ's numerators below 2**61
        bound = float(largest) * scale
        if s * m * bound >= 2.0**61 or (a > 0 and (k + m) * (b * bound + a) ** 2 >= 2.0**61):
            return _TOO_LARGE, attempt, pos
        total = np.int64(0)
        for i in range(m):
            value = np.int64(0)
            for j in range(k):
                value += X[i, j] * row[j]
            row[k + i] = value
            if in_norm[i]:
                total += abs(value)
        if not accept:
            return _DONE, attempt, pos
        kept, pos = _bernoulli_exp_any(s * total, t, words, pos)
        if kept < 0:
            return (_MORE_WORDS if kept == -1 else _TOO_LARGE), attempt, pos
        if kept == 0:
            continue
        if a > 0:  # the Gaussian's second rejection: Σ (b|u| − a)² / 2a² over the cells in the norm
            num = np.int64(0)
            for i in range(k + m):
                if i < k or in_norm[i - k]:
                    d = b * abs(row[i]) - a
                    num += d * d
            kept, pos = _bernoulli_exp_any(num, 2 * a * a, words, pos)
            if kept < 0:
                return (_MORE_WORDS if kept == -1 else _TOO_LARGE), attempt, pos
            if kept == 0:
                continue
        return _DONE, attempt, pos
    return _FAILED, attempt, pos


@njit(cache=True, nogil=True)
def _blocks(s, t, X, scale, in_norm, a, b, accept, max_attempts, words, pos, out, attempts, start):
    """Blocks ``start`` on into ``out``'s rows.

    The outcome, the block it stopped at, and the position (a stopped block's first word when the words ran out or an
    integer would grow too large).
    """
    for block in range(start, out.shape[0]):
        first = pos
        outcome, used, pos = _attempts(s, t, X, scale, in_norm, a, b, accept, max_attempts, words, pos, out[block])
        attempts[block] = used
        if outcome == _FAILED:
            return outcome, block, pos
        if outcome != _DONE:
            return outcome, block, first
    return _DONE, out.shape[0], pos


def reference_block(
    X: np.ndarray,
    in_norm: np.ndarray,
    eps: Fraction,
    rng,
    *,
    max_attempts: int,
    sigma: Fraction | None = None,
    accept: bool = True,
) -> tuple[list[int] | None, int]:
    """One block by rejection in Python integers, one attempt after another: the compiled kernel's algorithm.

    Parameters
    ----------
    X : numpy.ndarray of int64, shape (m, k)
        The integral solve: the solved cells' noise is X·z for the free cells' z.
    in_norm : numpy.ndarray of bool, shape (m,)
        Per solved cell, whether it enters the law.
    eps : fractions.Fraction
        ε per unit ℓ1 distance (1/σ with ``sigma``).
    rng : IntegerSource
        The source of uniform integers (a :class:`~isdp.exact._compiled_draws.WordSource` to read the kernel's words).
    max_attempts : int
        Proposals before giving up.
    sigma : fractions.Fraction or None, default None
        With a σ, the generalized Gaussian's second rejection.
    accept : bool, default True
        False: the first proposal is the noise.

    Returns
    -------
    row : list of int or None
        The free cells' noise then the solved cells'; None when nothing was kept.
    attempts : int
        The proposals drawn.
    """
    k = X.shape[1]
    rows = X.tolist()
    for attempt in range(1, max_attempts + 1):
        free = [_double_geometric(eps, rng) for _ in range(k)]
        solved = [sum(x * z for x, z in zip(r, free, strict=True)) for r in rows]
        if not accept:
            return free + solved, attempt
        gamma = eps * sum(abs(v) for v, keep in zip(solved, in_norm, strict=True) if keep)
        if not _python_bernoulli_exp(gamma.numerator, gamma.denominator, rng):
            continue
        if sigma is not None:
            normed = free + [v for v, keep in zip(solved, in_norm, strict=True) if keep]
            gamma = sum((abs(v) - sigma) ** 2 for v in normed) / (2 * sigma**2)
            if not _python_bernoulli_exp(gamma.numerator, gamma.denominator, rng):
                continue
        return free + solved, attempt
    return None, max_attempts


def compiled_blocks(
    X: np.ndarray,
    in_norm: np.ndarray,
    eps: Fraction,
    count: int,
    rng: IntegerSource,
    *,
    max_attempts: int,
    sigma: Fraction | None = None,
    accept: bool = True,
) -> tuple[np.ndarray | None, int]:
    """``count`` independent blocks' noise by the ℓ1 sampler's rejection, compiled where the integers allow.

    Parameters
    ----------
    X, in_norm, eps, max_attempts, sigma, accept
        As for :func:`reference_block` (``max_attempts`` per block).
    count : int
        The number of blocks.
    rng : IntegerSource
        The source of the words: :func:`isdp.exact.system_source` for publication.

    Returns
    -------
    rows : numpy.ndarray of int64, shape (count, k + m) or None
        Per block, the free cells' noise then the solved cells'; None when some block kept nothing.
    attempts : int
        The proposals drawn in all blocks (up to the block that kept nothing).
    """
    m, k = X.shape
    out = np.zeros((count, k + m), dtype=np.int64)
    attempts = np.zeros(count, dtype=np.int64)
    eps, sigma = Fraction(eps), None if sigma is None else Fraction(sigma)
    s, t = eps.numerator, eps.denominator
    a, b = (0, 0) if sigma is None else (sigma.numerator, sigma.denominator)
    reader = WordSource(rng)
    # outside the kernel's integers, or so few cells that loading the kernel (about 0.35 s) costs more than them
    if not (0 < s < _LIMIT and t < _LIMIT and a < _LIMIT and b < _LIMIT) or count * (k + m) <= _PYTHON_CELLS:
        for block in range(count):
            row, attempts[block] = reference_block(
                X, in_norm, eps, reader, max_attempts=max_attempts, sigma=sigma, accept=accept
            )
            if row is None:
                return None, int(attempts.sum())
            out[block] = row
        return out, int(attempts.sum())
    X = np.ascontiguousarray(X, dtype=np.int64)
    scale = max(1.0, float(np.abs(X).sum(axis=1).max())) if m else 1.0
    norm = np.ascontiguousarray(in_norm, dtype=np.bool_)
    # a proposal's bits: its DG draws (about 12 bits each at ε = 1/2) and decisions; more are read as needed
    want = min(_MAX_WORDS, max(_FIRST_WORDS, (k + 2) * count // 4))
    done = 0
    while done < count:
        reader.ensure(want)
        outcome, done, reader.pos = _blocks(
            np.int64(s),
            np.int64(t),
            X,
            scale,
            norm,
            np.int64(a),
            np.int64(b),
            accept,
            np.int64(max_attempts),
            reader.words,
            np.int64(reader.pos),
            out,
            attempts,
            np.int64(done),
        )
        if outcome == _FAILED:
            return None, int(attempts[: done + 1].sum())
        if outcome == _MORE_WORDS:  # the block at `done` starts over on a buffer with more words after these
            want = max(want, 2 * (reader.words.size - (reader.pos >> 6)))
        elif outcome == _TOO_LARGE:  # the block at `done` is drawn again in Python integers, from its first word
            row, attempts[done] = reference_block(
                X, in_norm, eps, reader, max_attempts=max_attempts, sigma=sigma, accept=accept
            )
            if row is None:
                return None, int(attempts[: done + 1].sum())
            out[done] = row
            done += 1
    return out, int(attempts.sum())
