"""Bad arguments from Python raise ValueError / FileNotFoundError carrying the CLI's one-line
message (InputError::what()); nothing a CLI rejects crashes the interpreter."""
import math

import numpy as np
import pytest

import sparsemap as sm

from conftest import SOURCE_DIR, cli_error

RESNET18 = ("--model", "resnet18", "--dataflow", "kcp_ws")


def message(excinfo):
    return str(excinfo.value)


def test_unknown_preset_same_message(cli):
    rc, _, err = cli("eval", "--hw", "nosuch", *RESNET18)
    assert rc == 2
    with pytest.raises(ValueError) as e:
        sm.arch("nosuch")
    # The CLI labels the flag, Python the argument (io::load_arch's `flag`); the rest is equal.
    assert message(e) == cli_error(err).replace("<flag --hw>", "<argument hw>")


@pytest.mark.parametrize("path", ["/nonexistent/hw.yaml", "/nonexistent/hw.m"])
def test_missing_arch_file_is_file_not_found(cli, path):
    rc, _, err = cli("eval", "--hw", path, *RESNET18)
    assert rc == 2
    with pytest.raises(FileNotFoundError) as e:
        sm.load_arch(path)
    assert message(e) == cli_error(err)


@pytest.mark.parametrize("path", ["/nonexistent/net.m", "/nonexistent/net.csv",
                                  "/nonexistent/net.onnx"])
def test_missing_model_file_is_file_not_found(cli, path):
    rc, _, err = cli("show", path)
    assert rc == 2
    with pytest.raises(FileNotFoundError) as e:
        sm.load_model(path)
    assert message(e) == cli_error(err)


def test_directory_is_value_error_not_file_not_found(cli, tmp_path):
    d = tmp_path / "dir.m"
    d.mkdir()
    rc, _, err = cli("show", d)
    assert rc == 2
    with pytest.raises(ValueError) as e:
        sm.load_model(str(d))
    assert not isinstance(e.value, FileNotFoundError)
    assert message(e) == cli_error(err)


@pytest.mark.parametrize("text", [
    "Network n {\nLayer a {\nType: CONV\nDimensions { K: 4, C: -3 }\n}\n}\n",
    "Network n {\nLayer a {\nType: WHAT\n}\n}\n",
    "Network n {\nLayer a {\nType: CONV\nDimensions { K: 4, R: 5, Y: 3 }\n}\n}\n",
    "Network n {\nLayer a {\nType: CONV\nDataflow { SpatialMap(1,1) Q; }\n}\n}\n",
    "Network n {\n",
])
def test_malformed_model_file_same_message(cli, tmp_path, text):
    f = tmp_path / "bad.m"
    f.write_text(text)
    rc, _, err = cli("show", f)
    assert rc == 2
    with pytest.raises(ValueError) as e:
        sm.load_model(str(f))
    assert message(e) == cli_error(err)


def test_malformed_arch_yaml_same_message(cli, tmp_path):
    for i, text in enumerate(["num_pes: 0\n", "num_pes: [\n", "l1_bytes: lots\n"]):
        f = tmp_path / f"hw{i}.yaml"
        f.write_text(text)
        rc, _, err = cli("eval", "--hw", f, *RESNET18)
        assert rc == 2
        with pytest.raises(ValueError) as e:
            sm.load_arch(str(f))
        assert message(e) == cli_error(err)


def test_model_and_flag_errors_same_message(cli):
    cases = [
        (("eval", "--hw", "gamma-edge", "--model", "nosuch", "--dataflow", "kcp_ws"),
         lambda: sm.load_model("nosuch")),
        (("eval", "--hw", "gamma-edge", "--model", "resnet18", "--dataflow", "kcp_ws",
          "--batch", "-1"), lambda: sm.zoo("resnet18", batch=-1)),
        (("eval", "--hw", "gamma-edge", "--model", "resnet18", "--dataflow", "foo"),
         lambda: sm.dataflow("foo", sm.zoo("resnet18").gemm_layers[0], sm.arch("gamma-edge"))),
    ]
    l = sm.zoo("resnet18").gemm_layers[0]
    hw = sm.arch("gamma-edge")
    m = sm.dataflow("kcp_ws", l, hw)
    for flag, value, kw in [("--density", "W=2", "density"),
                            ("--structure", "W=nm:5:4", "structure"),
                            ("--sparse-mode", "sometimes", "sparse_mode")]:
        cases.append((("eval", "--hw", "gamma-edge", *RESNET18, flag, value),
                      lambda kw=kw, value=value: sm.evaluate(l, hw, m, **{kw: value})))
    for args, call in cases:
        rc, _, err = cli(*args)
        assert rc == 2, args
        with pytest.raises(ValueError) as e:
            call()
        assert message(e) == cli_error(err), args


