/*
 * korp.c — the korp command-line tool: argument parsing and dispatch.
 * The output formats are a public contract for scripts; keep them stable.
 */
#include "korp_int.h"

#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: korp COMMAND [--variant korpalski|glinski] ...\n"
    "\n"
    "commands:\n"
    "  perft [--divide] DEPTH [FEN]  leaf count of the legal move tree; the last\n"
    "                                line is the count alone\n"
    "  replay [--pgn] [FILE]         replays a game (PGN or movetext) from FILE or\n"
    "                                stdin: '<ply> <SAN> <FEN>' per ply, then\n"
    "                                'result <R> <termination>'; --pgn writes the\n"
    "                                checked game as PGN instead\n"
    "  analyse [--ply N | --every-ply] [--engine [--depth N | --movetime MS] [--multipv N]]\n"
    "          [FILE | FEN]          for an arbiter: replays a game record (as\n"
    "                                replay reads it) and prints, for the final\n"
    "                                position, ply N or every ply (or for a FEN),\n"
    "                                one JSON object: halfmove clock, fifty-move\n"
    "                                and threefold claimable, earlier plies of the\n"
    "                                position, material; --engine adds the\n"
    "                                engine's score (from White's point of view)\n"
    "                                and best line (default --depth 6)\n"
    "  status [FEN]                  the position's status as one JSON object\n"
    "  moves [FEN]                   the legal moves, one per line: 'UCI SAN'\n"
    "  uci                           the engine over the UCI protocol on stdin and\n"
    "                                stdout (UCI_Variant korpalski or glinski)\n"
    "\n"
    "FEN defaults to the variant's start position; the variant defaults to\n"
    "korpalski (replay: the PGN Variant tag).  Exit status: 0 success, 1 an\n"
    "illegal or unreadable move in a game, 2 bad arguments or position.\n";

static const struct {
    const char *name;
    int (*run)(const struct korp_args *);
} commands[] = {
    { "perft", korp_perft },
    { "replay", korp_replay },
    { "status", korp_status },
    { "moves", korp_moves },
    { "analyse", korp_analyse },
    { "analyze", korp_analyse },
    { "uci", korp_uci },
    { "glicko2", korp_glicko2 },
    { NULL, NULL },
};

static int bad_usage(const char *what, const char *arg)
{
    fprintf(stderr, "korp: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", usage);
    return 2;
}

/* Whether `a` is the option `name`, alone or as name=value. */
static bool is_option(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* The value of the option `a` (is_option): after its '=', or else the next
 * argument, which it consumes; NULL when there is none. */
static const char *option_value(const char *a, int argc, char **argv, int *i)
{
    const char *eq = strchr(a, '=');
    if (eq != NULL)
        return eq + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

int main(int argc, char **argv)
{
    struct korp_args args = { .stop_ply = -1 };
    size_t used = 0;
    int cmd = -1;

    rules_init();
    if (argc < 2)
        return bad_usage("missing command", NULL);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    for (int i = 0; commands[i].name != NULL; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            cmd = i;
    if (cmd < 0)
        return bad_usage("unknown command", argv[1]);
    /* glicko2 reads its own arguments (numbers, opponents, --tau). */
    if (commands[cmd].run == korp_glicko2) {
        args.raw = argv + 2;
        args.raw_count = argc - 2;
        return commands[cmd].run(&args);
    }

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        long v;
        if (is_option(a, "--variant")) {
            const char *name = option_value(a, argc, argv, &i);
            if (name == NULL)
                return bad_usage("--variant needs a name", NULL);
            args.variant = rules_variant_find(name);
            if (args.variant == NULL)
                return bad_usage("unknown variant", name);
        } else if (strcmp(a, "--divide") == 0 && cmd == 0) {
            args.divide = true;
        } else if (strcmp(a, "--pgn") == 0 && cmd == 1) {
            args.pgn = true;
        } else if (is_option(a, "--ply") && commands[cmd].run == korp_analyse) {
            const char *n = option_value(a, argc, argv, &i);
            if (!korp_number(n, 0, 1000000, &v))
                return bad_usage("--ply needs a ply number (0 or more)", n);
            args.stop_ply = (int)v;
        } else if (commands[cmd].run == korp_analyse && strcmp(a, "--every-ply") == 0) {
            args.every_ply = true;
        } else if (commands[cmd].run == korp_analyse && strcmp(a, "--engine") == 0) {
            args.engine = true;
        } else if (commands[cmd].run == korp_analyse && is_option(a, "--multipv")) {
            const char *n = option_value(a, argc, argv, &i);
            if (!korp_number(n, 1, 16, &v))
                return bad_usage("--multipv needs a number of lines (1 to 16)", n);
            args.engine_multipv = (int)v;
        } else if (commands[cmd].run == korp_analyse &&
                   (is_option(a, "--depth") || is_option(a, "--movetime"))) {
            bool depth = a[2] == 'd';
            const char *n = option_value(a, argc, argv, &i);
            if (!korp_number(n, 1, depth ? ENGINE_MAX_PLY - 1 : 86400000, &v))
                return bad_usage(depth ? "--depth needs a depth (1 to 127)"
                                       : "--movetime needs milliseconds (1 or more)", n);
            if (depth)
                args.engine_depth = (int)v;
            else
                args.engine_movetime = (int)v;
        } else if (strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (a[0] == '-' && a[1] == '-') {
            return bad_usage("unknown option", a);
        } else {
            size_t n = strlen(a);
            if (args.operand_count == (int)(sizeof args.operands / sizeof *args.operands) ||
                used + n + 2 > sizeof args.position)
                return bad_usage("too many arguments", NULL);
            args.operands[args.operand_count++] = a;
            /* A FEN may come as one quoted word or as several words. */
            if (cmd != 0 || args.operand_count > 1) {
                if (used > 0)
                    args.position[used++] = ' ';
                memcpy(args.position + used, a, n + 1);
                used += n;
            }
        }
    }
    if ((args.engine_depth || args.engine_movetime) && !args.engine)
        return bad_usage("--depth and --movetime go with --engine", NULL);
    if (args.every_ply && args.stop_ply >= 0)
        return bad_usage("--ply and --every-ply exclude each other", NULL);
    return commands[cmd].run(&args);
}
