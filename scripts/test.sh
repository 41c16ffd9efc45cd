#!/usr/bin/env bash
# scripts/test.sh — the whole test suite: installs what it needs, starts a
# throwaway PostgreSQL on a free loopback port, runs every test with ctest
# twice (a normal build, then clang with ASan+UBSan and the fuzz targets;
# the script tests, labels "scripts" and "ha", only in the first) and stops the
# server whatever happens.  KORP_TEST_SLOW=1 adds the slow tests (perft
# depth 4).  The last line printed is a ctest summary line: both suites'
# summaries are repeated at the end, a failing one last.
# While working on one part: KORP_TEST_ONLY=REGEX runs only the tests whose
# names match (ctest -R), and KORP_TEST_ASAN=0 skips the sanitizer build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"

korp_install $KORP_PACKAGES $KORP_TEST_PACKAGES
# The OpenAPI lint runs on Node; a machine may have its own Node and npm already.
command -v npm >/dev/null || korp_install nodejs npm

TMP=$(mktemp -d /tmp/korp-test.XXXXXX)
chmod 755 "$TMP"
OWNER=$(korp_pg_owner)
[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$TMP"
cleanup() {
    korp_pg_stop "$TMP/pg" "$OWNER"
    rm -rf "$TMP"
}
trap cleanup EXIT

korp_pg_throwaway "$TMP/pg" "$OWNER"
PORT=$KORP_PG_PORT_FOUND
korp_pg_role "$TMP/pg" "$OWNER" "$PORT"
say "throwaway PostgreSQL on 127.0.0.1:$PORT (role $KORP_PG_USER, password in $TMP/korp.pgpass)"
# The tests connect as korp; libpq finds the password here.
export PGPASSFILE=$TMP/korp.pgpass

SLOW=slow
[ "${KORP_TEST_SLOW:-0}" = 1 ] && SLOW=

FAILED=0
PASSED_LINES=() FAILED_LINES=()
# run_suite DIR DATABASE EXCLUDED-LABELS CMAKE-ARGS...
run_suite() {
    local dir=$1 db=$2 exclude=$3 rc=0 summary; shift 3
    local log=$TMP/ctest-$dir.log
    say "building $dir ($*)"
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$(nproc)" >/dev/null
    korp_pg_createdb "$TMP/pg" "$PORT" "$db"
    # A test database: every session on it, each korpd's and the tests' own,
    # reads the test clock (korp_now(), db/functions.sql).
    korp_pg_admin "$TMP/pg" "$PORT" -d "$db" -c "ALTER DATABASE \"$db\" SET korp.test_clock = on" >/dev/null
    say "testing $dir"
    KORP_TEST_DATABASE_URL="postgresql://$KORP_PG_USER@127.0.0.1:$PORT/$db" \
        ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" ${exclude:+-LE "$exclude"} ${KORP_TEST_ONLY:+-R "$KORP_TEST_ONLY"} \
        2>&1 | tee "$log" || rc=$?
    summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
    if [ "$rc" = 0 ] && [ -n "$summary" ]; then
        PASSED_LINES+=("$summary")
    else
        FAILED=1
        FAILED_LINES+=("${summary:-error: ctest in $dir failed without a summary line (exit $rc)}")
    fi
}

run_suite build-test korp_test "$SLOW" -DCMAKE_BUILD_TYPE=Release
[ "${KORP_TEST_ASAN:-1}" = 0 ] || run_suite build-asan korp_test_asan "${SLOW:+$SLOW|}scripts|ha" -DCMAKE_C_COMPILER=clang \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKORP_SANITIZE=ON -DKORP_FUZZ=ON

say "summary: build-test, build-asan (a failing suite last)"
for line in "${PASSED_LINES[@]}" "${FAILED_LINES[@]}"; do printf '%s\n' "$line"; done
exit "$FAILED"
