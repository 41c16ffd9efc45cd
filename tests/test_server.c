/*
 * test_server.c — korpd as users meet it: started as a real process on a
 * free loopback port against the real test database, spoken to over HTTP
 * with libcurl, stopped by its PID.
 * usage: test_server KORPD_BINARY SCHEMA_VERSION
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <strings.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_env.h"

static const char *korpd_path, *db_url;
static int expected_schema_version;

/* Every korpd started, so that a failed test still stops them all. */
static pid_t started[16];
static int started_count;

struct daemon {
    pid_t pid;
    int port;
    char log[256];
};

struct reply {
    long status;
    char body[8192];
    size_t len;
    char content_type[128];
    char allow[128];
    long connects;
};

/* Listening ports come from below 32768: from 32768 on, the kernel hands ports
 * to outgoing connections, and one may take ours between the probe and korpd's
 * bind.  Candidates start at a point that depends on the process and advance
 * with each port handed out, so that tests side by side seldom try the same. */
enum { PORT_FIRST = 20000, PORT_COUNT = 32768 - PORT_FIRST };

/* A loopback port below 32768 that nothing listens on now (probed by binding). */
static int free_port(void)
{
    static int next = -1;
    if (next < 0)
        next = (int)((unsigned)getpid() * 7919u % PORT_COUNT);
    for (int tries = 0; tries < PORT_COUNT; tries++) {
        int port = PORT_FIRST + next;
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        int fd = socket(AF_INET, SOCK_STREAM, 0), bound;
        assert_true(fd >= 0);
        next = (next + 1) % PORT_COUNT;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bound = bind(fd, (struct sockaddr *)&addr, sizeof addr);
        close(fd);
        if (bound == 0)
            return port;
    }
    fail_msg("no free loopback port below 32768");
    return -1;
}

/* Starts korpd with the given settings; output goes to a log file. */
static void start(struct daemon *d, int port, const char *database_url, const char *listen)
{
    char listen_buf[64];
    d->port = port;
    snprintf(listen_buf, sizeof listen_buf, "127.0.0.1:%d", port);
    snprintf(d->log, sizeof d->log, "korpd-test-%d.log", port);
    d->pid = fork();
    assert_true(d->pid >= 0);
    if (d->pid == 0) {
        /* Both streams to the log: an inherited stdout would keep ctest
         * waiting on its pipe. */
        if (freopen(d->log, "w", stderr) == NULL || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            _exit(126);
        setenv("KORP_DATABASE_URL", database_url, 1);
        setenv("KORP_LISTEN", listen ? listen : listen_buf, 1);
        execl(korpd_path, korpd_path, (char *)NULL);
        _exit(127);
    }
    if (started_count < (int)(sizeof started / sizeof *started))
        started[started_count++] = d->pid;
}

/* Group teardown: stops whatever a failed test left running. */
static int stop_leftovers(void **state)
{
    (void)state;
    for (int i = 0; i < started_count; i++)
        if (kill(started[i], SIGKILL) == 0)
            waitpid(started[i], NULL, 0);
    started_count = 0;
    return 0;
}

static size_t collect(char *data, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    size_t len = size * n, room = sizeof r->body - 1 - r->len;
    memcpy(r->body + r->len, data, len < room ? len : room);
    r->len += len < room ? len : room;
    r->body[r->len] = '\0';
    return len;
}

static size_t header(char *line, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    size_t len = size * n;
    if (len > 7 && strncasecmp(line, "Allow: ", 7) == 0) {
        size_t value = len - 7;
        while (value > 0 && (line[7 + value - 1] == '\r' || line[7 + value - 1] == '\n'))
            value--;
        snprintf(r->allow, sizeof r->allow, "%.*s", (int)value, line + 7);
    }
    return len;
}

/* One request on handle h (reused to test keep-alive). */
static void request(CURL *h, int port, const char *method, const char *path, struct reply *r)
{
    char url[256];
    char *ctype = NULL;
    memset(r, 0, sizeof *r);
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
    if (curl_easy_perform(h) != CURLE_OK) {
        r->status = -1;
        return;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &r->connects);
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
    if (ctype != NULL)
        snprintf(r->content_type, sizeof r->content_type, "%s", ctype);
}

/* A request whose answer must have that status and content type and a JSON
 * body: the body, parsed (the caller deletes it). */
static cJSON *request_json(CURL *h, int port, const char *method, const char *path,
                           long status, const char *content_type, struct reply *r)
{
    cJSON *json;
    request(h, port, method, path, r);
    assert_int_equal(r->status, status);
    assert_string_equal(r->content_type, content_type);
    json = cJSON_Parse(r->body);
    assert_non_null(json);
    return json;
}

/* Waits (bounded) until korpd answers /healthz; fails if it exits first. */
static void wait_up(struct daemon *d)
{
    struct reply r;
    CURL *h = curl_easy_init();
    for (int i = 0; i < 200; i++) {
        int status;
        request(h, d->port, "GET", "/healthz", &r);
        if (r.status > 0)
            break;
        if (waitpid(d->pid, &status, WNOHANG) == d->pid)
            fail_msg("korpd exited early; see %s", d->log);
        nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
    }
    curl_easy_cleanup(h);
    assert_true(r.status > 0);
}

/* Waits (bounded) for the process to end; returns its exit status. */
static int wait_exit(pid_t pid)
{
    int status = 0;
    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    fail_msg("process %d did not exit", (int)pid);
    return -1;
}

static void stop(struct daemon *d)
{
    kill(d->pid, SIGTERM);
    assert_int_equal(wait_exit(d->pid), 0);
    unlink(d->log);
}

static bool log_says(const struct daemon *d, const char *words)
{
    char text[16384] = "";
    FILE *f = fopen(d->log, "r");
    if (f != NULL) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    return strstr(text, words) != NULL;
}

/* KORP_LOG_LEVEL: a bad value stops korpd with words saying what it takes;
 * "debug" lets debug lines print (the settings line at start). */
static void test_server_log_level(void **state)
{
    struct daemon d;
    (void)state;
    setenv("KORP_LOG_LEVEL", "loud", 1);
    start(&d, free_port(), db_url, NULL);
    assert_int_equal(wait_exit(d.pid), 2);
    assert_true(log_says(&d, "KORP_LOG_LEVEL must be \"debug\", \"info\", \"warn\" or \"error\", not 'loud'"));
    unlink(d.log);
    setenv("KORP_LOG_LEVEL", "debug", 1);
    start(&d, free_port(), db_url, NULL);
    wait_up(&d);
    assert_true(log_says(&d, "korpd debug: settings:"));
    stop(&d);
    unsetenv("KORP_LOG_LEVEL");
}

static void test_server_healthz_reports_database(void **state)
{
    struct daemon d;
    struct reply r;
    CURL *h = curl_easy_init();
    cJSON *json, *db;
    (void)state;
    start(&d, free_port(), db_url, NULL);
    wait_up(&d);

    json = request_json(h, d.port, "GET", "/healthz", 200, "application/json", &r);
    db = cJSON_GetObjectItem(json, "database");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(db, "reachable")));
    assert_int_equal(cJSON_GetObjectItem(db, "schema_version")->valueint, expected_schema_version);
    assert_string_equal(cJSON_GetObjectItem(json, "status")->valuestring, "ok");
    {
        /* The start's log line names the same version (not the count); it is
         * written just after the server answers. */
        char said[64];
        snprintf(said, sizeof said, "(schema version %d,", expected_schema_version);
        for (int i = 0; i < 200 && !log_says(&d, said); i++)
            nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
        assert_true(log_says(&d, said));
    }
    cJSON_Delete(json);

    /* The same connection serves the next request (keep-alive works). */
    request(h, d.port, "GET", "/healthz", &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.connects, 0);
    curl_easy_cleanup(h);
    stop(&d);
}

