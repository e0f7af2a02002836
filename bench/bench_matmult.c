static const char help[] = "MatMult / MatMultAdd benchmark of block sparse matrix types at PETSc level.\n\
Each matrix is generated here, assembled once as BAIJ (MatCreate + MatSetType(baij) + MatXAIJSetPreallocation)\n\
and converted (MatConvert) to every other type, so all types hold identical values. The products of every\n\
type are checked against the first type (relative max-norm difference < 1e-13).\n\
Matrices (-bench_matrices thesis,stencil27):\n\
  thesis    : -thesis_rows <32000> rows, -thesis_bs <5> dense blocks, -thesis_density <0.05> of the entries nonzero,\n\
              the nonzero blocks of each block row forming a contiguous band of block columns centred on the\n\
              diagonal (shifted at the edges); positive random entries, every scalar row sums to 1\n\
  stencil27 : 27-point stencil on a -stencil_n <48>^3 grid, -stencil_bs <3> random dense blocks\n\
Options:\n\
  -bench_types <baij>      : comma list of Mat types; the first is the reference for checks and ratios\n\
  -bench_reps <50>         : products per timed trial (at most; see -bench_time_budget)\n\
  -bench_time_budget <6>   : seconds of timed products per matrix, type and operation; if reps x trials\n\
                             calls would take longer, fewer calls per trial are made (0: never)\n\
  -bench_trials <5>        : trials; the median is reported\n\
  -bench_warmup <3>        : untimed products before timing\n\
  -bench_seed <1>          : seed of the generators (results do not depend on the number of ranks)\n\
  -stream_mb <400>         : total size over all ranks, in MB, of the arrays of each bandwidth reference: the STREAM\n\
                             triad's three (a = b + s c, 24 B an element: two reads and a write) and the read's one\n\
                             (a vectorised sum of its elements, 8 B an element: reads only)\n\
  -bench_json <file>       : also write the results as JSON\n\
bsrcustom extras (the program links libpetscbsrcustom and registers its types at start):\n\
  -bench_sweep <true>      : on 1 rank, for seqbsrcustom: thread sweep 1..omp_get_max_threads()\n\
                             (MatBSRCustomSetNumThreads; triad and read re-measured with as many threads)\n\
                             and chunks-per-thread sweep at the matrix's thread count (MatBSRCustomSetChunksPerThread)\n\
  -bench_sweep_chunks <1,2,4,8,16,64,256> : chunks per thread of the chunk sweep\n\
  -bench_sweep_time_budget <budget> : -bench_time_budget of each sweep point\n\
  -bench_overlap <true>    : on several ranks, for mpibsrcustom: time the halo exchange alone, the local\n\
                             product alone, the ghost product alone and the whole MatMult (cpu backend: also\n\
                             without MPI progress during the local product, -mat_bsrcustom_mpi_progress false)\n\
  -bench_target_baij <1.0> : target: 1-thread seqbsrcustom MatMult at least this times as fast as seqbaij\n\
  -bench_target_read <90>  : target: all-threads seqbsrcustom MatMult at least this percentage of the read reference;\n\
                             judged on pairs (single reads and MatMults alternate for -bench_time_budget s;\n\
                             the median of each MatMult's ratio to the reads beside it), so that a drift of\n\
                             the machine's bandwidth moves both sides alike\n\
  -bench_target_overlap <1.10> : target: overlapped MatMult <= this x (max(exchange, local) + the ghost product after the local one)\n\
  -bench_one_rank <true>   : on P > 1 ranks of one node: rank 0 also holds the whole matrix as seqbaij and as\n\
                             seqbsrcustom with P threads; the three MatMults (mpibaij on all ranks, then the two\n\
                             on rank 0 alone while the other ranks sleep) are timed in interleaved trials\n\
  -bench_target_vs_ranks <1.0> : target: seqbsrcustom with P threads at least this times as fast as mpibaij on P ranks\n\
  -bench_target_vs_one <8.0>   : target (P >= 8 only): ... and at least this times as fast as seqbaij on 1 rank\n\
  -bench_loaded <true>     : on 1 rank (Linux): seqbaij and seqbsrcustom with default settings timed in interleaved\n\
                             trials while a CPU-bound process runs on every CPU of the rank; before that, on the\n\
                             idle machine, seqbsrcustom with and without its busy-core fallback, interleaved\n\
  -bench_target_loaded <1.0>   : target: seqbsrcustom at least this times as fast as seqbaij on busy cores\n\
  -bench_target_idle_cost <0.97> : target: seqbsrcustom with the fallback at least this times as fast as without, idle\n\
  -bench_copies <true>     : with a bsrcustom type in -bench_types (cpu backend): MatMult of the BAIJ matrices made from\n\
                             it, MatConvert(ours, MATBAIJ) and MatConvert(MatDuplicate(ours), MATBAIJ), timed in\n\
                             interleaved trials against the BAIJ assembled here (ratio: median of the per-trial\n\
                             time ratios copy / assembled; 1: as fast)\n\
  -bench_transpose <true>  : MatMultTranspose of every type timed beside its own MatMult (interleaved trials), its\n\
                             product checked against the first type's; ratios to its MatMult and to the first type's transpose\n\
  -bench_spmm <1,4,8,32>   : MatMatMult with a dense matrix of k columns (MAT_REUSE_MATRIX) per column, beside one MatMult\n\
                             (interleaved), for each k of the list (empty: none); column results checked against MatMult\n\
  -bench_target_transpose <0.7> : target (cpu backend): MatMultTranspose throughput at least this times MatMult's, all threads\n\
  -bench_target_transpose_gpu <0.85> : target (GPU backends): MatMultTranspose (the transposed copy on the GPU) throughput at least\n\
                             this times MatMult's\n\
  -bench_target_spmm <0.4> : target (cpu backend): MatMatMult with 8 columns at most this times a MatMult per column\n\
  -bench_target_gpu_spmm <0.3> : target (GPU backends, -mat_bsrcustom_backend cuda): the GPU block SpMM with 8 columns\n\
                             at most this times the same backend's MatMult per column\n\
  -bench_ksp <0>           : after the MatMult timings, KSPSolve with every type, exactly this many iterations (0: none):\n\
                             -bench_ksp_type <gmres> (restart 30, preconditioned on the right) with -bench_ksp_pc_type <pbjacobi>, b = A u for a fixed\n\
                             random u, x0 = 0, rtol = atol = 0, so that no solve stops early. The thesis matrix is nearly\n\
                             singular and the solve does not converge: this times the solver's iterations (products,\n\
                             orthogonalisation, PC), not its convergence. One untimed solve, then -bench_trials solves\n\
                             per type in interleaved trials (median of the slowest rank's time); the residuals\n\
                             ||b - A x|| / ||b|| must agree with the first type's to 1e-4 (relative); the solutions'\n\
                             difference is printed. Table lines start with \"ksp \"\n\
Block rows are split evenly over the MPI ranks. The bandwidth references (STREAM triad, read) run on all ranks at\n\
once, each with omp_get_max_threads() OpenMP threads on its share of the arrays; their bandwidth is the aggregate\n\
of all ranks. The table's %triad and %read are MatMult's GB/s in percent of each: the triad is the seed thesis's\n\
reference, kept for comparison with it; the read is the bound of a product that reads its matrix and x and writes\n\
only y, and the target is judged against it (on a machine where writes cost little the triad runs above what\n\
the cores can read, and the reverse). Both are host memory's: rows of a product on a GPU print \"-\".\n\n";

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

#define MAX_LIST 16

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

#define MAX_THREADS 1024

/* ---------------------------------------------------------------- random numbers (SplitMix64) */
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

/* ---------------------------------------------------------------- matrix patterns */
/* Block columns of block row ib, ascending; returns their number. */
static PetscInt RowPattern(const MatrixSpec *spec, PetscInt ib, PetscInt cols[])
{
  PetscInt nc = 0;

  if (spec->band > 0) { /* thesis band */
    PetscInt start = ib - spec->band / 2, c;

    if (start < 0) start = 0;
    if (start > spec->nbrows - spec->band) start = spec->nbrows - spec->band;
    for (c = 0; c < spec->band; c++) cols[nc++] = start + c;
  } else { /* 27-point stencil, lexicographic (k, j, i) order gives ascending columns */
    const PetscInt n = spec->n, i = ib % n, j = (ib / n) % n, k = ib / (n * n);
    PetscInt       di, dj, dk;

    for (dk = -1; dk <= 1; dk++) {
      if (k + dk < 0 || k + dk >= n) continue;
      for (dj = -1; dj <= 1; dj++) {
        if (j + dj < 0 || j + dj >= n) continue;
        for (di = -1; di <= 1; di++) {
          if (i + di < 0 || i + di >= n) continue;
          cols[nc++] = ((k + dk) * n + (j + dj)) * n + (i + di);
        }
      }
    }
  }
  return nc;
}

/* Values of block row ib in the row-oriented layout of MatSetValuesBlocked: bs rows of nc*bs entries. */
static void RowValues(const MatrixSpec *spec, PetscInt seed, PetscInt ib, PetscInt nc, PetscScalar v[])
{
  const PetscInt bs = spec->bs, ld = nc * bs;
  PetscInt       r, c;

  for (r = 0; r < bs; r++) {
    const PetscInt64 row = (PetscInt64)ib * bs + r;
    uint64_t         s   = RowSeed(seed, spec->band > 0 ? 1 : 2, row);

    if (spec->band > 0) { /* positive entries, row sum 1 */
      double sum = 0.0;
      for (c = 0; c < ld; c++) {
        v[r * ld + c] = 0.5 + Uniform(&s);
        sum += PetscRealPart(v[r * ld + c]);
      }
      for (c = 0; c < ld; c++) v[r * ld + c] /= sum;
    } else {
      for (c = 0; c < ld; c++) v[r * ld + c] = 2.0 * Uniform(&s) - 1.0;
    }
  }
}

