/* api_int.h — what the files of api/ share. */
#ifndef KORP_API_INT_H
#define KORP_API_INT_H

#include "api.h"
#include "base.h"
#include "db.h"
#include "games.h"

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Largest request body accepted. */
#define API_BODY_LIMIT (64 * 1024)
/* Deepest nesting of JSON accepted in a body. */
#define API_JSON_DEPTH_LIMIT 8
/* Path parameters a route pattern may capture, and their longest text. */
#define API_MAX_PARAMS 2
#define API_PARAM_MAX 64
/* Connections (event streams included) one korpd holds at most; korpd
 * raises its descriptor limit to match where it may. */
#define API_CONNECTION_LIMIT 20000
/* Bytes of libmicrohttpd's pool per connection (request headers included). */
#define API_CONNECTION_MEMORY (16 * 1024)
/* Longest X-Request-Id taken from a client (longer ones are replaced). */
#define API_REQUEST_ID_MAX 64
/* libmicrohttpd's threads at most: they read and write sockets, the
 * request workers (api_jobs.c) run the handlers, but for quick reads
 * (API_QUICK) when they can be answered at once. */
#define API_IO_THREADS 4
/* The Content-Security-Policy of korpd's HTML pages: nothing from other
 * origins, no inline script or style, never inside a frame. */
#define API_PAGE_CSP                                                                   \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "  \
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "      \
    "form-action 'self'; frame-ancestors 'none'"
/* The web board's session cookie. */
#define API_SESSION_COOKIE "korp_session"
/* How often the head-deadline sweep looks at connections, in ms. */
#define API_SWEEP_MS 250
/* Seconds a client is told to wait after a 503. */
#define API_RETRY_AFTER "2"

/* Per-route needs, checked before the handler runs. */
enum {
    API_JSON_BODY = 1 << 0,    /* the body must be a JSON object: req->json */
    API_TOKEN = 1 << 1,        /* a valid bearer token: req->caller */
    API_ARBITER = 1 << 2,      /* ... of an arbiter (with API_TOKEN) */
    API_TEST_CLOCK = 1 << 3,   /* exists only with KORP_TEST_CLOCK=1 */
    API_UNLIMITED = 1 << 4,    /* not rate-limited (health, metrics, the web board) */
    API_FILE_PATH = 1 << 5,    /* its parameter is a file path, not an id */
    API_QUICK = 1 << 6,        /* one short read: may be answered on the HTTP
                                  thread (api_jobs.c) */
};

/* A file of the web board, embedded at build time (api_web_files.c). */
struct api_web_file {
    const char *path;                /* under web/, e.g. "assets/board.js" */
    const unsigned char *data;
    size_t size;
    const char *etag;                /* quoted */
};
extern const struct api_web_file api_web_files[];

struct api_hub;
struct api_metrics;
struct api_limits;
struct api_addr_list;
struct api_analysis;
struct games_result;

/* One request, from first call of the access handler to completion. */
struct api_request {
    const struct api_config *config;
    struct api_hub *hub;                        /* the server's event streams */
    struct api_metrics *metrics;                /* the server's counters */
    struct api_limits *limits;                  /* the server's rate limits */
    const struct api_addr_list *trusted;        /* KORP_TRUSTED_PROXIES */
    const struct api_addr_list *metrics_allow;  /* KORP_METRICS_ALLOW */
    char csrf[64];                              /* the session's, when by_session */
    int retry_after;                            /* seconds, for a 429 */
    int route_index;                            /* in the route table, or -1 */
    struct MHD_Connection *conn;
    const char *method;
    const char *path;
    char *body;
    size_t body_len;
    bool body_too_large;
    bool replied;                               /* a response is queued */
    char params[API_MAX_PARAMS][API_PARAM_MAX + 1];  /* {name} captures, in order */
    cJSON *json;                                /* the parsed body (API_JSON_BODY) */
    bool authenticated;
    struct db_caller caller;                    /* valid when authenticated */
    /* For the access log: the route's pattern ("-" for none), the status
     * answered, when the request began, and its id (X-Request-Id). */
    const char *route;
    unsigned status;
    int64_t started_us;
    char request_id[API_REQUEST_ID_MAX + 1];
    struct api_analysis *analysis;              /* the server's engine searches */
    /* Run by a request worker (api_jobs.c): while deferred, api_reply keeps
     * the answer here, and the HTTP thread queues it once job_done. */
    bool deferred, job_done;
    unsigned answer_status;
    struct MHD_Response *answer;
    struct api_request *job_next;               /* the workers' queue */
};

