/*
 * api_body.c — a request body, read once: UTF-8 checked, parsed as JSON,
 * its nesting bounded.  Every refusal says what was wrong.
 */
#include "api_int.h"

#include "base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * What cJSON lets through but JSON (RFC 8259) or korpd refuse, found by one
 * scan outside and inside strings: nesting deeper than our limit (cJSON
 * recurses once per level), raw control characters in strings, and NUL in
 * any form (a C string would silently end there: "K@e4\u0000junk").
 */
static bool scan_refusal(const char *s, size_t n, char *why, size_t size)
{
    int depth = 0;
    bool in_string = false;
    size_t start = 0, key_start = 0, key_len = 0;   /* the member being read */

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *fault = NULL;
        if (c == 0)
            fault = "a NUL byte";
        if (in_string && fault == NULL) {
            if (c < 0x20)
                fault = "a raw control character (escape it)";
            else if (c == '\\' && i + 1 < n) {
                if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
                    fault = "\\u0000 (NUL), which korpd does not accept";
                i++;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (fault == NULL && c == '"') {
            in_string = true;
            start = i + 1;
        } else if (fault == NULL && c == ':' && i > 0) {
            /* The string just closed was a member name. */
            key_start = start;
            key_len = i > start ? i - start - 1 : 0;
            while (key_len > 0 && s[key_start + key_len] != '"')
                key_len--;
        } else if (fault == NULL && (c == '{' || c == '[')) {
            if (++depth > API_JSON_DEPTH_LIMIT) {
                snprintf(why, size, "the JSON body nests deeper than %d levels",
                         API_JSON_DEPTH_LIMIT);
                return true;
            }
        } else if (fault == NULL && (c == '}' || c == ']')) {
            depth--;
        }
        if (fault != NULL) {
            if (key_len > 0)
                snprintf(why, size, "'%.*s' holds %s", (int)(key_len < 64 ? key_len : 64),
                         s + key_start, fault);
            else
                snprintf(why, size, "the request body holds %s", fault);
            return true;
        }
    }
    return false;
}

bool api_json_read(const char *body, size_t len, cJSON **out, char *why, size_t size)
{
    const char *end = NULL;
    long bad;

    *out = NULL;
    if (len == 0) {
        snprintf(why, size, "the request body is empty; send a JSON object");
        return false;
    }
    if ((bad = base_utf8_invalid_at((const unsigned char *)body, len)) >= 0) {
        snprintf(why, size, "the request body is not valid UTF-8 (byte %ld)", bad);
        return false;
    }
    if (scan_refusal(body, len, why, size))
        return false;
    *out = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (*out == NULL) {
        long at = end != NULL && end >= body && end <= body + len ? (long)(end - body) : 0;
        snprintf(why, size, "the request body is not valid JSON (near byte %ld)", at);
        return false;
    }
    while (end != NULL && (size_t)(end - body) < len && *end != '\0' &&
           strchr(" \t\r\n", *end) != NULL)
        end++;
    if (end != NULL && (size_t)(end - body) < len) {
        snprintf(why, size, "the request body has text after its JSON value (byte %ld)",
                 (long)(end - body));
    } else if (!cJSON_IsObject(*out)) {
        snprintf(why, size, "the request body must be a JSON object");
    } else {
        return true;
    }
    cJSON_Delete(*out);
    *out = NULL;
    return false;
}

bool api_body_parse(struct api_request *req, enum MHD_Result *replied)
{
    const char *type = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_TYPE);
    char why[256];

    if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
        (type[16] != '\0' && type[16] != ';' && type[16] != ' ')) {
        *replied = api_fail(req, API_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
                            "send the body as JSON with Content-Type: application/json%s%.100s",
                            type ? ", not " : "", type ? type : "");
        return false;
    }
    if (!api_json_read(req->body, req->body_len, &req->json, why, sizeof why)) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST, "%s", why);
        return false;
    }
    return true;
}

static const char *const type_names[] = { "a string", "an integer", "true or false",
                                           "a list of strings", "an object", "a string",
                                           "a string" };

