"""The kinds of event and notification, spelt once: db/db_kinds.def is the
list, and every copy that must stay is held to it here.

- db/functions.sql: korp_notification_types() lists the notification kinds
  in the list's order; korp_event_addressed() names only kinds of event.
- openapi.yaml: the NotificationType enum (in order), and one webhook per
  notification kind.
- notify/notify_mail_text.c: one mail text for every mail kind.
- The migrations after the one that moved them (014) do not define the
  functions of functions.sql again.
- The older spellings (OLDER lines) are read, never written: no enum of
  openapi.yaml and no SQL function lists them, and no C file but the list
  spells them.
- Tournament statuses: openapi.yaml's enums against db/db_names.c's words.
"""

import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
MOVED = ("korp_notification_types", "korp_event_addressed", "korp_event_enqueue")
MOVED_IN = 14


def read(rel):
    return (ROOT / rel).read_text(encoding="utf-8")


def kinds_list():
    """{"EVENT": [(NAME, type, MAIL)], "NOTICE": ..., "MAIL": ..., "OLDER": ...}
    and the notification kinds (EVENT and NOTICE types) in order."""
    rows = {"EVENT": [], "NOTICE": [], "MAIL": [], "OLDER": []}
    order = []
    line_re = re.compile(r'^(EVENT|NOTICE|MAIL|OLDER)\((\w+),\s*("([^"]*)"|NULL)(?:,\s*(\w+))?\)')
    for line in read("db/db_kinds.def").splitlines():
        m = line_re.match(line)
        if not m:
            continue
        what, name, text, mail = m.group(1), m.group(2), m.group(4), m.group(5)
        rows[what].append((name, text, mail))
        if what in ("EVENT", "NOTICE"):
            order.append(text)
    assert rows["EVENT"] and rows["NOTICE"], "db/db_kinds.def: no kinds read"
    return rows, order


def sql_function(sql, name):
    m = re.search(r"CREATE OR REPLACE FUNCTION " + name + r"\b(.*?)\$\$(.*?)\$\$", sql, re.S)
    assert m, f"db/functions.sql: no function {name}"
    return m.group(2)


def test_functions_sql_lists_the_kinds():
    rows, order = kinds_list()
    sql = read("db/functions.sql")
    listed = re.findall(r"'([a-z_]+)'", re.search(r"ARRAY\[(.*?)\]",
                                                  sql_function(sql, "korp_notification_types"),
                                                  re.S).group(1))
    assert listed == order, "korp_notification_types() and db/db_kinds.def differ"
    addressed = re.findall(r"WHEN '([a-z_]+)' THEN", sql_function(sql, "korp_event_addressed"))
    events = {text for _, text, _ in rows["EVENT"]}
    assert set(addressed) <= events, \
        f"korp_event_addressed names kinds that are no events: {set(addressed) - events}"
    for _, older, _ in rows["OLDER"]:
        assert f"'{older}'" not in sql, f"db/functions.sql spells the older '{older}'"


def test_openapi_lists_the_kinds():
    rows, order = kinds_list()
    spec = yaml.safe_load(read("openapi.yaml"))
    assert spec["components"]["schemas"]["NotificationType"]["enum"] == order, \
        "openapi.yaml NotificationType and db/db_kinds.def differ"
    assert set(spec["webhooks"]) == set(order), \
        "openapi.yaml's webhooks and db/db_kinds.def's notification kinds differ"
    enums = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("enum"), list):
                enums.extend(node["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(spec)
    for _, older, _ in rows["OLDER"]:
        assert older not in enums, f"an enum of openapi.yaml lists the older '{older}'"


def test_every_mail_kind_has_a_text():
    rows, _ = kinds_list()
    mails = {mail for _, _, mail in rows["EVENT"] + rows["NOTICE"]}
    mails |= {name for name, _, _ in rows["MAIL"]}
    text = read("notify/notify_mail_text.c")
    table = re.findall(r"^\s*\{ NOTIFY_(\w+), \"", text, re.M)
    assert set(table) == mails, "notify_mail_text.c's texts and db/db_kinds.def's mails differ"


def test_later_migrations_leave_the_functions_to_functions_sql():
    for path in sorted((ROOT / "db" / "migrations").glob("[0-9][0-9][0-9]_*.sql")):
        if int(path.name[:3]) <= MOVED_IN:
            continue
        sql = path.read_text(encoding="utf-8")
        for name in MOVED:
            # (a trigger may name one: EXECUTE FUNCTION)
            assert not re.search(r"CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+" + name + r"\b", sql), \
                f"{path.name} defines {name}: change db/functions.sql instead"


def test_older_spellings_are_only_read():
    rows, _ = kinds_list()
    for directory in ("api", "db", "games", "notify", "korpd"):
        for path in sorted((ROOT / directory).glob("*.[ch]")):
            text = path.read_text(encoding="utf-8")
            for _, older, _ in rows["OLDER"]:
                assert f'"{older}"' not in text, f"{path.name} spells the older '{older}'"


def test_tournament_statuses_agree():
    names = read("db/db_names.c")
    table = re.search(r"tournament_statuses\[\] = \{(.*?)\};", names, re.S).group(1)
    words = []
    for constant, word in re.findall(r"\{ (DB_TOURNAMENT_\w+), \"(\w+)\" \}", table):
        if constant not in [c for c, _ in words]:
            words.append((constant, word))       # the first is written; later ones only read
    written = [word for _, word in words]
    spec = yaml.safe_load(read("openapi.yaml"))
    tournament = spec["components"]["schemas"]["Tournament"]["properties"]["status"]["enum"]
    assert tournament == written
    listing = spec["paths"]["/v1/tournaments"]["get"]["parameters"]
    status = next(p for p in listing if p["name"] == "status")
    assert status["schema"]["enum"] == written
