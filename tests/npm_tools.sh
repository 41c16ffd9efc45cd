# tests/npm_tools.sh — sourced (sh) by the tests that run tools from
# node_modules: the OpenAPI lint and the browser tests.
#
# npm_tools_ready WHO PACKAGE...: in the current folder (the repository's
# root), runs `npm ci` when node_modules was never installed by it, is older
# than package-lock.json, or holds another version of a PACKAGE than
# package.json pins.  WHO names the caller in the line it prints.

npm_tools_stale() {
    # npm ci writes node_modules/.package-lock.json: it must be newer than the lock file.
    [ -f node_modules/.package-lock.json ] || return 0
    [ package-lock.json -nt node_modules/.package-lock.json ] && return 0
    for package in "$@"; do
        [ -f "node_modules/$package/package.json" ] || return 0
        node -e '
            const name = process.argv[1];
            const want = require("./package.json").devDependencies[name];
            const have = require(`./node_modules/${name}/package.json`).version;
            process.exit(want === have ? 0 : 1);
        ' "$package" || return 0
    done
    return 1
}

npm_tools_ready() {
    who=$1
    shift
    if npm_tools_stale "$@"; then
        echo "$who: installing the pinned tools (npm ci)" >&2
        npm ci --no-audit --no-fund >&2
    fi
}
