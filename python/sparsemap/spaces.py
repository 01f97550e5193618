"""Observation and action spaces of the gym-style environments (no gym dependency).

Box: real vectors with per-entry bounds; Discrete: the integers 0 .. n-1. Both have `shape`,
`low`, `high` (NumPy arrays), `sample()` and `contains(x)`, the attributes RL code reads.
"""
import numpy as np


class Box:
    """Real vectors x with low <= x <= high (float64)."""

    def __init__(self, low, high, seed=None):
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        if self.low.shape != self.high.shape:
            raise ValueError("Box: low and high must have the same shape")
        self.shape = self.low.shape
        self.dtype = np.float64
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        return self._rng.uniform(self.low, self.high)

    def contains(self, x):
        x = np.asarray(x, dtype=np.float64)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self):
        return f"Box(shape={self.shape}, low={self.low.min()}, high={self.high.max()})"


class Discrete:
    """The integers 0 .. n-1; shape () and low/high as 0-d arrays, as Box has them."""

    def __init__(self, n, seed=None):
        self.n = int(n)
        self.shape = ()
        self.dtype = np.int64
        self.low = np.asarray(0, dtype=np.int64)
        self.high = np.asarray(self.n - 1, dtype=np.int64)
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        return int(self._rng.integers(self.n))

    def contains(self, x):
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n

    def __repr__(self):
        return f"Discrete({self.n})"