typedef enum MHD_Result (*api_handler)(struct api_request *req);

/* The kinds of problem korpd answers with: one row each in api_reply.c. */
enum api_problem {
    API_PROBLEM_NOT_FOUND = 0,
    API_PROBLEM_METHOD_NOT_ALLOWED,
    API_PROBLEM_BODY_TOO_LARGE,
    API_PROBLEM_BAD_REQUEST,
    API_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    API_PROBLEM_UNAVAILABLE,
    API_PROBLEM_INTERNAL,
    API_PROBLEM_UNAUTHORIZED,
    API_PROBLEM_FORBIDDEN,
    API_PROBLEM_CONFLICT,
    API_PROBLEM_NOT_YOUR_TURN,
    API_PROBLEM_GAME_OVER,
    API_PROBLEM_PLY_MISMATCH,
    API_PROBLEM_ILLEGAL_MOVE,
    API_PROBLEM_DRAW_NOT_ALLOWED,
    API_PROBLEM_TOO_MANY_REQUESTS,
    API_PROBLEM_INVALID_WEBHOOK_URL,
    API_PROBLEM_INVALID_VALUE,
    API_PROBLEM_NOT_IMPLEMENTED,
    API_PROBLEM_CONDITIONAL_CONFLICT,   /* lines answer one move differently */
    API_PROBLEM_LEAVE_EXCEEDED,
    API_PROBLEM_EVENTS_PRUNED,
    API_PROBLEM_ANALYSIS_OWN_GAME,  /* the asker plays that game */
    API_PROBLEM_COUNT
};

/* The kinds of JSON value a body field may hold. */
enum api_type {
    API_STRING = 0,
    API_INTEGER,
    API_BOOLEAN,
    API_LIST,        /* an array of strings; min and max bound its length */
    API_OBJECT,      /* an object, checked by the handler */
    API_TEXT,        /* a string people read, on one line (base_text_fit) */
    API_LINES,       /* the same, newlines allowed */
};

/*
 * One field of a request body: its name, its type, whether it is required
 * and whether null is allowed; max is the longest string in bytes, or the
 * largest integer (min the smallest).  Tables end with a NULL name.
 */
struct api_field {
    const char *name;
    enum api_type type;
    bool required;
    bool nullable;
    long min, max;
};

/*
 * Checks req->json against the fields: no unknown member, every required
 * one present, each of its type and within its bounds.  Replies 400 and
 * returns false otherwise.
 */
bool api_body_check(struct api_request *req, const struct api_field *fields,
                    enum MHD_Result *replied);

/* The string (NULL when absent or null), integer or boolean of a field
 * that api_body_check accepted. */
const char *api_body_string(struct api_request *req, const char *name);
long api_body_integer(struct api_request *req, const char *name, long fallback, bool *is_null);
bool api_body_boolean(struct api_request *req, const char *name, bool fallback);

/* Queues resp (NULL: fails the connection) and releases it. */
enum MHD_Result api_reply(struct api_request *req, unsigned status,
                          struct MHD_Response *resp);

/* Replies with an answer already written out: JSON, or problem+json for a
 * status of 400 or more (takes body, malloc'd; NULL fails the reply). */
enum MHD_Result api_reply_stored(struct api_request *req, unsigned status, char *body);

/* Replies with a JSON body; takes ownership of json. */
enum MHD_Result api_reply_json(struct api_request *req, unsigned status, cJSON *json);

/*
 * Replies with an RFC 9457 problem of that kind; detail is printf-style
 * and says what was wrong and how to fix it.  Adds the headers the status
 * needs (Retry-After for 503).
 */
#define api_fail(req, problem, ...) api_fail_reason(req, problem, NULL, __VA_ARGS__)
/* The same with a `reason` code finer than the problem's type (a page says it translated;
 * NULL: the type's own). */
