#!/usr/bin/env python3
"""/openapi.json against the running gateway.

Starts `daygate demo` on free ports, fetches /openapi.json, validates it as OpenAPI 3.1
(openapi-spec-validator), checks that every route file in routes/ is documented, then calls
every documented GET path with parameter values taken from the document (defaults; examples
for required parameters) and validates each JSON answer against the schema documented for
its status (jsonschema, Draft 2020-12, `#/components/...` resolved in the document), and that
the documented response headers are present. /v1/stream is read up to its first event;
/metrics is checked for 200 and text/plain. Each route with query parameters also gets one
call with a bad value, which must be a documented 400 with the Error schema, and an unknown
path must be a 404 with the Error schema. A documented path that answers with a status it
does not document (404 included) is a failure. Prints one line per check and finally
"openapi: N passed, N failed"; exits non-zero on any failure.

    python3 Tests/OpenAPI/openapi_test.py [path/to/daygate]
"""
import glob
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import BINARY, ROOT, Checks, Demo  # noqa: E402

DOCUMENT_URI = "urn:daygate:openapi.json"
checks = Checks("openapi")
check = checks.check


def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def fetch(url, headers=None, timeout=15):
    """GET → (status, headers, body bytes); HTTP errors are answers too."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()





def pointer_escape(part):
    return part.replace("~", "~0").replace("/", "~1")


def lookup(document, pointer):
    node = document
    for part in pointer.lstrip("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def resolve(document, node, pointer):
    """Follows local `$ref`s; returns the object and its JSON pointer."""
    while isinstance(node, dict) and "$ref" in node:
        reference = node["$ref"]
        assert reference.startswith("#/"), f"non-local reference {reference}"
        pointer = reference[1:]
        node = lookup(document, pointer)
    return node, pointer


class Spec:
    def __init__(self, document):
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(DOCUMENT_URI, resource)
        self.format_checker = FormatChecker()

    def operation(self, path):
        return self.document["paths"][path]["get"]

    def response(self, path, status):
        """The response object documented for `status` (explicitly, not `default`) and its pointer."""
        responses = self.operation(path)["responses"]
        if str(status) not in responses:
            return None, None
        pointer = f"/paths/{pointer_escape(path)}/get/responses/{status}"
        return resolve(self.document, responses[str(status)], pointer)

    def default_response(self, path):
        responses = self.operation(path)["responses"]
        pointer = f"/paths/{pointer_escape(path)}/get/responses/default"
        return resolve(self.document, responses["default"], pointer)

    def validate(self, instance, schema_pointer):
        """Validates against the schema at `schema_pointer`; every error with its JSON path."""
        fragment = urllib.parse.quote(schema_pointer, safe="/~")
        validator = Draft202012Validator(
            {"$ref": f"{DOCUMENT_URI}#{fragment}"}, registry=self.registry, format_checker=self.format_checker,
        )
        # best_match descends into anyOf/oneOf to the most relevant cause.
        errors = sorted((best_match([error]) for error in validator.iter_errors(instance)), key=lambda error: error.json_path)
        if errors:
            lines = [f"{error.json_path}: {error.message[:200]}" for error in errors[:12]]
            more = f"\n      … and {len(errors) - 12} more" if len(errors) > 12 else ""
            raise AssertionError(f"{len(errors)} schema error(s):\n      " + "\n      ".join(lines) + more)

    def parameters(self, path):
        out = []
        for parameter in self.operation(path).get("parameters", []):
            parameter, _ = resolve(self.document, parameter, "")
            out.append(parameter)
        return out


def query_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def call_values(spec, path):
    """Query values for a call: each default, and an example for each required parameter."""
    values = {}
    for parameter in spec.parameters(path):
        if parameter["in"] != "query":
            continue
        schema = parameter.get("schema", {})
        if "default" in schema:
            values[parameter["name"]] = query_value(schema["default"])
        elif parameter.get("required"):
            example = parameter.get("example", schema.get("example", (schema.get("examples") or [None])[0]))
            assert example is not None, f"required parameter {parameter['name']} has no example"
            values[parameter["name"]] = query_value(example)
    return values


def bad_value(schema):
    """A value the schema refuses, and why."""
    if schema.get("format") == "date":
        return "tomorrow"
    if schema.get("type") == "integer":
        if "maximum" in schema:
            return str(schema["maximum"] + 1)
        return "not-a-number"
    if schema.get("type") == "boolean":
        return "maybe"
    if "enum" in schema:
        return "not-one-of-" + "-".join(map(str, schema["enum"]))[:40]
    if "maxLength" in schema:
        return "x" * (schema["maxLength"] + 1)
    return "\x01"


def json_body(headers, body):
    content_type = headers.get("Content-Type", "")
    assert content_type.startswith("application/json"), f"Content-Type {content_type!r}"
    return json.loads(body)


def validate_answer(spec, path, status, headers, body, allow_default=False):
    response, pointer = spec.response(path, status)
    if response is None:
        if not allow_default:
            snippet = body[:200].decode(errors="replace")
            raise AssertionError(f"status {status} is not documented for {path}: {snippet}")
        response, pointer = spec.default_response(path)
    content = response.get("content")
    if not content:
        assert not body, f"{status} is documented without a body, got {len(body)} bytes"
        return pointer
    assert "application/json" in content, f"{status} of {path} is not documented as JSON"
    spec.validate(json_body(headers, body), f"{pointer}/content/application~1json/schema")
    return pointer


def check_headers(spec, path, status, headers):
    response, _ = spec.response(path, status)
    documented = sorted((response or {}).get("headers", {}))
    missing = [name for name in documented if headers.get(name) is None]
    assert not missing, f"documented header(s) missing: {', '.join(missing)} (status {status})"
    return f"{len(documented)} headers"


def route_paths():
    """`path:` of every route file, read without a YAML parser."""
    paths = {}
    for file in sorted(glob.glob(os.path.join(ROOT, "routes", "*.yaml")) + glob.glob(os.path.join(ROOT, "routes", "*.yml"))):
        with open(file, encoding="utf-8") as handle:
            for line in handle:
                match = re.match(r"path:\s*(\S+)", line)
                if match:
                    paths[match.group(1).strip("'\"")] = os.path.basename(file)
                    break
    return paths


def main():
    if not os.path.exists(BINARY):
        print(f"no daygate binary at {BINARY} (make test-openapi builds it)")
        return 1
    state_dir = tempfile.mkdtemp(prefix="daygate-openapi-")
    demo = None
    try:
        demo = Demo(state_dir)
        base = demo.url
        holder = {}

        def fetch_document():
            status, headers, body = fetch(base + "/openapi.json")
            assert status == 200, f"status {status}"
            holder["document"] = json_body(headers, body)
            return f"{len(body)} bytes"
        check("GET /openapi.json answers JSON", fetch_document)
        if "document" in holder:
            run_checks(base, holder["document"], demo.simulators)
    finally:
        if demo:
            demo.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    return checks.finish()


def run_checks(base, document, simulators):
    def spec_is_valid():
        assert document.get("openapi") == "3.1.0", f"openapi is {document.get('openapi')!r}"
        validate(document)
        return f"{len(document['paths'])} paths"
    check("the document is valid OpenAPI 3.1.0 (openapi-spec-validator)", spec_is_valid)

    spec = Spec(document)
    paths = document.get("paths", {})

    def every_route_file_documented():
        files = route_paths()
        assert files, "no route files found"
        missing = [f"{path} ({file})" for path, file in files.items() if "get" not in paths.get(path, {})]
        assert not missing, f"not documented: {', '.join(missing)}"
        return f"{len(files)} route files"
    check("every route file in routes/ is documented", every_route_file_documented)

    for path in sorted(paths):
        if "get" not in paths[path]:
            continue
        if path == "/v1/stream":
            def stream():
                request = urllib.request.Request(base + path, headers={"Accept": "text/event-stream"})
                try:
                    response = urllib.request.urlopen(request, timeout=5)
                except urllib.error.HTTPError as error:
                    raise AssertionError(f"status {error.code}") from None
                with response:
                    assert response.status == 200, f"status {response.status}"
                    content_type = response.headers.get("Content-Type", "")
                    assert content_type.startswith("text/event-stream"), f"Content-Type {content_type!r}"
                    deadline = time.time() + 5
                    event = None
                    while time.time() < deadline:
                        line = response.readline().decode().rstrip("\n")
                        if line.startswith("event:"):
                            event = line.split(":", 1)[1].strip()
                        elif line == "" and event:
                            return f"first event {event!r}"
                    raise AssertionError("no event within 5 s")
            check(f"GET {path} → 200 text/event-stream with a first event", stream)
            continue
        if path == "/metrics":
            def metrics():
                status, headers, _ = fetch(base + path)
                assert status == 200, f"status {status}"
                content_type = headers.get("Content-Type", "")
                assert content_type.startswith("text/plain"), f"Content-Type {content_type!r}"
            check(f"GET {path} → 200 text/plain", metrics)
            continue

        values = call_values(spec, path)
        url = base + path + ("?" + urllib.parse.urlencode(values) if values else "")
        shown = path + ("?" + urllib.parse.urlencode(values) if values else "")
        answer = {}

        def call(path=path, url=url, answer=answer):
            status, headers, body = fetch(url)
            answer.update(status=status, headers=headers)
            pointer = validate_answer(spec, path, status, headers, body)
            return f"{status}, {pointer.rsplit('/', 1)[-1]} schema"
        check(f"GET {shown} matches its documented schema", call)

        if answer and spec.response(path, answer["status"])[0] is not None:
            check(
                f"GET {path} sends its documented headers",
                lambda path=path, answer=answer: check_headers(spec, path, answer["status"], answer["headers"]),
            )

        query = [p for p in spec.parameters(path) if p["in"] == "query"]
        if query:
            target = query[0]
            wrong = bad_value(target.get("schema", {}))
            bad = dict(values)
            bad[target["name"]] = wrong
            bad_url = base + path + "?" + urllib.parse.urlencode(bad)

            def bad_call(path=path, bad_url=bad_url):
                status, headers, body = fetch(bad_url)
                assert status == 400, f"status {status}: {body[:200].decode(errors='replace')}"
                validate_answer(spec, path, status, headers, body)
                code = json.loads(body)["error"]["code"]
                assert code == "bad_parameter", f"error code {code!r}"
                return json.loads(body)["error"]["message"][:80]
            check(f"GET {path}?{target['name']}={wrong!r} → 400 Error", bad_call)

    def unknown_path():
        path = "/v1/no-such-endpoint"
        status, headers, body = fetch(base + path)
        assert status == 404, f"status {status}"
        response, pointer = spec.default_response("/healthz")
        spec.validate(json_body(headers, body), f"{pointer}/content/application~1json/schema")
    check("GET /v1/no-such-endpoint → 404 Error", unknown_path)

    degraded_checks(base, spec, simulators)


def degraded_checks(base, spec, simulators):
    """The error shapes: 8alls down, so sections carry `error`, an uncached day is a 502, and
    /v1/summary and /v1/sources report the failure. 8alls is healed afterwards."""
    paths = spec.document["paths"]
    if "eightalls" not in simulators or "/v1/events" not in paths:
        return
    post_json(simulators["eightalls"] + "/_sim/faults", {"down": "reset"})
    try:
        def answer(path, expected, query="", headers=None):
            status, response_headers, body = fetch(base + path + query, headers=headers)
            assert status in expected, f"status {status}: {body[:200].decode(errors='replace')}"
            validate_answer(spec, path, status, response_headers, body)
            return json.loads(body)

        def uncached_day():
            body = answer("/v1/events", {502}, "?date=2001-01-01")
            report = body["sections"]["events"]
            assert report["status"] == "error" and "error" in report, report
            return f"502, {report['error']['code']}"
        check("GET /v1/events of an uncached day with 8alls down → 502 matches its schema", uncached_day)

        def stale_day():
            body = answer("/v1/events", {200}, headers={"Cache-Control": "no-cache"})
            report = body["sections"]["events"]
            assert report["status"] == "stale" and "error" in report, report
            return f"200, stale, {report['error']['code']}"
        check("GET /v1/events refetched with 8alls down → 200 stale matches its schema", stale_day)

        for path in ["/v1/today", "/v1/summary"]:
            if path in paths:
                check(
                    f"GET {path} refetched with 8alls down matches its schema",
                    lambda path=path: "complete=%s" % answer(path, {200}, headers={"Cache-Control": "no-cache"})["complete"],
                )

        if "/v1/sources" in paths:
            def sources():
                body = answer("/v1/sources", {200})
                last_error = body["sources"]["eightalls"]["last_error"]
                assert last_error is not None, "eightalls.last_error is null after failures"
                return last_error["code"]
            check("GET /v1/sources after 8alls failures matches its schema", sources)
    finally:
        post_json(simulators["eightalls"] + "/_sim/faults", {})



if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
