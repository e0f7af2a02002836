/* The busy-core case (bench_busy.c). */
#ifndef BENCH_BUSY_H
#define BENCH_BUSY_H

#include "bench_base.h"

/* The busy-core case (1 rank). Busy: seqbaij and seqbsrcustom (default settings) in interleaved trials
   while a CPU-bound process runs on every CPU this rank may use. Idle: seqbsrcustom with and without
   its busy-core fallback, interleaved, before the load starts. Ratios are medians of per-trial ratios. */
typedef struct {
  char     matrix[32];
  char     type[64];
  PetscInt threads, trials, busy, reps[4];
  double   t_baij, t_bsr, ratio, q1, q3;        /* busy: ms medians; seqbaij / seqbsrcustom per trial */
  double   t_on, t_off, idle, idle_q1, idle_q3; /* idle: ms medians; without / with the fallback per trial */
} LoadedRow;

int            AffinityCPUs(void);
PetscErrorCode LoadedVsBAIJ(Mat base, Vec x, const char bsr_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, LoadedRow *row);

#endif
