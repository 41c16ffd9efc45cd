"""The contract in one place: what korpd's code can do against what
openapi.yaml and docs/api.md say it does.  No server: the C sources are read.

(a) Operations.  The route table in api/api_routes.c (a table of structs,
    parsed here) against the paths of openapi.yaml, method + path with every
    path parameter written "{}".
    - Compared: every row of the table, the test clock's row included
      (openapi documents POST /v1/admin/clock as "tests only"), plus the HEAD
      that api_route answers like GET on every API_UNLIMITED GET row
      (method_fits): korpd answers HEAD there and 405 elsewhere, so clients
      (uptime checkers) need to know where.
    - Excluded from openapi: the rows whose handler is in api/api_static.c
      (the web board's page, its files, the icon).  They answer HTML and
      static files for browsers, not the JSON API.  Their own contract is
      checked instead: the paths korpd answers with the page are exactly the
      pages web/assets/app.js routes to.

(b) Problems.  Every problem type korpd can send comes from the table in
    api/api_reply.c (no other C file writes a "/problems/" type; checked).
    Each one a handler uses must be documented in openapi.yaml (a response
    whose schema pins the type, with the code's status; examples with the
    code's title) and in docs/api.md's table (with the code's status); and
    neither document may list a type the code does not have.
"""

import pathlib
import re

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
C_DIRS = ["api", "korpd", "db", "games", "notify", "base"]
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def read(rel):
    return (ROOT / rel).read_text(encoding="utf-8")


def strip_c_comments(text):
    """The C text without /* */ and // comments (string literals kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            assert end >= 0, "an unterminated comment"
            out.append(" ")
            i = end + 2
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def braces(text, start):
    """Yields (index, +1 or -1) for each brace of text from start, outside
    string and character literals."""
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "{}":
            yield i, 1 if c == "{" else -1
        i += 1


def c_array_body(text, declaration):
    """The text between the braces of `declaration ... = { ... };`."""
    m = re.search(declaration, text)
    assert m, f"no {declaration!r} found"
    start = text.index("{", m.end())
    depth = 0
    for i, step in braces(text, start):
        depth += step
        if depth == 0:
            return text[start + 1:i]
    raise AssertionError(f"{declaration}: unbalanced braces")


def top_level_initialisers(body):
    """The `{ ... }` initialisers directly inside an array body, as text;
    refuses anything else there but commas."""
    items, depth, start, outside = [], 0, None, []
    last = 0
    for i, step in braces(body, 0):
        if step == 1 and depth == 0:
            start = i
            outside.append(body[last:i])
        depth += step
        if step == -1 and depth == 0:
            items.append(body[start + 1:i])
            last = i + 1
    outside.append(body[last:])
    stray = "".join(outside).replace(",", "").strip()
    assert not stray, f"an array body holds more than initialisers: {stray[:80]!r}"
    return items


# ---------------------------------------------------------------------------
# the code's side


ROUTE_ROW = re.compile(
    r'^\s*(?:"(?P<method>[A-Z]+)"|NULL)\s*,\s*(?:"(?P<pattern>[^"]*)"|NULL)\s*,'
    r'\s*(?P<needs>[A-Z0-9_|\s]+?)\s*,\s*(?P<handler>[a-z_0-9]+|NULL)\s*,?\s*$', re.S)


def route_rows(source=None):
    """[(method, pattern, {needs}, handler)] from the route table, in order."""
    text = strip_c_comments(source if source is not None else read("api/api_routes.c"))
    body = c_array_body(text, r"static\s+const\s+struct\s+route\s+routes\s*\[\s*\]\s*=")
    rows = []
    for item in top_level_initialisers(body):
        m = ROUTE_ROW.match(item)
        assert m, f"api/api_routes.c: a route row this test cannot read: {{{item.strip()}}}"
        if m["method"] is None:          # the { NULL, NULL, 0, NULL } sentinel
            continue
        needs = {n.strip() for n in m["needs"].split("|")} - {"0"}
        rows.append((m["method"], m["pattern"], needs, m["handler"]))
    return rows


def static_handlers():
    """The handlers api/api_static.c defines: the web board's, not the API's."""
    text = strip_c_comments(read("api/api_static.c"))
    names = set(re.findall(r"^enum\s+MHD_Result\s+(api_[a-z_0-9]+)\s*\(", text, re.M))
    assert names, "api/api_static.c defines no handler"
    return names


def normalise(path):
    """A path with every parameter ({id}, {delivery}, {path*}) written {}."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def head_of_get_rule_holds():
    """api_route answers HEAD like GET on the API_UNLIMITED routes; this test
    mirrors that rule, so it must notice when the rule changes."""
    text = strip_c_comments(read("api/api_routes.c"))
    m = re.search(r"static bool method_fits\([^)]*\)\s*\{(.*?)\n\}", text, re.S)
    return bool(m) and '"HEAD"' in m[1] and '"GET"' in m[1] and "API_UNLIMITED" in m[1]