def test_bad_layers_and_arch_fields():
    with pytest.raises(ValueError, match=r"^<layer c>: expected a positive K, found -3$"):
        sm.Layer("CONV", "c", K=-3)
    with pytest.raises(ValueError, match="filter R = 5 is larger than input Y = 3"):
        sm.Layer("CONV", "c", Y=3, R=5, X=5, S=1)
    with pytest.raises(ValueError, match="unknown layer kind"):
        sm.Layer("WHAT")
    with pytest.raises(ValueError, match="too large"):
        sm.Layer("GEMM", "g", M=2**31, N=2**31, K=2**31)
    l = sm.Layer("GEMM", "g", M=4, N=4, K=4)
    with pytest.raises(ValueError, match="expected a positive N, found 0"):
        l.N = 0
    a = sm.arch("gamma-edge")
    with pytest.raises(ValueError) as e:
        a.num_pes = 0
    assert message(e) == "<argument arch>: expected num_pes in [1, 16777216], found 0"
    assert a.num_pes == 168  # unchanged
    with pytest.raises(ValueError, match="energy.mac_pj"):
        a.energy.mac_pj = math.nan
    with pytest.raises(ValueError, match="array_shape"):
        a.array_shape = [0, 4]
    a.array_shape = [8, 8]  # 64 != 168 PEs: accepted field by field, refused as a whole
    with pytest.raises(ValueError, match="array_shape to multiply to num_pes = 168"):
        sm.evaluate(l, a, sm.dataflow("kcp_ws", l, sm.arch("gamma-edge")))


def test_bad_genomes():
    l = sm.zoo("resnet18").gemm_layers[1]
    hw = sm.arch("gamma-edge")
    space = sm.MapSpace(l, hw)
    D = space.dims
    with pytest.raises(ValueError, match=f"expected a genome of {D} genes, found {D + 1}"):
        space.decode(np.full(D + 1, 0.5))
    g = np.full(D, 0.5)
    g[3] = np.nan
    with pytest.raises(ValueError, match="gene 3 is nan: expected a value in"):
        space.decode(g)
    g[3] = 1.5
    with pytest.raises(ValueError, match=r"gene 3 is 1.5"):
        space.decode(g)
    g[3] = 1.0  # the upper end is accepted
    space.decode(g)
    batch = space.sample(4)
    batch[2, 5] = -0.1
    with pytest.raises(ValueError, match="gene 5 of row 2"):
        sm.evaluate_batch(l, hw, batch)
    with pytest.raises(ValueError, match=f"expected genomes of {D} genes"):
        sm.evaluate_batch(l, hw, np.zeros((3, D - 1)))
    other = sm.zoo("resnet18").gemm_layers[2]
    with pytest.raises(ValueError, match="expected the map space of this layer"):
        sm.evaluate_batch(other, hw, space.sample(2), space=space)
    with pytest.raises(ValueError, match="thread count"):
        sm.evaluate_batch(l, hw, space.sample(2), threads=-1)
    with pytest.raises(TypeError):
        sm.evaluate_batch(l, hw, [1, 2])
    with pytest.raises(ValueError, match="not in this map space"):
        space.encode(sm.dataflow("kcp_ws", l, hw))
    with pytest.raises(ValueError, match="cluster levels"):
        sm.MapSpace(l, hw, max_levels=9)
    with pytest.raises(ValueError, match="constraint"):
        sm.MapSpace(l, hw, constraint="tpu")
    with pytest.raises(ValueError, match="no MACs"):
        sm.MapSpace(sm.zoo("resnet18")[1], hw)


def test_bad_mapping_text_points_into_the_text():
    l = sm.zoo("resnet18").gemm_layers[1]
    with pytest.raises(ValueError, match=r"^<mapping>:2:"):
        sm.Mapping.from_dfsl("SpatialMap(1,1) K;\nTemporalMap(1,1) Q;", l)
    with pytest.raises(ValueError, match="DFSL"):
        sm.Mapping.from_dfsl("SpatialMap(1,1) M;", sm.Layer("BGEMM", "qk", G=2, M=4, N=4, K=4))
    with pytest.raises(ValueError):
        sm.parse_dfsl("Network {")
    with pytest.raises(ValueError):
        sm.write_dfsl([l], [sm.Mapping(), sm.Mapping()])


def test_evaluate_never_crashes_on_odd_mappings():
    l = sm.zoo("resnet18").gemm_layers[1]
    hw = sm.arch("gamma-edge")
    assert sm.evaluate(l, hw, sm.Mapping()).status == "invalid"
    nongemm = sm.zoo("resnet18")[1]
    c = sm.evaluate(nongemm, hw, sm.dataflow("kcp_ws", l, hw))
    assert c.status == "invalid" and c.reason


def test_layer_setters_refuse_what_would_crash():
    l = sm.Layer("CONV", "c", K=4, C=4, Y=8, X=8, R=3, S=3)
    for attr, value in [("stride", 0), ("stride", (1, -2)), ("dilation", 0), ("pad", -1),
                        ("K", 0), ("Y", -8)]:
        with pytest.raises(ValueError):
            setattr(l, attr, value)
    with pytest.raises(ValueError, match="too large"):
        l.K, l.C, l.Y = 2**30, 2**30, 2**30
    assert (l.K, l.C, l.Y) == (2**30, 4, 8)  # the write that broke the bound was refused
    l.R = 9  # a filter larger than its input passes one write at a time ...
    with pytest.raises(ValueError, match="filter R = 9 is larger than input Y = 8"):
        sm.MapSpace(l, sm.arch("gamma-edge"))  # ... and is refused where the layer is used
    m = sm.Mapping.__new__(sm.Mapping)
    with pytest.raises(ValueError, match="bad pickled state"):
        m.__setstate__(([(7, 0, False, 1, -1, 1, -1, False)],))
