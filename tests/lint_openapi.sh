#!/bin/sh
# Lints openapi.yaml with the Redocly CLI pinned in package.json / package-lock.json.
# Installs it with `npm ci` when node_modules is missing or does not match the lock file.
# Exit status: 0 when the lint finds no error (warnings are printed), non-zero otherwise.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. "$root/tests/npm_tools.sh"
npm_tools_ready lint_openapi @redocly/cli

exec node_modules/.bin/redocly lint openapi.yaml