def code_operations(rows):
    """{(METHOD, normalised path)} korpd answers, split into (api, web)."""
    web_handlers = static_handlers()
    api, web = set(), set()
    for method, pattern, needs, handler in rows:
        ops = {(method, normalise(pattern))}
        if method == "GET" and "API_UNLIMITED" in needs:
            ops.add(("HEAD", normalise(pattern)))
        (web if handler in web_handlers else api).update(ops)
    return api, web


def problem_table():
    """{ENUM_NAME: (status, slug, title)} from api/api_reply.c's table."""
    text = strip_c_comments(read("api/api_reply.c"))
    body = c_array_body(text, r"\}\s*problems\s*\[\s*API_PROBLEM_COUNT\s*\]\s*=")
    rows = re.findall(r'\[\s*(API_PROBLEM_[A-Z_]+)\s*\]\s*=\s*\{\s*(\d+)\s*,\s*"([^"]+)"\s*,'
                      r'\s*"([^"]+)"\s*\}', body)
    assert len(rows) == body.count("[API_PROBLEM_"), \
        "api/api_reply.c: a problem row this test cannot read"
    return {name: (int(status), slug, title) for name, status, slug, title in rows}


def problem_enum():
    text = strip_c_comments(read("api/api_int.h"))
    body = c_array_body(text, r"enum\s+api_problem\s*")
    return [n for n in re.findall(r"(API_PROBLEM_[A-Z_]+)", body) if n != "API_PROBLEM_COUNT"]


def c_sources():
    for d in C_DIRS:
        for path in sorted((ROOT / d).rglob("*.[ch]")):
            yield path


def problems_used():
    """The API_PROBLEM_ names some code outside the table's own files sends."""
    used = set()
    for path in c_sources():
        if path.name in ("api_reply.c", "api_int.h"):
            continue
        used |= set(re.findall(r"\b(API_PROBLEM_[A-Z_]+)\b",
                               strip_c_comments(path.read_text(encoding="utf-8"))))
    return used - {"API_PROBLEM_COUNT"}


# ---------------------------------------------------------------------------
# the documents' side


@pytest.fixture(scope="module")
def spec():
    return yaml.safe_load(read("openapi.yaml"))


def spec_operations(spec):
    return {(m.upper(), normalise(path))
            for path, item in spec["paths"].items() for m in HTTP_METHODS if m in item}


def resolve(spec, node):
    """Follows a local $ref ('#/components/...')."""
    while isinstance(node, dict) and "$ref" in node:
        target = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def pinned(spec, schema, out):
    """Collects, from a schema and its allOf/oneOf/anyOf parts, the problem
    types it pins (const or enum of "type") with the statuses pinned beside
    them: out[slug] gets each status (None when the part pins none)."""
    schema = resolve(spec, schema)
    if not isinstance(schema, dict):
        return
    props = schema.get("properties") or {}
    types = props.get("type") or {}
    values = ([types["const"]] if "const" in types else []) + list(types.get("enum") or [])
    status = (props.get("status") or {}).get("const")
    for value in values:
        if isinstance(value, str) and value.startswith("/problems/"):
            out.setdefault(value[len("/problems/"):], set()).add(status)
    if "allOf" in schema:
        # One problem: the statuses pinned in any part belong to the types of any part.
        inner = {}
        for part in schema["allOf"]:
            pinned(spec, part, inner)
        statuses = {s for ss in inner.values() for s in ss if s is not None}
        for slug, ss in inner.items():
            out.setdefault(slug, set()).update(statuses or ss)
    for key in ("oneOf", "anyOf"):
        for part in schema.get(key) or []:
            pinned(spec, part, out)


