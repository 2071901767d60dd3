"""docs/openapi.yaml is a document tools can read: valid YAML (a description holding ': ' unquoted
made it invalid for weeks, and nothing noticed), an OpenAPI 3.1 object whose every `$ref` points at
a schema that exists and whose every operation says what it answers."""
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


def refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def test_the_openapi_document_parses_and_every_reference_resolves():
    doc = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text(encoding="utf-8"))
    assert str(doc["openapi"]).startswith("3."), doc.get("openapi")
    assert doc["info"]["title"] and doc["paths"]
    for ref in set(refs(doc)):
        assert ref.startswith("#/"), ref
        node = doc
        for part in ref[2:].split("/"):
            assert isinstance(node, dict) and part in node, "unresolved %s" % ref
            node = node[part]
    operations = 0
    for path, item in doc["paths"].items():
        assert path.startswith("/"), path
        for method, operation in item.items():
            if method not in METHODS:
                continue
            operations += 1
            responses = operation.get("responses")
            assert responses, "%s %s answers nothing" % (method.upper(), path)
            for status, response in responses.items():
                assert "description" in response or "$ref" in response, (method, path, status)
    assert operations > 40, operations
    # The routes of this wave's features are documented.
    for path in ("/api/draws/{code}/signoffs", "/api/draws/{code}/audit", "/api/draws/{code}/export.json"):
        assert path in doc["paths"], path