static void test_server_errors_are_problem_json(void **state)
{
    struct daemon d;
    struct reply r;
    CURL *h = curl_easy_init();
    cJSON *json;
    (void)state;
    start(&d, free_port(), db_url, NULL);
    wait_up(&d);

    json = request_json(h, d.port, "GET", "/no/such/thing", 404, "application/problem+json", &r);
    assert_string_equal(cJSON_GetObjectItem(json, "type")->valuestring, "/problems/not-found");
    assert_int_equal(cJSON_GetObjectItem(json, "status")->valueint, 404);
    assert_non_null(strstr(cJSON_GetObjectItem(json, "detail")->valuestring, "/no/such/thing"));
    cJSON_Delete(json);

    request(h, d.port, "DELETE", "/healthz", &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.content_type, "application/problem+json");
    assert_string_equal(r.allow, "GET, HEAD");
    curl_easy_cleanup(h);
    stop(&d);
}

static void test_server_port_clash_is_explained(void **state)
{
    struct daemon first, second;
    (void)state;
    start(&first, free_port(), db_url, NULL);
    wait_up(&first);
    start(&second, first.port, db_url, NULL);
    assert_int_equal(wait_exit(second.pid), 1);
    assert_true(log_says(&second, "already running"));
    unlink(second.log);
    stop(&first);
}

static void test_server_refuses_bad_settings(void **state)
{
    struct daemon d;
    (void)state;
    start(&d, free_port(), "postgresql://korp@127.0.0.1:1/korp", NULL);
    assert_int_equal(wait_exit(d.pid), 1);
    assert_true(log_says(&d, "cannot prepare the database"));
    unlink(d.log);
    start(&d, free_port(), db_url, "localhost-8080");
    assert_int_equal(wait_exit(d.pid), 2);
    assert_true(log_says(&d, "KORP_LISTEN must be address:port"));
    unlink(d.log);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_healthz_reports_database),
        cmocka_unit_test(test_server_errors_are_problem_json),
        cmocka_unit_test(test_server_port_clash_is_explained),
        cmocka_unit_test(test_server_refuses_bad_settings),
        cmocka_unit_test(test_server_log_level),
    };
    if (argc != 3) {
        fprintf(stderr, "usage: test_server KORPD_BINARY SCHEMA_VERSION\n");
        return 2;
    }
    korpd_path = argv[1];
    expected_schema_version = atoi(argv[2]);
    db_url = test_database_url();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = cmocka_run_group_tests(tests, NULL, stop_leftovers);
    curl_global_cleanup();
    return rc;
}
