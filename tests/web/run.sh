#!/bin/sh
# Runs the browser tests (tests/web/*.test.mjs) with node's test runner:
# Debian's chromium driven by the playwright-core pinned in package.json,
# against a korpd of its own and a throwaway PostgreSQL.
#   tests/web/run.sh KORPD [OUTPUT_DIR [FILE...]]
# OUTPUT_DIR receives the screenshots (default: $TMPDIR/korp-web-output).
# FILEs: run these test files instead of every tests/web/*.test.mjs (the
# languages' tests, tests/web/languages.i18n.mjs, are a ctest test of their own).
# Installs node_modules with `npm ci` when it is missing or stale.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
korpd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-${TMPDIR:-/tmp}/korp-web-output}
cd "$root"

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "web tests: $chromium is missing (Debian package: chromium)" >&2
    exit 1
fi

. "$root/tests/npm_tools.sh"
npm_tools_ready "web tests" playwright-core

mkdir -p "$out"
export KORPD="$korpd" KORP_WEB_OUT="$out" CHROMIUM="$chromium"
if [ $# -gt 2 ]; then
    shift 2
    exec node --test "$@"
fi
exec node --test tests/web/
