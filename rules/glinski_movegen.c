/*
 * glinski_movegen.c — legal move generation and perft on the hexagonal
 * board (movegen_generic.h): pawns step along the files, start on their
 * own cells and promote to any piece; there are no drops.
 */
#include "glinski_board.h"

#include "movegen_generic.h"
