/*
 * main.c — random-bot: a korp bot that plays random legal moves (or, with
 * --engine, korp's engine's moves at a level).
 *
 * It accepts every challenge made to it, follows its event stream
 * (GET /v1/events), and whenever it is its turn claims a draw if one is
 * claimable, resigns at a move cap, or plays a random move from
 * /legal-moves.  A starting point for real bots: see README.md.
 *
 * The loop: stream_run waits a moment for events and hands them to the bot,
 * which only takes note; bot_work then does what is due.  One thread, no
 * callbacks that call korpd.
 */
#include "bot.h"
#include "client.h"
#include "stream.h"
#ifdef RANDOM_BOT_ENGINE
#include "rules.h"
#endif

#include <curl/curl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 250

static const char usage[] =
    "usage: random-bot [OPTIONS] [URL [TOKEN]]\n"
    "\n"
    "Plays random legal moves on a korp server: accepts every challenge made\n"
    "to it, and in each of its games claims a draw when one is claimable,\n"
    "resigns at the move cap, or plays a random move (with --engine: the move\n"
    "korp's engine chooses).  Logs a line per action to stderr.\n"
    "\n"
    "  URL                 korpd's base URL (or KORP_URL; default\n"
    "                      http://127.0.0.1:8080)\n"
    "  TOKEN               the bot's token (or KORP_TOKEN, better: a command\n"
    "                      line is visible to other users)\n"
    "  --max-plies N       resign when it is our turn at ply N or later\n"
    "                      (default 400)\n"
    "  --games N           exit once N of our games have ended (default 0:\n"
    "                      run until stopped)\n"
    "  --seed N            seed of every random choice the bot makes: the\n"
    "                      moves and the jitter of its reconnection waits\n"
    "                      (0 to 2^53; default: a new one each run, logged)\n"
    "  --engine            choose moves with korp's engine instead (engine mode)\n"
    "  --level N           engine mode's strength, 1-10: depth 1-4 for levels\n"
    "                      1-4, then 250 ms per move doubling up to 8 s at 10;\n"
    "                      default: the number ending the account's name\n"
    "                      (korp-engine-3 plays level 3), else 7 (1 s)\n"
    "  --idle-timeout S    reconnect when the stream says nothing, not even a\n"
    "                      keep-alive, for S seconds (default 45)\n"
    "  --max-backoff S     longest wait between reconnection attempts\n"
    "                      (default 30)\n"
    "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 after --games games or on SIGINT/SIGTERM, 1 when korpd\n"
    "refuses the token or cannot be reached at start, 2 bad arguments.\n";

struct options {
    const char *url, *token;
    uint64_t seed;          /* from --seed, else drawn in seed_of_run */
    bool seeded;            /* --seed was given */
    struct bot_settings bot;
    struct stream_settings stream;
};

