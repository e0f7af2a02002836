/* One rank's threads against MATBAIJ on the node's ranks (bench_one_rank.c). */
#ifndef BENCH_ONE_RANK_H
#define BENCH_ONE_RANK_H

#include "bench_matrices.h"

/*
  "1 rank x N threads against MATBAIJ on N ranks (and on 1 rank)", measured in one run on N ranks of one
  node: rank 0 also holds the whole matrix as seqbaij and as seqbsrcustom with N threads, and the three
  products (mpibaij on every rank, then seqbaij and seqbsrcustom on rank 0 alone) are timed in
  interleaved trials, so that all three meet the same state of the machine. Timed in two runs, the
  ratio would carry the drift between the runs (on a shared machine the memory bandwidth moves from
  minute to minute), not the difference of the types. While rank 0 works alone the
  other ranks sleep (nanosleep between tests of an MPI_Ibarrier) instead of spinning in MPI, and
  rank 0's threads may run on every CPU the ranks are bound to.
*/
typedef struct {
  char     matrix[32];
  char     type[64]; /* the seqbsrcustom type name */
  PetscInt threads;
  PetscInt reps[3];                            /* calls per trial: mpibaij, seqbaij, seqbsrcustom */
  double   t[3];                               /* medians of the seconds per call */
  double   vs_ranks, vs_ranks_q1, vs_ranks_q3; /* median (quartiles) of the per-trial t_mpibaij / t_bsr */
  double   vs_one;                             /* median of the per-trial t_seqbaij / t_bsr */
  double   diff;                               /* max relative difference of the products to mpibaij's */
} OneRankRow;

PetscErrorCode OneRankVsRanks(const MatrixSpec *spec, PetscInt seed, Mat mpibaij, Vec x, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, OneRankRow *row);

#endif
