import sparsemap


def test_version_is_the_projects():
    assert sparsemap.__version__.count(".") == 2
