/* The thread and chunks-per-thread sweeps of seqbsrcustom (-bench_sweep). */
#include "bench_sweeps.h"
#include "bench_timing.h"

/* Thread sweep (1..maxthreads) and chunks-per-thread sweep (at the matrix's thread count) of a seqbsrcustom matrix. */
PetscErrorCode Sweeps(Mat A, Vec x, Vec y, const Result *r, PetscReal stream_mb, int maxthreads, const PetscInt chunks[], PetscInt nchunks, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SweepRow rows[], PetscInt maxrows, PetscInt *nrows, Refs *refs)
{
  PetscInt nt0, ch0, nt, k;
  double   t1 = 0.0;

  PetscFunctionBeginUser;
  PetscCall(MatBSRCustomGetNumThreads(A, &nt0));
  PetscCall(MatBSRCustomGetChunksPerThread(A, &ch0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  thread sweep, %s, %s, %" PetscInt_FMT " chunks per thread (the STREAM triad and the read reference re-measured with each thread count; speedup vs 1 thread)\n", r->matrix, r->type, ch0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %7s %6s %4s %9s %8s %9s %7s %9s %7s %8s\n", "threads", "tasks", "reps", "Mult ms", "GB/s", "triadGB/s", "%triad", "readGB/s", "%read", "speedup"));
  for (nt = 1; nt <= maxthreads && *nrows < maxrows; nt++) {
    SweepRow *w = &rows[(*nrows)++];

    PetscCall(PetscMemzero(w, sizeof(*w)));
    PetscCall(PetscStrncpy(w->matrix, r->matrix, sizeof(w->matrix)));
    PetscCall(PetscStrncpy(w->sweep, "threads", sizeof(w->sweep)));
    PetscCall(RefsGet(refs, stream_mb, nt, &w->triad, &w->read));
    PetscCall(MatBSRCustomSetNumThreads(A, nt));
    PetscCall(TimeProduct(A, x, NULL, y, PETSC_FALSE, warmup, reps, trials, budget, &w->mult_s, &w->reps));
    PetscCall(MatBSRCustomGetNumTasks(A, &w->ntasks));
    w->threads = nt;
    w->chunks  = ch0;
    w->gbs     = r->mult_bytes / w->mult_s / 1e9;
    if (nt == 1) t1 = w->mult_s;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %7" PetscInt_FMT " %6" PetscInt_FMT " %4" PetscInt_FMT " %9.3f %8.2f %9.2f %7.1f %9.2f %7.1f %8.2f\n", nt, w->ntasks, w->reps, 1e3 * w->mult_s, w->gbs, w->triad, 100.0 * w->gbs / w->triad, w->read, 100.0 * w->gbs / w->read, t1 / w->mult_s));
  }
  PetscCall(MatBSRCustomSetNumThreads(A, nt0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  chunks-per-thread sweep, %s, %s, %" PetscInt_FMT " threads (speedup vs %" PetscInt_FMT " chunks per thread, the matrix's setting)\n", r->matrix, r->type, nt0, ch0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %7s %6s %4s %9s %8s %7s %7s %8s\n", "chunks", "tasks", "reps", "Mult ms", "GB/s", "%triad", "%read", "speedup"));
  for (k = 0; k < nchunks && *nrows < maxrows; k++) {
    SweepRow *w = &rows[(*nrows)++];

    PetscCall(PetscMemzero(w, sizeof(*w)));
    PetscCall(PetscStrncpy(w->matrix, r->matrix, sizeof(w->matrix)));
    PetscCall(PetscStrncpy(w->sweep, "chunks", sizeof(w->sweep)));
    PetscCall(RefsGet(refs, stream_mb, nt0, &w->triad, &w->read));
    PetscCall(MatBSRCustomSetChunksPerThread(A, chunks[k]));
    PetscCall(TimeProduct(A, x, NULL, y, PETSC_FALSE, warmup, reps, trials, budget, &w->mult_s, &w->reps));
    PetscCall(MatBSRCustomGetNumTasks(A, &w->ntasks));
    w->threads = nt0;
    w->chunks  = chunks[k];
    w->gbs     = r->mult_bytes / w->mult_s / 1e9;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %7" PetscInt_FMT " %6" PetscInt_FMT " %4" PetscInt_FMT " %9.3f %8.2f %7.1f %7.1f %8.2f\n", chunks[k], w->ntasks, w->reps, 1e3 * w->mult_s, w->gbs, 100.0 * w->gbs / w->triad, 100.0 * w->gbs / w->read, r->mult_s / w->mult_s));
  }
  PetscCall(MatBSRCustomSetChunksPerThread(A, ch0));
  PetscFunctionReturn(0);
}
