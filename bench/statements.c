/*
 * statements.c — prints korpd's prepared statements, one a line:
 * "name<TAB>text".  bench/moves.sh builds it with db/db_statements.c and
 * checks that bench/move.sql runs the same texts as korpd does for a move.
 *
 * usage: statements
 */
#include "db_int.h"

#include <stdio.h>

int main(void)
{
    for (int i = 0; i < DB_STMT_COUNT; i++)
        printf("%s\t%s\n", db_statements[i].name, db_statements[i].sql);
    return 0;
}