static PetscErrorCode SetupSpec(const char name[], PetscInt thesis_rows, PetscInt thesis_bs, PetscReal density, PetscInt sn, PetscInt sbs, MatrixSpec *spec)
{
  PetscBool   isthesis, isstencil;
  PetscMPIInt rank, size;
  PetscInt    q, rem;
  PetscInt   *cols;
  PetscInt    ib;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMemzero(spec, sizeof(*spec)));
  PetscCall(PetscStrncpy(spec->name, name, sizeof(spec->name)));
  PetscCall(PetscStrcmp(name, "thesis", &isthesis));
  PetscCall(PetscStrcmp(name, "stencil27", &isstencil));
  PetscCheck(isthesis || isstencil, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown matrix '%s' in -bench_matrices: use thesis or stencil27", name);
  if (isthesis) {
    PetscCheck(thesis_bs >= 1 && thesis_rows >= thesis_bs && thesis_rows % thesis_bs == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-thesis_rows %" PetscInt_FMT " must be a positive multiple of -thesis_bs %" PetscInt_FMT, thesis_rows, thesis_bs);
    PetscCheck(density > 0.0 && density <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-thesis_density must lie in (0, 1], got %g", (double)density);
    spec->bs     = thesis_bs;
    spec->nbrows = thesis_rows / thesis_bs;
    spec->band   = (PetscInt)(density * spec->nbrows + 0.5);
    spec->band   = PetscMax(1, PetscMin(spec->band, spec->nbrows));
  } else {
    PetscCheck(sn >= 2 && sbs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -stencil_n >= 2 and -stencil_bs >= 1");
    PetscCheck((PetscInt64)sn * sn * sn * sbs < PETSC_MAX_INT / 27, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stencil_n %" PetscInt_FMT " is too large for 32-bit PetscInt", sn);
    spec->bs     = sbs;
    spec->n      = sn;
    spec->nbrows = sn * sn * sn;
  }
  PetscCheck(spec->nbrows >= size, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Matrix %s has fewer block rows (%" PetscInt_FMT ") than ranks (%d)", name, spec->nbrows, (int)size);
  q            = spec->nbrows / size;
  rem          = spec->nbrows % size;
  spec->nlocal = q + (rank < rem ? 1 : 0);
  spec->rstart = rank * q + PetscMin(rank, rem);
  /* global block count */
  if (isthesis) spec->nblocks = (PetscInt64)spec->nbrows * spec->band;
  else {
    spec->nblocks = 0;
    PetscCall(PetscMalloc1(27, &cols));
    for (ib = 0; ib < spec->nbrows; ib++) spec->nblocks += RowPattern(spec, ib, cols);
    PetscCall(PetscFree(cols));
  }
  PetscFunctionReturn(0);
}

/* Assemble the block rows spec->rstart.. of the matrix as (SEQ|MPI)BAIJ on comm. */
static PetscErrorCode AssembleBAIJOn(MPI_Comm comm, const MatrixSpec *spec, PetscInt seed, Mat *A)
{
  const PetscInt bs = spec->bs, rend = spec->rstart + spec->nlocal;
  PetscInt       maxc = spec->band > 0 ? spec->band : 27, ib, nc, c, *cols, *dnnz, *onnz;
  PetscScalar   *vals;
  MatInfo        info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(maxc, &cols, (size_t)maxc * bs * bs, &vals, spec->nlocal, &dnnz, spec->nlocal, &onnz));
  for (ib = spec->rstart; ib < rend; ib++) {
    nc                      = RowPattern(spec, ib, cols);
    dnnz[ib - spec->rstart] = 0;
    onnz[ib - spec->rstart] = 0;
    for (c = 0; c < nc; c++) {
      if (cols[c] >= spec->rstart && cols[c] < rend) dnnz[ib - spec->rstart]++;
      else onnz[ib - spec->rstart]++;
    }
  }
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, spec->nlocal * bs, spec->nlocal * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, MATBAIJ));
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnnz, onnz, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (ib = spec->rstart; ib < rend; ib++) {
    nc = RowPattern(spec, ib, cols);
    RowValues(spec, seed, ib, nc, vals);
    PetscCall(MatSetValuesBlocked(*A, 1, &ib, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree4(cols, vals, dnnz, onnz));
  PetscCall(MatGetInfo(*A, MAT_GLOBAL_SUM, &info));
  PetscCheck((PetscInt64)info.nz_used == spec->nblocks * bs * bs, comm, PETSC_ERR_PLIB, "Assembled %g nonzeros, expected %" PetscInt64_FMT, (double)info.nz_used, spec->nblocks * bs * bs);
  PetscFunctionReturn(0);
}

/* Assemble the matrix as (SEQ|MPI)BAIJ on PETSC_COMM_WORLD, each rank its block rows. */
static PetscErrorCode AssembleBAIJ(const MatrixSpec *spec, PetscInt seed, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(AssembleBAIJOn(PETSC_COMM_WORLD, spec, seed, A));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- measurements */
static PetscErrorCode Median(PetscInt n, PetscReal t[], double *med)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSortReal(n, t));
  *med = (n % 2) ? (double)t[n / 2] : 0.5 * (double)(t[n / 2 - 1] + t[n / 2]);
  PetscFunctionReturn(0);
}

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

/* Whether v is a CUDA vector, whose operations return before the device has run them. */
static PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev)
{
  PetscFunctionBeginUser;
  *dev = PETSC_FALSE;
  if (v) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(0);
}

/* Waits for the work queued on PETSc's current device stream when op writes device memory (a CUDA
   vector y, or a MATDENSECUDA product B of OP_MATMATMULT); a no-op on host memory. */
static PetscErrorCode SyncDevice(const Op *op)
{
  PetscBool dev;

  PetscFunctionBeginUser;
  PetscCall(IsDeviceVec(op->y, &dev));
  if (!dev && op->B) PetscCall(PetscObjectTypeCompareAny((PetscObject)op->B, &dev, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
#if defined(BENCH_DEVICE_VECTORS)
  if (dev) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscFunctionReturn(0);
}

/* Seconds per call of n calls of op on every rank of comm, after an MPI_Barrier (the slowest rank's
   time); with CUDA vectors, the device has finished the n calls when the clock stops. */
static PetscErrorCode TimeOnAllRanks(MPI_Comm comm, const Op *op, PetscInt n, double *dt)
{
  double t0, mine;

  PetscFunctionBeginUser;
  PetscCall(SyncDevice(op));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  for (PetscInt i = 0; i < n; i++) PetscCall(RunOp(op));
  PetscCall(SyncDevice(op));
  mine = (MPI_Wtime() - t0) / (double)n;
  PetscCallMPI(MPI_Allreduce(&mine, dt, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* Calls per trial: reps, or fewer (at least 1) when trials x reps calls of dt seconds would exceed budget (> 0). */
static PetscInt RepsForBudget(PetscInt reps, PetscInt trials, PetscReal budget, double dt)
{
  if (budget > 0.0 && dt * (double)reps * (double)trials > (double)budget) return PetscMax(1, (PetscInt)((double)budget / ((double)trials * dt)));
  return reps;
}

/*
  Median over trials of the time per call (max over the ranks of comm) of each of nops operations.
  Every rank calls them the same number of times, even when an operation itself is local (the local
  and ghost products of the overlap measurement). The warm-up calls are timed too; when reps calls per
  trial would exceed budget seconds over all trials, fewer calls per trial are made (at least 1), for
  each operation separately. The trials are interleaved: trial k times one batch of every operation in
  turn, so slow drifts of the machine affect all operations alike. An MPI_Barrier precedes every timed
  batch, and the estimate is the max over ranks, so all ranks agree. ttrial (nops x trials, may be
  NULL) receives the time per call of every trial.
*/
static PetscErrorCode TimeOps(MPI_Comm comm, PetscInt nops, const Op ops[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[], PetscInt repsused[], double ttrial[])
{
  PetscReal *t;
  PetscInt   j, k;
  double     dt;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nops * trials, &t));
  for (j = 0; j < nops; j++) {
    PetscCall(TimeOnAllRanks(comm, &ops[j], PetscMax(warmup, 1), &dt));
    repsused[j] = RepsForBudget(reps, trials, budget, dt);
  }
  for (k = 0; k < trials; k++) {
    for (j = 0; j < nops; j++) {
      PetscCall(TimeOnAllRanks(comm, &ops[j], repsused[j], &dt));
      t[j * trials + k] = dt;
      if (ttrial) ttrial[j * trials + k] = dt;
    }
  }
  for (j = 0; j < nops; j++) PetscCall(Median(trials, &t[j * trials], &tcall[j]));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

/* One operation, timed as TimeOps() does. */
static PetscErrorCode TimeOp(MPI_Comm comm, const Op *op, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused)
{
  PetscFunctionBeginUser;
  PetscCall(TimeOps(comm, 1, op, warmup, reps, trials, budget, tcall, repsused, NULL));
  PetscFunctionReturn(0);
}

/* MatMult (add = PETSC_FALSE) or MatMultAdd of A, timed as TimeOp() does. */
static PetscErrorCode TimeProduct(Mat A, Vec x, Vec z, Vec y, PetscBool add, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused)
{
  Op op = {add ? OP_MULTADD : OP_MULT, A, x, z, y, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(TimeOp(PetscObjectComm((PetscObject)A), &op, warmup, reps, trials, budget, tcall, repsused));
  PetscFunctionReturn(0);
}

/* ||y - yref||_inf / ||yref||_inf; y may have another Vec type than yref. */
static PetscErrorCode RelDiff(Vec y, Vec yref, double *rel)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecCopy(y, d));
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nr));
  *rel = (double)(nr > 0.0 ? nd / nr : nd);
  PetscCall(VecDestroy(&d));
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
static const char *const RefNames[] = {"triad", "read"};

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

/* The best-of-10 references by thread count, measured at first use (0: not yet). */
typedef struct {
  double triad[MAX_THREADS + 1], read[MAX_THREADS + 1];
} Refs;

static PetscErrorCode RefsGet(Refs *refs, PetscReal stream_mb, PetscInt nthreads, double *triad, double *read)
{
  PetscFunctionBeginUser;
  if (refs->triad[nthreads] <= 0.0) PetscCall(StreamBandwidth(REF_TRIAD, stream_mb, (int)nthreads, &refs->triad[nthreads]));
  if (refs->read[nthreads] <= 0.0) PetscCall(StreamBandwidth(REF_READ, stream_mb, (int)nthreads, &refs->read[nthreads]));
  if (triad) *triad = refs->triad[nthreads];
  if (read) *read = refs->read[nthreads];
  PetscFunctionReturn(0);
}

/* A reference measured in pairs with MatMult. Single references and single MatMults alternate,
   reference first and last; each MatMult is set against the mean time of the references on either
   side of it, and the result is the median of these per-pair ratios, with the quartiles. Each timed
   call follows an untimed call of its own kind, so that it meets the caches as back-to-back calls
   do: a product right after a triad also writes back the triad's dirty lines (on the VM 2-4.5 %
   slower on a 207 MB band), and a triad right after a product finds clean ones (faster than STREAM's
   back-to-back triads). On a shared VM the triad moves between regimes within seconds (here: 300
   back-to-back triads ran at 31-42 GB/s, then at 45-67 GB/s), so a reference measured once, or per
   batch, says little about the bandwidth a product had a moment later. Both sides are single calls
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

static PetscErrorCode MeasurePaired(RefKind kind, Mat A, Vec x, Vec y, double mult_bytes, PetscReal stream_mb, int nthreads, PetscInt warmup, PetscInt min_pairs, PetscReal budget, PairedRef *pt)
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

/* CPUs this process may run on (-1 if unknown): mpiexec binds ranks to cores by default. */
static int AffinityCPUs(void)
{
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  return -1;
}

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

#if defined(__linux__)
/* n CPU-bound processes beside this one, started as another program would be (posix_spawn, so that
   this process's memory is not shared copy-on-write with them, which alone slowed seqbaij 5x); each
   checks every ~0.1 s that its parent lives, so none outlives a benchmark that dies. */
static PetscErrorCode BusyStart(int n, pid_t pids[])
{
  char *const argv[] = {(char *)"sh", (char *)"-c", (char *)"p=$PPID; while kill -0 $p 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; done", NULL};

  PetscFunctionBeginUser;
  for (int i = 0; i < n; i++) PetscCheck(posix_spawnp(&pids[i], "sh", NULL, NULL, argv, environ) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "posix_spawnp(sh) failed for the busy-core case");
  PetscFunctionReturn(0);
}

static void BusyStop(int n, const pid_t pids[])
{
  for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
  for (int i = 0; i < n; i++) waitpid(pids[i], NULL, 0);
}
#endif

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

/* per-trial ratios a[k] / b[k]: median and quartiles */
static PetscErrorCode TrialRatios(PetscInt trials, const double a[], const double b[], double *med, double *q1, double *q3)
{
  PetscReal *r;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(trials, &r));
  for (PetscInt k = 0; k < trials; k++) r[k] = (PetscReal)(a[k] / b[k]);
  PetscCall(Median(trials, r, med));
  *q1 = (double)r[trials / 4];
  *q3 = (double)r[(3 * trials) / 4 < trials ? (3 * trials) / 4 : trials - 1];
  PetscCall(PetscFree(r));
  PetscFunctionReturn(0);
}

/*
  Two products timed for the busy-core case. On busy cores the operating system's turns make the
  first batch after the other product's systematically slower (seen: 13 ms against 3.5 ms for the
  same product, whichever came first), so: both run untimed for a while first, both get the same
  number of calls per batch (from the slower of the two), every batch follows one untimed call of its
  own product, and the order alternates from trial to trial. Medians per call as TimeOps gives.
*/
static PetscErrorCode TimeAlternating(const Op ops[2], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double tcall[2], PetscInt repsused[2], double ttrial[])
{
  PetscReal *t;
  double     dt[2];
  PetscInt   n;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * trials, &t));
  for (int j = 0; j < 2; j++) PetscCall(TimeOnAllRanks(PETSC_COMM_SELF, &ops[j], PetscMax(warmup, 3), &dt[j]));
  n           = RepsForBudget(reps, trials, budget / 2, PetscMax(dt[0], dt[1]));
  repsused[0] = repsused[1] = n;
  for (PetscInt k = 0; k < trials; k++) {
    for (int i = 0; i < 2; i++) {
      const int j = (int)((k + i) % 2);
      double    d;
      PetscCall(RunOp(&ops[j]));
      PetscCall(TimeOnAllRanks(PETSC_COMM_SELF, &ops[j], n, &d));
      t[j * trials + k]      = d;
      ttrial[j * trials + k] = d;
    }
  }
  for (int j = 0; j < 2; j++) PetscCall(Median(trials, &t[j * trials], &tcall[j]));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoadedVsBAIJ(Mat base, Vec x, const char bsr_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, LoadedRow *row)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
#if defined(__linux__)
  {
    Mat            B[3]; /* seqbaij (the assembled matrix itself); seqbsrcustom; seqbsrcustom without the busy-core fallback */
    Vec            y[3];
    Op             ops[3];
    double        *tt, t[2];
    pid_t         *pids;
    PetscErrorCode ierr;

    row->busy   = AffinityCPUs() > 0 ? AffinityCPUs() : 1;
    row->trials = trials;
    PetscCall(PetscStrncpy(row->type, bsr_type, sizeof(row->type)));
    B[0] = base;
    PetscCall(PetscObjectReference((PetscObject)base));
    PetscCall(MatConvert(base, bsr_type, MAT_INITIAL_MATRIX, &B[1]));
    PetscCall(MatConvert(base, bsr_type, MAT_INITIAL_MATRIX, &B[2]));
    PetscCall(MatBSRCustomSetCPUBusyFallback(B[2], PETSC_FALSE));
    PetscCall(MatBSRCustomGetNumThreads(B[1], &row->threads));
    for (int k = 0; k < 3; k++) {
      PetscCall(MatCreateVecs(B[k], NULL, &y[k]));
      ops[k] = (Op){OP_MULT, B[k], x, NULL, y[k], NULL, NULL};
    }
    PetscCall(PetscMalloc2(2 * trials, &tt, row->busy, &pids));
    /* idle: with and without the fallback */
    PetscCall(TimeOps(PETSC_COMM_SELF, 2, &ops[1], warmup, reps, trials, budget, t, &row->reps[0], tt));
    row->t_on  = 1e3 * t[0];
    row->t_off = 1e3 * t[1];
    PetscCall(TrialRatios(trials, &tt[trials], &tt[0], &row->idle, &row->idle_q1, &row->idle_q3));
    /* busy: seqbaij and seqbsrcustom, a CPU-bound process on every CPU; stopped before any error returns */
    PetscCall(BusyStart((int)row->busy, pids));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TimeAlternating(ops, warmup, reps, trials, budget, t, &row->reps[2], tt);
    PetscCall(PetscPopErrorHandler());
    BusyStop((int)row->busy, pids);
    PetscCall(ierr);
    row->t_baij = 1e3 * t[0];
    row->t_bsr  = 1e3 * t[1];
    PetscCall(TrialRatios(trials, &tt[0], &tt[trials], &row->ratio, &row->q1, &row->q3));
    PetscCall(PetscFree2(tt, pids));
    for (int k = 0; k < 3; k++) {
      PetscCall(VecDestroy(&y[k]));
      PetscCall(MatDestroy(&B[k]));
    }
  }
#else
  (void)base, (void)x, (void)bsr_type, (void)warmup, (void)reps, (void)trials, (void)budget;
#endif
  PetscFunctionReturn(0);
}

/* The BAIJ matrices ours hands back must multiply as fast as the BAIJ PETSc assembled (base): the
   copies and base timed in interleaved trials on x. */
static PetscErrorCode BenchBAIJCopies(Mat base, Vec x, const char ours_type[], PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, CopiesRow *row)
{
  Mat     ours, dup, B[3];
  Vec     y[3];
  Op      ops[3];
  double *tt, t[3], d;
  MatType type;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
  PetscCall(MatConvert(base, ours_type, MAT_INITIAL_MATRIX, &ours));
  PetscCall(MatGetType(ours, &type));
  PetscCall(PetscStrncpy(row->type, type, sizeof(row->type)));
  B[0] = base;
  PetscCall(PetscObjectReference((PetscObject)base));
  PetscCall(MatConvert(ours, MATBAIJ, MAT_INITIAL_MATRIX, &B[1]));
  PetscCall(MatDuplicate(ours, MAT_COPY_VALUES, &dup));
  PetscCall(MatConvert(dup, MATBAIJ, MAT_INITIAL_MATRIX, &B[2]));
  PetscCall(MatDestroy(&dup));
  PetscCall(MatDestroy(&ours));
  PetscCall(MatGetType(B[1], &type));
  PetscCall(PetscStrncpy(row->baij_type, type, sizeof(row->baij_type)));
  PetscCall(MatGetBlockSize(base, &row->bs));
  row->trials = trials;
  for (int k = 0; k < 3; k++) {
    PetscCall(MatCreateVecs(B[k], NULL, &y[k]));
    ops[k] = (Op){OP_MULT, B[k], x, NULL, y[k], NULL, NULL};
    PetscCall(RunOp(&ops[k]));
    if (k > 0) {
      PetscCall(RelDiff(y[k], y[0], &d));
      row->diff = PetscMax(row->diff, d);
    }
  }
  PetscCall(PetscMalloc1(3 * trials, &tt));
  PetscCall(TimeOps(PetscObjectComm((PetscObject)base), 3, ops, warmup, reps, trials, budget, t, row->reps, tt));
  for (int k = 0; k < 3; k++) row->t[k] = 1e3 * t[k];
  for (int k = 0; k < 2; k++) PetscCall(TrialRatios(trials, &tt[(k + 1) * trials], &tt[0], &row->ratio[k], &row->q1[k], &row->q3[k]));
  PetscCall(PetscFree(tt));
  for (int k = 0; k < 3; k++) {
    PetscCall(VecDestroy(&y[k]));
    PetscCall(MatDestroy(&B[k]));
  }
  PetscFunctionReturn(0);
}

/* Memory traffic model: values + column indices + row pointers, plus x read and y written (and z read). */
static PetscErrorCode TrafficModel(Mat A, const MatrixSpec *spec, Result *res)
{
  MatType      type;
  PetscBool    scalarcsr = PETSC_FALSE;
  const char  *p1, *p2;
  const double nrows = (double)spec->nbrows * spec->bs, nnz = (double)spec->nblocks * spec->bs * spec->bs;
  double       idx;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  /* CSR types (aij, aijcusparse, ...) store one column index per scalar; every other type is taken as BSR. */
  PetscCall(PetscStrstr(type, "aij", (char **)&p1));
  PetscCall(PetscStrstr(type, "baij", (char **)&p2));
  if (p1 && !p2) scalarcsr = PETSC_TRUE;
  if (scalarcsr) idx = nnz * sizeof(PetscInt) + (nrows + 1) * sizeof(PetscInt);
  else idx = (double)spec->nblocks * sizeof(PetscInt) + ((double)spec->nbrows + 1) * sizeof(PetscInt);
  res->matrix_bytes  = nnz * sizeof(PetscScalar) + idx;
  res->mult_bytes    = res->matrix_bytes + 2.0 * nrows * sizeof(PetscScalar);
  res->multadd_bytes = res->matrix_bytes + 3.0 * nrows * sizeof(PetscScalar);
  PetscFunctionReturn(0);
}

static PetscErrorCode FillRandom(Vec x, PetscInt seed)
{
  PetscInt     lo, hi, i;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArray(x, &a));
  for (i = lo; i < hi; i++) {
    uint64_t s = RowSeed(seed, 3, i);
    a[i - lo]  = 2.0 * Uniform(&s) - 1.0;
  }
  PetscCall(VecRestoreArray(x, &a));
  PetscFunctionReturn(0);
}

/* Does the requested type name the BAIJ matrix we assembled? */
static PetscErrorCode IsBaseType(Mat base, const char type[], PetscBool *same)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(type, MATBAIJ, same));
  if (!*same) PetscCall(PetscObjectTypeCompare((PetscObject)base, type, same));
  PetscFunctionReturn(0);
}