def documented_problems(spec):
    """{slug: {statuses}} over every problem+json answer of openapi.yaml, and
    [(where, example)] of the problem examples."""
    found, examples = {}, []
    responses = list((spec["components"].get("responses") or {}).items())
    for path, item in spec["paths"].items():
        for m in HTTP_METHODS:
            for code, r in ((item.get(m) or {}).get("responses") or {}).items():
                responses.append((f"{m.upper()} {path} {code}", r))
    for where, r in responses:
        r = resolve(spec, r)
        media = (r.get("content") or {}).get("application/problem+json")
        if not media:
            continue
        pinned(spec, media.get("schema") or {}, found)
        if "example" in media:
            examples.append((where, media["example"]))
        for name, ex in (media.get("examples") or {}).items():
            examples.append((f"{where} ({name})", resolve(spec, ex)["value"]))
    return found, examples


def docs_problem_table():
    """{slug: status} from the table under "## Errors" in docs/api.md."""
    text = read("docs/api.md")
    section = text.split("\n## Errors", 1)[1].split("\n## ", 1)[0]
    return {slug: int(status)
            for slug, status in re.findall(r"^\|\s*`([a-z0-9-]+)`\s*\|\s*(\d{3})\s*\|", section, re.M)}


def app_pages():
    """The paths web/assets/app.js routes to a page, parameters written {}."""
    text = read("web/assets/app.js")
    body = text.split("const ROUTES = [", 1)[1].split("];", 1)[0]
    pages = set()
    for regex in re.findall(r"\[\s*/(\^.*?\$)/\s*,", body):
        path = re.sub(r"\([^)]*\)", "{}", regex[1:-1]).replace("\\/", "/")
        assert not re.search(r"[\\^$()\[\]*+?]", path), f"app.js: cannot read the route {regex}"
        pages.add(path)
    assert pages, "web/assets/app.js: no ROUTES found"
    return pages


# ---------------------------------------------------------------------------
# (a) operations


def test_the_route_table_is_read_whole():
    rows = route_rows()
    text = strip_c_comments(read("api/api_routes.c"))
    body = c_array_body(text, r"static\s+const\s+struct\s+route\s+routes\s*\[\s*\]\s*=")
    rows_seen = len(re.findall(r'\{\s*(?:"[A-Z]+"|NULL)\s*,', body))
    assert len(rows) + 1 == rows_seen, "some rows of the route table were not read"
    assert ("POST", "/v1/games/{id}/moves", {"API_TOKEN", "API_JSON_BODY"}, "api_game_move") in rows
    assert head_of_get_rule_holds(), (
        "api_route's HEAD-of-GET rule (method_fits) changed: update code_operations() here "
        "to mirror it")


def test_the_parser_reads_multi_line_rows_and_refuses_what_it_cannot_read():
    sample = """
    static const struct route routes[] = {
        /* a comment { with braces } */
        { "GET", "/a/{id}", 0, api_a },
        { "POST", "/b", API_TOKEN | API_ARBITER |
          API_JSON_BODY, api_b },   // trailing
        { NULL, NULL, 0, NULL },
    };"""
    assert route_rows(sample) == [
        ("GET", "/a/{id}", set(), "api_a"),
        ("POST", "/b", {"API_TOKEN", "API_ARBITER", "API_JSON_BODY"}, "api_b")]
    with pytest.raises(AssertionError, match="cannot read"):
        route_rows(sample.replace('"/b"', "B_PATH"))


def test_openapi_lists_exactly_the_operations_korpd_answers(spec):
    api, _ = code_operations(route_rows())
    documented = spec_operations(spec)
    undocumented = sorted(api - documented)
    unanswered = sorted(documented - api)
    lines = []
    if undocumented:
        lines.append("korpd answers these, openapi.yaml does not document them "
                     "(api/api_routes.c; HEAD: api_routes.c method_fits):")
        lines += [f"  {m} {p}" for m, p in undocumented]
    if unanswered:
        lines.append("openapi.yaml documents these, korpd's route table has no row for them:")
        lines += [f"  {m} {p}" for m, p in unanswered]
    assert not lines, "\n".join(lines)


def test_the_web_pages_are_the_pages_the_web_board_routes(spec):
    rows = route_rows()
    web_handlers = static_handlers()
    assert all(m == "GET" for m, _, _, h in rows if h in web_handlers), \
        "a web board row that is not GET"
    served = {normalise(p) for m, p, _, h in rows if h == "api_web_page"}
    pages = app_pages()
    assert served == pages, (
        f"korpd serves the page at {sorted(served - pages)} that web/assets/app.js does not "
        f"route; app.js routes {sorted(pages - served)} that korpd does not serve "
        "(a reload or an email link there would be 404)")
    documented = {p for _, p in spec_operations(spec)}
    assert not (served & documented), "a web page is documented as an API operation"


