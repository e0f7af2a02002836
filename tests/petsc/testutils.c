#include "testutils.h"

#include <unistd.h> /* getpid */
#include <stdarg.h>
#include <string.h>

/* Small portable generator so every type and rank count sees the same numbers. */
static unsigned NextRand(unsigned *s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static PetscScalar RandValue(unsigned *s)
{
  return (PetscScalar)(2.0 * (NextRand(s) / 16777216.0) - 1.0);
}

/* Block columns of global block row gi, sorted and unique, deterministic in (seed, gi). */
static PetscErrorCode BlockRowPattern(PetscInt gi, PetscInt nbcols, PetscInt per_row, PetscBool empty, PetscBool long_row, unsigned seed, PetscInt *ncols, PetscInt *cols)
{
  unsigned  s = seed ^ (unsigned)(gi * 2654435761u);
  PetscInt  want, n = 0;
  PetscBool has;

  PetscFunctionBegin;
  if (empty && gi % 3 == 2) {
    *ncols = 0;
    PetscFunctionReturn(0);
  }
  want = (long_row && gi == 1) ? PetscMax(1, nbcols / 2) : PetscMin(per_row, nbcols);
  while (n < want) {
    PetscInt c = (PetscInt)(NextRand(&s) % (unsigned)nbcols);
    has        = PETSC_FALSE;
    for (PetscInt k = 0; k < n; k++)
      if (cols[k] == c) has = PETSC_TRUE;
    if (!has) cols[n++] = c;
  }
  PetscCall(PetscSortInt(n, cols));
  *ncols = n;
  PetscFunctionReturn(0);
}

PetscErrorCode TestRandomBlockMatrix(MPI_Comm comm, MatType type, PetscInt bs, PetscInt nbrows_local, PetscInt nbcols_global, PetscInt blocks_per_row, PetscBool with_empty_rows, PetscBool with_long_row, unsigned seed, Mat *A)
{
  PetscInt     rstart, rend, *dnnz, *onnz, *cols, ncols, cstart, cend, nbcols_local;
  PetscScalar *vals;
  PetscMPIInt  size, rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* columns split like rows where possible */
  nbcols_local = nbcols_global / size + (rank < nbcols_global % size ? 1 : 0);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nbrows_local * bs, nbcols_local * bs, PETSC_DETERMINE, nbcols_global * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A)); /* lays out rows and columns; the preallocation below replaces its default */
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(*A, &cstart, &cend));
  rstart /= bs;
  rend /= bs;
  cstart /= bs;
  cend /= bs;
  PetscCall(PetscMalloc4(nbrows_local, &dnnz, nbrows_local, &onnz, nbcols_global, &cols, (size_t)nbcols_global * bs * bs, &vals));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscCall(BlockRowPattern(i, nbcols_global, blocks_per_row, with_empty_rows, with_long_row, seed, &ncols, cols));
    dnnz[i - rstart] = onnz[i - rstart] = 0;
    for (PetscInt k = 0; k < ncols; k++) {
      if (cols[k] >= cstart && cols[k] < cend) dnnz[i - rstart]++;
      else onnz[i - rstart]++;
    }
  }
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnnz, onnz, NULL, NULL));
  for (PetscInt i = rstart; i < rend; i++) {
    unsigned s = seed * 7u + (unsigned)i * 977u + 1u;
    PetscCall(BlockRowPattern(i, nbcols_global, blocks_per_row, with_empty_rows, with_long_row, seed, &ncols, cols));
    for (PetscInt k = 0; k < ncols * bs * bs; k++) vals[k] = RandValue(&s);
    PetscCall(MatSetValuesBlocked(*A, 1, &i, ncols, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree4(dnnz, onnz, cols, vals));
  PetscFunctionReturn(0);
}

PetscErrorCode TestRelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *rel = nd / PetscMax(nb, PETSC_SMALL);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

PetscErrorCode TestGPUMissing(PetscBool *missing, char *reason, size_t len)
{
  char      backend[32] = "cpu";
  PetscBool cpu;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_bsrcustom_backend", backend, sizeof(backend), NULL));
  PetscCall(PetscStrcmp(backend, "cpu", &cpu));
  *missing = (PetscBool)(!cpu && (!MatBSRCustomHasCUDA() || MatBSRCustomCUDADeviceCount() == 0));
  if (*missing && reason) PetscCall(PetscSNPrintf(reason, len, "-mat_bsrcustom_backend %s needs %s", backend, MatBSRCustomHasCUDA() ? "a visible CUDA device" : "a build with CUDA"));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCompareProducts(Mat A, Mat Ref, PetscReal tol, PetscInt *failures, const char *what)
{
  PetscFunctionBegin;
  PetscCall(TestCompareProductsOn(A, Ref, tol, PETSC_TRUE, failures, what));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCompareProductsOn(Mat A, Mat Ref, PetscReal tol, PetscBool own_vectors, PetscInt *failures, const char *what)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  Vec         x, y, yr, z, zr, w, wr;
  PetscReal   rel;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(MatCreateVecs(Ref, &x, &yr));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecDuplicate(yr, &y));
  PetscCall(VecDuplicate(yr, &z));
  PetscCall(VecDuplicate(yr, &zr));
  PetscCall(VecDuplicate(yr, &w));
  PetscCall(VecDuplicate(yr, &wr));
  /* garbage in y: MatMult must overwrite it without reading it */
  PetscCall(VecSet(y, PETSC_MAX_REAL));
  PetscCall(MatMult(Ref, x, yr));
  PetscCall(MatMult(A, x, y));
  PetscCall(TestRelDiff(y, yr, &rel));
  TEST_CHECK(comm, rel <= tol, *failures, "%s: MatMult differs from the reference by %g", what, (double)rel);
  /* MatMultAdd with z != y */
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(MatMultAdd(Ref, x, w, zr));
  PetscCall(MatMultAdd(A, x, w, z));
  PetscCall(TestRelDiff(z, zr, &rel));
  TEST_CHECK(comm, rel <= tol, *failures, "%s: MatMultAdd(z != y) differs by %g", what, (double)rel);
  /* MatMultAdd in place (z == y) */
  PetscCall(VecCopy(w, wr));
  PetscCall(MatMultAdd(Ref, x, wr, wr));
  PetscCall(MatMultAdd(A, x, w, w));
  PetscCall(TestRelDiff(w, wr, &rel));
  TEST_CHECK(comm, rel <= tol, *failures, "%s: MatMultAdd(z == y) differs by %g", what, (double)rel);
  if (own_vectors) { /* the same on A's own vectors where they are of another type (CUDA vectors of a GPU backend) */
    Vec       xa, ya, wa;
    VecType   ta, tr;
    PetscBool same;
    PetscCall(MatCreateVecs(A, &xa, &ya));
    PetscCall(VecGetType(xa, &ta));
    PetscCall(VecGetType(x, &tr));
    PetscCall(PetscStrcmp(ta, tr, &same));
    if (!same) {
      PetscCall(VecDuplicate(ya, &wa));
      PetscCall(VecCopy(x, xa));
      PetscCall(MatMult(A, xa, ya));
      PetscCall(TestRelDiff(ya, yr, &rel));
      TEST_CHECK(comm, rel <= tol, *failures, "%s: MatMult on %s vectors differs from the reference by %g", what, ta, (double)rel);
      PetscCall(VecCopy(wr, wa)); /* wr = Ref x + w_initial; wa + A xa is then checked against wr + yr */
      PetscCall(MatMultAdd(A, xa, wa, wa));
      PetscCall(VecAXPY(wr, 1.0, yr));
      PetscCall(TestRelDiff(wa, wr, &rel));
      TEST_CHECK(comm, rel <= tol, *failures, "%s: MatMultAdd(z == y) on %s vectors differs by %g", what, ta, (double)rel);
      PetscCall(VecDestroy(&wa));
    }
    PetscCall(VecDestroy(&xa));
    PetscCall(VecDestroy(&ya));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&wr));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

PetscErrorCode TestEventCount(const char *name, PetscLogDouble *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

PetscErrorCode TestViewInfoText(Mat A, char *text, size_t len)
{
  char        name[64];
  PetscMPIInt rank;
  PetscViewer v;
  FILE       *f;
  size_t      n;

  PetscFunctionBegin;
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "no room for the text");
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  /* the process id too: the np1, np2 and np4 runs of a test share the directory and run at once */
  PetscCall(PetscSNPrintf(name, sizeof(name), "view_info_%d_%d.txt", (int)getpid(), (int)rank));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  f = fopen(name, "r");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read back %s", name);
  n       = fread(text, 1, len - 1, f);
  text[n] = 0;
  fclose(f);
  (void)remove(name);
  PetscFunctionReturn(0);
}

/* SPD block operator: diagonal block D = 6 I + C, off-diagonal blocks -I - C/8 per neighbour, with C
   a fixed symmetric coupling (so it is a genuine block system, not bs decoupled scalar ones). */
PetscErrorCode TestBlockDiffusionMatrix(MPI_Comm comm, MatType type, PetscInt n, PetscInt bs, Mat *A)
{
  PetscInt     N = n * n * n, *d;
  PetscScalar *diag, *off;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N * bs, N * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(PetscMalloc3(N, &d, bs * bs, &diag, bs * bs, &off));
  for (PetscInt i = 0; i < N; i++) d[i] = 7;
  PetscCall(MatXAIJSetPreallocation(*A, bs, d, d, NULL, NULL));
  for (PetscInt r = 0; r < bs; r++) {
    for (PetscInt c = 0; c < bs; c++) {
      PetscScalar coupling = (r == c) ? 0.0 : 0.5 / (1.0 + PetscAbsInt(r - c));
      diag[r * bs + c]     = (r == c ? 6.0 + 0.1 * r : 0.0) + coupling;
      off[r * bs + c]      = (r == c ? -1.0 : 0.0) - coupling / 8.0;
    }
  }
  {
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(*A, &rs, &re));
    for (PetscInt gi = rs / bs; gi < re / bs; gi++) {
      PetscInt i = gi % n, j = (gi / n) % n, k = gi / (n * n);
      PetscInt nb[6], cnt = 0;
      if (i > 0) nb[cnt++] = gi - 1;
      if (i < n - 1) nb[cnt++] = gi + 1;
      if (j > 0) nb[cnt++] = gi - n;
      if (j < n - 1) nb[cnt++] = gi + n;
      if (k > 0) nb[cnt++] = gi - n * n;
      if (k < n - 1) nb[cnt++] = gi + n * n;
      PetscCall(MatSetValuesBlocked(*A, 1, &gi, 1, &gi, diag, INSERT_VALUES));
      for (PetscInt q = 0; q < cnt; q++) PetscCall(MatSetValuesBlocked(*A, 1, &gi, 1, &nb[q], off, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(d, diag, off));
  PetscFunctionReturn(0);
}

/* ---- Named test cases ---------------------------------------------------------------------------- */

/* the first failed check of the running case on this rank: the case's reason */
static char      first_failure[512];
static PetscBool have_first_failure;

PetscErrorCode TestCheckFailed(MPI_Comm comm, const char *file, int line, const char *fmt, ...)
{
  char    msg[512];
  size_t  used;
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  PetscCall(PetscVSNPrintf(msg, sizeof(msg), fmt, &used, ap));
  va_end(ap);
  PetscCall(PetscPrintf(comm, "  check failed at %s:%d: %s\n", file, line, msg));
  if (!have_first_failure) {
    const char *base = strrchr(file, '/');
    PetscCall(PetscSNPrintf(first_failure, sizeof(first_failure), "%s (%s:%d)", msg, base ? base + 1 : file, line));
    have_first_failure = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TestSkip(TestContext *ctx, const char *fmt, ...)
{
  size_t  used;
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  PetscCall(PetscVSNPrintf(ctx->skip_reason, sizeof(ctx->skip_reason), fmt, &used, ap));
  va_end(ap);
  ctx->skipped = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TestSkipWithoutGPU(TestContext *ctx, PetscBool *skip)
{
  PetscFunctionBegin;
  *skip = PETSC_FALSE;
  if (!MatBSRCustomHasCUDA()) PetscCall(TestSkip(ctx, "this build has no CUDA backend"));
  else if (MatBSRCustomCUDADeviceCount() == 0) PetscCall(TestSkip(ctx, "no CUDA device is visible"));
  *skip = ctx->skipped;
  PetscFunctionReturn(0);
}

/* Whether case `name` was asked for by -test_case (all of them where the option is absent). */
static PetscBool Selected(const char *name, PetscInt nsel, char *const sel[])
{
  if (!nsel) return PETSC_TRUE;
  for (PetscInt i = 0; i < nsel; i++)
    if (!strcmp(sel[i], name)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode TestRunCases(const char *program, size_t ncases, const TestCase cases[], void *data, int *status)
{
  enum {
    MAX_SELECTED = 64
  };
  char       *sel[MAX_SELECTED];
  PetscInt    nsel = MAX_SELECTED, npassed = 0, nfailed = 0, nskipped = 0;
  PetscBool   list            = PETSC_FALSE, gpu_missing;
  char        gpu_reason[256] = "";
  TestContext ctx;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  ctx.comm = PETSC_COMM_WORLD;
  ctx.data = data;
  PetscCallMPI(MPI_Comm_rank(ctx.comm, &ctx.rank));
  PetscCallMPI(MPI_Comm_size(ctx.comm, &ctx.size));
  PetscOptionsBegin(ctx.comm, NULL, "Named test cases", NULL);
  PetscCall(PetscOptionsStringArray("-test_case", "Run only these cases (comma-separated names)", NULL, sel, &nsel, NULL));
  PetscCall(PetscOptionsBool("-test_list", "Print the names of the cases and exit", NULL, list, &list, NULL));
  PetscOptionsEnd();
  *status = 0;
  if (list) {
    for (size_t i = 0; i < ncases; i++) PetscCall(PetscPrintf(ctx.comm, "%s\n", cases[i].name));
    goto done;
  }
  for (PetscInt k = 0; k < nsel; k++) { /* a name that is no case: an error, not silence */
    PetscBool known = PETSC_FALSE;
    for (size_t i = 0; i < ncases; i++)
      if (!strcmp(sel[k], cases[i].name)) known = PETSC_TRUE;
    if (!known) {
      PetscCall(PetscPrintf(ctx.comm, "FAIL %s: -test_case %s names no case; the cases (-test_list):\n", program, sel[k]));
      for (size_t i = 0; i < ncases; i++) PetscCall(PetscPrintf(ctx.comm, "  %s\n", cases[i].name));
      *status = 1;
      goto done;
    }
  }
  PetscCall(TestGPUMissing(&gpu_missing, gpu_reason, sizeof(gpu_reason)));
  for (size_t i = 0; i < ncases; i++) {
    PetscErrorCode ierr;
    PetscInt       total;
    int            skipped_any;

    if (!Selected(cases[i].name, nsel, sel)) continue;
    if (gpu_missing) {
      PetscCall(PetscPrintf(ctx.comm, "skipped %s: %s\n", cases[i].name, gpu_reason));
      nskipped++;
      continue;
    }
    ctx.param          = cases[i].param;
    ctx.failures       = 0;
    ctx.skipped        = PETSC_FALSE;
    ctx.skip_reason[0] = 0;
    have_first_failure = PETSC_FALSE;
    first_failure[0]   = 0;
    PetscCall(PetscInfo(NULL, "test case %s\n", cases[i].name)); /* -info: which case a crash belongs to */
    ierr = cases[i].run(&ctx);
    if (ierr) {
      /* the other ranks may be inside a collective call this one never reaches: stop them all */
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: PETSc error %d on rank %d (traceback above); aborting the remaining cases\n", cases[i].name, (int)ierr, (int)ctx.rank));
      (void)fflush(stdout);
      PetscCallMPI(MPI_Abort(ctx.comm, 1));
    }
    PetscCallMPI(MPI_Allreduce(&ctx.failures, &total, 1, MPIU_INT, MPI_SUM, ctx.comm));
    skipped_any = ctx.skipped ? 1 : 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &skipped_any, 1, MPI_INT, MPI_MAX, ctx.comm));
    if (total) {
      /* the reason: the first failed check of the lowest rank that failed one */
      PetscMPIInt first = ctx.failures ? ctx.rank : ctx.size;
      char        reason[sizeof(first_failure)];
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, ctx.comm));
      PetscCall(PetscStrncpy(reason, first_failure, sizeof(reason)));
      PetscCallMPI(MPI_Bcast(reason, (PetscMPIInt)sizeof(reason), MPI_CHAR, first, ctx.comm));
      if (ctx.size > 1) PetscCall(PetscPrintf(ctx.comm, "FAIL %s: %s (%" PetscInt_FMT " failed checks summed over the ranks, the first on rank %d)\n", cases[i].name, reason, total, (int)first));
      else PetscCall(PetscPrintf(ctx.comm, "FAIL %s: %s (%" PetscInt_FMT " failed checks)\n", cases[i].name, reason, total));
      nfailed++;
    } else if (skipped_any) {
      /* rank 0's reason (ranks skip alike) */
      PetscCallMPI(MPI_Bcast(ctx.skip_reason, (PetscMPIInt)sizeof(ctx.skip_reason), MPI_CHAR, 0, ctx.comm));
      PetscCall(PetscPrintf(ctx.comm, "skipped %s: %s\n", cases[i].name, ctx.skip_reason[0] ? ctx.skip_reason : "(no reason given)"));
      nskipped++;
    } else {
      PetscCall(PetscPrintf(ctx.comm, "ok %s\n", cases[i].name));
      npassed++;
    }
  }
  PetscCall(PetscPrintf(ctx.comm, "%s: %" PetscInt_FMT " passed, %" PetscInt_FMT " failed, %" PetscInt_FMT " skipped\n", program, npassed, nfailed, nskipped));
  if (nfailed) *status = 1;
  else if (!npassed && nskipped) *status = TEST_SKIP_CODE;
  else if (!npassed) { /* nothing ran at all: not a pass either */ PetscCall(PetscPrintf(ctx.comm, "FAIL %s: no case ran\n", program));
    *status = 1;
  }
done:
  for (PetscInt k = 0; k < nsel; k++) PetscCall(PetscFree(sel[k]));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCompareDenseProduct(Mat C, Mat Ref, Mat B, PetscReal *worst)
{
  PetscInt k;
  Mat      Ch, Bh;

  PetscFunctionBegin;
  *worst = 0.0;
  PetscCall(MatConvert(C, MATDENSE, MAT_INITIAL_MATRIX, &Ch));
  PetscCall(MatConvert(B, MATDENSE, MAT_INITIAL_MATRIX, &Bh));
  PetscCall(MatGetSize(B, NULL, &k));
  for (PetscInt j = 0; j < k; j++) {
    Vec       b, c, r;
    PetscReal rel;
    PetscCall(MatCreateVecs(Ref, NULL, &r));
    PetscCall(MatDenseGetColumnVecRead(Bh, j, &b));
    PetscCall(MatMult(Ref, b, r));
    PetscCall(MatDenseRestoreColumnVecRead(Bh, j, &b));
    PetscCall(MatDenseGetColumnVecRead(Ch, j, &c));
    PetscCall(TestRelDiff(c, r, &rel));
    PetscCall(MatDenseRestoreColumnVecRead(Ch, j, &c));
    *worst = PetscMax(*worst, rel);
    PetscCall(VecDestroy(&r));
  }
  PetscCall(MatDestroy(&Ch));
  PetscCall(MatDestroy(&Bh));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSetBlockInBoth(Mat A, Mat Ref, PetscInt row, PetscInt col, const PetscScalar v[], InsertMode mode, PetscBool new_block)
{
  Mat M[2] = {A, Ref};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    if (new_block) PetscCall(MatSetOption(M[i], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValuesBlocked(M[i], 1, &row, 1, &col, v, mode));
    PetscCall(MatAssemblyBegin(M[i], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[i], MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TestSameOperator(Mat A, Mat B, PetscReal *rel)
{
  Vec         x, ya, yb;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)B), &rnd));
  PetscCall(MatCreateVecs(B, &x, &yb));
  PetscCall(VecDuplicate(yb, &ya));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(TestRelDiff(ya, yb, rel));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

PetscErrorCode TestMatrixRelDiff(Mat C, Mat R, PetscReal *rel)
{
  Mat       D;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  *rel = nd / PetscMax(nr, PETSC_SMALL);
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCheckError(TestContext *ctx, MPI_Comm comm, PetscErrorCode got, PetscErrorCode want, const char *needle, const char *what)
{
  const char   *text;
  BSRCErrorText specific = NULL;
  PetscBool     found;

  PetscFunctionBegin;
  PetscCall(PetscErrorMessage(got, &text, &specific));
  found = (PetscBool)(!needle || (specific && strstr(specific, needle)));
  TEST_CHECK(comm, got == want, ctx->failures, "%s: error code %d (%s), expected %d", what, (int)got, text ? text : "", (int)want);
  TEST_CHECK(comm, found, ctx->failures, "%s: message \"%s\" does not name \"%s\"", what, specific ? specific : "", needle ? needle : "");
  PetscFunctionReturn(0);
}
