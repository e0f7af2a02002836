/* The thread and chunks-per-thread sweeps of seqbsrcustom (bench_sweeps.c). */
#ifndef BENCH_SWEEPS_H
#define BENCH_SWEEPS_H

#include "bench_result.h"
#include "bench_references.h"

/* One point of the thread or chunks-per-thread sweep of seqbsrcustom (1 rank). */
typedef struct {
  char     matrix[32];
  char     sweep[8]; /* "threads" or "chunks" */
  PetscInt threads, chunks, ntasks, reps;
  double   mult_s, gbs;
  double   triad, read; /* the references' GB/s with the same number of threads */
} SweepRow;

PetscErrorCode Sweeps(Mat A, Vec x, Vec y, const Result *r, PetscReal stream_mb, int maxthreads, const PetscInt chunks[], PetscInt nchunks, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SweepRow rows[], PetscInt maxrows, PetscInt *nrows, Refs *refs);

#endif
