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

stale() {
    [ -f node_modules/playwright-core/package.json ] || return 0
    [ -f node_modules/.package-lock.json ] || return 0
    [ package-lock.json -nt node_modules/.package-lock.json ] && return 0
    node -e '
        const want = require("./package.json").devDependencies["playwright-core"];
        const have = require("./node_modules/playwright-core/package.json").version;
        process.exit(want === have ? 0 : 1);
    ' || return 0
    return 1
}
if stale; then
    echo "web tests: installing the pinned tools (npm ci)" >&2
    npm ci --no-audit --no-fund >&2
fi

mkdir -p "$out"
export KORPD="$korpd" KORP_WEB_OUT="$out" CHROMIUM="$chromium"
if [ $# -gt 2 ]; then
    shift 2
    exec node --test "$@"
fi
exec node --test tests/web/