static PetscErrorCode IsGPUBSRCustom(Mat, PetscBool *);

/* whether A's MatMult runs on a GPU: ours on a GPU backend, or a PETSc GPU type */
static PetscErrorCode RunsOnDevice(Mat A, PetscBool *dev)
{
  const char *const gpu[] = {"cusparse", "hipsparse", "kokkos", "viennacl", "cuda", "hip"};
  MatType           type;

  PetscFunctionBeginUser;
  PetscCall(IsGPUBSRCustom(A, dev));
  PetscCall(MatGetType(A, &type));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(gpu) && !*dev; k++) {
    const char *p;
    PetscCall(PetscStrstr(type, gpu[k], (char **)&p));
    *dev = (PetscBool)(p != NULL);
  }
  PetscFunctionReturn(0);
}

/* %triad and %read: percentages of the host references, "-" for a product on a GPU */
static PetscErrorCode PrintRow(const Result *r, double triad, double read)
{
  const double gbs    = r->mult_bytes / r->mult_s / 1e9;
  char         pt[16] = "-", pr[16] = "-";

  PetscFunctionBeginUser;
  if (!r->device) {
    PetscCall(PetscSNPrintf(pt, sizeof(pt), "%.1f", 100.0 * gbs / triad));
    PetscCall(PetscSNPrintf(pr, sizeof(pr), "%.1f", 100.0 * gbs / read));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3" PetscInt_FMT " %9" PetscInt64_FMT " %4" PetscInt_FMT " %9.1f %9.3f %8.2f %6s %6s %9.3f %8.2f %7.3f %7.3f %9.1e\n", r->matrix, r->type, r->bs, r->nblocks, r->reps_mult, r->matrix_bytes / 1e6, 1e3 * r->mult_s, gbs, pt, pr, 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd, PetscMax(r->diff_mult, r->diff_multadd)));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- bsrcustom extras */
/* Thread sweep (1..maxthreads) and chunks-per-thread sweep (at the matrix's thread count) of a seqbsrcustom matrix. */
static PetscErrorCode Sweeps(Mat A, Vec x, Vec y, const Result *r, PetscReal stream_mb, int maxthreads, const PetscInt chunks[], PetscInt nchunks, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SweepRow rows[], PetscInt maxrows, PetscInt *nrows, Refs *refs)
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

/*
  How much of the halo exchange MatMult_MPIBSRCustom hides: (a) the exchange alone (VecScatterBegin/End
  of the matrix's own halo scatter into its own ghost vector), (b) the local product alone (MatMult of
  the local block on sequential Vecs wrapping x's and y's local arrays), (c) the ghost product alone
  (MatMultAdd of the ghost block into y's local part), (d) the whole MatMult, on copies of x and y (so
  that x's and y's arrays can stay lent to the sequential Vecs). The four are timed in interleaved
  trials (see TimeOps()); besides the ratio of the medians, the median over trials of the per-trial
  ratio T_full / bound is kept, which cancels drifts of the machine between trials.
*/
static PetscErrorCode Overlap(Mat A, Vec x, Vec y, const Result *r, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, PetscReal target, OverlapRow *o)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  Mat        local, ghost;
  PetscInt   nghost, bs, nloc, ncol, ng[2], k, rp[6];
  VecScatter halo;
  Vec        gx, xl, yl, x2, y2;
  PetscBool  dev;
#if defined(BENCH_DEVICE_VECTORS)
  Vec gxd = NULL;
#endif
  const PetscScalar *xa;
  PetscScalar       *ya;
  Op                 ops[6];
  double             tm[6], *tk;
  PetscReal         *ratio;
  Mat                noprog = NULL;
  PetscInt           nops   = 5;
  PetscBool          progress;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(PetscStrncpy(o->matrix, r->matrix, sizeof(o->matrix)));
  PetscCall(PetscStrncpy(o->type, r->type, sizeof(o->type)));
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &local, &ghost, &nghost, NULL, &halo, &gx));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(VecGetLocalSize(y, &nloc));
  PetscCall(VecGetLocalSize(x, &ncol));
  ng[0] = -nghost;
  ng[1] = nghost;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ng, 2, MPIU_INT, MPI_MAX, comm));
  o->nghost_min = -ng[0];
  o->nghost_max = ng[1];

  PetscCall(VecDuplicate(x, &x2));
  PetscCall(VecDuplicate(y, &y2));
  PetscCall(VecCopy(x, x2));
  PetscCall(IsDeviceVec(x, &dev));
  if (dev) { /* CUDA vectors: the blocks' products on device arrays, the exchange into a device ghost vector */
#if defined(BENCH_DEVICE_VECTORS)
    PetscInt ng;
    PetscCall(VecGetLocalSize(gx, &ng));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, ng, &gxd));
    gx = gxd;
    PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, bs, ncol, NULL, &xl));
    PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, bs, nloc, NULL, &yl));
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArray(y, &ya));
    PetscCall(VecCUDAPlaceArray(xl, xa));
    PetscCall(VecCUDAPlaceArray(yl, ya));
#endif
  } else {
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, ncol, NULL, &xl));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, nloc, NULL, &yl));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(y, &ya));
    PetscCall(VecPlaceArray(xl, xa));
    PetscCall(VecPlaceArray(yl, ya));
  }
  /* gx holds x's ghost values before the ghost product is first timed */
  PetscCall(VecScatterBegin(halo, x, gx, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(halo, x, gx, INSERT_VALUES, SCATTER_FORWARD));

  ops[0] = (Op){OP_SCATTER, NULL, x, NULL, gx, halo, NULL};     /* (a) the exchange alone */
  ops[1] = (Op){OP_MULT, local, xl, NULL, yl, NULL, NULL};      /* (b) the local product alone */
  ops[2] = (Op){OP_MULTADD, ghost, gx, yl, yl, NULL, NULL};     /* (c) the ghost product alone */
  ops[3] = (Op){OP_MULT, A, x2, NULL, y2, NULL, NULL};          /* (d) the whole, overlapped MatMult */
  ops[4] = (Op){OP_LOCALGHOST, local, xl, gx, yl, NULL, ghost}; /* (e) (b) then (c), no exchange */
  /* (f) cpu backend: MatMult of a copy without MPI progress during the local product, interleaved with
     (d), so that the two meet the same state of the machine */
  PetscCall(MatBSRCustomGetMPIProgress(A, &progress));
  if (!dev && progress) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &noprog));
    PetscCall(MatBSRCustomSetMPIProgress(noprog, PETSC_FALSE));
    ops[nops++] = (Op){OP_MULT, noprog, x2, NULL, y2, NULL, NULL};
  }
  PetscCall(PetscMalloc2(6 * trials, &tk, trials, &ratio));
  PetscCall(TimeOps(comm, nops, ops, warmup, reps, trials, budget, tm, rp, tk));
  PetscCall(MatDestroy(&noprog));

  if (dev) {
#if defined(BENCH_DEVICE_VECTORS)
    PetscCall(VecCUDAResetArray(xl));
    PetscCall(VecCUDAResetArray(yl));
    PetscCall(VecCUDARestoreArray(y, &ya));
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecDestroy(&gxd));
#endif
  } else {
    PetscCall(VecResetArray(xl));
    PetscCall(VecResetArray(yl));
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&yl));
  PetscCall(VecDestroy(&x2));
  PetscCall(VecDestroy(&y2));

  o->t_exchange    = tm[0];
  o->t_local       = tm[1];
  o->t_ghost       = tm[2];
  o->t_full        = tm[3];
  o->t_compute     = tm[4];
  o->reps_exchange = rp[0];
  o->reps_local    = rp[1];
  o->reps_ghost    = rp[2];
  o->reps_full     = rp[3];
  /* the ghost product as MatMult runs it: after the local one, its values no longer in cache, so it
     can take longer than when timed alone */
  o->t_ghost_after = PetscMax(o->t_ghost, o->t_compute - o->t_local);
  o->bound         = PetscMax(o->t_exchange, o->t_local) + o->t_ghost_after;
  o->ratio         = o->t_full / o->bound;
  o->ratio_warm    = o->t_full / (PetscMax(o->t_exchange, o->t_local) + o->t_ghost);
  for (k = 0; k < trials; k++) ratio[k] = tk[3 * trials + k] / (PetscMax(tk[k], tk[trials + k]) + PetscMax(tk[2 * trials + k], tk[4 * trials + k] - tk[trials + k]));
  PetscCall(Median(trials, ratio, &o->ratio_paired));
  if (nops == 6) {
    o->t_full_noprogress = tm[5];
    for (k = 0; k < trials; k++) ratio[k] = tk[5 * trials + k] / tk[3 * trials + k];
    PetscCall(Median(trials, ratio, &o->noprogress_over_paired));
  }
  PetscCall(PetscFree2(tk, ratio));
  o->hidden_raw = o->t_exchange > 0.0 ? (o->t_exchange + o->t_local + o->t_ghost - o->t_full) / o->t_exchange : 0.0;
  o->hidden     = PetscMin(1.0, PetscMax(0.0, o->hidden_raw));
  o->pass       = (PetscBool)(o->ratio <= (double)target);
  PetscFunctionReturn(0);
}

static PetscErrorCode PrintOverlap(const OverlapRow *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %6" PetscInt_FMT "-%-6" PetscInt_FMT " %9.4f %9.3f %9.4f %9.3f %9.3f %9.3f %8.3f %8.3f %8.3f %7.2f %8.2f", o->matrix, o->type, o->nghost_min, o->nghost_max, 1e3 * o->t_exchange, 1e3 * o->t_local, 1e3 * o->t_ghost, 1e3 * o->t_compute, 1e3 * o->t_full, 1e3 * o->bound, o->ratio, o->ratio_paired, o->ratio_warm, o->hidden, o->hidden_raw));
  if (o->t_full_noprogress > 0.0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %9.3f %8.3f\n", 1e3 * o->t_full_noprogress, o->noprogress_over_paired));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %9s %8s\n", "-", "-"));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- one rank with threads against all ranks */
/*
  "1 rank x N threads against MATBAIJ on N ranks (and on 1 rank)", measured in one run on N ranks of one
  node: rank 0 also holds the whole matrix as seqbaij and as seqbsrcustom with N threads, and the three
  products (mpibaij on every rank, then seqbaij and seqbsrcustom on rank 0 alone) are timed in
  interleaved trials, so that all three meet the same state of the machine. Timed in two runs, as
  before, the ratio carried the drift between the runs: on a VM whose memory bandwidth moves by 2x
  from minute to minute it read 0.56x in one run and 1.6x in another. While rank 0 works alone the
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

/* Every rank but 0 calls this while rank 0 works alone; rank 0 calls it when done. The sleepers wake
   every 10 ms: on the 2-core VM, waking every 0.1 ms took 7-10 % from the threads of rank 0 that share
   their cores (thesis matrix, 2 threads: 5.85 against 5.30 ms). */
static PetscErrorCode SleepUntilRankZeroIsDone(MPI_Comm comm)
{
  MPI_Request     req;
  int             done = 0;
  struct timespec ts   = {0, 10000000};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Ibarrier(comm, &req));
  for (;;) {
    PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (done) break;
    nanosleep(&ts, NULL);
  }
  PetscFunctionReturn(0);
}

