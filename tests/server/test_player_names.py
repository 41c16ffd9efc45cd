"""Player names in the Latin letters of the players' languages: Łucja, Győző, Ödön are
names; a name is stored in NFC (Unicode's canonical composition: o followed by U+030B
COMBINING DOUBLE ACUTE ACCENT is ő, U+0151); names are unique ignoring case and diacritics;
a letter of another script (Cyrillic а, U+0430, looks like a) is refused.  Migration 023
keys the names already there.  The code points are the Unicode Standard's, written here by
hand."""

import os
import subprocess
import uuid

from korp_client import Api

PASSWORD = "correct horse battery"


def suffix():
    return uuid.uuid4().hex[:6]


def sign_up(api, name, status=201, **extra):
    return api.call("POST", "/v1/players", json={"name": name, **extra}, expect=status)[1]


def test_latin_letters_of_the_players_languages(api):
    s = suffix()
    lucja = sign_up(api, f"Łucja_{s}")
    assert lucja["name"] == f"\u0141ucja_{s}"
    # Unique ignoring case and diacritics.
    for other in (f"lucja_{s}", f"ŁUCJA_{s}", f"Lučja_{s}", f"łucja_{s}"):
        err = sign_up(api, other, 409)
        assert (err["type"], err["reason"]) == ("/problems/conflict", "name-taken"), (other, err)
    # Sent decomposed, stored composed: G y o U+030B z o U+030B is Győző.
    gyozo = sign_up(api, f"Gyo\u030bzo\u030b_{s}")
    assert gyozo["name"] == f"Gy\u0151z\u0151_{s}"
    assert sign_up(api, f"gyozo_{s}", 409)["reason"] == "name-taken"
    # The names the generic input checks once refused: a Polish and a French word.
    for word in ("\u017c\u00f3\u0142w", "caf\u00e9"):
        assert sign_up(api, f"{word}_{s}")["name"] == f"{word}_{s}"
    odon = sign_up(api, f"Ödön_{s}")
    assert odon["name"] == f"\u00d6d\u00f6n_{s}"
    got = api.call("GET", "/v1/players/{id}", [odon["id"]], expect=200)[1]
    assert got["name"] == odon["name"]
    # Found by the start of the name, with or without the accents.
    for start in ("Öd", "od", "OD"):
        found = api.call("GET", "/v1/players", query={"name": f"{start}"}, expect=200)[1]
        assert odon["id"] in [p["id"] for p in found["players"]], (start, found)


def test_other_scripts_and_marks_refused(api):
    s = suffix()
    # Cyrillic а (U+0430) in a Latin name: a look-alike of "Łucja".
    err = sign_up(api, f"Łucj\u0430_{s}", 400)
    assert (err["type"], err["reason"]) == ("/problems/bad-request", "name-not-latin"), err
    assert sign_up(api, f"\u0410nna_{s}", 400)["reason"] == "name-not-latin"   # Cyrillic А
    assert sign_up(api, f"Anna\u2009{s}", 400)["reason"] == "name-not-latin"   # thin space
    # A combining mark with no letter to sit on, or none that composes.
    assert sign_up(api, f"\u0301Anna_{s}", 400)["reason"] == "name-invalid"
    assert sign_up(api, f"Anq\u030b_{s}", 400)["reason"] == "name-invalid"
    assert sign_up(api, "Ł", 400)["reason"] == "name-invalid"                  # one letter
    assert sign_up(api, "Ł" * 31, 400)["reason"] == "name-invalid"             # 31 letters
    assert sign_up(api, "Ł" + "ő" * 29)["name"] == "Ł" + "ő" * 29              # 30 letters


def test_sign_in_with_a_name_with_diacritics(api):
    name = f"Żaneta_{suffix()}"
    sign_up(api, name, password=PASSWORD)
    for written in (name, name.replace("Ż", "Z\u0307")):   # Z and U+0307 DOT ABOVE is Ż
        _, body = api.call("POST", "/v1/session", json={"name": written, "password": PASSWORD},
                           expect=200)
        assert body["player"]["name"] == name, body


def psql(pg, url, sql):
    return subprocess.run([os.path.join(pg.bin, "psql"), url, "-v", "ON_ERROR_STOP=1", "-X",
                           "-q", "-t", "-A", "-c", sql], check=True, capture_output=True,
                          text=True, timeout=60).stdout.strip()


def test_migration_keys_the_names_already_there(own_postgres, start_korpd):
    """A database at migration 021 with players: 023 keys them, their lower case."""
    pg = own_postgres
    url = pg.fresh_database("names")
    migrations = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "db",
                              "migrations")
    psql(pg, url, "CREATE TABLE schema_migrations (version integer PRIMARY KEY,"
                  " name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
    for f in sorted(os.listdir(migrations)):
        version = int(f.split("_", 1)[0])
        if version >= 23:
            continue
        subprocess.run([os.path.join(pg.bin, "psql"), url, "-v", "ON_ERROR_STOP=1", "-X", "-q",
                        "-1", "-f", os.path.join(migrations, f)], check=True,
                       capture_output=True, timeout=120)
        psql(pg, url, f"INSERT INTO schema_migrations (version, name) VALUES ({version},"
                      f" '{f[:-4]}')")
    psql(pg, url, "INSERT INTO players (id, name, created_at) VALUES"
                  " ('p1', 'Anna_K', now()), ('p2', 'bob-2', now())")
    k = start_korpd(url)
    assert psql(pg, url, "SELECT string_agg(name_key, ',' ORDER BY id) FROM players") == \
        "anna_k,bob-2"
    api = Api(k.base)
    for taken in ("anna_k", "ÁNNA_K", "Bob-2"):
        assert sign_up(api, taken, 409)["reason"] == "name-taken", taken
    assert sign_up(api, "Anna_Ł")["name"] == "Anna_Ł"
