/*
 * db_row.c — reading a result row by column name.  Every statement names
 * the columns it returns (AS alias where an expression), and readers ask
 * for them by that name, so a column added or moved in the SQL can never
 * be read as another.  A name the result lacks is a programming error:
 * it is logged and reads as NULL, and the tests that read the row fail.
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where this thread found the last column: readers mostly ask for a
 * result's columns in the order the statement writes them, so the next
 * one is looked for from there on (a row of forty columns read by name in
 * forty linear searches was a read's costliest step). */
static _Thread_local const PGresult *last_res;
static _Thread_local int last_col;

/* The column's number, or -1 (logged). */
static int column(const struct db_row *r, const char *name)
{
    int n = PQnfields(r->res), start = r->res == last_res ? last_col : 0, col = -1;
    for (int k = 0; k < n && col < 0; k++) {
        int i = (start + k) % n;
        if (strcmp(PQfname(r->res, i), name) == 0)
            col = i;
    }
    if (col < 0)
        col = PQfnumber(r->res, name);   /* a quoted or upper-case name */
    if (col < 0)
        base_log(BASE_LOG_ERROR, "db: a result has no column '%s'", name);
    else {
        last_res = r->res;
        last_col = col + 1 < n ? col + 1 : 0;
    }
    return col;
}

const char *db_row_value(const struct db_row *r, const char *name)
{
    int col = column(r, name);
    if (col < 0 || PQgetisnull(r->res, r->row, col))
        return NULL;
    return PQgetvalue(r->res, r->row, col);
}

void db_row_text(const struct db_row *r, const char *name, char *dst, size_t size)
{
    const char *v = db_row_value(r, name);
    snprintf(dst, size, "%s", v != NULL ? v : "");
}

int db_row_int(const struct db_row *r, const char *name)
{
    const char *v = db_row_value(r, name);
    return v != NULL ? atoi(v) : 0;
}

long long db_row_long(const struct db_row *r, const char *name)
{
    const char *v = db_row_value(r, name);
    return v != NULL ? strtoll(v, NULL, 10) : 0;
}

double db_row_double(const struct db_row *r, const char *name)
{
    const char *v = db_row_value(r, name);
    return v != NULL ? strtod(v, NULL) : 0.0;
}

bool db_row_bool(const struct db_row *r, const char *name)
{
    const char *v = db_row_value(r, name);
    return v != NULL && v[0] == 't';
}

bool db_row_is_null(const struct db_row *r, const char *name)
{
    return db_row_value(r, name) == NULL;
}

void db_row_read(const struct db_row *r, const struct db_col *cols, void *out, size_t size)
{
    memset(out, 0, size);
    for (; cols->kind != DB_COL_END; cols++) {
        char *at = (char *)out + cols->offset;
        switch (cols->kind) {
        case DB_COL_TEXT: db_row_text(r, cols->name, at, cols->size); break;
        case DB_COL_INT: *(int *)(void *)at = db_row_int(r, cols->name); break;
        case DB_COL_LONG: *(long long *)(void *)at = db_row_long(r, cols->name); break;
        case DB_COL_DOUBLE: *(double *)(void *)at = db_row_double(r, cols->name); break;
        case DB_COL_BOOL: *(bool *)(void *)at = db_row_bool(r, cols->name); break;
        case DB_COL_END: break;
        }
    }
}
