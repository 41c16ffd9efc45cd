/*
 * fuzz_body.c — request bodies as korpd reads them: bytes to a JSON object
 * (UTF-8, nesting, trailing text) and its members against field tables
 * like the routes' (types, bounds, unknown and repeated fields).  Nothing
 * a client sends may crash the reader or make it leak.
 */
#include "api_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct api_field move_fields[] = {
    { "move", API_STRING, true, false, 1, 32 },
    { "ply", API_INTEGER, false, false, 0, 1000000 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static const struct api_field challenge_fields[] = {
    { "variant", API_STRING, true, false, 1, 32 },
    { "opponent", API_STRING, true, false, 1, 64 },
    { "color", API_STRING, false, false, 1, 16 },
    { "days_per_move", API_INTEGER, false, true, 1, 60 },
    { "fifty_move_rule", API_BOOLEAN, false, false, 0, 0 },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* Lists and objects: PUT /v1/players/me/notifications, POST /v1/webhooks. */
static const struct api_field settings_fields[] = {
    { "email_address", API_STRING, false, true, 3, 254 },
    { "email_enabled", API_BOOLEAN, false, false, 0, 0 },
    { "email_events", API_LIST, false, false, 0, 18 },
    { "digest", API_OBJECT, false, false, 0, 0 },
    { "reminder_hours", API_INTEGER, false, false, 0, 720 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static const struct api_field *const tables[] = { move_fields, challenge_fields,
                                                  settings_fields };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[512];
    cJSON *json = NULL;

    if (!api_json_read((const char *)data, size, &json, why, sizeof why)) {
        if (json != NULL || why[0] == '\0')
            abort();   /* a refusal always says why and leaves nothing */
        return 0;
    }
    if (!cJSON_IsObject(json))
        abort();
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        why[0] = '\0';
        if (!api_json_check(json, tables[t], why, sizeof why) && why[0] == '\0')
            abort();
    }
    char *text = cJSON_PrintUnformatted(json);
    free(text);
    cJSON_Delete(json);
    return 0;
}
