/* The halo overlap of mpibsrcustom (bench_overlap.c). */
#ifndef BENCH_OVERLAP_H
#define BENCH_OVERLAP_H

#include "bench_result.h"

/* The overlap measurement of mpibsrcustom (several ranks); times are medians of the max over ranks. */
typedef struct {
  char      matrix[32];
  char      type[64];
  PetscInt  nghost_min, nghost_max; /* ghost block columns over the ranks */
  PetscInt  reps_exchange, reps_local, reps_ghost, reps_full;
  double    t_exchange, t_local, t_ghost, t_full;
  double    t_compute;              /* the local then the ghost product in one go, no exchange: the ghost block as cold as in MatMult */
  double    t_full_noprogress;      /* cpu backend: MatMult of a copy without MPI progress during the local product; 0: not timed */
  double    noprogress_over_paired; /* median over trials of the per-trial t_full_noprogress / t_full */
  double    t_ghost_after;          /* the ghost product after the local one: max(t_ghost, t_compute - t_local) */
  double    ratio_warm;             /* t_full / (max(exchange, local) + the ghost product timed alone, cache-warm) */
  double    bound;                  /* max(t_exchange, t_local) + t_ghost */
  double    ratio;                  /* t_full / bound */
  double    ratio_paired;           /* median over trials of the per-trial t_full / bound */
  double    hidden;                 /* (t_exchange + t_local + t_ghost - t_full) / t_exchange, clamped to [0, 1] */
  double    hidden_raw;
  PetscBool pass;
} OverlapRow;

PetscErrorCode Overlap(Mat A, Vec x, Vec y, const Result *r, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, PetscReal target, OverlapRow *o);
PetscErrorCode PrintOverlap(const OverlapRow *o);

#endif
