/* The MatMult benchmark (bench_matmult.c): what its parts share. */
#ifndef BENCH_MATMULT_H
#define BENCH_MATMULT_H

#if defined(__linux__) && !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity, environ */
#endif
#include <petscmat.h>
#include <petscksp.h>
#include <petscmatbsrcustom.h>
#include <stdint.h>
#if defined(PETSC_HAVE_CUDA) && PETSC_VERSION_GE(3, 21, 0)
  #include <petscdevice.h>
  #define BENCH_DEVICE_VECTORS 1 /* CUDA vectors: products are queued on PETSc's stream */
#endif
#include <time.h>
#if defined(__linux__)
  #include <sched.h>
  #include <signal.h>
  #include <spawn.h>
  #include <sys/types.h>
  #include <sys/wait.h>
  #include <unistd.h>
#endif
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define MAX_LIST    16
#define MAX_THREADS 1024

static inline uint64_t SplitMix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double Uniform(uint64_t *s)
{
  return (double)(SplitMix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Each generated row gets its own stream, so values do not depend on the partition. */
static inline uint64_t RowSeed(PetscInt seed, PetscInt64 tag, PetscInt64 row)
{
  uint64_t s = (uint64_t)seed * 0xD1B54A32D192ED03ULL ^ ((uint64_t)tag << 56) ^ (uint64_t)row * 0x9E3779B97F4A7C15ULL;
  (void)SplitMix64(&s);
  return s;
}

typedef struct {
  char       name[32];
  PetscInt   bs;
  PetscInt   nbrows;  /* global block rows (= block columns) */
  PetscInt64 nblocks; /* global nonzero blocks */
  PetscInt   rstart;  /* first local block row */
  PetscInt   nlocal;  /* local block rows */
  /* thesis */
  PetscInt band;
  /* stencil27 */
  PetscInt n;
} MatrixSpec;

typedef struct {
  char       matrix[32];
  char       type[64];
  PetscInt   bs, nrows;
  PetscInt64 nblocks;
  double     matrix_bytes, mult_bytes, multadd_bytes;
  double     mult_s, multadd_s;         /* median seconds per call */
  double     ratio_mult, ratio_multadd; /* first type time / this type time */
  double     diff_mult, diff_multadd;   /* relative max-norm difference to the first type */
  double     convert_s;
  PetscInt   reps_mult, reps_multadd; /* calls per trial actually made */
  PetscBool  device;                  /* the product runs on a GPU: the host references say nothing of it */
} Result;

/* One point of the thread or chunks-per-thread sweep of seqbsrcustom (1 rank). */
typedef struct {
  char     matrix[32];
  char     sweep[8]; /* "threads" or "chunks" */
  PetscInt threads, chunks, ntasks, reps;
  double   mult_s, gbs;
  double   triad, read; /* the references' GB/s with the same number of threads */
} SweepRow;

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

/* A performance target of the issue, with the measured value. */
typedef struct {
  char      matrix[32];
  char      name[48];
  char      what[160];
  double    value, threshold;
  PetscBool pass;
} Target;

/* The fixed-iteration KSPSolve of one type (-bench_ksp); times are medians of the max over ranks. */
typedef struct {
  char     matrix[32];
  char     type[64];
  char     ksp_type[64], pc_type[64];
  PetscInt restart; /* GMRES restart of the KSP types that have one, else 0 */
  PetscInt its, trials;
  double   solve_s; /* median seconds of one KSPSolve */
  double   ratio;   /* first type's solve_s / this type's */
  double   diff;    /* relative max-norm difference of the solution to the first type's */
  double   relres;  /* ||b - A x|| / ||b|| after the solve, with this type's matrix */
} KSPRow;

/* One timed operation: MatMult(A, x, y), MatMultAdd(A, x, z, y), or the halo exchange x -> y through sc. */
typedef enum {
  OP_MULT,
  OP_MULTADD,
  OP_SCATTER,
  OP_LOCALGHOST,    /* the local then the ghost product of an mpibsrcustom rank, no exchange */
  OP_MULTTRANSPOSE, /* MatMultTranspose(A, x, y) */
  OP_MATMATMULT     /* MatProductNumeric(B) of B = MatMatMult(A, dense, MAT_INITIAL_MATRIX): MatMatMult's MAT_REUSE_MATRIX step */
} OpKind;

typedef struct {
  OpKind     kind;
  Mat        A;
  Vec        x, z, y;
  VecScatter sc;
  Mat        B; /* OP_LOCALGHOST: the ghost block (A the local block), z its input; OP_MATMATMULT: the product */
} Op;

static inline PetscErrorCode RunOp(const Op *op)
{
  PetscFunctionBeginUser;
  switch (op->kind) {
  case OP_MULT:
    PetscCall(MatMult(op->A, op->x, op->y));
    break;
  case OP_MULTADD:
    PetscCall(MatMultAdd(op->A, op->x, op->z, op->y));
    break;
  case OP_SCATTER:
    PetscCall(VecScatterBegin(op->sc, op->x, op->y, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(op->sc, op->x, op->y, INSERT_VALUES, SCATTER_FORWARD));
    break;
  case OP_LOCALGHOST:
    PetscCall(MatMult(op->A, op->x, op->y));
    PetscCall(MatMultAdd(op->B, op->z, op->y, op->y));
    break;
  case OP_MULTTRANSPOSE:
    PetscCall(MatMultTranspose(op->A, op->x, op->y));
    break;
  case OP_MATMATMULT:
    PetscCall(MatProductNumeric(op->B));
    break;
  }
  PetscFunctionReturn(0);
}

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

/* The BAIJ copies of ours (-bench_copies): MatMult of MatConvert(ours, MATBAIJ) and of
   MatConvert(MatDuplicate(ours), MATBAIJ) against the BAIJ assembled here, in interleaved trials. */
typedef struct {
  char     matrix[32];
  char     type[64];      /* ours */
  char     baij_type[64]; /* what the copies are */
  PetscInt bs, trials, reps[3];
  double   t[3];                   /* ms medians: assembled, converted, duplicated then converted */
  double   ratio[2], q1[2], q3[2]; /* per-trial time ratios converted / assembled, duplicated then converted / assembled */
  double   diff;                   /* max relative difference of the copies' products to the assembled one's */
} CopiesRow;

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

typedef struct {
  char        type[64];
  PetscBool   cpu_bsr;  /* a bsrcustom type on the cpu backend: the cpu targets are about these */
  PetscBool   gpu_bsr;  /* a bsrcustom type on a GPU backend, its transposed copy on the device: the GPU transpose target */
  PetscBool   gpu_spmm; /* a bsrcustom type on a GPU backend: the GPU SpMM target is about these */
  const char *path;     /* where its MatMultTranspose runs */
  double      t_mult, t_trans, diff;
} TransposeRow;

typedef struct {
  PetscInt k;
  double   t_mult, t_spmm, diff; /* t_spmm: the whole MatMatMult of k columns */
} SpMMRow;

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

/* bench_options.c */
PetscErrorCode BenchOptionsGet(BenchOptions *o);
PetscErrorCode BenchOptionsFree(BenchOptions *o);

/* bench_matrices.c */
PetscErrorCode SetupSpec(const char name[], PetscInt thesis_rows, PetscInt thesis_bs, PetscReal density, PetscInt sn, PetscInt sbs, MatrixSpec *spec);
PetscErrorCode AssembleBAIJOn(MPI_Comm comm, const MatrixSpec *spec, PetscInt seed, Mat *A);
PetscErrorCode AssembleBAIJ(const MatrixSpec *spec, PetscInt seed, Mat *A);
PetscErrorCode TrafficModel(Mat A, const MatrixSpec *spec, Result *res);
PetscErrorCode FillRandom(Vec x, PetscInt seed);
PetscErrorCode IsBaseType(Mat base, const char type[], PetscBool *same);
PetscErrorCode RunsOnDevice(Mat A, PetscBool *dev);

/* bench_timing.c */
PetscErrorCode Median(PetscInt n, PetscReal t[], double *med);
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev);
PetscErrorCode SyncDevice(const Op *op);
PetscErrorCode TimeOnAllRanks(MPI_Comm comm, const Op *op, PetscInt n, double *dt);
PetscInt       RepsForBudget(PetscInt reps, PetscInt trials, PetscReal budget, double dt);
PetscErrorCode TimeOps(MPI_Comm comm, PetscInt nops, const Op ops[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[], PetscInt repsused[], double ttrial[]);
PetscErrorCode TimeProduct(Mat A, Vec x, Vec z, Vec y, PetscBool add, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused);
PetscErrorCode RelDiff(Vec y, Vec yref, double *rel);
PetscErrorCode TrialRatios(PetscInt trials, const double a[], const double b[], double *med, double *q1, double *q3);
PetscErrorCode TimeAlternating(const Op ops[2], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[2], PetscInt repsused[2], double ttrial[]);

/* bench_references.c */
PetscErrorCode RefsGet(Refs *refs, PetscReal stream_mb, PetscInt nthreads, double *triad, double *read);
PetscErrorCode MeasurePaired(RefKind kind, Mat A, Vec x, Vec y, double mult_bytes, PetscReal stream_mb, int nthreads, PetscInt warmup, PetscInt min_pairs, PetscReal budget, PairedRef *pt);

/* bench_busy.c */
int            AffinityCPUs(void);
PetscErrorCode LoadedVsBAIJ(Mat base, Vec x, const char bsr_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, LoadedRow *row);

/* bench_copies.c */
PetscErrorCode BenchBAIJCopies(Mat base, Vec x, const char ours_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, CopiesRow *row);

/* bench_sweeps.c */
PetscErrorCode Sweeps(Mat A, Vec x, Vec y, const Result *r, PetscReal stream_mb, int maxthreads, const PetscInt chunks[], PetscInt nchunks, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SweepRow rows[], PetscInt maxrows, PetscInt *nrows, Refs *refs);

/* bench_overlap.c */
PetscErrorCode Overlap(Mat A, Vec x, Vec y, const Result *r, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, PetscReal target, OverlapRow *o);
PetscErrorCode PrintOverlap(const OverlapRow *o);

/* bench_one_rank.c */
PetscErrorCode OneRankVsRanks(const MatrixSpec *spec, PetscInt seed, Mat mpibaij, Vec x, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, OneRankRow *row);

/* bench_products.c */
PetscErrorCode IsCPUBSRCustom(Mat A, PetscBool *cpu_bsr);
PetscErrorCode BenchTranspose(Mat A, Vec x, Vec y, Vec xtref, Vec ytref, PetscBool *have_ref, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, TransposeRow *row);
PetscErrorCode BenchSpMM(Mat A, Vec x, Vec y, PetscInt k, PetscInt seed, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SpMMRow *row);
PetscErrorCode IsGPUBSRCustom(Mat A, PetscBool *gpu_bsr);
PetscErrorCode PrintTransposeSpMM(const char matrix[], const char ref_type[], PetscInt ntypes, const TransposeRow tr[], PetscBool dotranspose, const SpMMRow sp[], PetscInt nk, PetscBool gpu_run, PetscReal target_transpose, PetscReal target_transpose_gpu, PetscReal target_spmm, PetscReal target_gpu_spmm);

/* bench_ksp.c */
PetscErrorCode BenchKSP(const MatrixSpec *spec, Mat base, PetscInt ntypes, char *const types[], PetscInt its, const char ksp_type[], const char pc_type[], PetscInt seed, PetscInt trials, KSPRow rows[]);

/* bench_report.c */
PetscErrorCode PrintRow(const Result *r, double triad, double read);
PetscErrorCode AddTarget(Target tg[], PetscInt maxtg, PetscInt *ntg, const char matrix[], const char name[], const char what[], double value, double threshold, PetscBool higher);
PetscErrorCode WriteJSON(const char file[], const Result res[], PetscInt nres, double triad, double read, const PairedRow pr[], PetscInt npr, int nthreads, PetscInt reps, PetscInt trials, PetscReal budget, const SweepRow sw[], PetscInt nsw, const OverlapRow ov[], PetscInt nov, const OneRankRow one[], PetscInt none, const LoadedRow ld[], PetscInt nld, const CopiesRow cp[], PetscInt ncp, const KSPRow kr[], PetscInt nkr, const Target tg[], PetscInt ntg);

#endif
