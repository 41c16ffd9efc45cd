#!/usr/bin/env bash
# scripts/test.sh — the whole test suite: installs what it needs, starts a
# throwaway PostgreSQL on a free loopback port, runs every test with ctest
# twice (a normal build, then clang with ASan+UBSan and the fuzz targets)
# and stops the server whatever happens.  KORP_TEST_SLOW=1 adds the slow
# tests (perft depth 4).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"

korp_install $KORP_PACKAGES $KORP_TEST_PACKAGES

TMP=$(mktemp -d /tmp/korp-test.XXXXXX)
chmod 755 "$TMP"
OWNER=$(korp_pg_owner)
[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$TMP"
cleanup() {
    korp_pg_stop "$TMP/pg" "$OWNER"
    rm -rf "$TMP"
}
trap cleanup EXIT

PORT=
for _ in 1 2 3 4 5 6 7 8; do
    candidate=$((20000 + RANDOM % 30000))
    port_in_use "$candidate" && continue
    rm -rf "$TMP/pg"
    korp_pg_init "$TMP/pg" "$OWNER" "$candidate"
    if korp_pg_start "$TMP/pg" "$OWNER"; then PORT=$candidate; break; fi
done
[ -n "$PORT" ] || die "could not start a throwaway PostgreSQL"
say "throwaway PostgreSQL on 127.0.0.1:$PORT"

LABELS=(-LE slow)
[ "${KORP_TEST_SLOW:-0}" = 1 ] && LABELS=()

run_suite() {
    local dir=$1 db=$2; shift 2
    say "building $dir ($*)"
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$(nproc)" >/dev/null
    korp_pg_createdb "$PORT" "$db"
    say "testing $dir"
    KORP_TEST_DATABASE_URL="postgresql://korp@127.0.0.1:$PORT/$db" \
        ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "${LABELS[@]}"
}

run_suite build-test korp_test -DCMAKE_BUILD_TYPE=Release
run_suite build-asan korp_test_asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKORP_SANITIZE=ON -DKORP_FUZZ=ON
