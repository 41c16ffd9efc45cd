#!/usr/bin/env python3
"""Reads korp's gettext catalogs (po/<lang>.po) and writes what korpd
embeds: one JSON object per language for the web pages ({msgid: text};
a text with plural forms, msgid_plural, is the list of its msgstr[i], and
the key "" holds the catalog's Plural-Forms), and a C table for the texts
korpd writes itself (emails: no plural forms).  Standard library only.  Untranslated and fuzzy entries are left out (the page and
the mail then show the English msgid; the completeness test fails on
them).

    catalog.py --json DIR  pl.po hu.po   writes DIR/pl.json, DIR/hu.json
    catalog.py --c FILE    pl.po hu.po   writes the C table
    catalog.py --check     pl.po ...     lists entries per file (a self-test)
"""
import json
import os
import sys

ESCAPES = {'n': '\n', 't': '\t', '"': '"', '\\': '\\', 'r': '\r'}


def unquote(text):
    """The value of one PO string literal, quotes included."""
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError('not a PO string: %r' % text)
    out, i, body = [], 0, text[1:-1]
    while i < len(body):
        c = body[i]
        if c == '\\' and i + 1 < len(body):
            out.append(ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def read_po(path, header=None):
    """[(msgid, msgstr, fuzzy)] of a PO file, the header and obsolete
    entries left out; msgstr is the list of the forms of an entry with
    msgid_plural.  The header's text goes to header['text'] when given."""
    entries = []
    cur = {'flags': '', 'msgid': None, 'msgstr': None, 'ctxt': None, 'plural': None,
           'forms': []}
    field = None

    def flush():
        if cur['msgid'] == '' and header is not None:
            header['text'] = cur['msgstr'] or ''
        if cur['msgid'] is not None and cur['msgid'] != '' and cur['ctxt'] is None:
            text = cur['forms'] if cur['plural'] is not None else cur['msgstr'] or ''
            entries.append((cur['msgid'], text, 'fuzzy' in cur['flags']))
        cur.update(flags='', msgid=None, msgstr=None, ctxt=None, plural=None, forms=[])

    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if line.startswith('#~') or not line.strip():
                if not line.strip() and cur['msgid'] is not None:
                    flush()
                field = None
                continue
            if line.startswith('#,'):
                if cur['msgstr'] is not None or cur['forms']:
                    flush()
                cur['flags'] += line[2:]
                continue
            if line.startswith('#'):
                continue
            if line.startswith('msgctxt '):
                if cur['msgstr'] is not None or cur['forms']:
                    flush()
                field = 'ctxt'
                cur['ctxt'] = unquote(line[8:])
            elif line.startswith('msgid_plural '):
                field = 'plural'
                cur['plural'] = unquote(line[13:])
            elif line.startswith('msgstr['):
                index, _, rest = line[7:].partition('] ')
                if int(index) != len(cur['forms']):
                    raise ValueError('%s: msgstr[%s] out of order' % (path, index))
                cur['forms'].append(unquote(rest))
                field = None
            elif line.startswith('msgid '):
                if cur['msgstr'] is not None or cur['forms']:
                    flush()
                field = 'msgid'
                cur['msgid'] = unquote(line[6:])
            elif line.startswith('msgstr '):
                field = 'msgstr'
                cur['msgstr'] = unquote(line[7:])
            elif line.startswith('"') and field:
                cur[field] += unquote(line)
            elif line.startswith('"') and cur['forms']:
                cur['forms'][-1] += unquote(line)
            else:
                raise ValueError('%s: cannot read %r' % (path, line))
    flush()
    return entries


def language_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def complete(text):
    """A translation with every form written."""
    return all(text) if isinstance(text, list) else bool(text)


def translated(path):
    return {m: s for m, s, fuzzy in read_po(path) if complete(s) and s and not fuzzy}


def plural_forms(path):
    """The Plural-Forms line of a catalog's header ('' when it has none)."""
    header = {}
    read_po(path, header)
    for line in header.get('text', '').split('\n'):
        if line.startswith('Plural-Forms:'):
            return line[len('Plural-Forms:'):].strip()
    return ''


def write_if_changed(path, text):
    try:
        with open(path, encoding='utf-8') as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def c_string(text):
    out = ['"']
    for b in text.encode('utf-8'):
        c = chr(b)
        if c in '"\\':
            out.append('\\' + c)
        elif c == '\n':
            out.append('\\n')
        elif 32 <= b < 127 and c != '?':
            out.append(c)
        else:
            out.append('\\%03o' % b)
    out.append('"')
    return ''.join(out)


def write_c(out, *paths):
    langs = [language_of(p) for p in paths]
    tables = [{m: s for m, s in translated(p).items() if isinstance(s, str)} for p in paths]
    msgids = sorted(set().union(*[t.keys() for t in tables]))
    lines = ['/* Generated from po/<lang>.po by po/catalog.py; do not edit. */',
             '#include "i18n.h"', '',
             'const char *const i18n_catalog_languages[] = { %s, NULL };' %
             ', '.join(c_string(l) for l in langs),
             'const size_t i18n_catalog_language_count = %d;' % len(langs), '',
             '/* Sorted by msgid (strcmp), one text per language (NULL: none). */',
             'const struct i18n_entry i18n_catalog[] = {']
    for m in msgids:
        texts = ', '.join(c_string(t[m]) if m in t else 'NULL' for t in tables)
        lines.append('    { %s, { %s } },' % (c_string(m), texts))
    lines += ['    { NULL, { NULL } },  /* not counted: keeps the array non-empty */',
              '};', 'const size_t i18n_catalog_count = %d;' % len(msgids), '']
    write_if_changed(out, '\n'.join(lines))


def write_json(outdir, *paths):
    """One JSON catalog per .po file, named by its language, in outdir."""
    os.makedirs(outdir, exist_ok=True)
    for p in paths:
        table = translated(p)
        table[''] = {'plural_forms': plural_forms(p)}
        text = json.dumps(table, ensure_ascii=False, sort_keys=True, indent=0)
        write_if_changed(os.path.join(outdir, language_of(p) + '.json'), text + '\n')


def check(*paths):
    """How many messages each .po file holds."""
    for p in paths:
        print(p, len(read_po(p)))


MODES = {'--json': write_json, '--c': write_c, '--check': check}


def main(argv):
    run = MODES.get(argv[1]) if len(argv) >= 3 else None
    if run is None:
        print(__doc__, file=sys.stderr)
        return 2
    run(*argv[2:])
    return 0

if __name__ == '__main__':
    sys.exit(main(sys.argv))
