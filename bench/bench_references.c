/* The bandwidth references: the STREAM triad and the read, best of 10 by thread count, and a reference measured in pairs with MatMult. */
#include "bench_references.h"
#include "bench_timing.h"

typedef struct {
  RefKind    kind;
  PetscInt64 n, ntot; /* elements of each array on this rank, over all ranks */
  double    *a, *b, *c;
  double     bytes; /* bytes one run moves on all ranks together */
  double     sum;   /* REF_READ: the last sum, checked so that the reads stay */
  int        nthreads;
} Stream;

static PetscErrorCode StreamCreate(RefKind kind, PetscReal stream_mb, int nthreads, Stream *st)
{
  PetscMPIInt size;
  PetscInt64  i, n;
  const int   narrays = kind == REF_TRIAD ? 3 : 1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  n = (PetscInt64)(stream_mb * 1e6 / ((double)narrays * sizeof(double) * size));
  if (kind == REF_READ) n -= n % 8; /* whole groups of the 8 partial sums */
  PetscCheck(n >= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb %g is too small", (double)stream_mb);
  st->kind     = kind;
  st->n        = n;
  st->ntot     = n * size;
  st->nthreads = nthreads;
  st->bytes    = (double)narrays * sizeof(double) * (double)st->ntot;
  st->sum      = 0.0;
  st->b = st->c = NULL;
  if (kind == REF_TRIAD) {
    PetscCall(PetscMalloc3(n, &st->a, n, &st->b, n, &st->c));
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static) num_threads(nthreads)
#endif
    for (i = 0; i < n; i++) { /* first touch by the threads that use the data */
      st->a[i] = 0.0;
      st->b[i] = 1.0;
      st->c[i] = 2.0;
    }
  } else {
    double *a;
    PetscCall(PetscMalloc1(n, &st->a));
    a = st->a;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static) num_threads(nthreads)
#endif
    for (i = 0; i < n / 8; i++) /* the groups each thread reads */
      for (int j = 0; j < 8; j++) a[8 * i + j] = 1.0;
  }
  PetscFunctionReturn(0);
}

static inline void StreamRun(Stream *st)
{
  const PetscInt64 n = st->n;
  PetscInt64       i;

  if (st->kind == REF_TRIAD) {
    const double s = 3.0, *b = st->b, *c = st->c;
    double      *a = st->a;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static) num_threads(st->nthreads)
#endif
    for (i = 0; i < n; i++) a[i] = b[i] + s * c[i];
  } else {
    const double *a   = st->a;
    double        sum = 0.0;
#if defined(_OPENMP)
  #pragma omp parallel num_threads(st->nthreads) reduction(+ : sum)
#endif
    {
      double part[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
#if defined(_OPENMP)
  #pragma omp for schedule(static)
#endif
      for (i = 0; i < n / 8; i++)
        for (int j = 0; j < 8; j++) part[j] += a[8 * i + j];
      sum += ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    }
    st->sum = sum;
  }
}

