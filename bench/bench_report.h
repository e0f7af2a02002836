/* What the benchmark prints and writes (bench_report.c): result rows, TARGET lines and the JSON of
   every part's rows. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "bench_result.h"
#include "bench_references.h"
#include "bench_sweeps.h"
#include "bench_overlap.h"
#include "bench_one_rank.h"
#include "bench_busy.h"
#include "bench_copies.h"
#include "bench_ksp.h"

/* A performance target of the issue, with the measured value. */
typedef struct {
  char      matrix[32];
  char      name[48];
  char      what[160];
  double    value, threshold;
  PetscBool pass;
} Target;

PetscErrorCode PrintRow(const Result *r, double triad, double read);
PetscErrorCode AddTarget(Target tg[], PetscInt maxtg, PetscInt *ntg, const char matrix[], const char name[], const char what[], double value, double threshold, PetscBool higher);
PetscErrorCode WriteJSON(const char file[], const Result res[], PetscInt nres, double triad, double read, const PairedRow pr[], PetscInt npr, int nthreads, PetscInt reps, PetscInt trials, PetscReal budget, const SweepRow sw[], PetscInt nsw, const OverlapRow ov[], PetscInt nov, const OneRankRow one[], PetscInt none, const LoadedRow ld[], PetscInt nld, const CopiesRow cp[], PetscInt ncp, const KSPRow kr[], PetscInt nkr, const Target tg[], PetscInt ntg);

#endif
