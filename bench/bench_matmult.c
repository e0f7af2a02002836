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
  -stream_mb <400>         : total size of the three STREAM triad arrays over all ranks, in MB\n\
  -bench_json <file>       : also write the results as JSON\n\
Block rows are split evenly over the MPI ranks. The STREAM triad runs on all ranks at once, each with\n\
omp_get_max_threads() OpenMP threads on its share of the arrays; its bandwidth is the aggregate of all ranks.\n\n";

#if defined(__linux__) && !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity */
#endif
#include <petscmat.h>
#include <stdint.h>
#if defined(__linux__)
  #include <sched.h>
#endif
#if defined(_OPENMP)
  #include <omp.h>
  #define BENCH_OMP_FOR _Pragma("omp parallel for schedule(static)")
#else
  #define BENCH_OMP_FOR
#endif

#define MAX_LIST 16

typedef struct {
  char           name[32];
  PetscInt       bs;
  PetscInt       nbrows;  /* global block rows (= block columns) */
  PetscInt64     nblocks; /* global nonzero blocks */
  PetscInt       rstart;  /* first local block row */
  PetscInt       nlocal;  /* local block rows */
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
  double     mult_s, multadd_s;        /* median seconds per call */
  double     ratio_mult, ratio_multadd; /* first type time / this type time */
  double     diff_mult, diff_multadd;   /* relative max-norm difference to the first type */
  double     convert_s;
  PetscInt   reps_mult, reps_multadd; /* calls per trial actually made */
} Result;

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

/* Assemble the matrix as (SEQ|MPI)BAIJ. */
static PetscErrorCode AssembleBAIJ(const MatrixSpec *spec, PetscInt seed, Mat *A)
{
  const PetscInt bs = spec->bs, rend = spec->rstart + spec->nlocal;
  PetscInt       maxc = spec->band > 0 ? spec->band : 27, ib, nc, c, *cols, *dnnz, *onnz;
  PetscScalar   *vals;
  MatInfo        info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(maxc, &cols, (size_t)maxc * bs * bs, &vals, spec->nlocal, &dnnz, spec->nlocal, &onnz));
  for (ib = spec->rstart; ib < rend; ib++) {
    nc                        = RowPattern(spec, ib, cols);
    dnnz[ib - spec->rstart] = 0;
    onnz[ib - spec->rstart] = 0;
    for (c = 0; c < nc; c++) {
      if (cols[c] >= spec->rstart && cols[c] < rend) dnnz[ib - spec->rstart]++;
      else onnz[ib - spec->rstart]++;
    }
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
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
  PetscCheck((PetscInt64)info.nz_used == spec->nblocks * bs * bs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Assembled %g nonzeros, expected %" PetscInt64_FMT, (double)info.nz_used, spec->nblocks * bs * bs);
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

/*
  Median over trials of the time per call (max over ranks) of MatMult (add = PETSC_FALSE) or MatMultAdd.
  The warm-up calls are timed too; when reps calls per trial would exceed budget seconds over all trials,
  fewer calls per trial are made (at least 1). The estimate is the max over ranks, so all ranks agree.
*/
static PetscErrorCode TimeProduct(Mat A, Vec x, Vec z, Vec y, PetscBool add, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, double *tcall, PetscInt *repsused)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  PetscReal *t;
  PetscInt   i, k, nw = PetscMax(warmup, 1);
  double     t0, dt, dtmax;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(trials, &t));
  PetscCallMPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  for (i = 0; i < nw; i++) {
    if (add) PetscCall(MatMultAdd(A, x, z, y));
    else PetscCall(MatMult(A, x, y));
  }
  dt = (MPI_Wtime() - t0) / (double)nw;
  PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  *repsused = reps;
  if (budget > 0.0 && dtmax * (double)reps * (double)trials > (double)budget) *repsused = PetscMax(1, (PetscInt)((double)budget / ((double)trials * dtmax)));
  for (k = 0; k < trials; k++) {
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    for (i = 0; i < *repsused; i++) {
      if (add) PetscCall(MatMultAdd(A, x, z, y));
      else PetscCall(MatMult(A, x, y));
    }
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, comm));
    t[k] = dtmax / (double)*repsused;
  }
  PetscCall(Median(trials, t, tcall));
  PetscCall(PetscFree(t));
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

