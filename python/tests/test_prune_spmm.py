"""Pruning of NumPy weights (hand-worked masks, exact sparsity, exactly N per M-group) and
SpMM against NumPy's matmul."""
import numpy as np
import pytest

import sparsemap as sm

W = np.array([[1, -5, 3, 0.5], [2, -4, 0.1, 6]], dtype=np.float32)


def test_magnitude_unstructured_hand_worked():
    # |w| = 1 5 3 .5 / 2 4 .1 6; sparsity .5 drops round(.5 * 8) = 4: .1, .5, 1, 2.
    m = sm.prune_mask(W, "unstructured", 0.5)
    assert m.dtype == bool
    assert m.tolist() == [[False, True, True, False], [False, True, False, True]]
    p = sm.prune(W, sparsity=0.5)
    assert p.tolist() == [[0, -5, 3, 0], [0, -4, 0, 6]]
    assert sm.relative_error(W, m) == pytest.approx(
        np.sqrt(1 + 0.25 + 4 + 0.01) / np.linalg.norm(W), rel=1e-6)


def test_nm_keeps_exactly_n_per_group_ties_to_the_lower_index():
    w = np.array([[4, 1, 3, 2, 0, 7, 0, 1], [1, 1, 1, 1, -2, 2, -2, 2]], dtype=np.float32)
    m = sm.prune_mask(w, "nm:2:4")  # sparsity: the pattern's own 1 - 2/4
    assert m.astype(int).tolist() == [[1, 0, 1, 0, 0, 1, 0, 1], [1, 1, 0, 0, 1, 1, 0, 0]]
    assert (m.reshape(2, 2, 4).sum(axis=2) == 2).all()
    # Along columns: each column is one group of 2 rows, 1 kept (column 1's tie: row 0).
    mc = sm.prune_mask(w, "nm:1:2:col")
    assert mc.astype(int).tolist() == [[1, 1, 1, 1, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0, 1, 1]]
    with pytest.raises(ValueError, match="N:M needs"):
        sm.prune_mask(w, "nm:5:4")


def test_block_and_channel_pruning_hand_worked():
    # 4x4 of 2x2 blocks: 1 4 / 3 2; sparsity .5 keeps the two largest (avg pooling).
    w = np.kron(np.array([[1, 4], [3, 2]], dtype=np.float32), np.ones((2, 2), np.float32))
    m = sm.prune_mask(w, "block:2x2", 0.5)
    assert m.astype(int).tolist() == [[0, 0, 1, 1]] * 2 + [[1, 1, 0, 0]] * 2
    # Output channels (rows) by L2 norm: rows 2 and 3 win on norms 1, 2, 5, 3.
    c = np.array([[1, 0], [0, 2], [3, 4], [3, 0]], dtype=np.float32)
    assert sm.prune_mask(c, "channel", 0.5).astype(int).tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]
    # Column vectors of 2 (CVSE units) by L2 norm.
    v = np.array([[1, 5], [1, 5], [9, 0], [0, 0]], dtype=np.float32)
    assert sm.prune_mask(v, "cvse:2", 0.5).astype(int).tolist() == [[0, 1], [0, 1], [1, 0], [1, 0]]


def test_random_pruning_is_exact_and_seeded():
    w = np.ones((16, 25), dtype=np.float32)
    a = sm.prune_mask(w, "unstructured", 0.3, method="random", seed=3)
    assert (~a).sum() == round(0.3 * 400)
    assert np.array_equal(a, sm.prune_mask(w, "unstructured", 0.3, method="random", seed=3))
    assert not np.array_equal(a, sm.prune_mask(w, "unstructured", 0.3, method="random", seed=4))
    r = sm.prune_mask(w, "nm:2:4", method="random", seed=1)
    assert (r[:, :24].reshape(16, 6, 4).sum(axis=2) == 2).all()
    assert r[:, 24].all()  # the last group has 1 entry (< N): kept
    with pytest.raises(ValueError, match="method"):
        sm.prune_mask(w, sparsity=0.5, method="saliency")


def test_conv_weights_are_pruned_as_out_by_the_rest():
    w = np.random.default_rng(0).standard_normal((8, 3, 3, 3)).astype(np.float32)
    m = sm.prune_mask(w, "unstructured", 0.75)
    assert m.shape == w.shape and (~m).sum() == round(0.75 * w.size)
    p = sm.prune(w, "nm:2:4")
    assert p.shape == w.shape
    assert ((p.reshape(8, -1)[:, :24].reshape(8, 6, 4) != 0).sum(axis=2) == 2).all()


def test_bad_pruning_arguments_carry_the_cli_message():
    with pytest.raises(ValueError, match=r"^<prune>: sparsity must be in \[0, 1\]"):
        sm.prune_mask(W, "unstructured", 1.5)
    with pytest.raises(ValueError, match=r"^<flag --type>: 'diagonal'"):
        sm.prune_mask(W, "diagonal", 0.5)
    with pytest.raises(ValueError, match="sparsity: required"):
        sm.prune_mask(W, "unstructured")


