/*
 * plain-queens: a plain N-Queens counter, the reference that scripts/compare times
 * nqueens-count against, kept in the repository so that anyone can rerun a speed ratio.
 *
 * The method is the classic one and nothing more: iterative backtracking row by row, with
 * one bit mask each for the columns and the two diagonals taken; the mirror symmetry of the
 * first row (a queen in the left half of the first row stands for itself and its mirror
 * image, so it counts twice; on an odd board the middle column counts once); and OpenMP, one
 * task per first-row column searched.
 *
 *   plain-queens N [THREADS]    prints the number of solutions of the N x N board (1 to 32)
 *
 * THREADS left out, OpenMP's default applies (OMP_NUM_THREADS, else every core).
 * Build: gcc -O3 -march=native -fopenmp -o plain-queens plain-queens.c
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

#define MOST_N 32

/* The solutions with the first row's queen on the column of `first` (a single bit). */
static uint64_t count_from(int n, uint64_t first)
{
    const uint64_t full = (UINT64_C(1) << n) - 1;
    if (n == 1)
        return 1;
    /* Level d holds what rows 0..d leave for row d + 1: the columns and the diagonals taken
     * (the left diagonals move one column left a row, the right ones one column right), and
     * the squares of row d + 1 still to try. */
    uint64_t cols[MOST_N], left[MOST_N], right[MOST_N], todo[MOST_N];
    uint64_t found = 0;
    int d = 0;
    cols[0] = first;
    left[0] = first << 1;
    right[0] = first >> 1;
    todo[0] = full & ~(cols[0] | left[0] | right[0]);
    while (d >= 0) {
        uint64_t free_squares = todo[d];
        if (free_squares == 0) {
            d--;
            continue;
        }
        uint64_t bit = free_squares & (~free_squares + 1);
        todo[d] = free_squares ^ bit;
        if (d + 2 == n) { /* that queen stood on the last row */
            found++;
            continue;
        }
        cols[d + 1] = cols[d] | bit;
        left[d + 1] = ((left[d] | bit) << 1) & full;
        right[d + 1] = (right[d] | bit) >> 1;
        todo[d + 1] = full & ~(cols[d + 1] | left[d + 1] | right[d + 1]);
        d++;
    }
    return found;
}

static long parse(const char *text, const char *what, long least, long most)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < least || v > most) {
        fprintf(stderr, "plain-queens: %s must be a whole number from %ld to %ld, not '%s'\n",
                what, least, most, text);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: plain-queens N [THREADS]  (N from 1 to %d)\n", MOST_N);
        return 2;
    }
    int n = (int)parse(argv[1], "N", 1, MOST_N);
    if (argc == 3)
        omp_set_num_threads((int)parse(argv[2], "THREADS", 1, 4096));

    /* Columns 0 .. n/2 - 1 count twice (their mirror images), the middle one of an odd board
     * once. */
    int columns = (n + 1) / 2;
    uint64_t counts[MOST_N] = {0};
#pragma omp parallel
#pragma omp single
    for (int c = 0; c < columns; c++) {
#pragma omp task firstprivate(c) shared(counts)
        counts[c] = count_from(n, UINT64_C(1) << c);
    }
    uint64_t total = 0;
    for (int c = 0; c < columns; c++)
        total += (n % 2 == 1 && c == n / 2) ? counts[c] : 2 * counts[c];
    printf("%" PRIu64 "\n", total);
    return 0;
}