/* STREAM triad a = b + s c, arrays of stream_mb/(3*size) MB per rank, best of 10; aggregate GB/s. */
static PetscErrorCode StreamTriad(PetscReal stream_mb, double *gbs, int *nthreads)
{
  PetscMPIInt size;
  PetscInt64  n, ntot, i;
  double     *a, *b, *c, best = 1e30, t0, dt, dtmax;
  const double s = 3.0;
  int         k;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
#if defined(_OPENMP)
  *nthreads = omp_get_max_threads();
#else
  *nthreads = 1;
#endif
  n = (PetscInt64)(stream_mb * 1e6 / (3.0 * sizeof(double) * size));
  PetscCheck(n >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb %g is too small", (double)stream_mb);
  PetscCall(PetscMalloc3(n, &a, n, &b, n, &c));
  BENCH_OMP_FOR
  for (i = 0; i < n; i++) { /* first touch by the threads that use the data */
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  for (k = 0; k < 10; k++) {
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = MPI_Wtime();
    BENCH_OMP_FOR
    for (i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    best = PetscMin(best, dtmax);
  }
  /* keep the result alive */
  PetscCheck(a[n - 1] == 7.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "STREAM triad produced a wrong value");
  ntot = n * size;
  *gbs = 3.0 * sizeof(double) * (double)ntot / best / 1e9;
  PetscCall(PetscFree3(a, b, c));
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

/* Memory traffic model: values + column indices + row pointers, plus x read and y written (and z read). */
static PetscErrorCode TrafficModel(Mat A, const MatrixSpec *spec, Result *res)
{
  MatType    type;
  PetscBool  scalarcsr = PETSC_FALSE;
  const char *p1, *p2;
  const double nrows = (double)spec->nbrows * spec->bs, nnz = (double)spec->nblocks * spec->bs * spec->bs;
  double      idx;

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

static PetscErrorCode PrintRow(const Result *r, double triad)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3" PetscInt_FMT " %9" PetscInt64_FMT " %4" PetscInt_FMT " %9.1f %9.3f %8.2f %6.1f %9.3f %8.2f %7.3f %7.3f %9.1e\n", r->matrix, r->type, r->bs, r->nblocks, r->reps_mult, r->matrix_bytes / 1e6, 1e3 * r->mult_s, r->mult_bytes / r->mult_s / 1e9, 100.0 * r->mult_bytes / r->mult_s / 1e9 / triad, 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd, PetscMax(r->diff_mult, r->diff_multadd)));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteJSON(const char file[], const Result res[], PetscInt nres, double triad, int nthreads, PetscInt reps, PetscInt trials, PetscReal budget)
{
  FILE       *fp;
  PetscMPIInt size;
  PetscInt    i;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "{\n  \"ranks\": %d,\n  \"omp_threads_per_rank\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"trials\": %" PetscInt_FMT ",\n  \"time_budget_s\": %.6g,\n", (int)size, nthreads, reps, trials, (double)budget));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"stream_triad_gbs\": %.6g,\n", triad));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"bytes_model\": \"values + column indices (per block for block types, per scalar for AIJ types) + row pointers + x + y (+ z for MatMultAdd)\",\n  \"results\": [\n"));
  for (i = 0; i < nres; i++) {
    const Result *r = &res[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"bs\": %" PetscInt_FMT ", \"nrows\": %" PetscInt_FMT ", \"nblocks\": %" PetscInt64_FMT ", \"matrix_mb\": %.6g,", r->matrix, r->type, r->bs, r->nrows, r->nblocks, r->matrix_bytes / 1e6));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_ms\": %.6g, \"matmult_gbs\": %.6g, \"matmult_pct_triad\": %.6g,", 1e3 * r->mult_s, r->mult_bytes / r->mult_s / 1e9, 100.0 * r->mult_bytes / r->mult_s / 1e9 / triad));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmultadd_ms\": %.6g, \"matmultadd_gbs\": %.6g, \"ratio_matmult\": %.6g, \"ratio_matmultadd\": %.6g,", 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"reldiff_matmult\": %.3e, \"reldiff_matmultadd\": %.3e, \"convert_s\": %.6g, \"reps_matmult\": %" PetscInt_FMT ", \"reps_matmultadd\": %" PetscInt_FMT "}%s\n", r->diff_mult, r->diff_multadd, r->convert_s, r->reps_mult, r->reps_multadd, i + 1 < nres ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ]\n}\n"));
  PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char       *mats[MAX_LIST], *types[MAX_LIST], json[PETSC_MAX_PATH_LEN] = "";
  PetscInt    nmats = MAX_LIST, ntypes = MAX_LIST, reps = 50, trials = 5, warmup = 3, seed = 1;
  PetscInt    thesis_rows = 32000, thesis_bs = 5, stencil_n = 48, stencil_bs = 3, im, it, nres = 0;
  PetscReal   density = 0.05, stream_mb = 400.0, budget = 6.0;
  PetscBool   setm, sett, hasjson;
  PetscMPIInt size;
  double      triad    = 0.0;
  int         nthreads = 1;
  Result     *res;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
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
  PetscCall(PetscOptionsReal("-stream_mb", "Total MB of the STREAM triad arrays", "bench_matmult.c", stream_mb, &stream_mb, NULL));
  PetscCall(PetscOptionsString("-bench_json", "Write results as JSON to this file", "bench_matmult.c", json, json, sizeof(json), &hasjson));
  PetscOptionsEnd();
  if (!setm || nmats == 0) {
    nmats = 2;
    PetscCall(PetscStrallocpy("thesis", &mats[0]));
    PetscCall(PetscStrallocpy("stencil27", &mats[1]));
  }
  if (!sett || ntypes == 0) {
    ntypes = 1;
    PetscCall(PetscStrallocpy(MATBAIJ, &types[0]));
  }
  PetscCheck(reps >= 1 && trials >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -bench_reps >= 1, -bench_trials >= 1, -bench_warmup >= 0");
  PetscCheck(budget >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_time_budget must be >= 0");
  PetscCheck(stream_mb > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb must be positive");
  PetscCall(PetscMalloc1(nmats * ntypes, &res));

  PetscCall(StreamTriad(stream_mb, &triad, &nthreads));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult benchmark: %d MPI rank(s), %d OpenMP thread(s) per rank, %" PetscInt_FMT " warm-up + median of %" PetscInt_FMT " trials x reps calls (reps <= %" PetscInt_FMT ", fewer when a measurement would exceed %.6g s)\n", (int)size, nthreads, warmup, trials, reps, (double)budget));
  {
    int ncpu = AffinityCPUs(), mincpu;

    PetscCallMPI(MPI_Allreduce(&ncpu, &mincpu, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (mincpu > 0 && mincpu < nthreads) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: a rank may run on only %d CPU(s) but uses %d OpenMP threads (mpiexec binds ranks to cores: use --bind-to none or set OMP_NUM_THREADS)\n", mincpu, nthreads));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "STREAM triad (all ranks x threads, %.6g MB total, best of 10): %.2f GB/s\n", (double)stream_mb, triad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Bytes per product = values (8 B) + column indices (4 B per block for block types, per scalar for AIJ types) + row pointers + x + y (MatMultAdd: + z); MB = matrix storage (values + indices + row pointers), 1 MB = 1e6 B\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ratio = time of %s / time of this type (> 1: faster than %s); reldiff = max relative difference of the products to %s\n", types[0], types[0], types[0]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3s %9s %4s %9s %9s %8s %6s %9s %8s %7s %7s %9s\n", "matrix", "type", "bs", "nblocks", "reps", "MB", "Mult ms", "GB/s", "%triad", "MAdd ms", "GB/s", "ratio", "ratioA", "reldiff"));

  for (im = 0; im < nmats; im++) {
    MatrixSpec spec;
    Mat        base;
    Vec        xref, yref, zref, yaddref;
    double     tref = 0.0, taddref = 0.0;

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

    for (it = 0; it < ntypes; it++) {
      Result   *r = &res[nres];
      Mat       A;
      Vec       x, y, z;
      PetscBool same;
      MatType   mtype;
      double    t0;

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
      PetscCall(PrintRow(r, triad));
      nres++;

      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&z));
      if (A != base) PetscCall(MatDestroy(&A));
    }
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&zref));
    PetscCall(VecDestroy(&yaddref));
    PetscCall(MatDestroy(&base));
  }
  if (hasjson && json[0]) {
    PetscCall(WriteJSON(json, res, nres, triad, nthreads, reps, trials, budget));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Results written to %s\n", json));
  }

  for (im = 0; im < nmats; im++) PetscCall(PetscFree(mats[im]));
  for (it = 0; it < ntypes; it++) PetscCall(PetscFree(types[it]));
  PetscCall(PetscFree(res));
  PetscCall(PetscFinalize());
  return 0;
}
