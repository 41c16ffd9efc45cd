"""Checks HTTP responses against openapi.yaml, the contract korpd is written to.

    from openapi_check import check
    r = session.post(url + "/v1/games/" + gid + "/moves", json={"move": "e2e4"})
    game = check(r, "POST", "/v1/games/{id}/moves")   # returns the parsed body

check() finds the operation (path template + method), the response declared for the
status (exact code, then e.g. "4XX", then "default"), checks required response headers,
that the Content-Type is one of the declared media types, and validates a JSON body with
jsonschema's Draft202012Validator (the dialect of OpenAPI 3.1), resolving
"#/components/..." references against the whole document. Any mismatch, including a
status the operation does not declare, raises AssertionError with the details.

A method the path does not offer must be answered 405 with the MethodNotAllowed response.
For paths that are not in the contract at all (404 tests), use check_problem().

Only Debian packages: python3-yaml, python3-jsonschema (4.10), python3-requests.
"""

import json
import os
import re

import yaml
from jsonschema import Draft202012Validator, RefResolver

SPEC_PATH = os.environ.get(
    "KORP_OPENAPI",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "openapi.yaml"))

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

_doc = None
_validators = {}


def spec():
    """The OpenAPI document, loaded once."""
    global _doc
    if _doc is None:
        with open(SPEC_PATH, encoding="utf-8") as f:
            _doc = yaml.safe_load(f)
    return _doc


def _deref(obj):
    """Follows local $refs of OpenAPI objects (responses, headers, parameters)."""
    seen = 0
    while isinstance(obj, dict) and "$ref" in obj:
        ref = obj["$ref"]
        assert ref.startswith("#/"), f"only local references are supported: {ref}"
        target = spec()
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target[part]
        obj = target
        seen += 1
        assert seen < 32, f"reference loop at {ref}"
    return obj


def validator(schema):
    """A Draft 2020-12 validator for a schema inside openapi.yaml (cached by identity)."""
    key = id(schema)
    v = _validators.get(key)
    if v is None:
        resolver = RefResolver(base_uri="", referrer=spec())
        v = Draft202012Validator(schema, resolver=resolver)
        _validators[key] = (v, schema)     # keep schema alive so its id stays unique
    else:
        v = v[0]
    return v


def _where(response, method, template):
    req = getattr(response, "request", None)
    url = getattr(req, "url", None) or getattr(response, "url", None) or ""
    return f"{method.upper()} {template} ({url}) -> {response.status_code}"


def _body_excerpt(response, limit=600):
    text = response.content.decode("utf-8", "replace") if response.content else ""
    return text if len(text) <= limit else text[:limit] + "..."


def _media_type(response):
    value = response.headers.get("Content-Type")
    if value is None:
        return None
    return value.split(";", 1)[0].strip().lower()


def _is_json(media_type):
    return media_type == "application/json" or media_type.endswith("+json")


