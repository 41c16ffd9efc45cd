#!/usr/bin/env python3
"""korp's translations are complete and well-formed.

    check_catalogs.py REPO

1. `msgfmt --check` accepts po/korp.pot and every po/<lang>.po.
2. Every text a person is shown -- each t('...') and tn('...', '...', n) in
   web/assets/*.js and each
   N_("...") in notify/*.c, gathered with xgettext as scripts/i18n-extract.sh
   does -- has a non-empty, non-fuzzy translation in every language, with the
   same {placeholders}; a text with plural forms has all the forms its
   catalog's Plural-Forms counts (nplurals).  A new text without its translations fails here: run
   scripts/i18n-extract.sh and translate (docs/translating.md).
3. po/korp.pot lists exactly those texts (the template is up to date).
4. No page module calls t() with something xgettext cannot read (a template
   literal or a variable): such a text would never reach the catalogs.
Standard library and GNU gettext only.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

LANGUAGES = ("pl", "hu")


def main(repo):
    sys.path.insert(0, os.path.join(repo, "po"))
    import catalog  # po/catalog.py: the same reader the build uses

    failures = []
    po_dir = os.path.join(repo, "po")
    for name in ["korp.pot"] + [f"{l}.po" for l in LANGUAGES]:
        path = os.path.join(po_dir, name)
        r = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"msgfmt --check {name}: {r.stderr.strip()}")
        else:
            print(f"{name}: {r.stderr.strip()}")

    js = sorted(glob.glob(os.path.join(repo, "web", "assets", "*.js")))
    cs = sorted(glob.glob(os.path.join(repo, "notify", "*.c")))
    with tempfile.TemporaryDirectory() as tmp:
        web_pot, c_pot = os.path.join(tmp, "web.pot"), os.path.join(tmp, "c.pot")
        subprocess.run(["xgettext", "--language=JavaScript", "--keyword=", "--keyword=t",
                        "--keyword=tn:1,2", "--from-code=UTF-8", "--force-po", "-o", web_pot] + js, check=True)
        subprocess.run(["xgettext", "--language=C", "--keyword=", "--keyword=N_",
                        "--from-code=UTF-8", "--force-po", "-o", c_pot] + cs, check=True)
        wanted = {m for p in (web_pot, c_pot) for m, _, _ in catalog.read_po(p)}
    print(f"{len(wanted)} texts in the sources")
    if len(wanted) < 400:
        failures.append(f"only {len(wanted)} texts found: is xgettext reading the sources?")

    template = {m for m, _, _ in catalog.read_po(os.path.join(po_dir, "korp.pot"))}
    for m in sorted(wanted - template):
        failures.append(f"po/korp.pot lacks {m!r} (run scripts/i18n-extract.sh)")
    for m in sorted(template - wanted):
        failures.append(f"po/korp.pot has {m!r}, which no source uses any more")

    for lang in LANGUAGES:
        path = os.path.join(po_dir, f"{lang}.po")
        entries = {m: (s, fuzzy) for m, s, fuzzy in catalog.read_po(path)}
        counted = re.search(r"nplurals\s*=\s*(\d+)", catalog.plural_forms(path))
        nplurals = int(counted.group(1)) if counted else 0
        for m in sorted(wanted):
            s, fuzzy = entries.get(m, ("", False))
            forms = s if isinstance(s, list) else [s]
            if not catalog.complete(s) or not s:
                failures.append(f"{lang}.po: no translation of {m!r}")
            elif fuzzy:
                failures.append(f"{lang}.po: the translation of {m!r} is fuzzy")
            elif isinstance(s, list) and len(s) != nplurals:
                failures.append(f"{lang}.po: {m!r} has {len(s)} forms, not {nplurals}")
            elif any(set(re.findall(r"\{\w+\}", f)) != set(re.findall(r"\{\w+\}", m))
                     for f in forms):
                failures.append(f"{lang}.po: {m!r} and {s!r} name different placeholders")

    # t( followed by something other than a string literal.
    for path in js:
        if os.path.basename(path) == "i18n.js":
            continue
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            for m in re.finditer(r"(?<![\w.$])tn?\(\s*([^\s)])", line):
                if m.group(1) not in "'\"":
                    failures.append(f"{os.path.relpath(path, repo)}:{n}: t() of something "
                                    f"xgettext cannot read: {line.strip()[:80]}")

    for f in failures:
        print("FAIL:", f)
    print("catalogs complete" if not failures else f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
