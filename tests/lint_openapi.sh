#!/bin/sh
# Lints openapi.yaml with the Redocly CLI pinned in package.json / package-lock.json.
# Installs it with `npm ci` when node_modules is missing or does not match the lock file.
# Exit status: 0 when the lint finds no error (warnings are printed), non-zero otherwise.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

stale() {
    # npm ci writes node_modules/.package-lock.json; it must be newer than the lock file
    # and the installed CLI must be the version package.json pins.
    [ -x node_modules/.bin/redocly ] || return 0
    [ -f node_modules/.package-lock.json ] || return 0
    [ package-lock.json -nt node_modules/.package-lock.json ] && return 0
    node -e '
        const want = require("./package.json").devDependencies["@redocly/cli"];
        const have = require("./node_modules/@redocly/cli/package.json").version;
        process.exit(want === have ? 0 : 1);
    ' || return 0
    return 1
}

if stale; then
    echo "lint_openapi: installing the pinned tools (npm ci)" >&2
    npm ci --no-audit --no-fund >&2
fi

exec node_modules/.bin/redocly lint openapi.yaml