static bool fits(const cJSON *v, const struct api_field *f, char *why, size_t size)
{
    if (cJSON_IsNull(v)) {
        if (f->nullable)
            return true;
        snprintf(why, size, "'%s' must be %s, not null", f->name, type_names[f->type]);
        return false;
    }
    switch (f->type) {
    case API_STRING:
    case API_TEXT:
    case API_LINES: {
        char unfit[200];
        size_t chars;
        if (!cJSON_IsString(v))
            break;
        if ((long)strlen(v->valuestring) < f->min || (long)strlen(v->valuestring) > f->max) {
            snprintf(why, size, "'%s' must be %ld to %ld bytes long", f->name, f->min, f->max);
            return false;
        }
        if (f->type != API_STRING &&
            !base_text_fit(v->valuestring, f->type == API_TEXT ? BASE_TEXT_LINE : BASE_TEXT_LINES,
                           &chars, unfit, sizeof unfit)) {
            snprintf(why, size, "'%s': %s", f->name, unfit);
            return false;
        }
        return true;
    }
    case API_INTEGER:
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
            break;
        /* Compared as doubles: a huge value must not overflow a long. */
        if (v->valuedouble < (double)f->min || v->valuedouble > (double)f->max) {
            snprintf(why, size, "'%s' must be from %ld to %ld", f->name, f->min, f->max);
            return false;
        }
        return true;
    case API_BOOLEAN:
        if (cJSON_IsBool(v))
            return true;
        break;
    case API_LIST: {
        const cJSON *item;
        int n = 0;
        if (!cJSON_IsArray(v))
            break;
        cJSON_ArrayForEach(item, v) {
            if (!cJSON_IsString(item) || strlen(item->valuestring) > 64) {
                snprintf(why, size, "'%s' must hold strings of at most 64 bytes", f->name);
                return false;
            }
            n++;
        }
        if (n < f->min || n > f->max) {
            snprintf(why, size, "'%s' must hold %ld to %ld strings", f->name, f->min, f->max);
            return false;
        }
        return true;
    }
    case API_OBJECT:
        if (cJSON_IsObject(v))
            return true;
        break;
    }
    snprintf(why, size, "'%s' must be %s%s", f->name, type_names[f->type],
             f->nullable ? " or null" : "");
    return false;
}

bool api_json_check(const cJSON *json, const struct api_field *fields, char *why,
                    size_t size)
{
    const cJSON *member;

    cJSON_ArrayForEach(member, json) {
        const struct api_field *f = fields;
        for (const cJSON *earlier = json->child; earlier != member; earlier = earlier->next)
            if (strcmp(earlier->string, member->string) == 0) {
                snprintf(why, size, "field '%.64s' appears twice", member->string);
                return false;
            }
        while (f->name != NULL && strcmp(f->name, member->string) != 0)
            f++;
        if (f->name == NULL) {
            char known[256] = "";
            for (f = fields; f->name != NULL; f++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s'%s'",
                         known[0] ? ", " : "", f->name);
            snprintf(why, size, "unknown field '%.64s'; this request takes %s", member->string,
                     known[0] ? known : "no fields");
            return false;
        }
        if (!fits(member, f, why, size))
            return false;
    }
    for (const struct api_field *f = fields; f->name != NULL; f++)
        if (f->required && !cJSON_HasObjectItem(json, f->name)) {
            snprintf(why, size, "'%s' is required", f->name);
            return false;
        }
    return true;
}

bool api_body_check(struct api_request *req, const struct api_field *fields,
                    enum MHD_Result *replied)
{
    char why[512];
    if (api_json_check(req->json, fields, why, sizeof why))
        return true;
    *replied = api_fail(req, API_PROBLEM_BAD_REQUEST, "%s", why);
    return false;
}

const char *api_body_string(struct api_request *req, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->json, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

long api_body_integer(struct api_request *req, const char *name, long fallback, bool *is_null)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->json, name);
    if (is_null != NULL)
        *is_null = cJSON_IsNull(v);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : fallback;
}

bool api_body_boolean(struct api_request *req, const char *name, bool fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->json, name);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}