/* Rank 0's CPU sets: its own (what mpiexec bound it to) and the union of all ranks' sets. Rank 0 takes
   the union only while it works alone, so that its threads may run on the sleeping ranks' cores, and
   its own set back before the ranks work together. */
typedef struct {
  PetscBool differ;
#if defined(__linux__)
  cpu_set_t own, all;
#endif
} RankZeroCPUs;

static PetscErrorCode RankZeroCPUsGet(MPI_Comm comm, RankZeroCPUs *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
#if defined(__linux__)
  {
    int         ok = sched_getaffinity(0, sizeof(c->own), &c->own) == 0;
    PetscMPIInt rank;

    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm));
    if (!ok) PetscFunctionReturn(0);
    c->all = c->own;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &c->all, (int)sizeof(c->all), MPI_BYTE, MPI_BOR, comm));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    c->differ = (PetscBool)(rank == 0 && !CPU_EQUAL(&c->all, &c->own));
  }
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode RankZeroCPUsUse(const RankZeroCPUs *c, PetscBool all)
{
  PetscFunctionBeginUser;
#if defined(__linux__)
  if (c->differ) PetscCheck(sched_setaffinity(0, sizeof(cpu_set_t), all ? &c->all : &c->own) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "sched_setaffinity failed");
#endif
  PetscFunctionReturn(0);
}

/* Seconds per call of n calls of op on rank 0 alone, on every ranks' CPUs (the other ranks sleep); rank 0's result, sent to all. */
static PetscErrorCode TimeOnRankZero(MPI_Comm comm, const RankZeroCPUs *cpus, const Op *op, PetscInt n, double *dt)
{
  PetscMPIInt rank;
  double      t0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Barrier(comm));
  *dt = 0.0;
  if (rank == 0) {
    PetscCall(RankZeroCPUsUse(cpus, PETSC_TRUE));
    t0 = MPI_Wtime();
    for (PetscInt i = 0; i < n; i++) PetscCall(RunOp(op));
    *dt = (MPI_Wtime() - t0) / (double)n;
    PetscCall(RankZeroCPUsUse(cpus, PETSC_FALSE));
  }
  PetscCall(SleepUntilRankZeroIsDone(comm));
  PetscCallMPI(MPI_Bcast(dt, 1, MPI_DOUBLE, 0, comm));
  PetscFunctionReturn(0);
}

/*
  spec, seed: the matrix (as assembled in mpibaij); x: its input, filled by FillRandom(x, seed).
  Returns with row->threads = 0 (and a message) when the ranks do not share one node.
*/
static PetscErrorCode OneRankVsRanks(const MatrixSpec *spec, PetscInt seed, Mat mpibaij, Vec x, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, OneRankRow *row)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)mpibaij), node;
  PetscMPIInt  rank, size, nodesize;
  MatrixSpec   whole = *spec;
  Mat          sbaij = NULL, sbsr = NULL;
  Vec          y, xs = NULL, ys = NULL, y0 = NULL;
  VecScatter   tozero;
  Op           ops[3];
  PetscInt     nw = PetscMax(warmup, 1), j, k;
  double       dt, *tk;
  PetscReal   *r1, *r2, *tj;
  RankZeroCPUs cpus;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(row, sizeof(*row)));
  PetscCall(PetscStrncpy(row->matrix, spec->name, sizeof(row->matrix)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nodesize));
  PetscCallMPI(MPI_Comm_free(&node));
  if (nodesize != size) {
    PetscCall(PetscPrintf(comm, "  1 rank x %d threads against MATBAIJ on %d ranks: not measured (the ranks are not on one node)\n", (int)size, (int)size));
    PetscFunctionReturn(0);
  }
  row->threads = size;

  /* rank 0: the whole matrix, as seqbaij and seqbsrcustom; the other ranks hold empty vectors */
  PetscCall(MatCreateVecs(mpibaij, NULL, &y));
  PetscCall(VecScatterCreateToZero(y, &tozero, &y0));
  if (rank == 0) {
    whole.rstart = 0;
    whole.nlocal = spec->nbrows;
    PetscCall(AssembleBAIJOn(PETSC_COMM_SELF, &whole, seed, &sbaij));
    PetscCall(MatConvert(sbaij, MATSEQBSRCUSTOM, MAT_INITIAL_MATRIX, &sbsr));
    PetscCall(MatBSRCustomSetNumThreads(sbsr, size));
    PetscCall(PetscStrncpy(row->type, MATSEQBSRCUSTOM, sizeof(row->type)));
    PetscCall(MatCreateVecs(sbaij, &xs, &ys));
    PetscCall(FillRandom(xs, seed));
  }
  PetscCall(RankZeroCPUsGet(comm, &cpus));

  /* the three products agree with mpibaij's to rounding */
  PetscCall(MatMult(mpibaij, x, y));
  PetscCall(VecScatterBegin(tozero, y, y0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(tozero, y, y0, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    double d;
    PetscCall(RankZeroCPUsUse(&cpus, PETSC_TRUE));
    PetscCall(MatMult(sbaij, xs, ys));
    PetscCall(RelDiff(ys, y0, &d));
    row->diff = d;
    PetscCall(MatMult(sbsr, xs, ys));
    PetscCall(RelDiff(ys, y0, &d));
    row->diff = PetscMax(row->diff, d);
    PetscCall(RankZeroCPUsUse(&cpus, PETSC_FALSE));
  }
  PetscCallMPI(MPI_Bcast(&row->diff, 1, MPI_DOUBLE, 0, comm));
  PetscCheck(row->diff < 1e-13, comm, PETSC_ERR_PLIB, "Matrix %s: seqbaij / seqbsrcustom products on rank 0 differ from mpibaij's by %g (relative max norm)", spec->name, row->diff);

  ops[0] = (Op){OP_MULT, mpibaij, x, NULL, y, NULL, NULL};
  ops[1] = (Op){OP_MULT, sbaij, xs, NULL, ys, NULL, NULL};
  ops[2] = (Op){OP_MULT, sbsr, xs, NULL, ys, NULL, NULL};
  /* calls per trial: as TimeOps() chooses them, from the warm-up calls */
  for (j = 0; j < 3; j++) {
    if (j == 0) PetscCall(TimeOnAllRanks(comm, &ops[j], nw, &dt));
    else PetscCall(TimeOnRankZero(comm, &cpus, &ops[j], nw, &dt));
    row->reps[j] = RepsForBudget(reps, trials, budget, dt);
  }
  PetscCall(PetscMalloc4(3 * trials, &tk, trials, &r1, trials, &r2, trials, &tj));
  for (k = 0; k < trials; k++) {
    PetscCall(TimeOnAllRanks(comm, &ops[0], row->reps[0], &tk[k]));
    PetscCall(TimeOnRankZero(comm, &cpus, &ops[1], row->reps[1], &tk[trials + k]));
    PetscCall(TimeOnRankZero(comm, &cpus, &ops[2], row->reps[2], &tk[2 * trials + k]));
    r1[k] = tk[k] / tk[2 * trials + k];
    r2[k] = tk[trials + k] / tk[2 * trials + k];
  }
  for (j = 0; j < 3; j++) {
    for (k = 0; k < trials; k++) tj[k] = tk[j * trials + k];
    PetscCall(Median(trials, tj, &row->t[j]));
  }
  PetscCall(Median(trials, r2, &row->vs_one));
  PetscCall(Median(trials, r1, &row->vs_ranks)); /* sorts r1 */
  row->vs_ranks_q1 = r1[trials / 4];
  row->vs_ranks_q3 = r1[(3 * trials) / 4];
  PetscCall(PetscFree4(tk, r1, r2, tj));

  PetscCall(VecScatterDestroy(&tozero));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&ys));
  PetscCall(MatDestroy(&sbsr));
  PetscCall(MatDestroy(&sbaij));
  PetscFunctionReturn(0);
}

/* higher: the target is value >= threshold (else value <= threshold) */
static PetscErrorCode AddTarget(Target tg[], PetscInt maxtg, PetscInt *ntg, const char matrix[], const char name[], const char what[], double value, double threshold, PetscBool higher)
{
  Target *t;

  PetscFunctionBeginUser;
  if (*ntg >= maxtg) PetscFunctionReturn(0);
  t = &tg[(*ntg)++];
  PetscCall(PetscStrncpy(t->matrix, matrix, sizeof(t->matrix)));
  PetscCall(PetscStrncpy(t->name, name, sizeof(t->name)));
  PetscCall(PetscStrncpy(t->what, what, sizeof(t->what)));
  t->value     = value;
  t->threshold = threshold;
  t->pass      = (PetscBool)(higher ? value >= threshold : value <= threshold);
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteJSON(const char file[], const Result res[], PetscInt nres, double triad, double read, const PairedRow pr[], PetscInt npr, int nthreads, PetscInt reps, PetscInt trials, PetscReal budget, const SweepRow sw[], PetscInt nsw, const OverlapRow ov[], PetscInt nov, const OneRankRow one[], PetscInt none, const LoadedRow ld[], PetscInt nld, const CopiesRow cp[], PetscInt ncp, const KSPRow kr[], PetscInt nkr, const Target tg[], PetscInt ntg)
{
  FILE       *fp;
  PetscMPIInt size;
  PetscInt    i;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "{\n  \"ranks\": %d,\n  \"omp_threads_per_rank\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"trials\": %" PetscInt_FMT ",\n  \"time_budget_s\": %.6g,\n", (int)size, nthreads, reps, trials, (double)budget));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"stream_triad_gbs\": %.6g,\n  \"stream_read_gbs\": %.6g,\n", triad, read));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"bytes_model\": \"values + column indices (per block for block types, per scalar for AIJ types) + row pointers + x + y (+ z for MatMultAdd)\",\n  \"results\": [\n"));
  for (i = 0; i < nres; i++) {
    const Result *r = &res[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"bs\": %" PetscInt_FMT ", \"nrows\": %" PetscInt_FMT ", \"nblocks\": %" PetscInt64_FMT ", \"matrix_mb\": %.6g,", r->matrix, r->type, r->bs, r->nrows, r->nblocks, r->matrix_bytes / 1e6));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_ms\": %.6g, \"matmult_gbs\": %.6g,", 1e3 * r->mult_s, r->mult_bytes / r->mult_s / 1e9));
    if (r->device) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_pct_triad\": null, \"matmult_pct_read\": null,")); /* the host references say nothing of a GPU */
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_pct_triad\": %.6g, \"matmult_pct_read\": %.6g,", 100.0 * r->mult_bytes / r->mult_s / 1e9 / triad, 100.0 * r->mult_bytes / r->mult_s / 1e9 / read));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmultadd_ms\": %.6g, \"matmultadd_gbs\": %.6g, \"ratio_matmult\": %.6g, \"ratio_matmultadd\": %.6g,", 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"reldiff_matmult\": %.3e, \"reldiff_matmultadd\": %.3e, \"convert_s\": %.6g, \"reps_matmult\": %" PetscInt_FMT ", \"reps_matmultadd\": %" PetscInt_FMT "}%s\n", r->diff_mult, r->diff_multadd, r->convert_s, r->reps_mult, r->reps_multadd, i + 1 < nres ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"sweeps\": [\n"));
  for (i = 0; i < nsw; i++) {
    const SweepRow *w = &sw[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"sweep\": \"%s\", \"threads\": %" PetscInt_FMT ", \"chunks_per_thread\": %" PetscInt_FMT ", \"tasks\": %" PetscInt_FMT ", \"reps\": %" PetscInt_FMT ", \"matmult_ms\": %.6g, \"matmult_gbs\": %.6g, \"stream_triad_gbs\": %.6g, \"matmult_pct_triad\": %.6g, \"stream_read_gbs\": %.6g, \"matmult_pct_read\": %.6g}%s\n", w->matrix, w->sweep, w->threads, w->chunks, w->ntasks, w->reps, 1e3 * w->mult_s, w->gbs, w->triad, 100.0 * w->gbs / w->triad, w->read, 100.0 * w->gbs / w->read, i + 1 < nsw ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"paired_references\": [\n"));
  for (i = 0; i < npr; i++) {
    const PairedRow *q = &pr[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"reference\": \"%s\", \"pairs\": %" PetscInt_FMT ", \"pct_paired\": %.6g, \"pct_q1\": %.6g, \"pct_q3\": %.6g, \"reference_gbs_median\": %.6g, \"matmult_gbs_median\": %.6g}%s\n", q->matrix, q->type, q->threads,
                           RefNames[q->p.kind], q->p.pairs, q->p.pct_med, q->p.pct_q1, q->p.pct_q3, q->p.ref_med, q->p.mult_med, i + 1 < npr ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"overlap\": [\n"));
  for (i = 0; i < nov; i++) {
    const OverlapRow *o = &ov[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"nghost_min\": %" PetscInt_FMT ", \"nghost_max\": %" PetscInt_FMT ", \"t_exchange_ms\": %.6g, \"t_local_ms\": %.6g, \"t_ghost_ms\": %.6g, \"t_full_ms\": %.6g, \"t_local_then_ghost_ms\": %.6g,", o->matrix, o->type, o->nghost_min, o->nghost_max, 1e3 * o->t_exchange, 1e3 * o->t_local, 1e3 * o->t_ghost, 1e3 * o->t_full, 1e3 * o->t_compute));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"bound_ms\": %.6g, \"full_over_bound\": %.6g, \"full_over_bound_warm_ghost\": %.6g, \"full_over_bound_paired\": %.6g, \"hidden_fraction\": %.6g, \"hidden_fraction_unclamped\": %.6g, \"t_full_no_mpi_progress_ms\": %.6g, \"no_mpi_progress_over_full_paired\": %.6g, \"pass\": %s, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", 1e3 * o->bound, o->ratio, o->ratio_warm, o->ratio_paired, o->hidden, o->hidden_raw, 1e3 * o->t_full_noprogress, o->noprogress_over_paired, o->pass ? "true" : "false", o->reps_exchange, o->reps_local, o->reps_ghost, o->reps_full, i + 1 < nov ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"one_rank_vs_ranks\": [\n"));
  for (i = 0; i < none; i++) {
    const OneRankRow *o = &one[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"mpibaij_ranks\": %d, \"t_mpibaij_ms\": %.6g, \"t_seqbaij_ms\": %.6g, \"t_bsrcustom_ms\": %.6g,", o->matrix, o->type, o->threads, (int)size, 1e3 * o->t[0], 1e3 * o->t[1], 1e3 * o->t[2]));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"vs_ranks_paired\": %.6g, \"vs_ranks_q1\": %.6g, \"vs_ranks_q3\": %.6g, \"vs_one_rank_paired\": %.6g, \"reldiff\": %.3e, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", o->vs_ranks, o->vs_ranks_q1, o->vs_ranks_q3, o->vs_one, o->diff, o->reps[0], o->reps[1], o->reps[2], i + 1 < none ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"busy_cores\": [\n"));
  for (i = 0; i < nld; i++) {
    const LoadedRow *l = &ld[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"busy_processes\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ", \"busy_seqbaij_ms\": %.6g, \"busy_bsrcustom_ms\": %.6g, \"busy_ratio_paired\": %.6g, \"busy_ratio_q1\": %.6g, \"busy_ratio_q3\": %.6g,", l->matrix, l->type, l->threads, l->busy, l->trials, l->t_baij, l->t_bsr, l->ratio, l->q1, l->q3));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"idle_fallback_ms\": %.6g, \"idle_without_ms\": %.6g, \"idle_ratio_paired\": %.6g, \"idle_ratio_q1\": %.6g, \"idle_ratio_q3\": %.6g, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", l->t_on, l->t_off, l->idle, l->idle_q1, l->idle_q3, l->reps[0], l->reps[1], l->reps[2], l->reps[3], i + 1 < nld ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"baij_copies\": [\n"));
  for (i = 0; i < ncp; i++) {
    const CopiesRow *c = &cp[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"baij_type\": \"%s\", \"bs\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ", \"assembled_ms\": %.6g, \"converted_ms\": %.6g, \"duplicated_converted_ms\": %.6g,", c->matrix, c->type, c->baij_type, c->bs, c->trials, c->t[0], c->t[1], c->t[2]));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"converted_over_assembled_paired\": %.6g, \"converted_q1\": %.6g, \"converted_q3\": %.6g, \"duplicated_converted_over_assembled_paired\": %.6g, \"duplicated_converted_q1\": %.6g, \"duplicated_converted_q3\": %.6g, \"reldiff\": %.3e, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", c->ratio[0], c->q1[0], c->q3[0], c->ratio[1], c->q1[1], c->q3[1], c->diff, c->reps[0], c->reps[1], c->reps[2], i + 1 < ncp ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"ksp\": [\n"));
  for (i = 0; i < nkr; i++) {
    const KSPRow *k = &kr[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"ksp_type\": \"%s\", \"pc_type\": \"%s\", \"restart\": %" PetscInt_FMT ", \"its\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ",", k->matrix, k->type, k->ksp_type, k->pc_type, k->restart, k->its, k->trials));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"solve_ms\": %.6g, \"ms_per_it\": %.6g, \"ratio\": %.6g, \"reldiff_solution\": %.3e, \"relative_residual\": %.6e}%s\n", 1e3 * k->solve_s, 1e3 * k->solve_s / (double)k->its, k->ratio, k->diff, k->relres, i + 1 < nkr ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"targets\": [\n"));
  for (i = 0; i < ntg; i++) {
    const Target *t = &tg[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"target\": \"%s\", \"description\": \"%s\", \"value\": %.6g, \"threshold\": %.6g, \"pass\": %s}%s\n", t->matrix, t->name, t->what, t->value, t->threshold, t->pass ? "true" : "false", i + 1 < ntg ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ]\n}\n"));
  PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- transposes and SpMM (-bench_transpose, -bench_spmm) */
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

