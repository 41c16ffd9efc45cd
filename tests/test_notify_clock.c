/*
 * test_notify_clock — the turn email of a game with a Fischer clock tells
 * the player the time on their clock; other clocks do not.
 */
#include <stdlib.h>
#include <string.h>

#include "notify_test.h"

/* bob's turn as Black in a Glinski game after White's f5, three days before
 * his deadline. */
static struct notify_about your_move(void)
{
    struct notify_about a = notify_test_about(NOTIFY_YOUR_MOVE);
    a.variant = "glinski";
    a.my_color = "black";
    a.ply = 1;
    a.last_san = "f5";
    a.last_uci = NULL;
    a.last_polish = NULL;
    a.now = DEADLINE_UNIX - 3 * 86400;
    a.result = "*";
    a.termination = NULL;
    return a;
}

static void test_fischer_time_in_the_turn_email(void **state)
{
    struct notify_about a = your_move();
    char subject[NOTIFY_SUBJECT_MAX];
    char *body = NULL;
    (void)state;

    /* Three days: 259 200 s, shown as days like the deadline's "in ..." words. */
    a.fischer = true;
    a.my_time = 3 * 86400;
    body = notify_test_text(&a, subject);
    assert_non_null(strstr(body, "\nTime on your clock: 3 days (Fischer).\n"));
    assert_non_null(strstr(body, "Your deadline: Wednesday 25 November 2026, 13:45 UTC "
                                 "(in 3 days).\n"));
    free(body);

    /* Five hours and a half: rounded to the hour, as the deadline's words are. */
    a.my_time = 5 * 3600 + 1799;
    body = notify_test_text(&a, subject);
    assert_non_null(strstr(body, "\nTime on your clock: 5 hours (Fischer).\n"));
    free(body);

    /* Days per move (or no clock): the deadline only. */
    a.fischer = false;
    body = notify_test_text(&a, subject);
    assert_null(strstr(body, "Time on your clock"));
    assert_non_null(strstr(body, "Your deadline:"));
    free(body);

    /* Not in mails that show no deadline (a game's end). */
    a.fischer = true;
    a.kind = NOTIFY_GAME_END;
    a.status = "finished";
    a.result = "1-0";
    a.termination = "timeout";
    body = notify_test_text(&a, subject);
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