enum MHD_Result api_fail_reason(struct api_request *req, enum api_problem problem,
                                const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The problem response itself, for callers that add headers first. */
struct MHD_Response *api_problem_response(enum api_problem problem, const char *detail,
                                          unsigned *status);

/* The HTTP status of a kind of problem. */
unsigned api_problem_status(enum api_problem problem);

/* A problem object to add members to before api_reply_problem. */
cJSON *api_problem_new(enum api_problem problem, const char *detail);

/* Replies with a problem object made by api_problem_new (takes it). */
enum MHD_Result api_reply_problem(struct api_request *req, enum api_problem problem,
                                  cJSON *json);

/*
 * Replies to a failed database call: 503 (with Retry-After) when it is
 * worth retrying, 500 otherwise.  err (libpq's words) goes to the log,
 * never to the client.
 */
enum MHD_Result api_fail_db(struct api_request *req, enum db_status status, const char *err);

/*
 * Replies to a request that ran out of memory: 503 with Retry-After (the
 * shortage may pass), logged.  When even that cannot be written, the
 * connection is closed.
 */
enum MHD_Result api_fail_oom(struct api_request *req);

/* Routes cJSON's allocations through api_reply.c, which notices a failed
 * one (call once before threads start); api_json_watch starts watching
 * for the request about to be handled on this thread. */
void api_json_init(void);
void api_json_watch(void);

/* Finds the route, checks its needs, runs it; replies 404/405/4xx itself. */
enum MHD_Result api_route(struct api_request *req);
/* Whether a request is answered on libmicrohttpd's thread (the web board's
 * files), not by a request worker.  (A body refused for its size is
 * answered there too, at the head, before any worker could take it.) */
bool api_route_inline(const struct api_request *req);
/* Whether the request is for a route of one short read (API_QUICK). */
bool api_route_quick(struct api_request *req);

/* The request workers (api_jobs.c).  api_jobs_push suspends the request's
 * connection and queues it; a worker routes it and resumes the connection.
 * It returns false, touching nothing, once api_jobs_stop has begun, which
 * answers what is queued and ends the workers (the daemon may still run:
 * api_jobs_free only after it has stopped). */
struct api_jobs;
struct api_jobs *api_jobs_start(int workers, int io_threads, struct base_err *err);
bool api_jobs_push(struct api_jobs *jobs, struct api_request *req);
/* A quick read (API_QUICK) may be answered on the HTTP thread: its place
 * (0 or more) when fewer than the HTTP threads less one are answering
 * such reads, none of them began over API_QUICK_SLOW_US ago, and none
 * took longer in the last API_QUICK_PAUSE_MS; else -1.  Then
 * api_jobs_inline_end with that place once answered, and the time taken. */
#define API_QUICK_SLOW_US 50000
#define API_QUICK_PAUSE_MS 60000
int api_jobs_inline_begin(struct api_jobs *jobs);
void api_jobs_inline_end(struct api_jobs *jobs, int place, int64_t took_us);
void api_jobs_stop(struct api_jobs *jobs);
void api_jobs_free(struct api_jobs *jobs);

/* Whether text is 1 to API_PARAM_MAX letters, digits, '_' or '-': the
 * form of every id korpd makes (anything else names nothing). */
bool api_id_valid(const char *text);

/*
 * The two halves of reading a body, free of HTTP (and fuzzed): a JSON
 * object from bytes (UTF-8 checked, nesting bounded, nothing after it), and
 * its members against a field table.  False with a reason in why.
 */
bool api_json_read(const char *body, size_t len, cJSON **out, char *why, size_t size);
bool api_json_check(const cJSON *json, const struct api_field *fields, char *why,
                    size_t size);

/* Parses req->body as JSON for a route that needs it; replies 4xx itself
 * and returns false when it cannot. */
bool api_body_parse(struct api_request *req, enum MHD_Result *replied);

/* ---- Handlers, one file per resource. */
enum MHD_Result api_health(struct api_request *req);
enum MHD_Result api_player_create(struct api_request *req);
enum MHD_Result api_player_me(struct api_request *req);
enum MHD_Result api_player_get(struct api_request *req);
enum MHD_Result api_token_create(struct api_request *req);
enum MHD_Result api_token_list(struct api_request *req);
enum MHD_Result api_token_revoke(struct api_request *req);
enum MHD_Result api_challenge_create(struct api_request *req);
enum MHD_Result api_challenge_list(struct api_request *req);
enum MHD_Result api_challenge_open(struct api_request *req);
enum MHD_Result api_challenge_get(struct api_request *req);
enum MHD_Result api_challenge_accept(struct api_request *req);
enum MHD_Result api_challenge_decline(struct api_request *req);
enum MHD_Result api_challenge_cancel(struct api_request *req);
enum MHD_Result api_game_get(struct api_request *req);
enum MHD_Result api_game_list(struct api_request *req);
enum MHD_Result api_game_moves(struct api_request *req);
enum MHD_Result api_game_legal_moves(struct api_request *req);
enum MHD_Result api_game_pgn(struct api_request *req);
enum MHD_Result api_game_analysis(struct api_request *req);
enum MHD_Result api_game_move(struct api_request *req);
enum MHD_Result api_game_claim(struct api_request *req);
enum MHD_Result api_game_draw(struct api_request *req);
enum MHD_Result api_game_resign(struct api_request *req);
enum MHD_Result api_game_abort(struct api_request *req);
enum MHD_Result api_game_adjudicate(struct api_request *req);
enum MHD_Result api_admin_clock(struct api_request *req);
enum MHD_Result api_events(struct api_request *req);
enum MHD_Result api_session_create(struct api_request *req);
enum MHD_Result api_session_get(struct api_request *req);
enum MHD_Result api_session_delete(struct api_request *req);
enum MHD_Result api_player_search(struct api_request *req);
enum MHD_Result api_web_page(struct api_request *req);
enum MHD_Result api_web_asset(struct api_request *req);
enum MHD_Result api_web_icon(struct api_request *req);
/* A file of web/'s top that must be served at the root (the service
 * worker, whose scope is its folder, and the app manifest). */
enum MHD_Result api_web_root_file(struct api_request *req);
enum MHD_Result api_notifications_get(struct api_request *req);
enum MHD_Result api_notifications_put(struct api_request *req);
enum MHD_Result api_unsubscribe(struct api_request *req);
enum MHD_Result api_email_confirm(struct api_request *req);
enum MHD_Result api_email_confirm_resend(struct api_request *req);
enum MHD_Result api_replay(struct api_request *req);
/* Appends moves (legal in pos) to list as {"uci", "san"} objects. */
void api_moves_add(cJSON *list, const struct rules_variant *v, const struct rules_position *pos,
                   const struct rules_move *moves, int n);
/* Web Push: api_push.c. */
enum MHD_Result api_push_key(struct api_request *req);
enum MHD_Result api_push_subscribe(struct api_request *req);
enum MHD_Result api_push_subscription_list(struct api_request *req);
enum MHD_Result api_push_subscription_delete(struct api_request *req);
enum MHD_Result api_webhook_create(struct api_request *req);
enum MHD_Result api_webhook_list(struct api_request *req);
enum MHD_Result api_webhook_get(struct api_request *req);
enum MHD_Result api_webhook_delete(struct api_request *req);
enum MHD_Result api_webhook_rotate(struct api_request *req);
enum MHD_Result api_webhook_enable(struct api_request *req);
enum MHD_Result api_webhook_deliveries(struct api_request *req);
enum MHD_Result api_webhook_retry(struct api_request *req);
/* Accounts: api_players.c, api_session.c. */
enum MHD_Result api_password_change(struct api_request *req);
enum MHD_Result api_session_list(struct api_request *req);
enum MHD_Result api_sessions_end(struct api_request *req);
/* Conditional moves, notes and messages: api_conditional.c, api_messages.c. */
enum MHD_Result api_conditional_get(struct api_request *req);
enum MHD_Result api_conditional_put(struct api_request *req);
enum MHD_Result api_conditional_delete(struct api_request *req);
enum MHD_Result api_note_get(struct api_request *req);
enum MHD_Result api_note_put(struct api_request *req);
enum MHD_Result api_message_list(struct api_request *req);
enum MHD_Result api_message_send(struct api_request *req);
/* With ?notes=true, the caller's notes on the game as a comment opening
 * the PGN's movetext (*pgn replaced); false when it replied itself. */
bool api_pgn_notes(struct api_request *req, const char *game_id, char **pgn,
                   enum MHD_Result *replied);
/* ?after= of /legal-moves: up to 40 moves (any notation, comma-separated)
 * played on pos from the game's position; false when it replied (400, or
 * 422 illegal-move with `index`). */
bool api_legal_after(struct api_request *req, const struct rules_variant *v,
                     struct rules_position *pos, enum MHD_Result *replied);
/* Whether the caller may send text as a message in the game of the path
 * now (valid, within the daily limit); replies 400/429 itself otherwise. */
bool api_message_allowed(struct api_request *req, const char *text, enum MHD_Result *replied);
/* api_password_acceptable: declared in api.h (korpd admin uses it too). */

/* Clocks and leave: api_leave.c, api_give_time.c; the clock
 * object of a challenge (g NULL: its settings) or of a game (with each
 * side's time and paused_until), api_game_json.c; null for no clock. */
enum MHD_Result api_leave_book(struct api_request *req);
enum MHD_Result api_leave_list(struct api_request *req);
enum MHD_Result api_leave_cancel(struct api_request *req);
enum MHD_Result api_game_give_time(struct api_request *req);
cJSON *api_clock_json(const struct db_clock *c, const struct db_game *g);
/* The `clock` (or `days_per_move`) and `leave_allowed` of a challenge's or a
 * tournament's body (api_challenges.c); false with why for a bad one. */
bool api_clock_read(struct api_request *req, struct db_clock *clock, int *days_per_move,
                    char *why, size_t size);
/* ---- Addresses (api_limits.c). */

/* An IP address: IPv6, or IPv4 as ::ffff:a.b.c.d. */
struct api_addr {
    unsigned char b[16];
};

/* Reads len bytes of text as an IPv4 or IPv6 address. */
bool api_addr_parse(const char *text, size_t len, struct api_addr *out);
/* A socket's address (AF_INET or AF_INET6); false for other families. */
bool api_addr_from_socket(const struct sockaddr *sa, struct api_addr *out);
/* The address as text: dotted for IPv4, RFC 5952 for IPv6. */
void api_addr_text(const struct api_addr *a, char *out, size_t size);

/* A list of addresses and CIDRs (KORP_TRUSTED_PROXIES, KORP_METRICS_ALLOW),
 * separated by commas or spaces; NULL or "" is the empty list.  NULL with a
 * message naming setting when an entry cannot be read. */
struct api_addr_list *api_addr_list_new(const char *setting, const char *text,
                                        struct base_err *err);
void api_addr_list_free(struct api_addr_list *l);
/* Whether a is in one of the list's ranges (an empty or NULL list: no). */
bool api_addr_list_has(const struct api_addr_list *l, const struct api_addr *a);

/* A hash of data keyed by a random key made once per process (HMAC-SHA256,
 * first 8 bytes): who does not know the key cannot aim at a slot. */
uint64_t api_keyed_hash(const void *data, size_t len);

/* Open connections per client address (the socket's): api_conn_admit says
 * whether one more may open; api_conn_count moves the count. */
struct api_conn_counts *api_conn_counts_new(int limit);
void api_conn_counts_free(struct api_conn_counts *c);
bool api_conn_admit(struct api_conn_counts *c, const struct api_addr *a);
void api_conn_count(struct api_conn_counts *c, const struct api_addr *a, int delta);

/*
 * The client's address (api_edge.c), the one place it is read: the
 * socket's peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For entry that is not one.  Rate limits, the sign-in
 * throttle and /metrics judge by it.
 */
bool api_client_addr(struct api_request *req, struct api_addr *out);
/* The same as text ("?" when unknown). */
void api_client_address(struct api_request *req, char *out, size_t size);

/*
 * Answers a head that must not be served (on the handler's first call, so
 * that libmicrohttpd closes the connection after the answer): a NUL in the
 * target (target_cut, which only the server's connection record can tell),
 * an unknown or repeated Transfer-Encoding, two Content-Lengths.  False
 * when the head is fine.
 */
bool api_head_refused(struct api_request *req, bool target_cut, enum MHD_Result *replied);

/* Reads a list of notification kinds into a set (every kind when list is
 * NULL); false with the first unknown name in why. */
bool api_notification_types(const cJSON *list, db_notification_set *out, char *why,
                            size_t whysize);

/* Replies with a JSON text the database wrote (taking it), or the problem
 * its status names: 404 with not_found's words when there was no row.
 * A 204 sends no body. */
enum MHD_Result api_reply_answer(struct api_request *req, enum db_status st, char *json,
                                 const char *err, unsigned ok, const char *not_found);

/* ---- Rate limits (api_limits.c): one table per server. */
struct api_limits *api_limits_new(double rate, double burst);
void api_limits_free(struct api_limits *l);
/* Takes one request from key's bucket; false (and *retry_after seconds)
 * when it is empty.  A rate of 0 never limits. */
bool api_limits_take(struct api_limits *l, const char *key, int *retry_after);
/* Charges the request to its token's (or its address's) bucket; replies
 * 429 itself and returns false over the limit. */
bool api_limits_check(struct api_request *req, enum MHD_Result *replied);

/* ---- Metrics (api_metrics.c): one set per server. */
struct api_metrics *api_metrics_new(void);
void api_metrics_free(struct api_metrics *m);
void api_metrics_request(struct api_metrics *m, int route, unsigned status, long duration_us);
/* A request begins (+1) or ends (-1): the in-flight gauge. */
void api_metrics_in_flight(struct api_metrics *m, int delta);

/* How many requests this process's servers have begun (api_server.c). */
unsigned long api_requests_begun(void);
/* A game started (started) or ended (not started) by a request here. */
void api_metrics_game(struct api_metrics *m, const struct db_game *g, bool started);
void api_metrics_move(struct api_metrics *m, const struct games_result *r);
void api_metrics_claim(struct api_metrics *m, bool fifty_move, bool accepted);
enum MHD_Result api_metrics_reply(struct api_request *req);

/* The i-th route's method and pattern; false past the end of the table. */
bool api_route_info(int i, const char **method, const char **pattern);

/* ---- Event streams (api_events.c): one hub per server. */

/* Starts the listener and the keep-alive timer; NULL with a message. */
struct api_hub *api_hub_new(struct db_pool *pool, int keepalive_seconds, int backstop_ms,
                            struct base_err *err);
/* Stops the listener and the timer and ends every stream (korpd stops). */
void api_hub_close(struct api_hub *hub);
/* Frees the hub, after the daemon has stopped.  NULL is a no-op. */
void api_hub_free(struct api_hub *hub);
/* Open streams, and (in *read_failures) how many of their reads of the
 * database have failed since korpd started. */
int api_hub_streams(struct api_hub *hub, unsigned long *read_failures);

/* How a stream that is not Server-Sent Events writes (api_events_open). */
struct api_stream_format {
    const char *content_type;
    const char *keepalive;     /* sent when idle, at least every API_FAST_KEEPALIVE_MS */
    /* One event's text: *line (malloc'd; left NULL for none) and DB_OK, or
     * the status of a database read that failed: the stream then sends
     * what came before that event and reads it again at its next backstop
     * read.  Called without the hub's lock. */
    enum db_status (*event)(void *ctx, struct db_pool *pool, const struct db_event_row *row,
                            char **line, struct base_err *err);
    void (*ctx_free)(void *ctx);
    /* Optional: called before each read of the events table (at an event,
     * and at least every KORP_EVENTS_BACKSTOP_MS while the stream is
     * open), without the hub's lock. */
    void (*reading)(void *ctx, struct db_pool *pool);
};
#define API_FAST_KEEPALIVE_MS 7000

/* What a stream follows, and how it writes. */
struct api_stream_spec {
    const char *player_id;     /* "": a spectator of game_id */
    const char *game_id;       /* "": all the player's games and challenges */
    long long last_id;         /* the events after it; -1: from now */
    const struct api_stream_format *format;  /* NULL: Server-Sent Events */
    void *ctx;                 /* the format's, freed by its ctx_free */
    char *opening;             /* malloc'd text sent first (taken), or NULL */
};
/* Opens a stream for the authenticated caller (or a spectator) within the
 * caps; replies 429 past them.  The spec's ctx and opening are taken,
 * whatever the outcome. */
enum MHD_Result api_events_open(struct api_request *req, const struct api_stream_spec *spec);

/* The caller from the web board's session cookie (api_session.c): false
 * when there is none; *refused (a reply sent) for a change without the
 * session's CSRF token, or a database failure. */
bool api_session_caller(struct api_request *req, bool *refused, enum MHD_Result *replied);

/* The session cookie's value, or NULL. */
const char *api_session_cookie(struct api_request *req);

/* ---- Sign-in throttle and hashing gate (api_logins.c). */
/* Whether name may try a password from address now (else *retry_after s). */
bool api_login_allowed(const char *name, const char *address, int *retry_after);
/* Counts a wrong password for name from address. */
void api_login_failed(const char *name, const char *address);
/* A slot for one Argon2id hash (false: too many at once); api_hash_end
 * gives it back. */
bool api_hash_begin(void);
void api_hash_end(void);

/* Finds the caller from the bearer token, else the session cookie; replies
 * 401/403/503 itself and returns false when there is none. */
bool api_authenticate(struct api_request *req, enum MHD_Result *replied);

/* ---- Shared by the game handlers (api_game_json.c). */
struct games_result;
struct db_game;

/* The game object of the API. */
cJSON *api_game_json(const struct db_game *g);

/* The engine policy's word: "allowed" or "forbidden" (api_fairplay.c). */
const char *api_engines_text(bool allowed);
/* The body's "engines" into *allowed (absent: forbidden when rated, else
 * allowed); replies with a problem and returns false when it is neither
 * word. */
bool api_engines_read(struct api_request *req, bool rated, bool *allowed,
                      enum MHD_Result *replied);

/* ---- Outcomes as answers (api_outcomes.c): one table, outcome to problem. */
/* The problem a refusal with that outcome is answered with
 * (API_PROBLEM_INTERNAL for an outcome that is no refusal). */
enum api_problem api_outcome_problem(enum games_outcome outcome);

/* The answer to a state change: the game (status ok_status), or the
 * problem its outcome names (the status it carries), as JSON; a move's
 * refusal names `move` and the ply.  NULL when out of memory. */
cJSON *api_outcome_json(const struct games_result *r, unsigned ok_status, const char *move,
                        unsigned *status);

/* Replies to a state change: the game (status `ok_status`), or the
 * problem its outcome names.  Clears the result. */
enum MHD_Result api_reply_outcome(struct api_request *req, struct games_result *r,
                                  unsigned ok_status, const char *move);

/* Replies to a refusal (not GAMES_OK): the problem its outcome names with
 * detail, or for GAMES_DB_ERROR the database's failure. */
enum MHD_Result api_reply_refusal(struct api_request *req, enum games_outcome outcome,
                                  const char *detail, enum db_status db, const char *err);
/* An illegal move's reason code; one that cannot be read ("syntax") also
 * names the notations the variant reads ("notations": san, uci, polish,
 * hungarian). v may be NULL (then no notations). */
void api_problem_move_reason(cJSON *problem, enum rules_reason reason,
                             const struct rules_variant *v);

/* The same from games/'s result, with its finer reason code when it names one. */
enum MHD_Result api_reply_refused(struct api_request *req, const struct games_result *r);

/* A query parameter, or NULL. */
const char *api_query(struct api_request *req, const char *name);

/* ---- Ratings (api_ratings.c) */

/* Adds a game's `rated` and, once a rated game is over, `rating_diff`. */
void api_game_json_ratings(cJSON *json, const struct db_game *g);

/* Adds a player's `ratings` (every variant) and `stats` to json. */
enum db_status api_player_json_ratings(struct api_request *req, cJSON *json,
                                       const char *player_id, struct base_err *err);

enum MHD_Result api_player_rating_history(struct api_request *req);
enum MHD_Result api_leaderboard(struct api_request *req);

/* ---- The arbiter's queue (api_arbiter.c) */

/* Whether a claim's body names kind "perpetual" (api_game_claim passes it on). */
bool api_claim_is_perpetual(struct api_request *req);
enum MHD_Result api_game_claim_perpetual(struct api_request *req);
enum MHD_Result api_game_arbiter_request(struct api_request *req);
enum MHD_Result api_arbiter_queue(struct api_request *req);
enum MHD_Result api_arbiter_dismiss(struct api_request *req);

/* ---- Fair play (api_fairplay.c) */
enum MHD_Result api_game_fairplay(struct api_request *req);
enum MHD_Result api_arbiter_fairplay(struct api_request *req);
enum MHD_Result api_arbiter_warn(struct api_request *req);
enum MHD_Result api_arbiter_close(struct api_request *req);
/* Replies to an arbiter's action: the refusal, or (status) an object of the
 * count name-value pairs of reply and the members of the JSON object
 * details (NULL: none).  Clears r. */
enum MHD_Result api_arbiter_acted(struct api_request *req, struct games_result *r,
                                  unsigned status, const char *const (*reply)[2], size_t count,
                                  const char *details);
enum MHD_Result api_arbiter_reopen(struct api_request *req);
enum MHD_Result api_arbiter_log(struct api_request *req);
enum MHD_Result api_player_warnings(struct api_request *req);

/* ---- Round-robin tournaments (api_tournaments.c) */

/* A page of a list (api_games.c): ?limit= (1 to 100, 20 by default) and
 * ?cursor=, the "<microseconds>.<id>" of the last item of the page before
 * (after_us and after_id point into us and id, or are NULL). */
struct api_page {
    int limit;
    char us[24], id[BASE_ID_SIZE];
    const char *after_us, *after_id;
};

/* Reads ?limit=, 1 to most (fallback when absent); replies 400 itself
 * and returns false otherwise. */
bool api_query_limit(struct api_request *req, int fallback, int most, int *limit,
                     enum MHD_Result *replied);

/* Reads ?limit= (and clears the cursor), then ?cursor=; each replies 400
 * itself and returns false when it is not one korpd takes. */
bool api_page_read(struct api_request *req, struct api_page *page, enum MHD_Result *replied);
bool api_page_cursor(struct api_request *req, struct api_page *page, enum MHD_Result *replied);

/* Adds "next" to a page: the cursor of its last item when more follow
 * (created_us NULL: none), else null. */
void api_page_next(cJSON *json, bool more, const char *created_us, const char *id);
enum MHD_Result api_tournament_create(struct api_request *req);
enum MHD_Result api_tournament_list(struct api_request *req);
enum MHD_Result api_tournament_get(struct api_request *req);
enum MHD_Result api_tournament_join(struct api_request *req);
enum MHD_Result api_tournament_withdraw(struct api_request *req);
enum MHD_Result api_tournament_start(struct api_request *req);
enum MHD_Result api_tournament_pgn(struct api_request *req);

/* A game's PGN (malloc'd; the caller frees), from its stored moves without
 * replaying them (games_pgn); NULL when it cannot be built, *failed
 * then being the answer already given. */
char *api_game_pgn_text(struct api_request *req, const struct db_game *g,
                        enum MHD_Result *failed);

/* korp's languages (api_language.c).  The code itself when it is
 * one of "en", "pl", "hu", else NULL; and the one of them the request's
 * Accept-Language prefers, or NULL. */
const char *api_language_known(const char *code);
const char *api_language_accepted(struct api_request *req);
/* Every problem body has a `reason`: its type's slug, or a finer
 * stable code set with this (an illegal move's "drop-gives-check"). */
void api_problem_reason(cJSON *problem, const char *reason);

/* ---- Conditional reads of a game (api_etag.c) */

/* Room for an entity tag: W/, quotes, 32 hex digits. */
#define API_ETAG_SIZE 40

/* A game's tag (weak), from its stored version and the end of the leave
 * stopping it, without building its object (api_etag.c). */
void api_etag_game(const struct db_game *g, char out[API_ETAG_SIZE]);
/* The tag of a resource derived from the game alone (its kind, e.g. "pgn",
 * and the query variant that shapes it, or NULL). */
void api_etag_derived(const char *kind, const char *game_tag, const char *variant,
                      char out[API_ETAG_SIZE]);
/* The tag of a text as written out. */
void api_etag_text(const char *kind, const char *text, char out[API_ETAG_SIZE]);
/* Whether If-None-Match names etag (or is "*"): the caller answers 304. */
bool api_etag_matches(struct api_request *req, const char *etag);
/* 304 Not Modified, with the ETag and Cache-Control a 200 would carry
 * (cache NULL: a game's, "no-cache"). */
enum MHD_Result api_reply_not_modified(struct api_request *req, const char *etag,
                                       const char *cache);
/* 200 with body (malloc'd, taken), its type, ETag and Cache-Control. */
enum MHD_Result api_reply_tagged(struct api_request *req, char *body, const char *content_type,
                                 const char *etag, const char *cache);
/* 200 with json (taken) as application/json, tagged. */
enum MHD_Result api_reply_json_tagged(struct api_request *req, cJSON *json, const char *etag);

/* ---- Event retention (api_retention.c) */

/* Whether a stream may resume after last_id: false, having replied 410
 * `events-pruned` (or 503), when events after it may have been pruned. */
bool api_events_kept(struct api_request *req, long long last_id, enum MHD_Result *replied);
/* ---- Engine analysis (api_analyse.c): one per server. */
/* Up to per_hour analyses per player and `concurrent` searches at once. */
struct api_analysis *api_analysis_new(int per_hour, int concurrent);
void api_analysis_free(struct api_analysis *a);
enum MHD_Result api_analyse(struct api_request *req);

#endif