def _schema_errors(schema, instance):
    errors = sorted(validator(schema).iter_errors(instance),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    lines = []
    for e in errors[:8]:
        path = "".join(f"[{p!r}]" for p in e.absolute_path) or "(body)"
        lines.append(f"  at {path}: {e.message}")
        for sub in sorted(e.context or [], key=lambda s: len(s.absolute_path))[:3]:
            subpath = "".join(f"[{p!r}]" for p in sub.absolute_path) or "(here)"
            lines.append(f"      {subpath}: {sub.message}")
    if len(errors) > 8:
        lines.append(f"  ... and {len(errors) - 8} more")
    return lines


def _check_header(where, name, header, value):
    schema = _deref(header).get("schema", {})
    if schema.get("type") == "integer":
        assert re.fullmatch(r"[0-9]+", value.strip()), \
            f"{where}: header {name}: {value!r} is not an integer"
        instance = int(value)
    else:
        instance = value
    lines = _schema_errors(schema, instance)
    assert not lines, f"{where}: header {name}: {value!r} does not match\n" + "\n".join(lines)


def _check_against(response, where, declared):
    """Checks headers, media type and body against one Response object."""
    declared = _deref(declared)
    for name, header in (declared.get("headers") or {}).items():
        header = _deref(header)
        value = response.headers.get(name)
        if value is None:
            assert not header.get("required"), f"{where}: the required header {name} is missing"
            continue
        _check_header(where, name, header, value)

    content = declared.get("content")
    if not content:
        assert not response.content, \
            f"{where}: declared without a body, got: {_body_excerpt(response)}"
        return None

    media_type = _media_type(response)
    assert media_type is not None, \
        f"{where}: no Content-Type; declared: {', '.join(content)}"
    assert media_type in content, \
        f"{where}: Content-Type {media_type} is not declared; declared: {', '.join(content)}" \
        f"\nbody: {_body_excerpt(response)}"
    schema = content[media_type].get("schema")

    if _is_json(media_type):
        try:
            body = json.loads(response.content.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise AssertionError(f"{where}: the body is not JSON ({e}): "
                                 f"{_body_excerpt(response)}") from None
    else:
        try:
            body = response.content.decode("utf-8")
        except UnicodeDecodeError as e:
            raise AssertionError(f"{where}: the {media_type} body is not UTF-8 ({e})") from None

    if schema is not None:
        lines = _schema_errors(schema, body)
        assert not lines, (f"{where}: the {media_type} body does not match its schema\n"
                           + "\n".join(lines) + f"\nbody: {_body_excerpt(response)}")
    if media_type == "application/problem+json" and isinstance(body, dict):
        assert body.get("status") == response.status_code, \
            f"{where}: the problem's status {body.get('status')!r} is not the HTTP status"
    return body


def operation(method, template):
    """The Operation object for (method, path template), or None if the path lacks it."""
    paths = spec()["paths"]
    assert template in paths, \
        f"{template} is not a path of openapi.yaml (paths: {', '.join(sorted(paths))})"
    return paths[template].get(method.lower())


def check(response, method, template):
    """Asserts the response matches openapi.yaml for (method, template, status).

    response: a requests.Response; method: "GET", "POST", ...; template: the path as
    written in openapi.yaml, e.g. "/v1/games/{id}/moves". Returns the body, parsed when
    it is JSON, as text otherwise, None when there is none."""
    status = response.status_code
    where = _where(response, method, template)
    op = operation(method, template)

    if op is None:
        offered = [m.upper() for m in _METHODS if m in spec()["paths"][template]]
        assert status == 405, \
            f"{where}: the path offers only {', '.join(offered)}; expected 405, got {status}"
        declared = spec()["components"]["responses"]["MethodNotAllowed"]
    else:
        responses = op.get("responses", {})
        declared = (responses.get(str(status)) or responses.get(f"{status // 100}XX")
                    or responses.get("default"))
        assert declared is not None, (
            f"{where}: status {status} is not declared for this operation "
            f"(declared: {', '.join(map(str, responses))})\nbody: {_body_excerpt(response)}")
    return _check_against(response, where, declared)


def check_problem(response, slug, status=None):
    """Asserts the response is a problem of type /problems/<slug> (for requests to paths
    outside the contract, or to pin down which problem a test expects). Returns the body."""
    method = getattr(getattr(response, "request", None), "method", None) or "?"
    where = _where(response, method, "(problem)")
    assert _media_type(response) == "application/problem+json", \
        f"{where}: Content-Type {response.headers.get('Content-Type')!r} is not " \
        f"application/problem+json\nbody: {_body_excerpt(response)}"
    body = _check_against(response, where, spec()["components"]["responses"]["Problem"])
    assert body.get("type") == f"/problems/{slug}", \
        f"{where}: expected problem type /problems/{slug}, got {body.get('type')!r}"
    if status is not None:
        assert response.status_code == status, f"{where}: expected status {status}"
    return body
