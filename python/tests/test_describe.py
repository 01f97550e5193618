"""Model.to_dict, Layer.to_dict, Arch.to_dict, sparsemap.models and sparsemap.presets equal the
JSON of `sparsemap show`, `arch` and `models` (one builder in the library for both)."""
import json

import sparsemap


def cli_json(cli, *args):
    rc, out, err = cli(*args, "--json", "-")
    assert rc == 0, err
    return json.loads(out)


def test_model_and_layer_dicts_are_shows_json(cli):
    m = sparsemap.zoo("mobilenet-v2", batch=2)
    expected = cli_json(cli, "show", "mobilenet-v2", "--batch", "2")
    assert m.to_dict() == expected
    assert m[0].to_dict() == expected["layers"][0]
    assert expected["layers"][0]["dims"]["N"] == 2
    assert m.to_dict()["total"]["macs"] == m.total_macs


def test_arch_dict_is_archs_json_with_and_without_the_hierarchy(cli):
    for name in sparsemap.arch_presets():
        a = sparsemap.arch(name)
        assert a.to_dict() == cli_json(cli, "arch", name)
        assert a.to_dict(hierarchy=True) == cli_json(cli, "arch", name, "--hierarchy")
    assert "hierarchy" not in sparsemap.arch("gamma-edge").to_dict()


def test_models_and_presets_are_the_cli_lists(cli):
    assert sparsemap.models() == cli_json(cli, "models")["models"]
    assert [m["name"] for m in sparsemap.models()] == sparsemap.zoo_models()
    assert sparsemap.presets() == cli_json(cli, "arch", "--list")["presets"]
