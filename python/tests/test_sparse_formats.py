"""Sparse formats to and from NumPy: exact round trips of every format, component arrays that
view the C++ buffers (checked by address), and the cases where a copy is made."""
import numpy as np
import pytest

import sparsemap as sm

# Every format the library has (sparse/format/format_spec.h), with awkward parameters: sizes
# that are not multiples of the block, vector or group.
FORMATS = ["csr", "bsr:2x3", "cvse:4", "nm:2:4", "nm:1:3:col", "vnm:4:2:8"]


def pruned_for(fmt, rows=9, cols=14, seed=0):
    """A matrix whose non-zeros fit `fmt`'s pattern (N:M and V:N:M need it)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((rows, cols)).astype(np.float32)
    if fmt.startswith(("nm", "vnm")):
        return sm.prune_to(w, fmt).to_dense()
    w[rng.random((rows, cols)) < 0.6] = 0
    return w


def component_arrays(a):
    names = {
        sm.CsrMatrix: ["indptr", "indices", "data"],
        sm.BsrMatrix: ["indptr", "indices", "data"],
        sm.CvseMatrix: ["indptr", "indices", "data"],
        sm.NmMatrix: ["data", "offsets"],
        sm.VnmMatrix: ["col_sel", "data", "offsets"],
    }[type(a)]
    return {n: getattr(a, n) for n in names}


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_is_exact(fmt):
    w = pruned_for(fmt)
    a = sm.to_format(w, fmt)
    assert a.shape == w.shape
    assert a.format == sm.format_info(fmt)["format"]
    d = a.to_dense()
    assert d.dtype == np.float32 and d.shape == w.shape
    assert np.array_equal(d, w)  # bit-exact: no arithmetic on the way
    a.validate()


@pytest.mark.parametrize("fmt", FORMATS)
def test_components_view_the_cpp_buffers(fmt):
    a = sm.to_format(pruned_for(fmt), fmt)
    addr = a.buffer_addresses()
    for name, arr in component_arrays(a).items():
        key = "values" if name == "data" else name
        assert arr.__array_interface__["data"][0] == addr[key], name
        assert arr.base is not None
        # A second access views the same memory.
        assert np.shares_memory(arr, getattr(a, name))
    # Index arrays are read-only (the fast kernels trust them); values are writable in place.
    for name, arr in component_arrays(a).items():
        assert arr.flags.writeable == (name == "data"), name


def test_view_keeps_its_owner_alive():
    w = pruned_for("csr")
    data = sm.to_format(w, "csr").data  # the matrix object is dropped right away
    import gc

    gc.collect()
    assert np.array_equal(np.sort(data), np.sort(w[w != 0]))


def test_writing_the_data_view_changes_the_matrix():
    w = pruned_for("csr")
    a = sm.to_format(w, "csr")
    a.data[:] *= 2
    assert np.array_equal(a.to_dense(), 2 * w)


def test_csr_matches_scipy_layout_and_round_trips_through_scipy():
    sp = pytest.importorskip("scipy.sparse")
    w = pruned_for("csr")
    a = sm.to_format(w, "csr")
    ref = sp.csr_matrix(w)
    assert np.array_equal(a.indptr, ref.indptr)
    assert np.array_equal(a.indices, ref.indices)
    assert np.array_equal(a.data, ref.data)
    s = sm.to_scipy(a)  # no copy: scipy keeps our int32/float32 views
    assert np.shares_memory(s.data, a.data) and np.shares_memory(s.indices, a.indices)
    assert np.array_equal(s.toarray(), w)
    b = sm.from_scipy(ref.tocoo())  # any scipy format -> canonical CSR
    assert b == a


def test_bsr_matches_scipy_layout():
    sp = pytest.importorskip("scipy.sparse")
    w = pruned_for("bsr", rows=8, cols=12)
    a = sm.to_format(w, "bsr:2x3")
    assert a.data.shape == (a.blocks, 2, 3)
    s = sm.to_scipy(a)
    assert np.array_equal(s.toarray(), w)
    assert sm.from_scipy(s) == a


def test_construction_from_scipy_shaped_arrays():
    w = pruned_for("csr")
    a = sm.to_format(w, "csr")
    # The same arrays (any integer dtype that fits int32) build an equal matrix.
    b = sm.CsrMatrix((a.data, a.indices.astype(np.int64), a.indptr), shape=a.shape)
    assert b == a
    # Construction copies once into the C++ storage (the format owns std::vector buffers).
    assert b.buffer_addresses()["values"] != a.buffer_addresses()["values"]
    c = sm.CvseMatrix((sm.to_format(w, "cvse:4").data, sm.to_format(w, "cvse:4").indices,
                       sm.to_format(w, "cvse:4").indptr), shape=w.shape, v=4)
    assert np.array_equal(c.to_dense(), w)
    n = sm.to_format(pruned_for("nm:2:4"), "nm:2:4")
    assert sm.NmMatrix(n.data, n.offsets, n.shape, 2, 4) == n
    v = sm.to_format(pruned_for("vnm:4:2:8"), "vnm:4:2:8")
    assert sm.VnmMatrix(v.col_sel, v.data, v.offsets, v.shape, 4, 2, 8) == v
    bb = sm.to_format(w, "bsr:2x3")
    assert sm.BsrMatrix((bb.data, bb.indices, bb.indptr), w.shape, (2, 3)) == bb


def test_bad_components_raise_the_validation_message():
    a = sm.to_format(pruned_for("csr"), "csr")
    bad = a.indices.copy()
    bad[0] = 99  # column out of range
    with pytest.raises(ValueError, match=r"^<csr>: "):
        sm.CsrMatrix((a.data, bad, a.indptr), shape=a.shape)
    with pytest.raises(ValueError, match="integer array"):
        sm.CsrMatrix((a.data, a.indices.astype(np.float64), a.indptr), shape=a.shape)
    with pytest.raises(ValueError, match="outside the range"):
        sm.CsrMatrix((a.data, a.indices.astype(np.int64) + 2**40, a.indptr), shape=a.shape)


def test_dense_input_in_place_or_copied():
    base = np.zeros((10, 16), dtype=np.float32)
    base[::3, ::5] = 1
    # Row-strided float32 slices are read in place (ld = row stride).
    assert sm.can_view(base[::2])
    assert np.array_equal(sm.to_format(base[::2], "csr").to_dense(), base[::2])
    # Column-strided, float64 or Fortran-order arrays cannot be viewed: they are converted
    # (default) or refused with copy=False.
    for arr in (base[:, ::2], base.astype(np.float64), np.asfortranarray(base)):
        assert not sm.can_view(arr)
        assert np.array_equal(sm.to_format(arr, "csr").to_dense(), np.asarray(arr, np.float32))
        with pytest.raises(ValueError, match="copy=False"):
            sm.to_format(arr, "csr", copy=False)


def test_keep_mask_stores_explicit_zeros():
    w = np.array([[1, 0, 2], [0, 0, 3]], dtype=np.float32)
    keep = np.array([[1, 1, 0], [0, 0, 1]], dtype=bool)
    a = sm.to_format(w, "csr", keep=keep)
    assert a.nnz == 3 and list(a.indices) == [0, 1, 2] and list(a.data) == [1, 0, 3]
    with pytest.raises(ValueError, match="mask of shape"):
        sm.to_format(w, "csr", keep=keep[:1])


def test_dense_format_and_info():
    w = pruned_for("csr")
    d = sm.to_format(w, "dense")
    assert isinstance(d, np.ndarray) and np.array_equal(d, w)
    info = sm.format_info("nm:2:4")
    assert info["family"] == "nm" and info["intrinsic_sparsity"] == 0.5
    with pytest.raises(ValueError, match=r"^<format>: 'coo'"):
        sm.format_info("coo")


def test_footprint_of_csr_is_int32_metadata():
    w = np.eye(4, dtype=np.float32)
    f = sm.to_format(w, "csr").footprint
    # 4 values (16 B) + 5 row pointers + 4 column indices at 4 B each (36 B).
    assert f == {"values_bytes": 16, "metadata_bytes": 36, "total_bytes": 52}


@pytest.mark.parametrize("fmt", FORMATS)
def test_pickle_round_trip(fmt):
    import pickle

    a = sm.to_format(pruned_for(fmt), fmt)
    b = pickle.loads(pickle.dumps(a))
    assert b == a and b.format == a.format
    with pytest.raises(ValueError, match="unpickling"):
        type(a).__new__(type(a)).__setstate__((1, 2))
