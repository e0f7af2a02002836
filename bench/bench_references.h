/* The bandwidth references (bench_references.c): STREAM's triad and a read, alone and paired with MatMult. */
#ifndef BENCH_REFERENCES_H
#define BENCH_REFERENCES_H

#include "bench_base.h"

/* The bandwidth references of one rank, run with nthreads OpenMP threads over its share of stream_mb,
   their arrays first touched by those threads:
   - the STREAM triad a = b + s c (three arrays; 24 B an element, the write-allocate of a not counted,
     as STREAM reports it): the reference of the seed thesis;
   - the read: the sum of one array's elements, in 8 independent partial sums so that the compiler
     vectorises it and no chain of additions limits it (8 B an element). MatMult reads its matrix and
     x and writes only y, so this is the bound it is judged against; the triad, which also writes,
     can run well above or below what the cores read, depending on the machine. */
typedef enum {
  REF_TRIAD,
  REF_READ
} RefKind;

/* The best-of-10 references by thread count, measured at first use (0: not yet). */
typedef struct {
  double triad[MAX_THREADS + 1], read[MAX_THREADS + 1];
} Refs;

/* A reference measured in pairs with MatMult. Single references and single MatMults alternate,
   reference first and last; each MatMult is set against the mean time of the references on either
   side of it, and the result is the median of these per-pair ratios, with the quartiles. Each timed
   call follows an untimed call of its own kind, so that it meets the caches as back-to-back calls
   do: a product right after a triad also writes back the triad's dirty lines (which slows it), and
   a triad right after a product finds clean ones (which makes it faster than STREAM's back-to-back
   triads). On a shared machine the triad's bandwidth moves between regimes within seconds, so a
   reference measured once, or per batch, says little about the bandwidth a product had a moment
   later. Both sides are single calls
   timed the same way. pairs: as many as fit in budget seconds, at least min_pairs, at most 1000. */
typedef struct {
  RefKind  kind;
  PetscInt pairs;
  double   pct_med, pct_q1, pct_q3; /* 100 x MatMult GB/s / reference GB/s */
  double   ref_med, mult_med;       /* medians of the GB/s of the single calls */
} PairedRef;

/* a paired measurement of one matrix's all-threads seqbsrcustom MatMult, for the JSON */
typedef struct {
  char      matrix[32];
  char      type[64];
  PetscInt  threads;
  PairedRef p;
} PairedRow;

PetscErrorCode RefsGet(Refs *refs, PetscReal stream_mb, PetscInt nthreads, double *triad, double *read);
PetscErrorCode MeasurePaired(RefKind kind, Mat A, Vec x, Vec y, double mult_bytes, PetscReal stream_mb, int nthreads, PetscInt warmup, PetscInt min_pairs, PetscReal budget, PairedRef *pt);

#endif
