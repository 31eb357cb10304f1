#!/usr/bin/env python3
"""/openapi.json against the running gateway.

Starts `daygate demo` on free ports, fetches /openapi.json, validates it as OpenAPI 3.1
(openapi-spec-validator), checks that every route file in routes/ is documented, then calls
every documented GET path with parameter values taken from the document (defaults; examples
for required parameters; for a path parameter a real value found in the answer a link of the
document leads from, and besides it its example, which must be 404, and a value past its schema,
which must be 400) and validates each JSON answer against the schema documented for
its status (jsonschema, Draft 2020-12, `#/components/...` resolved in the document), and that
the documented response headers are present. An event stream (/v1/stream, /v1/household/stream) is read up to its first event;
/metrics is checked for 200 and text/plain. Each route with query parameters also gets one
call with a bad value, which must be a documented 400 with the Error schema, and an unknown
path must be a 404 with the Error schema. A documented path that answers with a status it
does not document (404 included) is a failure.

Security: the clientKey scheme, `security` on /v1/* and /metrics and the 401/403/431 answers
are documented; a foreign Host is a 403 and 101 headers a 431 (loopback mode); a second demo
with a client key answers 401 with `WWW-Authenticate` without it and serves with it.

Writes: real answers of every write (POST /v1/tasks; an event created tomorrow 10:00-11:00 in
the demo's zone, moved, deleted; a PRSNL note; a FitIQ food log; a volunteer added to and
removed from a managed dienst, plus its 409/403/404 refusals) must have a status that operation
documents, a body valid against that status's schema and its required headers; one bad body per
write (400), a POST without Content-Type (415), a 70 KB body (413), an Idempotency-Key replay
(`Idempotent-Replayed: true`, the same body; another body 422) and backends answering 500/429
(502; 429 with Retry-After). A write the gateway has no route for (its router's 404 or a 405)
fails as "not implemented yet".

Degraded: every backend the demo runs a simulator of, in turn, down: every route with a section
of it (as the answers' section reports say) refetched and asked for what nothing cached,
/v1/today, /v1/summary and /v1/sources — each answer as documented.

Prints one line per check and finally "openapi: N passed, N failed"; exits non-zero on any failure.

    python3 Tests/OpenAPI/openapi_test.py [path/to/daygate]
"""
import glob
import http.client
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
import uuid
from datetime import datetime, time as clock_time, timedelta
from zoneinfo import ZoneInfo

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import BINARY, ROOT, ZONE, Checks, Demo  # noqa: E402

DOCUMENT_URI = "urn:daygate:openapi.json"
checks = Checks("openapi")
check = checks.check