# ---------------------------------------------------------------------------
# (b) problems


def test_the_problem_table_is_whole():
    table = problem_table()
    assert sorted(table) == sorted(problem_enum()), \
        "api/api_reply.c's table and api/api_int.h's enum api_problem differ"
    slugs = [slug for _, slug, _ in table.values()]
    assert len(slugs) == len(set(slugs)), "two problems share a type"
    for name, (status, slug, _) in table.items():
        assert 400 <= status <= 599 and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), name


def test_the_problem_scan_finds_types_their_statuses_and_examples():
    schema = {"allOf": [{"$ref": "#/components/schemas/P"},
                        {"properties": {"type": {"enum": ["/problems/a", "/problems/b"]},
                                        "status": {"const": 409}}}]}
    toy = {"paths": {}, "components": {
        "schemas": {"P": {"properties": {"type": {"type": "string"}}}},
        "responses": {"R": {"content": {"application/problem+json": {
            "schema": schema, "example": {"type": "/problems/a", "status": 409}}}},
                      "S": {"content": {"application/problem+json": {"schema": {
                          "oneOf": [{"properties": {"type": {"const": "/problems/c"},
                                                    "status": {"const": 422}}}]}}}}}}}
    found, examples = documented_problems(toy)
    assert found == {"a": {409}, "b": {409}, "c": {422}}
    assert examples == [("R", {"type": "/problems/a", "status": 409})]


def test_no_code_writes_a_problem_type_outside_the_table():
    stray = []
    for path in c_sources():
        if path.name == "api_reply.c":
            continue
        for i, line in enumerate(strip_c_comments(path.read_text(encoding="utf-8")).splitlines(), 1):
            if "/problems/" in line:
                stray.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not stray, "problem types written outside api/api_reply.c's table:\n" + "\n".join(stray)


def test_every_problem_korpd_sends_is_in_openapi_with_its_status(spec):
    table = problem_table()
    used = problems_used()
    assert used, "no handler uses a problem: the scan of the C sources is broken"
    unknown = used - set(table)
    assert not unknown, f"problems used but not in api/api_reply.c's table: {sorted(unknown)}"
    found, _ = documented_problems(spec)
    lines = []
    for name in sorted(used):
        status, slug, _ = table[name]
        if slug not in found:
            lines.append(f"/problems/{slug} ({status}, {name}) is sent by korpd but no "
                         "problem+json answer of openapi.yaml pins it")
        elif found[slug] - {status}:
            lines.append(f"/problems/{slug}: openapi.yaml gives status "
                         f"{sorted(s for s in found[slug] if s is not None)}, korpd sends {status}")
    code_slugs = {slug for _, slug, _ in table.values()}
    for slug in sorted(set(found) - code_slugs):
        lines.append(f"openapi.yaml documents /problems/{slug}, which korpd never sends")
    assert not lines, "\n".join(lines)


def test_openapi_problem_examples_carry_the_codes_title_and_status(spec):
    by_slug = {slug: (status, title) for status, slug, title in problem_table().values()}
    _, examples = documented_problems(spec)
    wrong = []
    for where, ex in examples:
        slug = str(ex.get("type", "")).removeprefix("/problems/")
        if slug not in by_slug:
            wrong.append(f"{where}: type {ex.get('type')!r} is not one korpd sends")
            continue
        status, title = by_slug[slug]
        if ex.get("status") != status or ex.get("title") != title:
            wrong.append(f"{where}: {ex.get('status')} {ex.get('title')!r}, korpd sends "
                         f"{status} {title!r}")
    assert len(examples) >= 10, "too few problem examples found: the scan is broken"
    assert not wrong, "\n".join(wrong)


def test_docs_api_lists_every_problem_with_its_status():
    table = problem_table()
    used = {table[n][1]: table[n][0] for n in problems_used()}
    code = {slug: status for status, slug, _ in table.values()}
    docs = docs_problem_table()
    lines = [f"docs/api.md does not list /problems/{s} ({used[s]})" for s in sorted(set(used) - set(docs))]
    lines += [f"docs/api.md lists /problems/{s}, which korpd never sends"
              for s in sorted(set(docs) - set(code))]
    lines += [f"docs/api.md gives /problems/{s} status {docs[s]}, korpd sends {code[s]}"
              for s in sorted(set(docs) & set(code)) if docs[s] != code[s]]
    assert not lines, "\n".join(lines)