/* whether A is a bsrcustom type whose products run on the cpu backend */
static PetscErrorCode IsCPUBSRCustom(Mat A, PetscBool *cpu_bsr)
{
  MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, cpu_bsr, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  if (*cpu_bsr) PetscCall(MatBSRCustomGetBackend(A, &backend));
  *cpu_bsr = (PetscBool)(*cpu_bsr && backend == MAT_BSRCUSTOM_BACKEND_CPU);
  PetscFunctionReturn(0);
}

/* where A's MatMultTranspose runs (bsrcustom: its settings say; the library's MatView has the details),
   and whether that is the transposed copy on the GPU */
static PetscErrorCode TransposePath(Mat A, PetscBool *gpu_bsr, const char **path)
{
  MatBSRCustomBackend       backend = MAT_BSRCUSTOM_BACKEND_CPU;
  MatBSRCustomTransposeMode mode    = MAT_BSRCUSTOM_TRANSPOSE_CACHED;
  PetscBool                 bsr, bound = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &bsr, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  *gpu_bsr = PETSC_FALSE;
  *path    = "the type's own";
  if (!bsr) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomGetBackend(A, &backend));
  PetscCall(MatBSRCustomGetTranspose(A, &mode));
  PetscCall(MatBoundToCPU(A, &bound));
  if (mode == MAT_BSRCUSTOM_TRANSPOSE_BAIJ) *path = "BAIJ's serial code (host)";
  else if (backend == MAT_BSRCUSTOM_BACKEND_CPU || bound) *path = "cached copy, task kernel";
  else {
    *path    = "cached copy on the GPU";
    *gpu_bsr = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* MatMultTranspose(A, xt, yt) beside MatMult(A, x, y), in interleaved trials; the transpose product is
   checked against ytref (the first type's, kept there when *have_ref is still false) */
static PetscErrorCode BenchTranspose(Mat A, Vec x, Vec y, Vec xtref, Vec ytref, PetscBool *have_ref, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, TransposeRow *row)
{
  Vec      xt, yt;
  double   t[2];
  PetscInt used[2];
  MatType  mtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscStrncpy(row->type, mtype, sizeof(row->type)));
  PetscCall(IsCPUBSRCustom(A, &row->cpu_bsr));
  PetscCall(TransposePath(A, &row->gpu_bsr, &row->path));
  PetscCall(MatCreateVecs(A, &yt, &xt));
  PetscCall(VecCopy(xtref, xt));
  PetscCall(MatMultTranspose(A, xt, yt));
  row->diff = 0.0;
  if (!*have_ref) {
    PetscCall(VecCopy(yt, ytref));
    *have_ref = PETSC_TRUE;
  } else PetscCall(RelDiff(yt, ytref, &row->diff));
  PetscCheck(row->diff < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Type %s: MatMultTranspose differs from the first type's by %g (relative max norm)", mtype, row->diff);
  {
    const Op ops[2] = {{OP_MULT, A, x, NULL, y, NULL, NULL}, {OP_MULTTRANSPOSE, A, xt, NULL, yt, NULL, NULL}};
    PetscCall(TimeOps(PetscObjectComm((PetscObject)A), 2, ops, warmup, reps, trials, budget, t, used, NULL));
  }
  row->t_mult  = t[0];
  row->t_trans = t[1];
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  PetscFunctionReturn(0);
}

/* MatMatMult(A, B) with a dense B of k columns (its MAT_REUSE_MATRIX step, MatProductNumeric) beside MatMult(A, x, y), in
   interleaved trials; its first and last columns checked against MatMult */
static PetscErrorCode BenchSpMM(Mat A, Vec x, Vec y, PetscInt k, PetscInt seed, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SpMMRow *row)
{
  Mat          B, C;
  PetscInt     m, N, rs, lda;
  PetscScalar *b;
  double       t[2];
  PetscInt     used[2];

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, NULL, &m));
  PetscCall(MatGetSize(A, NULL, &N));
  PetscCall(MatGetOwnershipRangeColumn(A, &rs, NULL));
  {
    VecType   vtype;
    PetscBool cuda;
    /* on CUDA vectors (a GPU backend of a CUDA PETSc) a MATDENSECUDA B, whose device arrays the GPU
       SpMM uses as MatMult uses the vectors' */
    PetscCall(VecGetType(x, &vtype));
    PetscCall(PetscStrbeginswith(vtype, VECCUDA, &cuda));
    if (!cuda) PetscCall(PetscStrbeginswith(vtype, VECSEQCUDA, &cuda));
    if (!cuda) PetscCall(PetscStrbeginswith(vtype, VECMPICUDA, &cuda));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, m, PETSC_DECIDE, N, k));
    PetscCall(MatSetType(B, cuda ? MATDENSECUDA : MATDENSE));
    PetscCall(MatSetUp(B));
  }
  PetscCall(MatDenseGetLDA(B, &lda));
  PetscCall(MatDenseGetArrayWrite(B, &b));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < m; i++) {
      uint64_t s     = RowSeed(seed, 11 + j, rs + i);
      b[j * lda + i] = 2.0 * Uniform(&s) - 1.0;
    }
  PetscCall(MatDenseRestoreArrayWrite(B, &b));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, 2.0, &C));
  row->k    = k;
  row->diff = 0.0;
  for (PetscInt j = 0; j < k; j += PetscMax(1, k - 1)) {
    Vec    bj, cj;
    double d;
    PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
    PetscCall(VecCopy(bj, x));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatDenseGetColumnVecRead(C, j, &cj));
    PetscCall(RelDiff(cj, y, &d));
    PetscCall(MatDenseRestoreColumnVecRead(C, j, &cj));
    row->diff = PetscMax(row->diff, d);
  }
  PetscCheck(row->diff < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMatMult with %" PetscInt_FMT " columns differs from MatMult by %g (relative max norm)", k, row->diff);
  {
    const Op ops[2] = {{OP_MULT, A, x, NULL, y, NULL, NULL}, {OP_MATMATMULT, A, NULL, NULL, NULL, NULL, C}};
    PetscCall(TimeOps(PetscObjectComm((PetscObject)A), 2, ops, warmup, reps, trials, budget, t, used, NULL));
  }
  row->t_mult = t[0];
  row->t_spmm = t[1];
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* whether A is a bsrcustom type whose products run on a GPU backend */
static PetscErrorCode IsGPUBSRCustom(Mat A, PetscBool *gpu_bsr)
{
  MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, gpu_bsr, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  if (*gpu_bsr) PetscCall(MatBSRCustomGetBackend(A, &backend));
  *gpu_bsr = (PetscBool)(*gpu_bsr && backend != MAT_BSRCUSTOM_BACKEND_CPU);
  PetscFunctionReturn(0);
}

/* The transpose and SpMM tables of one matrix, and their TARGET lines (cpu backend; on a GPU run the
   GPU transposed copy's and the GPU block SpMM's) */
static PetscErrorCode PrintTransposeSpMM(const char matrix[], const char ref_type[], PetscInt ntypes, const TransposeRow tr[], PetscBool dotranspose, const SpMMRow sp[], PetscInt nk, PetscBool gpu_run, PetscReal target_transpose, PetscReal target_transpose_gpu, PetscReal target_spmm, PetscReal target_gpu_spmm)
{
  PetscFunctionBeginUser;
  if (dotranspose) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatMultTranspose, %s (medians of interleaved trials with the type's own MatMult; throughput = Mult ms / MultT ms; MultT/Mult = MultT ms / Mult ms; vs %s = its transpose ms / this one's)\n", matrix, ref_type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %9s %9s %10s %10s %9s %9s  %s\n", "matrix", "type", "Mult ms", "MultT ms", "throughput", "MultT/Mult", "vs ref", "reldiff", "transpose path"));
    for (PetscInt it = 0; it < ntypes; it++)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %9.3f %9.3f %10.3f %10.3f %9.3f %9.1e  %s\n", matrix, tr[it].type, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[it].t_mult / tr[it].t_trans, tr[it].t_trans / tr[it].t_mult,
                            tr[0].t_trans / tr[it].t_trans, tr[it].diff, tr[it].path));
    for (PetscInt it = 0; it < ntypes && gpu_run; it++)
      if (tr[it].gpu_bsr)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMultTranspose on the GPU (transposed copy) throughput at least %.2fx its MatMult's: %.3fx (MatMult %.3f ms, MatMultTranspose %.3f ms, MultT/Mult %.3f; %.3fx %s's transpose): %s\n", matrix,
                              tr[it].type, (double)target_transpose_gpu, tr[it].t_mult / tr[it].t_trans, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[it].t_trans / tr[it].t_mult, tr[0].t_trans / tr[it].t_trans, ref_type, tr[it].t_mult / tr[it].t_trans >= target_transpose_gpu ? "PASS" : "MISS"));
    for (PetscInt it = 0; it < ntypes && !gpu_run; it++)
      if (tr[it].cpu_bsr)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMultTranspose throughput at least %.2fx its MatMult's, all threads: %.3fx (MatMult %.3f ms, MatMultTranspose %.3f ms; %.3fx %s's transpose): %s\n", matrix, tr[it].type, (double)target_transpose,
                              tr[it].t_mult / tr[it].t_trans, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[0].t_trans / tr[it].t_trans, ref_type, tr[it].t_mult / tr[it].t_trans >= target_transpose ? "PASS" : "MISS"));
  }
  if (nk > 0) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatMatMult with a dense matrix of k columns, %s (MAT_REUSE_MATRIX; medians of interleaved trials with one MatMult; per col = MatMatMult ms / k; ratio = per col / MatMult)\n", matrix));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %4s %9s %12s %10s %8s %9s\n", "matrix", "type", "k", "Mult ms", "MatMatMult", "per col", "ratio", "reldiff"));
    for (PetscInt it = 0; it < ntypes; it++)
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %4" PetscInt_FMT " %9.3f %12.3f %10.4f %8.3f %9.1e\n", matrix, tr[it].type, r->k, 1e3 * r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / (double)r->k, r->t_spmm / (double)r->k / r->t_mult, r->diff));
      }
    for (PetscInt it = 0; it < ntypes && !gpu_run; it++)
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        if (!tr[it].cpu_bsr || r->k != 8) continue;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMatMult with 8 columns at most %.2fx a MatMult per column: %.3fx (MatMatMult %.3f ms = %.4f ms per column, MatMult %.3f ms): %s\n", matrix, tr[it].type, (double)target_spmm, r->t_spmm / 8.0 / r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / 8.0, 1e3 * r->t_mult, r->t_spmm / 8.0 / r->t_mult <= target_spmm ? "PASS" : "MISS"));
      }
    for (PetscInt it = 0; it < ntypes && gpu_run; it++) /* the block SpMM on the GPU, against the same backend's MatMult */
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        if (!tr[it].gpu_spmm || r->k != 8) continue;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s GPU block SpMM: MatMatMult with 8 columns at most %.2fx a MatMult per column: %.3fx (MatMatMult %.3f ms = %.4f ms per column, MatMult %.3f ms): %s\n", matrix, tr[it].type, (double)target_gpu_spmm, r->t_spmm / 8.0 / r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / 8.0, 1e3 * r->t_mult, r->t_spmm / 8.0 / r->t_mult <= target_gpu_spmm ? "PASS" : "MISS"));
      }
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- KSP solves (-bench_ksp) */
/* One KSPSolve(ksp, b, x) from x = 0 on every rank of its communicator after an MPI_Barrier: the slowest
   rank's seconds; with CUDA vectors, the device has finished the solve when the clock stops. Any ending
   but the one of a solve that made all its iterations is an error. */
