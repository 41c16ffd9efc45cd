/*
 * test_notify_clock — the turn email of a game with a Fischer clock tells
 * the player the time on their clock (issue 18); other clocks do not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "notify_mail.h"

/* 2026-11-25T13:45:00Z (`date -u -d @1795614300`). */
#define DEADLINE_TEXT "2026-11-25T13:45:00Z"
#define DEADLINE_UNIX 1795614300LL

static struct notify_about your_move(void)
{
    return (struct notify_about){
        .kind = NOTIFY_YOUR_MOVE,
        .variant = "glinski",
        .game_id = "aZ3kP9qw",
        .player_name = "bob",
        .opponent_name = "alice",
        .my_color = "black",
        .ply = 1,
        .last_san = "f5",
        .deadline = DEADLINE_TEXT,
        .now = DEADLINE_UNIX - 3 * 86400,
        .status = "active",
        .result = "*",
        .game_url = "https://korp.example/games/aZ3kP9qw",
        .settings_url = "https://korp.example/settings/notifications",
    };
}

static void test_fischer_time_in_the_turn_email(void **state)
{
    struct notify_about a = your_move();
    struct base_err err = { "" };
    char subject[NOTIFY_SUBJECT_MAX];
    char *body = NULL;
    (void)state;

    /* Three days: 259 200 s, shown as days like the deadline's "in ..." words. */
    a.fischer = true;
    a.my_time = 3 * 86400;
    assert_true(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(body, "\nTime on your clock: 3 days (Fischer).\n"));
    assert_non_null(strstr(body, "Your deadline: Wednesday 25 November 2026, 13:45 UTC "
                                 "(in 3 days).\n"));
    free(body);

    /* Five hours and a half: rounded to the hour, as the deadline's words are. */
    a.my_time = 5 * 3600 + 1799;
    assert_true(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(body, "\nTime on your clock: 5 hours (Fischer).\n"));
    free(body);

    /* Days per move (or no clock): the deadline only. */
    a.fischer = false;
    assert_true(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_null(strstr(body, "Time on your clock"));
    assert_non_null(strstr(body, "Your deadline:"));
    free(body);

    /* Not in mails that show no deadline (a game's end). */
    a.fischer = true;
    a.kind = NOTIFY_GAME_END;
    a.status = "finished";
    a.result = "1-0";
    a.termination = "timeout";
    assert_true(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_null(strstr(body, "Time on your clock"));
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fischer_time_in_the_turn_email),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
