/* The benchmark's command line (bench_options.c). */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include "bench_base.h"

/* What the command line asks for, with the run's ranks and threads (bench_options.c). */
typedef struct {
  char       *mats[MAX_LIST], *types[MAX_LIST], json[PETSC_MAX_PATH_LEN];
  PetscInt    nmats, ntypes, reps, trials, warmup, seed;
  PetscInt    thesis_rows, thesis_bs, stencil_n, stencil_bs;
  PetscInt    chunks[MAX_LIST], nchunks;
  PetscInt    spmm_k[MAX_LIST], nspmm;
  PetscInt    ksp_its;
  char        ksp_type[64], pc_type[64];
  PetscReal   density, stream_mb, budget, sweep_budget;
  PetscReal   target_baij, target_read, target_overlap, target_vs_ranks, target_vs_one;
  PetscReal   target_loaded, target_idle_cost;
  PetscReal   target_transpose, target_transpose_gpu, target_spmm, target_gpu_spmm;
  PetscBool   hasjson, dosweep, dooverlap, doonerank, doloaded, dotranspose, docopies;
  PetscBool   gpu_run;  /* -mat_bsrcustom_backend names a GPU backend: no CPU-only comparisons */
  PetscMPIInt size;     /* MPI ranks */
  int         nthreads; /* OpenMP threads per rank */
} BenchOptions;

PetscErrorCode BenchOptionsGet(BenchOptions *o);
PetscErrorCode BenchOptionsFree(BenchOptions *o);

#endif
