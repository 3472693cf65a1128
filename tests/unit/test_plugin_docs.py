"""What ansible-test's validate-modules (make lint) does not check of the plugins' documentation: every filter is
documented for `ansible-doc -t filter kafkaops.toolkit.<name>` by a plugins/filter/<name>.yml whose options are the
function's arguments (validate-modules skips filters), and the modules documented as members of the kafka action
group (the kafka_connection doc fragment says so) are the group meta/runtime.yml declares."""

import ast
import importlib.util
import inspect

import pytest
import yaml

from lab.config import REPO

FILTER_DIR = REPO / "plugins" / "filter"
MODULE_DIR = REPO / "plugins" / "modules"


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


def test_the_modules_with_the_connection_fragment_are_the_kafka_action_group():
    documented = sorted(path.stem for path in MODULE_DIR.glob("*.py")
                        if "kafkaops.toolkit.kafka_connection" in _fragments(path))
    runtime = yaml.safe_load((REPO / "meta" / "runtime.yml").read_text())
    assert documented == sorted(runtime["action_groups"]["kafka"])


def _fragments(path):
    """The doc fragments a module's DOCUMENTATION extends, read without importing the module."""
    tree = ast.parse(path.read_text())
    text = next(node.value.value for node in tree.body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DOCUMENTATION")
    return yaml.safe_load(text).get("extends_documentation_fragment", [])