static PetscErrorCode TimeSolve(const char matrix[], KSP ksp, Vec b, Vec x, PetscInt its, double *dt)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)ksp);
  const Op           sync = {OP_MULT, NULL, NULL, NULL, x, NULL, NULL}; /* only for SyncDevice(): x is what the solve writes */
  KSPConvergedReason reason;
  PetscInt           n;
  double             t0, mine;
  Mat                A;
  MatType            mtype;

  PetscFunctionBeginUser;
  PetscCall(VecZeroEntries(x));
  PetscCall(SyncDevice(&sync));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(SyncDevice(&sync));
  mine = MPI_Wtime() - t0;
  PetscCallMPI(MPI_Allreduce(&mine, dt, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &n));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatGetType(A, &mtype));
  PetscCheck((reason == KSP_DIVERGED_ITS || reason == KSP_CONVERGED_ITS) && n == its, comm, PETSC_ERR_NOT_CONVERGED, "Matrix %s, type %s: -bench_ksp's KSPSolve stopped after %" PetscInt_FMT " of %" PetscInt_FMT " iterations with reason %s; the fixed-iteration timing needs all of them", matrix, mtype, n, its, KSPConvergedReasons[reason]);
  PetscFunctionReturn(0);
}

/*
  The cost of a solver's iterations with each type of -bench_types: <its> iterations of ksp_type
  (GMRES(30) by default) preconditioned by pc_type (PCPBJACOBI by default) on A x = b from x0 = 0.
  b = A u for u = FillRandom(seed), computed with the first type and copied to the others, so that
  all types solve the same system and their solutions differ only by the rounding of their own
  arithmetic, amplified by the solver. GMRES is preconditioned on the right, so that it minimises
  ||b - A x|| itself: preconditioned on the left, PBJacobi on the random 27-point blocks let the true
  residuals of the types drift 5 % apart in 300 iterations on 82^3 nodes, and the solutions 0.1-0.2
  (max norm). The check is on the residuals ||b - A x|| / ||b||, which must agree to 1e-4 (relative);
  the solutions' difference is printed. rtol = atol = 0 and
  a divergence tolerance of 1e300 keep the default convergence test from stopping a solve early (no
  KSPSetConvergenceTest is needed): every solve makes exactly <its> iterations, and the thesis matrix,
  nearly singular, would not converge anyway. So this is a fixed-iteration timing of what one
  iteration costs (products, orthogonalisation, PC), not a convergence study. The solvers are set up
  here only, without KSPSetFromOptions, so that every type runs the same solver whatever else the
  options database holds.
  Every type has its own matrix (converted from base as the MatMult section does, the base itself for
  its own type) and vectors from MatCreateVecs (CUDA vectors for GPU types), all alive at once so that
  the trials can be interleaved as TimeOps() does: after one untimed solve per type (KSPSetUp and the
  PC's setup, first touches, device allocations), trial k times one solve of every type, beginning
  with type k mod ntypes, so that drifts of the machine and the place in the round affect all alike.
*/
static PetscErrorCode BenchKSP(const MatrixSpec *spec, Mat base, PetscInt ntypes, char *const types[], PetscInt its, const char ksp_type[], const char pc_type[], PetscInt seed, PetscInt trials, KSPRow rows[])
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)base);
  Mat       *A;
  KSP       *ksp;
  Vec       *b, *x, u;
  PetscReal *t;
  PetscInt   i, j, k;
  double     dt, maxdiff = 0.0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc5(ntypes, &A, ntypes, &ksp, ntypes, &b, ntypes, &x, ntypes * trials, &t));
  for (j = 0; j < ntypes; j++) {
    KSPRow   *r = &rows[j];
    PetscBool same;
    MatType   mtype;
    KSPType   kt;
    PCType    pt;
    PC        pc;
    PetscErrorCode (*setrestart)(KSP, PetscInt) = NULL;

    PetscCall(PetscMemzero(r, sizeof(*r)));
    PetscCall(IsBaseType(base, types[j], &same));
    if (same) {
      A[j] = base;
      PetscCall(PetscObjectReference((PetscObject)base));
    } else PetscCall(MatConvert(base, types[j], MAT_INITIAL_MATRIX, &A[j]));
    PetscCall(MatGetType(A[j], &mtype));
    PetscCall(PetscStrncpy(r->matrix, spec->name, sizeof(r->matrix)));
    PetscCall(PetscStrncpy(r->type, mtype, sizeof(r->type)));
    PetscCall(MatCreateVecs(A[j], &x[j], &b[j]));
    if (j == 0) {
      PetscCall(VecDuplicate(x[0], &u));
      PetscCall(FillRandom(u, seed));
      PetscCall(MatMult(A[0], u, b[0]));
      PetscCall(VecDestroy(&u));
    } else PetscCall(VecCopy(b[0], b[j]));

    PetscCall(KSPCreate(comm, &ksp[j]));
    PetscCall(KSPSetOperators(ksp[j], A[j], A[j]));
    PetscCall(KSPSetType(ksp[j], ksp_type));
    PetscCall(PetscObjectQueryFunction((PetscObject)ksp[j], "KSPGMRESSetRestart_C", &setrestart));
    if (setrestart) { /* the GMRES family, preconditioned on the right: it minimises ||b - A x|| itself */
      PetscCall(KSPGMRESSetRestart(ksp[j], 30));
      PetscCall(KSPSetPCSide(ksp[j], PC_RIGHT));
      r->restart = 30;
    }
    PetscCall(KSPGetPC(ksp[j], &pc));
    PetscCall(PCSetType(pc, pc_type));
    PetscCall(KSPSetTolerances(ksp[j], 0.0, 0.0, 1e300, its));
    PetscCall(KSPSetInitialGuessNonzero(ksp[j], PETSC_FALSE));
    PetscCall(KSPSetUp(ksp[j]));
    PetscCall(TimeSolve(spec->name, ksp[j], b[j], x[j], its, &dt)); /* warm-up */
    PetscCall(KSPGetType(ksp[j], &kt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscStrncpy(r->ksp_type, kt, sizeof(r->ksp_type)));
    PetscCall(PetscStrncpy(r->pc_type, pt, sizeof(r->pc_type)));
    r->its    = its;
    r->trials = trials;
  }
  for (k = 0; k < trials; k++)
    for (i = 0; i < ntypes; i++) {
      j = (k + i) % ntypes;
      PetscCall(TimeSolve(spec->name, ksp[j], b[j], x[j], its, &dt));
      t[j * trials + k] = dt;
    }
  for (j = 0; j < ntypes; j++) {
    Vec       r;
    PetscReal nr, nb;

    PetscCall(Median(trials, &t[j * trials], &rows[j].solve_s));
    rows[j].ratio = rows[0].solve_s / rows[j].solve_s;
    if (j > 0) PetscCall(RelDiff(x[j], x[0], &rows[j].diff));
    /* ||b - A x|| / ||b||, each type with its own matrix */
    PetscCall(VecDuplicate(b[j], &r));
    PetscCall(MatMult(A[j], x[j], r));
    PetscCall(VecAYPX(r, -1.0, b[j]));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b[j], NORM_2, &nb));
    PetscCall(VecDestroy(&r));
    rows[j].relres = nr / nb;
    if (j > 0) maxdiff = PetscMax(maxdiff, PetscAbsReal(rows[j].relres - rows[0].relres) / rows[0].relres);
  }

  PetscCall(PetscPrintf(comm, "  KSP solves, %s: %s%s + %s, exactly %" PetscInt_FMT " iterations from x0 = 0 (rtol = atol = 0: a fixed-iteration timing of the solver's products, orthogonalisation and PC, not of convergence); b = A u for one random u; medians of %" PetscInt_FMT " interleaved trials of the slowest rank's KSPSolve; ratio = time of %s / time of this type (> 1: faster); reldiff = max relative difference of the solution to %s's\n",
                        spec->name, rows[0].ksp_type, rows[0].restart ? "(30)" : "", rows[0].pc_type, its, trials, types[0], types[0]));
  PetscCall(PetscPrintf(comm, "ksp %-10s %-14s %-8s %-10s %5s %10s %9s %8s %9s %10s\n", "matrix", "type", "ksp", "pc", "its", "solve ms", "ms/it", "ratio", "reldiff", "residual"));
  for (j = 0; j < ntypes; j++) {
    const KSPRow *r = &rows[j];
    PetscCall(PetscPrintf(comm, "ksp %-10s %-14s %-8s %-10s %5" PetscInt_FMT " %10.3f %9.4f %8.3f %9.1e %10.4e\n", r->matrix, r->type, r->ksp_type, r->pc_type, r->its, 1e3 * r->solve_s, 1e3 * r->solve_s / (double)r->its, r->ratio, r->diff, r->relres));
  }

  for (j = 0; j < ntypes; j++) {
    PetscCall(KSPDestroy(&ksp[j]));
    PetscCall(VecDestroy(&x[j]));
    PetscCall(VecDestroy(&b[j]));
    PetscCall(MatDestroy(&A[j]));
  }
  PetscCall(PetscFree5(A, ksp, b, x, t));
  PetscCheck(maxdiff <= 1e-4, comm, PETSC_ERR_PLIB, "Matrix %s: after the -bench_ksp solves, ||b - A x|| / ||b|| differs from type %s's by %g (relative), more than 1e-4: the types do not compute the same iterations", spec->name, types[0], maxdiff);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char         *mats[MAX_LIST], *types[MAX_LIST], json[PETSC_MAX_PATH_LEN] = "";
  PetscInt      nmats = MAX_LIST, ntypes = MAX_LIST, reps = 50, trials = 5, warmup = 3, seed = 1;
  PetscInt      thesis_rows = 32000, thesis_bs = 5, stencil_n = 48, stencil_bs = 3, im, it, nres = 0;
  PetscInt      chunks[MAX_LIST] = {1, 2, 4, 8, 16, 64, 256}, nchunks = MAX_LIST, nsw = 0, nov = 0, ntg = 0, maxsw, maxtg;
  PetscReal     density = 0.05, stream_mb = 400.0, budget = 6.0, sweep_budget = -1.0;
  PetscReal     target_baij = 1.0, target_read = 90.0, target_overlap = 1.10, target_vs_ranks = 1.0, target_vs_one = 8.0;
  PetscReal     target_loaded = 1.0, target_idle_cost = 0.97;
  PetscBool     setm, sett, setc, hasjson, dosweep = PETSC_TRUE, dooverlap = PETSC_TRUE, doonerank = PETSC_TRUE, doloaded = PETSC_TRUE;
  PetscBool     gpu_run     = PETSC_FALSE; /* -mat_bsrcustom_backend names a GPU backend: no CPU-only comparisons */
  PetscBool     dotranspose = PETSC_TRUE;
  PetscBool     docopies    = PETSC_TRUE;
  CopiesRow    *copies;
  PetscInt      ncopies          = 0;
  PetscInt      spmm_k[MAX_LIST] = {1, 4, 8, 32}, nspmm = MAX_LIST;
  PetscBool     setk;
  PetscReal     target_transpose = 0.7, target_transpose_gpu = 0.85, target_spmm = 0.4, target_gpu_spmm = 0.3;
  TransposeRow *trow;
  SpMMRow      *srow;
  PetscMPIInt   size;
  double        triad = 0.0, read = 0.0;
  Refs         *refs;
  PairedRow    *paired;
  PetscInt      npaired  = 0;
  int           nthreads = 1, k;
  Result       *res;
  SweepRow     *sw;
  OverlapRow   *ov;
  OneRankRow   *one;
  LoadedRow    *loaded;
  PetscInt      none = 0, nloaded = 0;
  Target       *tg;
  PetscInt      ksp_its = 0, nkr = 0;
  char          ksp_type[64] = KSPGMRES, pc_type[64] = PCPBJACOBI;
  KSPRow       *kr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll()); /* bsrcustom, seqbsrcustom, mpibsrcustom without -dll_append */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MatMult benchmark options", "Mat");
  PetscCall(PetscOptionsStringArray("-bench_matrices", "Matrices: thesis,stencil27", "bench_matmult.c", mats, &nmats, &setm));
  PetscCall(PetscOptionsStringArray("-bench_types", "Mat types, the first is the reference", "MatConvert", types, &ntypes, &sett));
  PetscCall(PetscOptionsInt("-bench_reps", "Products per trial", "bench_matmult.c", reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-bench_trials", "Trials (median reported)", "bench_matmult.c", trials, &trials, NULL));
  PetscCall(PetscOptionsInt("-bench_warmup", "Untimed products before timing", "bench_matmult.c", warmup, &warmup, NULL));
  PetscCall(PetscOptionsReal("-bench_time_budget", "Seconds of timed calls per matrix, type and product before -bench_reps is reduced (0: never reduce)", "bench_matmult.c", budget, &budget, NULL));
  PetscCall(PetscOptionsInt("-bench_seed", "Seed of the generators", "bench_matmult.c", seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-thesis_rows", "Rows of the thesis matrix", "bench_matmult.c", thesis_rows, &thesis_rows, NULL));
  PetscCall(PetscOptionsInt("-thesis_bs", "Block size of the thesis matrix", "bench_matmult.c", thesis_bs, &thesis_bs, NULL));
  PetscCall(PetscOptionsReal("-thesis_density", "Fraction of nonzero entries of the thesis matrix", "bench_matmult.c", density, &density, NULL));
  PetscCall(PetscOptionsInt("-stencil_n", "Grid points per direction of the stencil27 matrix", "bench_matmult.c", stencil_n, &stencil_n, NULL));
  PetscCall(PetscOptionsInt("-stencil_bs", "Block size of the stencil27 matrix", "bench_matmult.c", stencil_bs, &stencil_bs, NULL));
  PetscCall(PetscOptionsReal("-stream_mb", "Total MB of the arrays of each bandwidth reference (STREAM triad, read)", "bench_matmult.c", stream_mb, &stream_mb, NULL));
  PetscCall(PetscOptionsString("-bench_json", "Write results as JSON to this file", "bench_matmult.c", json, json, sizeof(json), &hasjson));
  PetscCall(PetscOptionsBool("-bench_sweep", "1 rank: thread and chunks-per-thread sweeps of seqbsrcustom", "MatBSRCustomSetNumThreads", dosweep, &dosweep, NULL));
  PetscCall(PetscOptionsIntArray("-bench_sweep_chunks", "Chunks per thread of the chunk sweep", "MatBSRCustomSetChunksPerThread", chunks, &nchunks, &setc));
  PetscCall(PetscOptionsReal("-bench_sweep_time_budget", "-bench_time_budget of each sweep point (default: -bench_time_budget)", "bench_matmult.c", sweep_budget, &sweep_budget, NULL));
  PetscCall(PetscOptionsBool("-bench_overlap", "Several ranks: time exchange, local and ghost products of mpibsrcustom alone and together", "MatBSRCustomGetLocalAndGhost", dooverlap, &dooverlap, NULL));
  PetscCall(PetscOptionsReal("-bench_target_baij", "Target: 1-thread seqbsrcustom / seqbaij MatMult speed", "bench_matmult.c", target_baij, &target_baij, NULL));
  PetscCall(PetscOptionsReal("-bench_target_read", "Target: all-threads seqbsrcustom MatMult, percent of the read reference (paired)", "bench_matmult.c", target_read, &target_read, NULL));
  PetscCall(PetscOptionsReal("-bench_target_overlap", "Target: overlapped MatMult / (max(exchange, local) + ghost)", "bench_matmult.c", target_overlap, &target_overlap, NULL));
  PetscCall(PetscOptionsBool("-bench_one_rank", "Several ranks of one node: seqbsrcustom with one thread per rank on rank 0 against mpibaij on all ranks, interleaved", "bench_matmult.c", doonerank, &doonerank, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_ranks", "Target: seqbsrcustom with P threads / mpibaij on P ranks MatMult speed", "bench_matmult.c", target_vs_ranks, &target_vs_ranks, NULL));
  PetscCall(PetscOptionsBool("-bench_loaded", "1 rank: seqbaij and seqbsrcustom with a CPU-bound process on every CPU, and the busy-core fallback's cost on the idle machine", "MatBSRCustomSetCPUBusyFallback", doloaded, &doloaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_loaded", "Target: seqbsrcustom / seqbaij MatMult speed on busy cores", "bench_matmult.c", target_loaded, &target_loaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_idle_cost", "Target: seqbsrcustom with / without the busy-core fallback MatMult speed, idle", "bench_matmult.c", target_idle_cost, &target_idle_cost, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_one", "Target (P >= 8): seqbsrcustom with P threads / seqbaij on 1 rank MatMult speed", "bench_matmult.c", target_vs_one, &target_vs_one, NULL));
  PetscCall(PetscOptionsBool("-bench_copies", "MatMult of MatConvert(ours, MATBAIJ) and MatConvert(MatDuplicate(ours), MATBAIJ) against the BAIJ assembled here", "MatConvert", docopies, &docopies, NULL));
  PetscCall(PetscOptionsBool("-bench_transpose", "MatMultTranspose of every type beside its MatMult", "MatMultTranspose", dotranspose, &dotranspose, NULL));
  PetscCall(PetscOptionsIntArray("-bench_spmm", "Columns k of the MatMatMult with a dense matrix (per column against one MatMult)", "MatMatMult", spmm_k, &nspmm, &setk));
  PetscCall(PetscOptionsReal("-bench_target_transpose", "Target (cpu backend): MatMultTranspose throughput / MatMult's", "bench_matmult.c", target_transpose, &target_transpose, NULL));
  PetscCall(PetscOptionsReal("-bench_target_transpose_gpu", "Target (GPU backends): MatMultTranspose throughput / MatMult's", "bench_matmult.c", target_transpose_gpu, &target_transpose_gpu, NULL));
  PetscCall(PetscOptionsReal("-bench_target_spmm", "Target (cpu backend): MatMatMult with 8 columns per column / one MatMult", "bench_matmult.c", target_spmm, &target_spmm, NULL));
  PetscCall(PetscOptionsReal("-bench_target_gpu_spmm", "Target (GPU backends): the GPU block SpMM with 8 columns per column / one MatMult", "bench_matmult.c", target_gpu_spmm, &target_gpu_spmm, NULL));
  PetscCall(PetscOptionsInt("-bench_ksp", "Iterations of the fixed-iteration KSPSolve of every type after the MatMult timings (0: none)", "KSPSolve", ksp_its, &ksp_its, NULL));
  PetscCall(PetscOptionsString("-bench_ksp_type", "KSP type of -bench_ksp (GMRES types restart every 30 iterations)", "KSPSetType", ksp_type, ksp_type, sizeof(ksp_type), NULL));
  PetscCall(PetscOptionsString("-bench_ksp_pc_type", "PC type of -bench_ksp", "PCSetType", pc_type, pc_type, sizeof(pc_type), NULL));
  PetscOptionsEnd();
  PetscCheck(ksp_its >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_ksp must be >= 0, got %" PetscInt_FMT, ksp_its);
  if (!setk) { /* the defaults, or none for an empty -bench_spmm (PETSc reads it as given without values) */
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-bench_spmm", &given));
    nspmm = given ? 0 : 4;
  }
  for (k = 0; k < (int)nspmm; k++) PetscCheck(spmm_k[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_spmm: columns must be >= 1, got %" PetscInt_FMT, spmm_k[k]);
  {
    PetscEnum be  = (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU;
    PetscBool set = PETSC_FALSE;
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-mat_bsrcustom_backend", MatBSRCustomBackends, &be, &set));
    gpu_run = (PetscBool)(set && be != (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU);
  }
  if (!setm || nmats == 0) {
    nmats = 2;
    PetscCall(PetscStrallocpy("thesis", &mats[0]));
    PetscCall(PetscStrallocpy("stencil27", &mats[1]));
  }
  if (!sett || ntypes == 0) {
    ntypes = 1;
    PetscCall(PetscStrallocpy(MATBAIJ, &types[0]));
  }
  if (!setc) nchunks = 7;
  if (sweep_budget < 0.0) sweep_budget = budget;
  PetscCheck(reps >= 1 && trials >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -bench_reps >= 1, -bench_trials >= 1, -bench_warmup >= 0");
  PetscCheck(budget >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_time_budget must be >= 0");
  PetscCheck(stream_mb > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb must be positive");
  for (k = 0; k < (int)nchunks; k++) PetscCheck(chunks[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_sweep_chunks: chunks per thread must be >= 1, got %" PetscInt_FMT, chunks[k]);
#if defined(_OPENMP)
  nthreads = omp_get_max_threads();
#endif
  PetscCheck(nthreads <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "At most %d OpenMP threads", MAX_THREADS);
  maxsw = nmats * (nthreads + nchunks); /* one seqbsrcustom type per matrix is swept */
  maxtg = nmats * (4 + ntypes);         /* 4 targets on 1 rank or 2 of the one-rank comparison, one overlap target per mpibsrcustom type */
  PetscCall(PetscMalloc1(nmats * ntypes, &res));
  PetscCall(PetscCalloc2(MAX_LIST, &trow, MAX_LIST * MAX_LIST, &srow));
  PetscCall(PetscCalloc3(nmats, &one, nmats, &loaded, nmats, &copies));
  PetscCall(PetscCalloc1(nmats * ntypes, &kr));
  PetscCall(PetscCalloc4(maxsw, &sw, nmats * ntypes, &ov, maxtg, &tg, 1, &refs));
  PetscCall(PetscCalloc1(2 * nmats, &paired));
  PetscCall(RefsGet(refs, stream_mb, nthreads, &triad, &read));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult benchmark: %d MPI rank(s), %d OpenMP thread(s) per rank, %" PetscInt_FMT " warm-up + median of %" PetscInt_FMT " trials x reps calls (reps <= %" PetscInt_FMT ", fewer when a measurement would exceed %.6g s)\n", (int)size, nthreads, warmup, trials, reps, (double)budget));
  {
    int ncpu = AffinityCPUs(), mincpu;

    PetscCallMPI(MPI_Allreduce(&ncpu, &mincpu, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (mincpu > 0 && mincpu < nthreads) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: a rank may run on only %d CPU(s) but uses %d OpenMP threads (mpiexec binds ranks to cores: use --bind-to none or set OMP_NUM_THREADS)\n", mincpu, nthreads));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "STREAM triad (all ranks x threads, %.6g MB total, best of 10): %.2f GB/s; read (sum of one %.6g MB array, same threads, best of 10): %.2f GB/s\n", (double)stream_mb, triad, (double)stream_mb, read));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%%triad, %%read = MatMult GB/s in percent of the triad (the seed thesis's reference) and of the read (MatMult reads its matrix and x and writes only y: the bound the target judges it against); \"-\" for a product on a GPU, which these host references say nothing of\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Bytes per product = values (8 B) + column indices (4 B per block for block types, per scalar for AIJ types) + row pointers + x + y (MatMultAdd: + z); MB = matrix storage (values + indices + row pointers), 1 MB = 1e6 B\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ratio = time of %s / time of this type (> 1: faster than %s); reldiff = max relative difference of the products to %s\n", types[0], types[0], types[0]));

  for (im = 0; im < nmats; im++) {
    MatrixSpec spec;
    Mat        base;
    Vec        xref, yref, zref, yaddref, xtref, ytref;
    PetscBool  have_tref;
    double     tref = 0.0, taddref = 0.0;
    double     t_baij = 0.0, t_bsr1 = 0.0, gbs_bsr = 0.0, triad_bsr = 0.0, read_bsr = 0.0;
    PairedRef  pt_bsr = {REF_TRIAD, 0, 0, 0, 0, 0, 0}, pr_bsr = {REF_READ, 0, 0, 0, 0, 0, 0};
    PetscInt   nt_bsr = 0, nov0 = nov;
    char       bsr_type[64] = "", ours_type[64] = "";

    PetscCall(SetupSpec(mats[im], thesis_rows, thesis_bs, density, stencil_n, stencil_bs, &spec));
    PetscCall(AssembleBAIJ(&spec, seed, &base));
    PetscCall(MatCreateVecs(base, &xref, &yref));
    PetscCall(VecDuplicate(yref, &zref));
    PetscCall(VecDuplicate(yref, &yaddref));
    if (spec.band > 0) { /* the thesis matrix is row-stochastic: A 1 = 1 */
      PetscReal err;
      PetscCall(VecSet(xref, 1.0));
      PetscCall(MatMult(base, xref, yref));
      PetscCall(VecShift(yref, -1.0));
      PetscCall(VecNorm(yref, NORM_INFINITY, &err));
      PetscCheck(err < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Thesis matrix rows do not sum to 1: max error %g", (double)err);
    }
    PetscCall(FillRandom(xref, seed));
    PetscCall(FillRandom(zref, seed + 1000003));
    PetscCall(MatCreateVecs(base, &ytref, &xtref)); /* MatMultTranspose: xt has A's rows, yt its columns */
    PetscCall(FillRandom(xtref, seed + 2000003));
    have_tref = PETSC_FALSE;

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3s %9s %4s %9s %9s %8s %6s %6s %9s %8s %7s %7s %9s\n", "matrix", "type", "bs", "nblocks", "reps", "MB", "Mult ms", "GB/s", "%triad", "%read", "MAdd ms", "GB/s", "ratio", "ratioA", "reldiff"));
    for (it = 0; it < ntypes; it++) {
      Result             *r = &res[nres];
      Mat                 A;
      Vec                 x, y, z;
      PetscBool           same, isseqbaij, isseqbsr, ismpibsr;
      MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;
      MatType             mtype;
      double              t0;

      PetscCall(PetscMemzero(r, sizeof(*r)));
      PetscCall(IsBaseType(base, types[it], &same));
      t0 = MPI_Wtime();
      if (same) A = base;
      else PetscCall(MatConvert(base, types[it], MAT_INITIAL_MATRIX, &A));
      r->convert_s = MPI_Wtime() - t0;
      PetscCall(MatGetType(A, &mtype));
      PetscCall(PetscStrncpy(r->matrix, spec.name, sizeof(r->matrix)));
      PetscCall(PetscStrncpy(r->type, mtype, sizeof(r->type)));
      r->bs      = spec.bs;
      r->nrows   = spec.nbrows * spec.bs;
      r->nblocks = spec.nblocks;
      PetscCall(TrafficModel(A, &spec, r));
      PetscCall(RunsOnDevice(A, &r->device));

      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecDuplicate(y, &z));
      PetscCall(VecCopy(xref, x));
      PetscCall(VecCopy(zref, z));
      /* correctness against the first type */
      PetscCall(MatMult(A, x, y));
      if (it == 0) PetscCall(VecCopy(y, yref));
      else PetscCall(RelDiff(y, yref, &r->diff_mult));
      PetscCall(MatMultAdd(A, x, z, y));
      if (it == 0) PetscCall(VecCopy(y, yaddref));
      else PetscCall(RelDiff(y, yaddref, &r->diff_multadd));
      PetscCheck(r->diff_mult < 1e-13 && r->diff_multadd < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Matrix %s, type %s: products differ from type %s: MatMult %g, MatMultAdd %g (relative max norm)", spec.name, mtype, types[0], r->diff_mult, r->diff_multadd);

      PetscCall(TimeProduct(A, x, z, y, PETSC_FALSE, warmup, reps, trials, budget, &r->mult_s, &r->reps_mult));
      PetscCall(TimeProduct(A, x, z, y, PETSC_TRUE, warmup, reps, trials, budget, &r->multadd_s, &r->reps_multadd));
      if (it == 0) {
        tref    = r->mult_s;
        taddref = r->multadd_s;
      }
      r->ratio_mult    = tref / r->mult_s;
      r->ratio_multadd = taddref / r->multadd_s;
      PetscCall(PrintRow(r, triad, read));
      nres++;
      if (dotranspose) PetscCall(BenchTranspose(A, x, y, xtref, ytref, &have_tref, warmup, reps, trials, budget, &trow[it]));
      else {
        PetscCall(PetscStrncpy(trow[it].type, mtype, sizeof(trow[it].type)));
        PetscCall(IsCPUBSRCustom(A, &trow[it].cpu_bsr));
      }
      PetscCall(IsGPUBSRCustom(A, &trow[it].gpu_spmm));
      for (PetscInt ik = 0; ik < nspmm; ik++) PetscCall(BenchSpMM(A, x, y, spmm_k[ik], seed, warmup, reps, trials, budget, &srow[it * MAX_LIST + ik]));
      PetscCall(VecCopy(xref, x)); /* BenchSpMM used x */

      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &isseqbaij));
      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &isseqbsr));
      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBSRCUSTOM, &ismpibsr));
      if (isseqbaij && t_baij == 0.0) t_baij = r->mult_s;
      if ((isseqbsr || ismpibsr) && !ours_type[0]) PetscCall(PetscStrncpy(ours_type, types[it], sizeof(ours_type)));
      if (isseqbsr) PetscCall(MatBSRCustomGetBackend(A, &backend));
      /* the CPU targets (threads against the read reference and against MATBAIJ) are about the cpu backend only */
      if (isseqbsr && backend == MAT_BSRCUSTOM_BACKEND_CPU && !bsr_type[0]) {
        PetscCall(PetscStrncpy(bsr_type, mtype, sizeof(bsr_type)));
        PetscCall(MatBSRCustomGetNumThreads(A, &nt_bsr));
        PetscCheck(nt_bsr >= 1 && nt_bsr <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark handles at most %d threads, the matrix uses %" PetscInt_FMT, MAX_THREADS, nt_bsr);
        if (nt_bsr == 1) t_bsr1 = r->mult_s;
        PetscCall(RefsGet(refs, stream_mb, nt_bsr, &triad_bsr, &read_bsr));
        gbs_bsr = r->mult_bytes / r->mult_s / 1e9;
        if (size == 1) {
          PetscCall(MeasurePaired(REF_READ, A, x, y, r->mult_bytes, stream_mb, (int)nt_bsr, warmup, trials, budget, &pr_bsr));
          PetscCall(MeasurePaired(REF_TRIAD, A, x, y, r->mult_bytes, stream_mb, (int)nt_bsr, warmup, trials, budget, &pt_bsr));
          for (int q = 0; q < 2; q++) {
            PairedRow *row = &paired[npaired++];
            PetscCall(PetscStrncpy(row->matrix, spec.name, sizeof(row->matrix)));
            PetscCall(PetscStrncpy(row->type, mtype, sizeof(row->type)));
            row->threads = nt_bsr;
            row->p       = q ? pt_bsr : pr_bsr;
          }
        }
        if (dosweep) {
          PetscInt n0 = nsw;
          PetscCall(Sweeps(A, x, y, r, stream_mb, nthreads, chunks, nchunks, warmup, reps, trials, sweep_budget, sw, maxsw, &nsw, refs));
          for (; n0 < nsw; n0++)
            if (!strcmp(sw[n0].sweep, "threads") && sw[n0].threads == 1 && t_bsr1 == 0.0) t_bsr1 = sw[n0].mult_s;
        }
      }
      if (ismpibsr && dooverlap) PetscCall(Overlap(A, x, y, r, warmup, reps, trials, budget, target_overlap, &ov[nov++]));

      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&z));
      if (A != base) PetscCall(MatDestroy(&A));
    }
    PetscCall(PrintTransposeSpMM(spec.name, types[0], ntypes, trow, dotranspose, srow, nspmm, gpu_run, target_transpose, target_transpose_gpu, target_spmm, target_gpu_spmm));
    PetscCall(VecDestroy(&xtref));
    PetscCall(VecDestroy(&ytref));
    if (nov > nov0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  overlap of the halo exchange, %s, %d ranks (times in ms, medians of the max over ranks; ghost = the ghost product alone, loc+ghost = the local then the ghost product without the exchange, so the ghost product after the local one is max(ghost, loc+ghost - local), as cold as in MatMult; bound = max(exchange, local) + that; full/bd = T_full / bound from the medians, paired = median of the per-trial ratios, vs warm = T_full / (max(exchange, local) + ghost); hidden = (exchange + local + ghost - full) / exchange, clamped to [0,1], raw beside it; cpu backend: no-prog = MatMult of a copy without MPI progress during the local product (-mat_bsrcustom_mpi_progress false), np/full = median of its per-trial ratio to full; all are timed in interleaved trials)\n",
                            spec.name, (int)size));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %13s %9s %9s %9s %9s %9s %9s %8s %8s %8s %7s %8s %9s %8s\n", "matrix", "type", "ghosts", "exchange", "local", "ghost", "loc+ghost", "full", "bound", "full/bd", "paired", "vs warm", "hidden", "raw", "no-prog", "np/full"));
      for (; nov0 < nov; nov0++) {
        char what[160];
        PetscCall(PrintOverlap(&ov[nov0]));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s on %d ranks: MatMult / (max(exchange, local) + ghost product after the local one) <= %.2f", ov[nov0].type, (int)size, (double)target_overlap));
        PetscCall(
          PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s overlap: %s: %.3f (%.3f ms vs bound %.3f ms; %.0f%% of the exchange hidden): %s\n", spec.name, what, ov[nov0].ratio, 1e3 * ov[nov0].t_full, 1e3 * ov[nov0].bound, 100.0 * ov[nov0].hidden, ov[nov0].pass ? "PASS" : "MISS"));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "overlap", what, ov[nov0].ratio, (double)target_overlap, PETSC_FALSE));
      }
    }
    if (size > 1 && doonerank && !gpu_run) {
      OneRankRow *o = &one[none];

      PetscCall(OneRankVsRanks(&spec, seed, base, xref, warmup, reps, trials, budget, o));
      if (o->threads > 0) {
        char what[160];

        none++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  1 rank x %" PetscInt_FMT " threads against MATBAIJ, %s, in one run: mpibaij on %d ranks, then seqbaij and %s (%" PetscInt_FMT " threads) on rank 0 alone, in %" PetscInt_FMT " interleaved trials; products agree to %.1e\n", o->threads,
                              spec.name, (int)size, o->type, o->threads, trials, o->diff));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %12s %14s %9s %9s\n", "matrix", "mpibaij ms", "seqbaij ms", "seqbsrcust ms", "vs ranks", "vs 1 rank"));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %12.3f %14.3f %9.3f %9.3f\n", spec.name, 1e3 * o->t[0], 1e3 * o->t[1], 1e3 * o->t[2], o->vs_ranks, o->vs_one));
        PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on %d ranks, paired", o->threads, (double)target_vs_ranks, (int)size));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "one_rank_vs_ranks", what, o->vs_ranks, (double)target_vs_ranks, PETSC_TRUE));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians mpibaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, o->vs_ranks, trials, o->vs_ranks_q1, o->vs_ranks_q3, 1e3 * o->t[0], o->type, 1e3 * o->t[2],
                              tg[ntg - 1].pass ? "PASS" : "MISS"));
        if (size >= 8) {
          PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on 1 rank, paired", o->threads, (double)target_vs_one));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "one_rank_vs_one", what, o->vs_one, (double)target_vs_one, PETSC_TRUE));
          PetscCall(
            PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios; medians seqbaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, o->vs_one, trials, 1e3 * o->t[1], o->type, 1e3 * o->t[2], tg[ntg - 1].pass ? "PASS" : "MISS"));
        }
      }
    }
    if (size == 1 && bsr_type[0]) {
      char what[160];
      if (t_baij == 0.0) { /* seqbaij was not among the types: time the assembled BAIJ matrix for the target */
        PetscInt rb;
        PetscCall(TimeProduct(base, xref, NULL, yref, PETSC_FALSE, warmup, reps, trials, budget, &t_baij, &rb));
      }
      if (t_bsr1 > 0.0) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s 1 thread MatMult at least %.2fx as fast as seqbaij (1 rank)", bsr_type, (double)target_baij));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_1thread_vs_baij", what, t_baij / t_bsr1, (double)target_baij, PETSC_TRUE));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (seqbaij %.3f ms, %s 1 thread %.3f ms): %s\n", spec.name, what, t_baij / t_bsr1, 1e3 * t_baij, bsr_type, 1e3 * t_bsr1, tg[ntg - 1].pass ? "PASS" : "MISS"));
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s 1 thread vs seqbaij: not measured (no 1-thread run: use OMP_NUM_THREADS=1 or -bench_sweep)\n", spec.name, bsr_type));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT " thread(s) MatMult at least %.0f%% of the read reference with as many threads, paired", bsr_type, nt_bsr, (double)target_read));
      PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_allthreads_pct_read", what, pr_bsr.pct_med, (double)target_read, PETSC_TRUE));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.1f%% (median of %" PetscInt_FMT " pairs of a read and a MatMult, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f read; against the one best-of-10 read at start: %.1f%% = %.2f of %.2f GB/s): %s\n",
                            spec.name, what, pr_bsr.pct_med, pr_bsr.pairs, pr_bsr.pct_q1, pr_bsr.pct_q3, pr_bsr.mult_med, pr_bsr.ref_med, 100.0 * gbs_bsr / read_bsr, gbs_bsr, read_bsr, tg[ntg - 1].pass ? "PASS" : "MISS"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %s %" PetscInt_FMT " thread(s) MatMult against the STREAM triad, paired the same way (the seed thesis's reference, not judged): %.1f%% (median of %" PetscInt_FMT " pairs, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f triad; against the one best-of-10 triad at start: %.1f%% = %.2f of %.2f GB/s)\n",
                            spec.name, bsr_type, nt_bsr, pt_bsr.pct_med, pt_bsr.pairs, pt_bsr.pct_q1, pt_bsr.pct_q3, pt_bsr.mult_med, pt_bsr.ref_med, 100.0 * gbs_bsr / triad_bsr, gbs_bsr, triad_bsr));
      if (doloaded) {
        LoadedRow *l = &loaded[nloaded];
        PetscCall(LoadedVsBAIJ(base, xref, bsr_type, warmup, reps, trials, budget, l));
        if (l->busy > 0) {
          PetscCall(PetscStrncpy(l->matrix, spec.name, sizeof(l->matrix)));
          nloaded++;
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  busy cores, %s: seqbaij and %s (%" PetscInt_FMT " threads, default settings) in %" PetscInt_FMT " interleaved trials with a CPU-bound process on each of %" PetscInt_FMT " CPUs; idle before that: %s with and without the busy-core fallback\n",
                                spec.name, bsr_type, l->threads, trials, l->busy, bsr_type));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %14s %9s %16s %16s %9s\n", "matrix", "busy baij ms", "busy bsrc. ms", "ratio", "idle fallback ms", "idle without ms", "ratio"));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %14.3f %9.3f %16.3f %16.3f %9.3f\n", spec.name, l->t_baij, l->t_bsr, l->ratio, l->t_on, l->t_off, l->idle));
          PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult at least %.2fx as fast as seqbaij with a CPU-bound process on every CPU, paired", bsr_type, (double)target_loaded));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_busy_vs_baij", what, l->ratio, (double)target_loaded, PETSC_TRUE));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians seqbaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, l->ratio, trials, l->q1, l->q3, l->t_baij, bsr_type, l->t_bsr,
                                tg[ntg - 1].pass ? "PASS" : "MISS"));
          PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult with the busy-core fallback at least %.2fx as fast as without it, idle, paired", bsr_type, (double)target_idle_cost));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_fallback_idle_cost", what, l->idle, (double)target_idle_cost, PETSC_TRUE));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians %.3f ms with, %.3f ms without): %s\n", spec.name, what, l->idle, trials, l->idle_q1, l->idle_q3, l->t_on, l->t_off,
                                tg[ntg - 1].pass ? "PASS" : "MISS"));
        } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "busy cores, %s: not measured (needs Linux)\n", spec.name));
      }
    }
    if (docopies && ours_type[0] && !gpu_run) {
      CopiesRow *c = &copies[ncopies++];
      PetscCall(BenchBAIJCopies(base, xref, ours_type, warmup, reps, trials, budget, c));
      PetscCall(PetscStrncpy(c->matrix, spec.name, sizeof(c->matrix)));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  BAIJ copies of %s, %s: MatMult of MatConvert(ours, MATBAIJ) and of MatConvert(MatDuplicate(ours), MATBAIJ) against the %s assembled here, in %" PetscInt_FMT " interleaved trials (ratio: median of the per-trial time ratios copy / assembled; 1 = as fast); products agree to %.1e\n", c->type,
                            spec.name, c->baij_type, trials, c->diff));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3s %12s %12s %7s %14s %7s\n", "matrix", "copies", "bs", "assembled ms", "converted ms", "ratio", "dup+conv. ms", "ratio"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3" PetscInt_FMT " %12.3f %12.3f %7.3f %14.3f %7.3f\n", spec.name, c->baij_type, c->bs, c->t[0], c->t[1], c->ratio[0], c->t[2], c->ratio[1]));
    }
    if (ksp_its > 0) {
      PetscCall(BenchKSP(&spec, base, ntypes, types, ksp_its, ksp_type, pc_type, seed, trials, &kr[nkr]));
      nkr += ntypes;
    }
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&zref));
    PetscCall(VecDestroy(&yaddref));
    PetscCall(MatDestroy(&base));
  }
  if (ntg) {
    PetscInt npass = 0;
    for (k = 0; k < (int)ntg; k++) npass += tg[k].pass;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGETS: %" PetscInt_FMT " of %" PetscInt_FMT " pass\n", npass, ntg));
  }
  if (hasjson && json[0]) {
    PetscCall(WriteJSON(json, res, nres, triad, read, paired, npaired, nthreads, reps, trials, budget, sw, nsw, ov, nov, one, none, loaded, nloaded, copies, ncopies, kr, nkr, tg, ntg));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Results written to %s\n", json));
  }

  for (im = 0; im < nmats; im++) PetscCall(PetscFree(mats[im]));
  for (it = 0; it < ntypes; it++) PetscCall(PetscFree(types[it]));
  PetscCall(PetscFree(res));
  PetscCall(PetscFree3(one, loaded, copies));
  PetscCall(PetscFree(kr));
  PetscCall(PetscFree4(sw, ov, tg, refs));
  PetscCall(PetscFree(paired));
  PetscCall(PetscFree2(trow, srow));
  PetscCall(PetscFinalize());
  return 0;
}