/* the reference computed what it should (and its loads were not optimised away) */
static PetscErrorCode StreamCheck(const Stream *st)
{
  PetscFunctionBeginUser;
  if (st->kind == REF_TRIAD) PetscCheck(st->a[st->n - 1] == 7.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "STREAM triad produced a wrong value");
  else PetscCheck(st->sum == (double)st->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The read reference summed %g, expected %g", st->sum, (double)st->n);
  PetscFunctionReturn(0);
}

/* Best of 10 runs on all ranks at once (the slowest rank's time): aggregate GB/s. */
static PetscErrorCode StreamBest(Stream *st, double *gbs)
{
  double best = 1e30, t0, dt, dtmax;

  PetscFunctionBeginUser;
  for (int k = 0; k < 10; k++) {
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = MPI_Wtime();
    StreamRun(st);
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    best = PetscMin(best, dtmax);
  }
  PetscCall(StreamCheck(st));
  *gbs = st->bytes / best / 1e9;
  PetscFunctionReturn(0);
}

static PetscErrorCode StreamDestroy(Stream *st)
{
  PetscFunctionBeginUser;
  if (st->kind == REF_TRIAD) PetscCall(PetscFree3(st->a, st->b, st->c));
  else PetscCall(PetscFree(st->a));
  PetscFunctionReturn(0);
}

/* A reference with nthreads OpenMP threads per rank over stream_mb MB in all, best of 10. */
static PetscErrorCode StreamBandwidth(RefKind kind, PetscReal stream_mb, int nthreads, double *gbs)
{
  Stream st;

  PetscFunctionBeginUser;
  PetscCall(StreamCreate(kind, stream_mb, nthreads, &st));
  PetscCall(StreamBest(&st, gbs));
  PetscCall(StreamDestroy(&st));
  PetscFunctionReturn(0);
}

PetscErrorCode RefsGet(Refs *refs, PetscReal stream_mb, PetscInt nthreads, double *triad, double *read)
{
  PetscFunctionBeginUser;
  if (refs->triad[nthreads] <= 0.0) PetscCall(StreamBandwidth(REF_TRIAD, stream_mb, (int)nthreads, &refs->triad[nthreads]));
  if (refs->read[nthreads] <= 0.0) PetscCall(StreamBandwidth(REF_READ, stream_mb, (int)nthreads, &refs->read[nthreads]));
  if (triad) *triad = refs->triad[nthreads];
  if (read) *read = refs->read[nthreads];
  PetscFunctionReturn(0);
}

PetscErrorCode MeasurePaired(RefKind kind, Mat A, Vec x, Vec y, double mult_bytes, PetscReal stream_mb, int nthreads, PetscInt warmup, PetscInt min_pairs, PetscReal budget, PairedRef *pt)
{
  Stream     st;
  Op         op = {OP_MULT, A, x, NULL, y, NULL, NULL};
  PetscReal *tt, *tm, *pct;
  PetscInt   i, k, n, nw = PetscMax(warmup, 1);
  double     t0, t2, dt[2], dtmax[2];
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(StreamCreate(kind, stream_mb, nthreads, &st));
  /* warm-up of both, and the time of one pair for the number of pairs */
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  for (i = 0; i < nw; i++) {
    StreamRun(&st);
    PetscCall(RunOp(&op));
  }
  dt[0] = 2.0 * (MPI_Wtime() - t0) / (double)nw; /* a pair is two references and two products */
  PetscCallMPI(MPI_Allreduce(dt, dtmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  n = budget > 0.0 ? (PetscInt)((double)budget / dtmax[0]) : 1000;
  n = PetscMin(PetscMax(n, min_pairs), 1000);
  PetscCall(PetscMalloc3(n + 1, &tt, n, &tm, n, &pct));
  for (k = 0; k <= n; k++) {
    StreamRun(&st); /* untimed: the timed call below starts from the caches of back-to-back calls */
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    StreamRun(&st);
    dt[0] = MPI_Wtime() - t0;
    dt[1] = 0.0;
    if (k < n) {
      PetscCall(RunOp(&op)); /* untimed, as above */
      PetscCallMPI(MPI_Barrier(comm));
      t2 = MPI_Wtime();
      PetscCall(RunOp(&op));
      dt[1] = MPI_Wtime() - t2;
    }
    PetscCallMPI(MPI_Allreduce(dt, dtmax, 2, MPI_DOUBLE, MPI_MAX, comm));
    tt[k] = dtmax[0];
    if (k < n) tm[k] = dtmax[1];
  }
  PetscCall(StreamCheck(&st));
  for (k = 0; k < n; k++) pct[k] = 100.0 * (mult_bytes / tm[k]) / (st.bytes / (0.5 * (tt[k] + tt[k + 1])));
  pt->kind  = kind;
  pt->pairs = n;
  PetscCall(Median(n, pct, &pt->pct_med)); /* sorts pct */
  pt->pct_q1 = (double)pct[n / 4];
  pt->pct_q3 = (double)pct[(3 * n) / 4];
  for (k = 0; k <= n; k++) tt[k] = st.bytes / tt[k] / 1e9;
  for (k = 0; k < n; k++) tm[k] = mult_bytes / tm[k] / 1e9;
  PetscCall(Median(n + 1, tt, &pt->ref_med));
  PetscCall(Median(n, tm, &pt->mult_med));
  PetscCall(PetscFree3(tt, tm, pct));
  PetscCall(StreamDestroy(&st));
  PetscFunctionReturn(0);
}