def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def send(base, method, path, body=None, headers=None, content_type="application/json", timeout=15):
    """Any request → (status, headers, body bytes), through http.client so that nothing is
    added: `body` (a dict, or bytes) goes with `content_type` unless that is None; a `Host`
    in `headers` replaces the real one."""
    parsed = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)
    headers = dict(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        if content_type:
            headers["Content-Type"] = content_type
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


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

    def operation(self, path, method="get"):
        return self.document["paths"][path][method]

    def response(self, path, status, method="get"):
        """The response object documented for `status` (explicitly, not `default`) and its pointer."""
        responses = self.operation(path, method)["responses"]
        if str(status) not in responses:
            return None, None
        pointer = f"/paths/{pointer_escape(path)}/{method}/responses/{status}"
        return resolve(self.document, responses[str(status)], pointer)

    def default_response(self, path, method="get"):
        responses = self.operation(path, method)["responses"]
        pointer = f"/paths/{pointer_escape(path)}/{method}/responses/default"
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


def fitiq_foods(simulators, query):
    """Foods of the FitIQ simulator's public catalog (its built-in demo API key,
    FitIQSimulator.demoAPIKey; the catalog needs no user)."""
    if "fitiq" not in simulators:
        return []
    request = urllib.request.Request(
        simulators["fitiq"] + "/api/v1/foods/search?" + urllib.parse.urlencode({"q": query, "limit": 100}),
        headers={"X-API-Key": "fitiq-demo-api-key-2025"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["data"]["foods"]


def answer_links(spec, template):
    """The links of the document's GET answers that lead to GET `template`: (the path they lead
    from, {path parameter: JSON pointer into that path's answer})."""
    target = spec.operation(template).get("operationId")
    found = []
    for path, item in sorted(spec.document["paths"].items()):
        for response in (item.get("get") or {}).get("responses", {}).values():
            response, _ = resolve(spec.document, response, "")
            for link in (response.get("links") or {}).values():
                link, _ = resolve(spec.document, link, "")
                if link.get("operationId") != target:
                    continue
                pointers = {name: expression[len("$response.body#"):]
                            for name, expression in (link.get("parameters") or {}).items()
                            if isinstance(expression, str) and expression.startswith("$response.body#")}
                found.append((path, pointers))
    return found


def at_pointer(value, pointer):
    """The value at a JSON pointer, or None."""
    for part in pointer.lstrip("/").split("/") if pointer else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def path_values(base, spec, template):
    """For a route with path parameters, everything from the document: (a path with values that
    exist — found in the answer of the route a link leads from —, one the gateway refuses before
    any call — past the parameter's schema —, one the backend does not know — the parameter's
    example). Fails naming what the document lacks."""
    names = re.findall(r"\{([^}]+)\}", template)
    parameters = {parameter["name"]: parameter for parameter in spec.parameters(template) if parameter["in"] == "path"}
    real = {}
    for source, pointers in answer_links(spec, template):
        values = call_values(spec, source)
        status, _, body = fetch(base + source + ("?" + urllib.parse.urlencode(values) if values else ""))
        if status != 200:
            continue
        answer = json.loads(body)
        for name, pointer in pointers.items():
            value = at_pointer(answer, pointer)
            if value is not None and name not in real:
                real[name] = query_value(value)
    missing = [name for name in names if name not in real]
    assert not missing, (f"no link in /openapi.json leads to GET {template} with a value for {', '.join(missing)} "
                         "(the route file's values_from), or the answer it leads from has none")
    refused, unknown = {}, {}
    for name in names:
        parameter = parameters[name]
        schema = parameter.get("schema", {})
        example = parameter.get("example", schema.get("example"))
        assert example is not None, (f"{name} of {template} has no example (the route file's example: a valid "
                                     "value the backend does not have)")
        unknown[name] = query_value(example)
        refused[name] = bad_value(schema)

    def fill(values):
        return re.sub(r"\{([^}]+)\}", lambda match: urllib.parse.quote(values[match.group(1)], safe=""), template)
    return fill(real), fill(refused), fill(unknown)


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


def validate_answer(spec, path, status, headers, body, allow_default=False, method="get"):
    response, pointer = spec.response(path, status, method)
    if response is None:
        if not allow_default:
            snippet = body[:200].decode(errors="replace")
            raise AssertionError(f"status {status} is not documented for {method.upper()} {path}: {snippet}")
        response, pointer = spec.default_response(path, method)
    content = response.get("content")
    if not content:
        assert not body, f"{status} is documented without a body, got {len(body)} bytes"
        return pointer
    assert "application/json" in content, f"{status} of {method.upper()} {path} is not documented as JSON"
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
        demo.stop()
        demo = None
        if "document" in holder:
            keyed_dir = tempfile.mkdtemp(prefix="daygate-openapi-keyed-")
            try:
                client_key_checks(keyed_dir)
            except Exception as error:  # noqa: BLE001 - the demo did not start: a failure, not a crash
                reason = f"{type(error).__name__}: {error}"

                def failed_start(reason=reason):
                    raise AssertionError(reason)
                check("with client keys: the demo starts", failed_start)
            finally:
                shutil.rmtree(keyed_dir, ignore_errors=True)
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

    real_paths = {}
    for path in sorted(paths):
        if "get" not in paths[path]:
            continue
        if paths[path]["get"].get("responses", {}).get("200", {}).get("content", {}).get("text/event-stream"):
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

        if path == "/v1/calendar.ics":
            def calendar_feed():
                status, headers, body = fetch(base + path)
                assert status == 200, f"status {status}"
                content_type = headers.get("Content-Type", "")
                assert content_type.startswith("text/calendar"), f"Content-Type {content_type!r}"
                etag = headers.get("ETag")
                assert etag, "no ETag"
                import icalendar  # installed by make test-swift
                calendar = icalendar.Calendar.from_ical(body)
                events = calendar.walk("VEVENT")
                assert events, "no VEVENT"
                request = urllib.request.Request(base + path, headers={"If-None-Match": etag})
                try:
                    urllib.request.urlopen(request, timeout=15)
                    raise AssertionError("no 304 for the ETag")
                except urllib.error.HTTPError as error:
                    assert error.code == 304, f"status {error.code}"
                status, headers, body = fetch(base + path + "?from=soon")
                assert status == 400, f"status {status}"
                validate_answer(spec, path, status, headers, body)
                return f"{len(events)} events, 304 on its ETag, 400 for a bad date"
            check(f"GET {path} → 200 text/calendar that icalendar reads", calendar_feed)
            continue

        values = call_values(spec, path)
        target_path = path
        if "{" in path:
            # A route with path parameters: real values (an id that exists), then a value that
            # is refused before any call and one the backend does not know.
            filled = {}

            def find_values(path=path, filled=filled):
                filled["paths"] = path_values(base, spec, path)
                return ", ".join(filled["paths"])
            check(f"GET {path}: the document gives its path parameters a real value (a link), an example and bounds",
                  find_values)
            if "paths" not in filled:
                continue
            target_path, refused, unknown = filled["paths"]
            real_paths[path] = target_path
            for label, bad_path, expected, code in [("a refused value", refused, 400, "bad_parameter"),
                                                    ("an unknown value", unknown, 404, "not_found")]:
                def path_check(path=path, bad_path=bad_path, expected=expected, code=code):
                    status, headers, body = fetch(base + bad_path)
                    assert status == expected, f"status {status}: {body[:200].decode(errors='replace')}"
                    validate_answer(spec, path, status, headers, body)
                    got = json.loads(body)["error"]["code"]
                    assert got == code, f"error code {got!r}"
                    return json.loads(body)["error"]["message"][:80]
                check(f"GET {bad_path} ({label}) → {expected} {code}", path_check)
        url = base + target_path + ("?" + urllib.parse.urlencode(values) if values else "")
        shown = target_path + ("?" + urllib.parse.urlencode(values) if values else "")
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
            bad_url = base + target_path + "?" + urllib.parse.urlencode(bad)

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

    security_checks(base, spec)
    routes = section_backends(base, spec, real_paths)
    write_checks(base, spec, simulators)
    failing_backend_write_checks(base, spec, simulators)
    degraded_checks(base, spec, simulators, routes)


def section_backends(base, spec, real_paths):
    """Every route (but the household's) whose answer has sections: route path → (the path it
    was called with, {section: the backend its report names}). Called while every backend is
    healthy (before the writes to failing backends)."""
    paths = spec.document["paths"]
    routes = {}
    for path in sorted(paths):
        operation = paths[path].get("get")
        if not operation or "routes" not in operation.get("tags", []) or path.startswith("/v1/household/"):
            continue
        target = real_paths.get(path, path)
        if "{" in target:
            continue
        values = call_values(spec, path)
        url = target + ("?" + urllib.parse.urlencode(values) if values else "")
        _, headers, body = fetch(base + url)
        if not headers.get("Content-Type", "").startswith("application/json"):
            continue
        sections = {name: report.get("backend") for name, report in (json.loads(body).get("sections") or {}).items()}
        if sections:
            routes[path] = (url, sections)
    return routes


def degraded_checks(base, spec, simulators, routes):
    """The error shapes, for every backend the demo runs a simulator of, one at a time: the
    backend down (its simulator resetting every connection), every route with a section of it
    (found from the answers themselves: each section's report names its backend) refetched and
    asked for what nothing cached (another day, another number: a 502 when every section failed), and
    /v1/today, /v1/summary and /v1/sources refetched, each a status its operation documents
    with a body valid against that status's schema; /v1/sources names the backend's last error
    once a section of it failed. The backend is healed before the next. Runs after the writes to
    failing backends: the circuits these failures open answer for a while after."""
    paths = spec.document["paths"]

    def answer(path, url, headers=None):
        status, response_headers, body = fetch(base + url, headers=headers)
        validate_answer(spec, path, status, response_headers, body)
        return status, json.loads(body)

    for index, backend in enumerate(sorted(simulators)):
        mine = {path: route for path, route in routes.items() if backend in route[1].values()}
        # A day long past of this backend's own: the checks of the backends before it cached theirs.
        day = (datetime(2001, 1, 1) + timedelta(days=index)).date().isoformat()

        def has_routes(backend=backend, mine=mine):
            assert mine, f"no documented route answers with a section of {backend}"
            return ", ".join(sorted(mine))
        check(f"{backend}: routes with a section of it", has_routes)
        if not mine:
            continue
        post_json(simulators[backend] + "/_sim/faults", {"down": "reset"})
        failed = []
        try:
            for path, (url, sections) in sorted(mine.items()):
                def refetched(path=path, url=url, failed=failed, backend=backend):
                    status, body = answer(path, url, {"Cache-Control": "no-cache"})
                    states = {name: report.get("status") for name, report in (body.get("sections") or {}).items()
                              if report.get("backend") == backend}
                    failed += [name for name, state in states.items() if state != "ok"]
                    return f"{status}, " + ", ".join(f"{name} {state}" for name, state in sorted(states.items()))
                check(f"GET {url} refetched with {backend} down matches its schema", refetched)

                uncached = uncached_url(spec, path, url, day)
                if uncached:
                    def cold(path=path, uncached=uncached, failed=failed, backend=backend):
                        status, body = answer(path, uncached)
                        assert status != 400, f"the route refused {uncached}: {body}"
                        reports = body.get("sections") or {}
                        states = {name: report.get("status") for name, report in reports.items()}
                        failed += [name for name, state in states.items()
                                   if state != "ok" and reports[name].get("backend") == backend]
                        errors = [state for state in states.values() if state in ("error", "timeout")]
                        if errors and len(errors) == len(states):
                            assert status in (502, 504), f"every section failed, status {status}"
                        return f"{status}, " + ", ".join(f"{name} {state}" for name, state in sorted(states.items()))
                    check(f"GET {uncached} (nothing cached) with {backend} down matches its schema", cold)

            for path in ["/v1/today", "/v1/summary"]:
                if path in paths and path not in mine:
                    def aggregate(path=path):
                        status, body = answer(path, path, {"Cache-Control": "no-cache"})
                        return f"{status}, complete={body.get('complete')}"
                    check(f"GET {path} refetched with {backend} down matches its schema", aggregate)

            if "/v1/sources" in paths:
                def sources(backend=backend, failed=failed):
                    _, body = answer("/v1/sources", "/v1/sources")
                    line = body["sources"].get(backend)
                    assert line is not None, f"/v1/sources has no line for {backend}"
                    if failed:
                        assert line.get("last_error") is not None, \
                            f"{backend}.last_error is null after its sections {', '.join(sorted(set(failed)))} failed"
                    return (line.get("last_error") or {}).get("code", "no error seen")
                check(f"GET /v1/sources with {backend} down matches its schema", sources)
        finally:
            post_json(simulators[backend] + "/_sim/faults", {})


def uncached_url(spec, path, url, day):
    """`url` with its date parameters (those it gives or that default to a day, or else the first)
    set to `day`, one long past, or else its first integer parameter to another value within its
    bounds: a key nothing cached. None when the route has neither."""
    parsed = urllib.parse.urlsplit(url)
    values = dict(urllib.parse.parse_qsl(parsed.query))
    query = [parameter for parameter in spec.parameters(path) if parameter["in"] == "query"]
    dates = [parameter for parameter in query if parameter.get("schema", {}).get("format") == "date"]
    if dates:
        used = [parameter["name"] for parameter in dates if parameter["name"] in values or "x-default" in parameter]
        for name in used or [dates[0]["name"]]:
            values[name] = day
        return parsed.path + "?" + urllib.parse.urlencode(values)
    for parameter in query:
        schema = parameter.get("schema", {})
        if schema.get("type") == "integer":
            low, high = schema.get("minimum", 0), schema.get("maximum", 1000)
            current = int(values.get(parameter["name"], schema.get("default", low)))
            values[parameter["name"]] = str(low + 1 if current != low + 1 and low + 1 <= high else low)
            return parsed.path + "?" + urllib.parse.urlencode(values)
    return None


# MARK: - Security and writes

WRITES = [
    ("post", "/v1/tasks"), ("post", "/v1/tasks/{id}/complete"), ("post", "/v1/tasks/{id}/reopen"),
    ("put", "/v1/plan/items/{id}"), ("delete", "/v1/plan/items/{id}"),
    ("post", "/v1/events"), ("put", "/v1/events/{id}"), ("delete", "/v1/events/{id}"),
    ("post", "/v1/captures"), ("post", "/v1/food-logs"), ("delete", "/v1/food-logs/{id}"),
    ("post", "/v1/diensten/{id}/volunteers"),
    ("delete", "/v1/diensten/{id}/volunteers/{name}"),
]
METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]


def router_miss(status, body):
    """The gateway has no such route: its router's 404 ("nothing at …") or a 405."""
    if status == 405:
        return True
    if status != 404:
        return False
    try:
        return json.loads(body)["error"]["message"].startswith("nothing at ")
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


def required_headers(spec, response):
    names = []
    for name, header in (response or {}).get("headers", {}).items():
        header, _ = resolve(spec.document, header, "")
        if header.get("required"):
            names.append(name)
    return names


def answer_of(spec, method, template, status, headers, body, expected):
    """Checks one answer of `method template`: a status the operation documents, a body valid
    against that status's schema, the headers it documents as required, and one of `expected`.
    Returns the parsed body."""
    operation = f"{method.upper()} {template}"
    snippet = body[:200].decode(errors="replace")
    if router_miss(status, body):
        raise AssertionError(f"not implemented yet: {operation} answered {status} ({snippet}); the gateway has no such route")
    validate_answer(spec, template, status, headers, body, method=method)
    response, _ = spec.response(template, status, method)
    missing = [name for name in required_headers(spec, response) if headers.get(name) is None]
    assert not missing, f"{status} lacks its required header(s) {', '.join(missing)}"
    assert status in expected, f"expected {'/'.join(map(str, sorted(expected)))}, got {status}: {snippet}"
    return json.loads(body) if body else None


def security_checks(base, spec):
    document = spec.document
    paths = document["paths"]

    def documented():
        scheme = document.get("components", {}).get("securitySchemes", {}).get("clientKey")
        assert scheme and scheme.get("type") == "http" and scheme.get("scheme") == "bearer", f"clientKey is {scheme!r}"
        missing = [f"{method.upper()} {path}" for method, path in WRITES if method not in paths.get(path, {})]
        assert not missing, f"not documented: {', '.join(missing)}"
        problems = []
        for path, item in paths.items():
            keyed = path.startswith("/v1/") or path == "/metrics"
            for method, operation in item.items():
                if method not in METHODS:
                    continue
                name = f"{method.upper()} {path}"
                security = operation.get("security")
                if keyed and security != [{"clientKey": []}, {}]:
                    problems.append(f"{name}: security {security!r}")
                if not keyed and security is not None:
                    problems.append(f"{name}: needs no key but has security")
                wanted = (["401"] if keyed else []) + ["403", "431"]
                if method in ("post", "put"):
                    wanted += ["400", "413", "415"]
                problems += [f"{name}: no {status}" for status in wanted if status not in operation.get("responses", {})]
                if method == "post" and path.startswith("/v1/"):
                    headers = [resolve(document, p, "")[0].get("name") for p in operation.get("parameters", [])]
                    if "Idempotency-Key" not in headers:
                        problems.append(f"{name}: no Idempotency-Key")
                if method in ("post", "put") and "requestBody" not in operation:
                    problems.append(f"{name}: no requestBody")
        assert not problems, "; ".join(problems[:10])
        return f"{len(WRITES)} writes, clientKey bearer"
    check("the writes, the clientKey scheme and the 401/403/431 answers are documented", documented)

    if "/v1/tasks/counts" in paths:
        def foreign_host():
            status, headers, body = send(base, "GET", "/v1/tasks/counts", headers={"Host": "daygate.evil.example"})
            error = answer_of(spec, "get", "/v1/tasks/counts", status, headers, body, {403})["error"]
            assert error["code"] == "host_not_allowed", f"code {error['code']!r}"
            return error["code"]
        check("GET /v1/tasks/counts with a foreign Host (loopback mode) → 403 Error", foreign_host)

        def many_headers():
            extra = {f"X-Filler-{number}": "x" for number in range(101)}
            status, headers, body = send(base, "GET", "/v1/tasks/counts", headers=extra)
            error = answer_of(spec, "get", "/v1/tasks/counts", status, headers, body, {431})["error"]
            assert error["code"] == "headers_too_large", f"code {error['code']!r}"
            return error["code"]
        check("GET /v1/tasks/counts with 101 headers → 431 Error", many_headers)


def write_checks(base, spec, simulators):
    """Real write answers against their schemas: tasks (add, complete, reopen), plan slots (move,
    remove), events (create, move, delete), captures, food logs and volunteers; one bad body per write, a missing Content-Type, Idempotency-Key."""

    def write(method, template, path=None, body=None, expected=(), headers=None, content_type="application/json"):
        status, response_headers, raw = send(base, method.upper(), path or template, body, headers, content_type)
        return answer_of(spec, method, template, status, response_headers, raw, set(expected)), response_headers

    def bad_body(method, template, path, body, field):
        def run():
            answer, _ = write(method, template, path, body, {400})
            error = answer["error"]
            assert error["code"] == "bad_request", f"code {error['code']!r}"
            assert field in error["message"], f"the message does not name {field!r}: {error['message']!r}"
            return error["message"][:80]
        check(f"{method.upper()} {template} with a bad body ({field}) → 400 Error", run)

    # Tickedify tasks.
    def add_task():
        answer, _ = write("post", "/v1/tasks", body={"title": "  OpenAPI check task  "}, expected={201})
        task = answer["task"]
        assert task["title"] == "OpenAPI check task", f"title {task['title']!r} (should be trimmed)"
        return f"201, id {task['id']}"
    check("POST /v1/tasks → 201 TaskCreated", add_task)
    bad_body("post", "/v1/tasks", None, {"titel": "typo"}, "titel")

    def no_content_type():
        answer, _ = write("post", "/v1/tasks", body=b'{"title":"no type"}', expected={415}, content_type=None)
        assert answer["error"]["code"] == "unsupported_media_type", answer
        return answer["error"]["code"]
    check("POST /v1/tasks without Content-Type → 415 Error", no_content_type)

    def too_large():
        answer, _ = write("post", "/v1/tasks", body={"title": "x" * (70 * 1024)}, expected={413})
        assert answer["error"]["code"] == "body_too_large", answer
        return answer["error"]["code"]
    check("POST /v1/tasks with a 70 KB body → 413 Error", too_large)

    def idempotent_replay():
        key = f"openapi-{uuid.uuid4()}"
        body = {"title": "OpenAPI idempotent task"}
        first, first_headers = write("post", "/v1/tasks", body=body, expected={201}, headers={"Idempotency-Key": key})
        assert first_headers.get("Idempotent-Replayed") is None, "the first request says Idempotent-Replayed"
        second, second_headers = write("post", "/v1/tasks", body=body, expected={201}, headers={"Idempotency-Key": key})
        assert second_headers.get("Idempotent-Replayed") == "true", f"Idempotent-Replayed {second_headers.get('Idempotent-Replayed')!r}"
        assert second == first, f"replayed body {second} differs from {first}"
        other, _ = write("post", "/v1/tasks", body={"title": "another"}, expected={422}, headers={"Idempotency-Key": key})
        assert other["error"]["code"] == "idempotency_key_reused", other
        return f"one task {first['task']['id']}; other body → 422"
    check("POST /v1/tasks twice with one Idempotency-Key → the kept answer with Idempotent-Replayed: true", idempotent_replay)

    # Tickedify's plan: tick off a planned task, reopen it, move a slot, remove a slot.
    def plan_items():
        status, _, body = fetch(f"{base}/v1/plan")
        assert status == 200, f"GET /v1/plan answered {status}"
        return json.loads(body).get("plan") or []

    planned = [item for item in plan_items() if item["kind"] == "task" and item.get("task_id")]
    others = [item for item in plan_items() if not planned or item["task_id"] != planned[0]["task_id"]]

    if planned:
        task_id = planned[0]["task_id"]
        task_path = "/v1/tasks/" + urllib.parse.quote(task_id, safe="")

        def complete_task():
            answer = write("post", "/v1/tasks/{id}/complete", task_path + "/complete", body=b"", expected={200})[0]
            assert answer["task"]["id"] == task_id, answer
            assert all(item.get("task_id") != task_id for item in plan_items()), "still in /v1/plan (cache not invalidated?)"
            return f"200, completed_at {answer['task']['completed_at']}, next_task_id {answer['next_task_id']}"
        check(f"POST /v1/tasks/{{id}}/complete ({planned[0]['title']}) → 200 TaskCompleted, gone from /v1/plan", complete_task)

        def complete_again():
            answer = write("post", "/v1/tasks/{id}/complete", task_path + "/complete", body={}, expected={404})[0]
            assert answer["error"]["code"] == "not_found", answer
            return answer["error"]["message"][:60]
        check("POST /v1/tasks/{id}/complete of a completed task → 404 Error", complete_again)
        bad_body("post", "/v1/tasks/{id}/complete", task_path + "/complete", {"done": True}, "done")

        def reopen_task():
            answer = write("post", "/v1/tasks/{id}/reopen", task_path + "/reopen", body={}, expected={200})[0]
            assert answer == {"task": {"id": task_id, "list": "inbox"}}, answer
            status, _, body = fetch(f"{base}/v1/tasks?list=inbox")
            ids = [task["id"] for task in json.loads(body).get("tasks") or []]
            assert task_id in ids, f"status {status}: not back in the inbox"
            return "200, in the inbox"
        check("POST /v1/tasks/{id}/reopen → 200 TaskReopened, back in the inbox", reopen_task)

        def reopen_again():
            answer = write("post", "/v1/tasks/{id}/reopen", task_path + "/reopen", body={}, expected={404})[0]
            return answer["error"]["code"]
        check("POST /v1/tasks/{id}/reopen of an open task → 404 Error", reopen_again)

    def bad_task_id():
        answer = write("post", "/v1/tasks/{id}/complete", "/v1/tasks/a%20b/complete", body={}, expected={400})[0]
        assert answer["error"]["code"] == "bad_request", answer
        return answer["error"]["message"][:60]
    check("POST /v1/tasks/{id}/complete with white space in the id → 400 Error", bad_task_id)

    if len(others) >= 2:
        moved, removed = others[0], others[1]
        moved_path = "/v1/plan/items/" + urllib.parse.quote(moved["id"], safe="")
        removed_path = "/v1/plan/items/" + urllib.parse.quote(removed["id"], safe="")

        def move_item():
            answer = write("put", "/v1/plan/items/{id}", moved_path, {"hour": 16, "position": 0}, {200})[0]
            assert answer == {"plan_item": {"id": moved["id"], "hour": 16, "position": 0}}, answer
            at = [(item["hour"], item["position"]) for item in plan_items() if item["id"] == moved["id"]]
            assert at == [(16, 0)], f"in /v1/plan at {at}"
            answer = write("put", "/v1/plan/items/{id}", moved_path, {"hour": 7}, {200})[0]
            assert answer["plan_item"]["position"] is None, answer
            return f"200, {moved['title']} at 16:00, then at the end of 7:00"
        check("PUT /v1/plan/items/{id} → 200 PlanItemMoved, /v1/plan follows", move_item)
        bad_body("put", "/v1/plan/items/{id}", moved_path, {"hour": 9, "minute": 30}, "minute")
        bad_body("put", "/v1/plan/items/{id}", moved_path, {"hour": 24}, "hour")

        def remove_item():
            status, headers, raw = send(base, "DELETE", removed_path)
            answer_of(spec, "delete", "/v1/plan/items/{id}", status, headers, raw, {204})
            assert not raw, f"a 204 with {len(raw)} bytes"
            assert all(item["id"] != removed["id"] for item in plan_items()), "still in /v1/plan"
            again = write("delete", "/v1/plan/items/{id}", removed_path, expected={404})[0]
            return f"204, then {again['error']['code']}"
        check("DELETE /v1/plan/items/{id} → 204, gone from /v1/plan; again → 404 Error", remove_item)

    # 8alls events: tomorrow 10:00-11:00 in the demo's zone, moved to 14:00-15:00, deleted.
    zone = ZoneInfo(ZONE)
    tomorrow = (datetime.now(zone) + timedelta(days=1)).date()

    def at(hour):
        return datetime.combine(tomorrow, clock_time(hour), zone).isoformat(timespec="seconds")

    def same_instant(got, want):
        return datetime.fromisoformat(got.replace("Z", "+00:00")) == datetime.fromisoformat(want)

    created = {}
    fetch(f"{base}/v1/events?date={tomorrow}")  # cached now, so the create must invalidate it

    def create_event():
        body = {"title": "OpenAPI check", "start": at(10), "end": at(11), "location": "Kantoor", "tags": ["openapi"],
                "status": "tentative"}
        event = write("post", "/v1/events", body=body, expected={201})[0]["event"]
        assert same_instant(event["start"], at(10)) and same_instant(event["end"], at(11)), f"times {event['start']}–{event['end']}"
        assert event["title"] == "OpenAPI check" and event["status"] == "tentative", event
        created["id"] = event["id"]
        return f"201, {event['start']}"
    check(f"POST /v1/events ({at(10)}–{at(11)}) → 201 EventAnswer", create_event)

    if "id" in created:
        event_path = "/v1/events/" + urllib.parse.quote(created["id"], safe="")

        def listed():
            status, _, body = fetch(f"{base}/v1/events?date={tomorrow}")
            ids = [event["id"] for event in json.loads(body).get("events") or []]
            assert created["id"] in ids, f"status {status}: the new event is not in {len(ids)} events (cache not invalidated?)"
        check("GET /v1/events of tomorrow lists the new event", listed)

        def move_event():
            event = write("put", "/v1/events/{id}", event_path, {"start": at(14), "end": at(15)}, {200})[0]["event"]
            assert same_instant(event["start"], at(14)) and same_instant(event["end"], at(15)), f"times {event['start']}–{event['end']}"
            assert event["location"] == "Kantoor", "a partial update lost the location"
            return f"200, {event['start']}"
        check(f"PUT /v1/events/{{id}} (moved to {at(14)}) → 200 EventAnswer", move_event)
        bad_body("put", "/v1/events/{id}", event_path, {"colour": "red"}, "colour")

        def delete_event():
            answer = write("delete", "/v1/events/{id}", event_path, expected={200})[0]
            assert answer["deleted"]["id"] == created["id"], answer
            return "200"
        check("DELETE /v1/events/{id} → 200 EventDeleted", delete_event)

        def delete_again():
            answer = write("delete", "/v1/events/{id}", event_path, expected={404})[0]
            return answer["error"]["code"]
        check("DELETE /v1/events/{id} of a deleted event → 404 Error", delete_again)
    bad_body("post", "/v1/events", None, {"title": "no offset", "start": f"{tomorrow}T10:00:00", "end": at(11)}, "start")

    def delete_long_id():
        answer = write("delete", "/v1/events/{id}", "/v1/events/" + "x" * 201, expected={400})[0]
        assert answer["error"]["code"] == "bad_request", answer
        return answer["error"]["message"][:60]
    check("DELETE /v1/events/{id} with a 201-character id → 400 Error", delete_long_id)

    # PRSNL captures (a note: a URL capture without content_type hits an upstream bug).
    def capture():
        body = {"content": "Checked by the OpenAPI test.", "title": "OpenAPI check note", "content_type": "note",
                "tags": ["openapi"]}
        answer = write("post", "/v1/captures", body=body, expected={202})[0]
        return f"202, status {answer['capture']['status']}"
    check("POST /v1/captures (a note) → 202 CaptureAccepted", capture)
    bad_body("post", "/v1/captures", None, {"content": "x", "colour": "red"}, "colour")

    # FitIQ food logs: a food of the simulator's public catalog (read with its built-in demo API
    # key, FitIQSimulator.demoAPIKey; the catalog needs no user).
    logged = {}

    def food_log():
        foods = fitiq_foods(simulators, "a")
        food_id = foods[0]["id"] if foods else None
        assert food_id, "no food in the FitIQ simulator's catalog"
        body = {"food_id": food_id, "food_source": "database", "meal_type": "snack", "servings": 1.5,
                "logged_at": datetime.now(zone).isoformat(timespec="seconds"), "notes": "OpenAPI check"}
        answer = write("post", "/v1/food-logs", body=body, expected={201})[0]
        logged["id"] = answer["food_log"]["id"]
        return f"201, date {answer['date']}"
    check("POST /v1/food-logs → 201 FoodLogCreated", food_log)

    def delete_food_log():
        assert "id" in logged, "no food log was created"
        path = "/v1/food-logs/" + urllib.parse.quote(logged["id"], safe="")
        status, headers, raw = send(base, "DELETE", path)
        assert status == 204, f"status {status}: {raw[:200].decode(errors='replace')}"
        assert raw == b"", f"a 204 with a body: {raw[:80]!r}"
        response, _ = spec.response("/v1/food-logs/{id}", 204, "delete")
        assert response is not None, "204 is not documented"
        status, _, body = fetch(f"{base}/v1/nutrition")
        listed = [log["id"] for log in (json.loads(body).get("food_logs") or [])]
        assert logged["id"] not in listed, "the deleted log is still listed by /v1/nutrition"
        return "204, gone from /v1/nutrition"
    check("DELETE /v1/food-logs/{id} → 204, and /v1/nutrition no longer lists it", delete_food_log)

    def delete_food_log_again():
        assert "id" in logged, "no food log was created"
        path = "/v1/food-logs/" + urllib.parse.quote(logged["id"], safe="")
        write("delete", "/v1/food-logs/{id}", path, expected={204})
        return "204: gone, as asked"
    check("DELETE /v1/food-logs/{id} sent again for the log it deleted → 204", delete_food_log_again)

    def delete_unknown_food_log():
        path = "/v1/food-logs/6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7"
        answer = write("delete", "/v1/food-logs/{id}", path, expected={404})[0]
        assert answer["error"]["code"] == "not_found", answer
        return answer["error"]["code"]
    check("DELETE /v1/food-logs/{id} of a log nobody deleted here → 404 not_found", delete_unknown_food_log)

    def delete_food_log_bad_id():
        answer = write("delete", "/v1/food-logs/{id}", "/v1/food-logs/not-a-uuid", expected={400})[0]
        return answer["error"]["code"]
    check("DELETE /v1/food-logs/{id} with an id that is not a UUID → 400 Error", delete_food_log_bad_id)
    bad_body("post", "/v1/food-logs", None, {"food_id": "x", "food_source": "database", "meal_type": "snack", "servings": 1,
                                             "colour": "red"}, "colour")

    # Kantine Koning volunteers: a future dienst the demo profile manages, and one it only sees as member.
    status, _, body = fetch(f"{base}/v1/diensten?past_days=30&future_days=30")
    diensten = (json.loads(body).get("diensten") or []) if status == 200 else []
    now = datetime.now(zone)
    future = [dienst for dienst in diensten if datetime.fromisoformat(dienst["start"]) > now + timedelta(hours=1)]
    managed = next((dienst for dienst in future if dienst["role"] == "manager" and "OpenAPI" not in dienst["volunteers"]), None)
    member = next((dienst for dienst in future if dienst["role"] == "member"), None)
    started = next((dienst for dienst in diensten if dienst["role"] == "manager" and dienst.get("team")
                    and datetime.fromisoformat(dienst["start"]) < now), None)
    volunteers = "/v1/diensten/{id}/volunteers"
    volunteer = "/v1/diensten/{id}/volunteers/{name}"

    def managed_path():
        assert managed, f"no future dienst the demo profile manages (GET /v1/diensten: {status})"
        return "/v1/diensten/" + urllib.parse.quote(managed["id"], safe="") + "/volunteers"

    def add_volunteer():
        dienst = write("post", volunteers, managed_path(), {"name": "OpenAPI"}, {200})[0]["dienst"]
        assert "OpenAPI" in dienst["volunteers"], f"volunteers {dienst['volunteers']}"
        return f"200, {dienst['tenant']} {dienst['start']}"
    check("POST /v1/diensten/{id}/volunteers (a managed future dienst) → 200 DienstAnswer", add_volunteer)

    def add_twice():
        answer = write("post", volunteers, managed_path(), {"name": "OpenAPI"}, {409})[0]
        return answer["error"]["code"]
    check("POST /v1/diensten/{id}/volunteers with a name already on it → 409 Error", add_twice)

    def remove_volunteer():
        dienst = write("delete", volunteer, managed_path() + "/OpenAPI", expected={200})[0]["dienst"]
        assert "OpenAPI" not in dienst["volunteers"], f"volunteers {dienst['volunteers']}"
        return "200"
    check("DELETE /v1/diensten/{id}/volunteers/{name} → 200 DienstAnswer", remove_volunteer)

    def remove_missing():
        answer = write("delete", volunteer, managed_path() + "/Nobody", expected={404})[0]
        return answer["error"]["code"]
    check("DELETE /v1/diensten/{id}/volunteers/{name} of a name not on it → 404 Error", remove_missing)

    def member_only():
        assert member, f"no future dienst the demo profile sees only as member (GET /v1/diensten: {status})"
        path = "/v1/diensten/" + urllib.parse.quote(member["id"], safe="") + "/volunteers"
        answer = write("post", volunteers, path, {"name": "OpenAPI"}, {403})[0]
        return answer["error"]["code"]
    check("POST /v1/diensten/{id}/volunteers (a dienst seen as member only) → 403 Error", member_only)

    def has_started():
        assert started, f"no managed dienst that has started (GET /v1/diensten: {status})"
        path = "/v1/diensten/" + urllib.parse.quote(started["id"], safe="") + "/volunteers"
        answer = write("post", volunteers, path, {"name": "OpenAPI"}, {409})[0]
        return answer["error"]["message"][:70]
    check("POST /v1/diensten/{id}/volunteers (a managed dienst that has started) → 409 Error", has_started)

    def no_dienst():
        answer = write("post", volunteers, "/v1/diensten/no-such-dienst/volunteers", {"name": "OpenAPI"}, {404})[0]
        return answer["error"]["code"]
    check("POST /v1/diensten/{id}/volunteers of an unknown dienst → 404 Error", no_dienst)
    bad_body("post", volunteers, managed_path() if managed else "/v1/diensten/x/volunteers", {"naam": "Jan"}, "naam")


def failing_backend_write_checks(base, spec, simulators):
    """Writes to a failing backend: Tickedify answering 500 → 502, then 429 → 429 with
    Retry-After; PRSNL answering 429 → 429 with Retry-After. Runs after the other writes and before
    the degraded checks (whose failures open circuits): a 429 makes the gateway hold calls to that
    backend back for a minute."""
    paths = spec.document["paths"]

    def failing(backend, path, body, fault, expected, code):
        def run():
            faults = simulators[backend] + "/_sim/faults"
            post_json(faults, {"error_status": fault})
            try:
                status, headers, raw = send(base, "POST", path, body)
            finally:
                post_json(faults, {})
            error = answer_of(spec, "post", path, status, headers, raw, {expected})["error"]
            assert error["code"] == code, f"code {error['code']!r}"
            retry = headers.get("Retry-After")
            return error["code"] + (f", Retry-After {retry}" if retry else "")
        return run

    if "tickedify" in simulators and "post" in paths.get("/v1/tasks", {}):
        task = {"title": "OpenAPI failing"}
        check("POST /v1/tasks with Tickedify answering 500 → 502 Error",
              failing("tickedify", "/v1/tasks", task, 500, 502, "upstream_error"))
        check("POST /v1/tasks with Tickedify answering 429 → 429 Error with Retry-After",
              failing("tickedify", "/v1/tasks", task, 429, 429, "upstream_rate_limited"))
    if "prsnl" in simulators and "post" in paths.get("/v1/captures", {}):
        check("POST /v1/captures with PRSNL answering 429 → 429 Error with Retry-After",
              failing("prsnl", "/v1/captures", {"content": "OpenAPI rate limited"}, 429, 429, "upstream_rate_limited"))


def client_key_checks(state_dir):
    """A second demo with a client key: /v1/* and /metrics answer 401 with WWW-Authenticate
    without it (documented, Error schema), and serve with it; /healthz needs none."""
    key = "openapi-check-client-key-1234567890"
    demo = Demo(state_dir, extra_args=("--client-key", key))
    try:
        base = demo.url
        status, headers, body = fetch(base + "/openapi.json")
        spec = Spec(json.loads(body))

        def unauthorized(method, path, template, payload=None):
            def run():
                status, headers, body = send(base, method.upper(), path, payload)
                error = answer_of(spec, method, template, status, headers, body, {401})["error"]
                assert error["code"] == "unauthorized", f"code {error['code']!r}"
                challenge = headers.get("WWW-Authenticate")
                assert challenge == 'Bearer realm="daygate"', f"WWW-Authenticate {challenge!r}"
                return challenge
            return run
        check("with client keys: GET /v1/summary without a key → 401 Error, WWW-Authenticate",
              unauthorized("get", "/v1/summary", "/v1/summary"))
        check("with client keys: GET /metrics with a wrong key → 401 Error", lambda: keyed_metrics(base, spec))
        check("with client keys: POST /v1/tasks without a key → 401 Error",
              unauthorized("post", "/v1/tasks", "/v1/tasks", {"title": "no key"}))

        def with_key():
            status, headers, body = send(base, "GET", "/v1/summary", headers={"Authorization": f"Bearer {key}"})
            validate_answer(spec, "/v1/summary", status, headers, body)
            assert status == 200, f"status {status}"
            status, _, _ = send(base, "GET", "/healthz")
            assert status == 200, f"/healthz without a key: {status}"
            return "200; /healthz needs none"
        check("with client keys: GET /v1/summary with the key → 200", with_key)
    finally:
        demo.stop()


def keyed_metrics(base, spec):
    status, headers, body = send(base, "GET", "/metrics", headers={"Authorization": "Bearer wrong-key"})
    answer_of(spec, "get", "/metrics", status, headers, body, {401})
    assert headers.get("WWW-Authenticate") == 'Bearer realm="daygate"', headers.get("WWW-Authenticate")
    return "401"


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