def test_prune_to_a_format():
    w = np.random.default_rng(1).standard_normal((12, 16)).astype(np.float32)
    a = sm.prune_to(w, "nm:2:4")
    assert isinstance(a, sm.NmMatrix) and a.data.shape == (12, 4, 2)
    d = a.to_dense()
    assert ((d.reshape(12, 4, 4) != 0).sum(axis=2) == 2).all()
    assert np.array_equal(d, sm.prune(w, "nm:2:4"))  # same rule as prune-train's nm:2:4
    c = sm.prune_to(w, "csr", 0.75)
    assert c.nnz == 12 * 16 - round(0.75 * 12 * 16)
    with pytest.raises(ValueError, match="sparsity: required"):
        sm.prune_to(w, "csr")


# ---- SpMM -----------------------------------------------------------------------------------
def assert_close_fp32(c, a, b):
    """C within the float32 accumulation bound: each entry is a sum of K products, each
    rounded, so |C - AB| <= gamma_K |A||B| with gamma_K = K u / (1 - K u), u = 2^-24 (Higham,
    Accuracy and Stability, 3.1), plus the final rounding to float32. The reference is the
    product in float64 (exact enough: its own error is ~2^-53 K)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    k = a.shape[1] + 1
    u = 2.0**-24
    bound = k * u / (1 - k * u) * (np.abs(a64) @ np.abs(b64))
    err = np.abs(c.astype(np.float64) - a64 @ b64)
    assert (err <= bound + 1e-30).all(), float((err - bound).max())


@pytest.mark.parametrize("fmt", ["csr", "bsr:4x4", "cvse:8", "nm:2:4", "nm:2:4:col", "vnm:8:2:8"])
@pytest.mark.parametrize("kernel", ["fast", "ref"])
def test_spmm_equals_numpy_matmul(fmt, kernel):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((37, 48)).astype(np.float32)
    sparsity = None if fmt.startswith(("nm", "vnm")) else 0.8
    a = sm.prune_to(w, fmt, sparsity)
    b = rng.standard_normal((48, 19)).astype(np.float32)
    c = sm.spmm(a, b, threads=2, kernel=kernel)
    assert c.shape == (37, 19) and c.dtype == np.float32
    assert_close_fp32(c, a.to_dense(), b)
    # The dense product numpy computes (float32 too) is within the same bound.
    assert_close_fp32(a.to_dense() @ b, a.to_dense(), b)


def test_spmm_in_place_output_and_strided_b():
    rng = np.random.default_rng(3)
    a = sm.prune_to(rng.standard_normal((20, 30)).astype(np.float32), "csr", 0.7)
    big = rng.standard_normal((60, 8)).astype(np.float32)
    b = big[::2]  # row stride 64 bytes: read in place
    assert sm.can_view(b)
    out = np.empty((20, 8), dtype=np.float32)
    c = sm.spmm(a, b, out=out, copy=False)
    assert c is out
    assert_close_fp32(out, a.to_dense(), b)
    with pytest.raises(ValueError, match="copy=False"):
        sm.spmm(a, b.astype(np.float64), copy=False)
    c64 = sm.spmm(a, b.astype(np.float64))  # converted (a copy), same result
    assert np.array_equal(c64, out)


def test_spmm_dense_a_and_isas():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((9, 7)).astype(np.float32)
    b = rng.standard_normal((7, 5)).astype(np.float32)
    assert_close_fp32(sm.spmm(a, b), a, b)
    assert_close_fp32(sm.spmm(a, b, kernel="ref"), a, b)
    s = sm.prune_to(a, "csr", 0.5)
    assert np.array_equal(sm.spmm(s, b, isa="generic"), sm.spmm(s, b, isa="generic", threads=1))
    assert sm.detected_isa() in ("generic", "avx2", "avx512")


def test_spmm_bad_arguments():
    a = sm.prune_to(np.ones((4, 6), np.float32), "csr", 0.5)
    with pytest.raises(ValueError, match="a is 4x6 but b has 5 rows"):
        sm.spmm(a, np.ones((5, 3), np.float32))
    with pytest.raises(ValueError, match="isa"):
        sm.spmm(a, np.ones((6, 3), np.float32), isa="sse9")
    with pytest.raises(ValueError, match="threads"):
        sm.spmm(a, np.ones((6, 3), np.float32), threads=-1)
    with pytest.raises(ValueError, match="expected shape"):
        sm.spmm(a, np.ones((6, 3), np.float32), out=np.empty((4, 4), np.float32))
    sq = sm.prune_to(np.ones((4, 4), np.float32), "csr", 0.5)
    b = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="must not share memory"):
        sm.spmm(sq, b, out=b)
    with pytest.raises(ValueError, match="sparse matrix or a 2-D array"):
        sm.spmm("csr", b)
    with pytest.raises(ValueError, match="real numbers"):
        sm.spmm(sq, b.astype(np.complex64))


def test_spmm_from_threads_at_once():
    """The kernels run without the GIL and are thread-safe on distinct outputs: four Python
    threads multiply at once and each gets its own exact result."""
    import threading

    rng = np.random.default_rng(5)
    a = sm.prune_to(rng.standard_normal((64, 96)).astype(np.float32), "cvse:8", 0.75)
    bs = [rng.standard_normal((96, 33)).astype(np.float32) for _ in range(4)]
    want = [sm.spmm(a, b, threads=1) for b in bs]
    got = [None] * 4

    def work(i):
        for _ in range(20):
            got[i] = sm.spmm(a, bs[i], threads=1)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
