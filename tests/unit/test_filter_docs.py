"""Every filter of the collection is documented for `ansible-doc -t filter kafkaops.toolkit.<name>`: a
plugins/filter/<name>.yml beside its Python file, whose options are the function's arguments. (ansible-test's
validate-modules checks the modules' documentation against their argument specs, but skips filters.)"""

import importlib.util
import inspect

import pytest
import yaml

from lab.config import REPO

FILTER_DIR = REPO / "plugins" / "filter"


def _filters():
    """{filter name: function} of every FilterModule in plugins/filter."""
    found = {}
    for path in sorted(FILTER_DIR.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"filter_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found.update(module.FilterModule().filters())
    return found


FILTERS = _filters()


def test_every_documentation_file_documents_a_filter():
    assert sorted(p.stem for p in FILTER_DIR.glob("*.yml")) == sorted(FILTERS)


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_the_documented_options_are_the_filters_arguments(name):
    doc = yaml.safe_load((FILTER_DIR / f"{name}.yml").read_text())
    documentation = doc["DOCUMENTATION"]
    assert documentation["name"] == name
    assert documentation["version_added"] and documentation["short_description"] and documentation["description"]
    assert doc["EXAMPLES"].strip() and doc["RETURN"]["_value"]["description"]

    params = list(inspect.signature(FILTERS[name]).parameters.values())
    names = ["_input"] + [p.name for p in params[1:]]
    options = documentation["options"]
    assert list(options) == names, "options in the order of the arguments, the piped value first as _input"
    for param, option in zip(params, options.values(), strict=True):
        if param.default is inspect.Parameter.empty:
            assert option.get("required") is True, param.name
        else:
            default = list(param.default) if isinstance(param.default, tuple) else param.default
            assert not option.get("required") and option.get("default") == default, param.name
    positional = [arg.strip() for arg in documentation["positional"].split(",")]
    required = [n for n, p in zip(names, params, strict=True) if p.default is inspect.Parameter.empty]
    assert positional == names[:len(positional)] and len(positional) >= len(required)