/* splitmix64: turns one seed into well-spread, distinct seeds, one per use. */
static uint64_t derived_seed(uint64_t seed, uint64_t use)
{
    uint64_t z = seed + use * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A seed for a run without --seed: the system's random source, else the clock
 * and the process id.  Kept below 2^53 so that --seed can repeat it. */
static uint64_t seed_of_run(void)
{
    uint64_t seed;
    if (getentropy(&seed, sizeof seed) != 0)
        seed = derived_seed((uint64_t)time(NULL), (uint64_t)getpid());
    return seed & ((1ULL << 53) - 1);
}

/* Reads a number in [min, max]; false if the text is not one. */
static bool number(const char *text, double min, double max, double *out)
{
    char *end = NULL;
    double v = text != NULL ? strtod(text, &end) : 0;
    if (text == NULL || end == text || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static int bad_usage(const char *what, const char *arg)
{
    fprintf(stderr, "random-bot: %s%s%s\n%s", what, arg != NULL ? ": " : "",
            arg != NULL ? arg : "", usage);
    return 2;
}

/* Fills o from argv and the environment; returns -1 to go on, else an exit status. */
static int parse(int argc, char **argv, struct options *o)
{
    /* The numeric options: name, bounds, where the value goes. */
    double max_plies = 400, games = 0, seed = -1, level = 0;
    double idle = 45, backoff = 30;
    const struct {
        const char *name;
        double min, max;
        double *value;
    } numeric[] = {
        { "--max-plies", 1, 100000, &max_plies },
        { "--games", 0, 1000000, &games },
        { "--seed", 0, 9007199254740992.0, &seed },
        { "--level", 1, BOT_LEVEL_MAX, &level },
        { "--idle-timeout", 1, 86400, &idle },
        { "--max-backoff", 0.1, 3600, &backoff },
        { NULL, 0, 0, NULL },
    };
    int positional = 0;

    o->url = getenv("KORP_URL");
    o->token = getenv("KORP_TOKEN");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool known = false;

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--engine") == 0) {
            o->bot.engine = true;
            continue;
        }
        for (int k = 0; numeric[k].name != NULL; k++) {
            size_t n = strlen(numeric[k].name);
            if (strncmp(a, numeric[k].name, n) != 0 || (a[n] != '\0' && a[n] != '='))
                continue;
            const char *value = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!number(value, numeric[k].min, numeric[k].max, numeric[k].value))
                return bad_usage("a number out of range or missing after", numeric[k].name);
            known = true;
        }
        if (known)
            continue;
        if (a[0] == '-')
            return bad_usage("unknown option", a);
        if (positional == 0)
            o->url = a;
        else if (positional == 1)
            o->token = a;
        else
            return bad_usage("too many arguments", a);
        positional++;
    }
    if (o->url == NULL || o->url[0] == '\0')
        o->url = "http://127.0.0.1:8080";
    if (o->token == NULL || o->token[0] == '\0')
        return bad_usage("no token: give TOKEN or set KORP_TOKEN", NULL);
    o->bot.max_plies = (int)max_plies;
    o->bot.games = (int)games;
    o->seeded = seed >= 0;
    o->seed = o->seeded ? (uint64_t)seed : seed_of_run();
    /* One seed for every random choice, split so that the moves and the
     * reconnection jitter draw from streams of their own. */
    o->bot.seed = derived_seed(o->seed, 1);
    o->stream.seed = derived_seed(o->seed, 2);
    o->bot.level = (int)level;
    if (o->bot.level != 0 && !o->bot.engine)
        return bad_usage("--level goes with --engine", NULL);
    if (o->bot.engine && !bot_engine_built())
        return bad_usage("--engine: this build has no engine (build it in korp's tree)", NULL);
    o->stream.idle_timeout = idle;
    o->stream.max_backoff = backoff;
    return -1;
}

/* Whether SIGINT or SIGTERM came (they are blocked and wait to be asked). */
static bool stop_asked(void)
{
    sigset_t pending;
    return sigpending(&pending) == 0 &&
           (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

int main(int argc, char **argv)
{
    struct options o;
    struct client *client = NULL;
    struct bot *bot = NULL;
    struct stream *stream = NULL;
    sigset_t signals;
    int rc;

    memset(&o, 0, sizeof o);
    if ((rc = parse(argc, argv, &o)) >= 0)
        return rc;
    rc = 1;
#ifdef RANDOM_BOT_ENGINE
    rules_init();
#endif
    /* Signals wait until the loop looks at them: a move is never cut in half. */
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        client_log("cannot initialise libcurl");
        return 1;
    }
    client = client_new(o.url, o.token);
    bot = client != NULL ? bot_new(client, &o.bot) : NULL;
    stream = bot != NULL ? stream_new(client_base(client), o.token, &o.stream, bot_on_event,
                                      bot)
                         : NULL;
    if (stream == NULL) {
        client_log("out of memory");
        goto done;
    }
    if (!bot_login(bot))
        goto done;
    client_log("max plies %d, %s, seed %llu%s", o.bot.max_plies,
               o.bot.games > 0 ? "stopping after the games asked for" : "running until stopped",
               (unsigned long long)o.seed, o.seeded ? " (--seed)" : "");
    for (;;) {
        enum bot_status st;
        if (stop_asked()) {
            client_log("stopping on a signal");
            rc = 0;
            break;
        }
        if (stream_run(stream, POLL_MS) == STREAM_FATAL)
            break;
        if (stream_take_fresh_start(stream))
            bot_catch_up(bot);
        st = bot_work(bot);
        if (st == BOT_FATAL)
            break;
        if (st == BOT_DONE) {
            client_log("%d game(s) ended; exiting", o.bot.games);
            rc = 0;
            break;
        }
    }
done:
    stream_free(stream);
    bot_free(bot);
    client_free(client);
    curl_global_cleanup();
    return rc;
}
