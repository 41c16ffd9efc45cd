#!/usr/bin/env bash
# scripts/i18n-extract.sh — gathers every text korp shows people into the
# template po/korp.pot and merges it into each language's catalog
# (po/<lang>.po) with msgmerge: new texts arrive untranslated, changed ones
# fuzzy, gone ones obsolete (#~).  Then translate what msgfmt --statistics
# counts as untranslated or fuzzy (docs/translating.md).
#
# The texts: t('...') and tn('...', '...', n) (plural forms) in web/assets/*.js and N_("...") in the C sources
# that write to people (notify/ for the emails).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xgettext --language=JavaScript --keyword= --keyword=t --keyword=tn:1,2 --from-code=UTF-8 \
    --add-location=file --sort-by-file --package-name=korp --msgid-bugs-address=korp --force-po \
    --output="$tmp/web.pot" web/assets/*.js
xgettext --language=C --keyword= --keyword=N_ --from-code=UTF-8 \
    --add-location=file --sort-by-file --package-name=korp --msgid-bugs-address=korp --force-po \
    --output="$tmp/c.pot" notify/*.c
msgcat --use-first --sort-by-file "$tmp/web.pot" "$tmp/c.pot" --output="$tmp/korp.pot"
# The msgids are English: the template's plural rule is English's (msgfmt --check
# refuses xgettext's placeholder "nplurals=INTEGER").
sed -i 's/nplurals=INTEGER; plural=EXPRESSION;/nplurals=2; plural=(n != 1);/' "$tmp/korp.pot"
# The creation date changes on every run; keep the file still when only it did.
if [ -f po/korp.pot ] && diff -q -I '^"POT-Creation-Date:' po/korp.pot "$tmp/korp.pot" >/dev/null; then
    :
else
    cp "$tmp/korp.pot" po/korp.pot
fi
for po in po/*.po; do
    msgmerge --quiet --update --backup=none --sort-by-file "$po" po/korp.pot
    printf '%s: ' "$po"
    msgfmt --check --statistics --output-file=/dev/null "$po"
done
