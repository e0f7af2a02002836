static const char help[] = "Bad input to bsrcustom gets PETSc errors with the right codes and messages, and NaN/Inf\n"
                           "propagate as in MATBAIJ.\n";

/* Coverage (cases, -test_list), bs 2, 10 block rows, one rank, against MATBAIJ:
     wrong_sizes         MatMult/MatMultAdd with wrong vector sizes: PETSC_ERR_ARG_SIZ
     unassembled         MatMult and MatBSRCustomGetNumTasks before assembly: PETSC_ERR_ARG_WRONGSTATE
     rejected_settings   out-of-range and malformed settings through the API and the options database
                         (codes and messages naming the setting), GPU backends without a GPU; the matrix
                         keeps its settings and products (1e-13) after them
     boolean_spellings   every PETSc spelling of -mat_bsrcustom_cuda_pin_vectors, the bare option
     streams             -mat_bsrcustom_cpu_streams: PETSC_DECIDE on 1 and 2 threads, a number, MatView
     nan_inf             NaN in the matrix, Inf in x: the same non-finite entries of y as MATBAIJ
     bad_block_index     MatSetValuesBlocked with a block row or column out of range, assembled:
                         MATBAIJ's code (PETSC_ERR_ARG_OUTOFRANGE) and message, naming the block index
                         (also on 3 ranks: bad_input_np3)
   Runs under valgrind too (memcheck_bad_input). */

#include "testutils.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT_ERROR(call, code, needle) TEST_EXPECT_ERROR(ctx, PETSC_COMM_WORLD, call, code, needle)

static PetscErrorCode OptionError(TestContext *ctx, const char *option, const char *value, PetscErrorCode want, const char *needle)
{
  Mat            A;
  PetscErrorCode e;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, option, value));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, 6, 6, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, 2));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  e = MatSetType(A, MATBSRCUSTOM);
  if (!e) e = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCall(TestCheckError(ctx, PETSC_COMM_WORLD, e, want, needle, option));
  PetscCall(PetscOptionsClearValue(NULL, option));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The value -mat_bsrcustom_cuda_pin_vectors <value> gives a new matrix (NULL: the option absent). */
static PetscErrorCode PinOption(const char *value, PetscBool *pin)
{
  Mat A;

  PetscFunctionBegin;
  if (value) PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_cuda_pin_vectors", value));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, 6, 6, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, 2));
  PetscCall(MatSetType(A, MATBSRCUSTOM));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatBSRCustomGetCUDAPinVectors(A, pin));
  PetscCall(MatDestroy(&A));
  if (value) PetscCall(PetscOptionsClearValue(NULL, "-mat_bsrcustom_cuda_pin_vectors"));
  PetscFunctionReturn(0);
}

/* The tasks a thread walks at once, as MatView of A reports them with nthreads threads. */
static PetscErrorCode ViewedStreams(Mat A, PetscInt nthreads, PetscInt *walked)
{
  char  text[4096];
  char *p;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSetNumThreads(A, nthreads));
  PetscCall(TestViewInfoText(A, text, sizeof(text)));
  *walked = -1;
  p       = strstr(text, " walked at once");
  if (p) {
    *p = 0;
    p  = strrchr(text, ',');
    if (p) *walked = atoi(p + 1);
  }
  PetscFunctionReturn(0);
}

typedef struct {
  Mat A, Ref;   /* the same random matrix as ours and as MATBAIJ */
  Vec x, y, yr; /* x = 1 */
} Fixture;

static const PetscInt bs = 2, nb = 10;

static PetscErrorCode SetUp(Fixture *f)
{
  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nb, nb, 3, PETSC_TRUE, PETSC_FALSE, 11u, &f->A));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nb, nb, 3, PETSC_TRUE, PETSC_FALSE, 11u, &f->Ref));
  PetscCall(MatCreateVecs(f->A, &f->x, &f->y));
  PetscCall(VecDuplicate(f->y, &f->yr));
  PetscCall(VecSet(f->x, 1.0));
  PetscFunctionReturn(0);
}

static PetscErrorCode TearDown(Fixture *f)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&f->x));
  PetscCall(VecDestroy(&f->y));
  PetscCall(VecDestroy(&f->yr));
  PetscCall(MatDestroy(&f->A));
  PetscCall(MatDestroy(&f->Ref));
  PetscFunctionReturn(0);
}

/* wrong vector sizes */
static PetscErrorCode WrongSizes(TestContext *ctx)
{
  Fixture  f;
  Mat      A;
  Vec      x, y, xbad, ybad;
  PetscInt n = nb * bs;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  A = f.A;
  x = f.x;
  y = f.y;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n + 1, &xbad));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n - 2, &ybad));
  EXPECT_ERROR(MatMult(A, xbad, y), PETSC_ERR_ARG_SIZ, NULL);
  EXPECT_ERROR(MatMult(A, x, ybad), PETSC_ERR_ARG_SIZ, NULL);
  EXPECT_ERROR(MatMultAdd(A, x, ybad, y), PETSC_ERR_ARG_SIZ, NULL);
  EXPECT_ERROR(MatMultAdd(A, x, y, ybad), PETSC_ERR_ARG_SIZ, NULL);
  PetscCall(VecDestroy(&xbad));
  PetscCall(VecDestroy(&ybad));
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

/* MatMult before assembly */
static PetscErrorCode Unassembled(TestContext *ctx)
{
  Fixture  f;
  Mat      U;
  Vec      x, y;
  PetscInt n = nb * bs;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  x = f.x;
  y = f.y;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &U));
  PetscCall(MatSetSizes(U, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(U, bs));
  PetscCall(MatSetType(U, MATBSRCUSTOM));
  PetscCall(MatSeqBAIJSetPreallocation(U, bs, 1, NULL));
  EXPECT_ERROR(MatMult(U, x, y), PETSC_ERR_ARG_WRONGSTATE, NULL);
  EXPECT_ERROR(MatBSRCustomGetNumTasks(U, &n), PETSC_ERR_ARG_WRONGSTATE, "assembled");
  PetscCall(MatDestroy(&U));
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

/* bad settings, through the API and the options database: the message names the setting; then the
   matrix is unharmed by the rejected settings */
static PetscErrorCode RejectedSettings(TestContext *ctx)
{
  Fixture   f;
  Mat       A, Ref;
  Vec       x, y, yr;
  PetscInt  c;
  PetscReal rel;
  PetscBool pin = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  A   = f.A;
  Ref = f.Ref;
  x   = f.x;
  y   = f.y;
  yr  = f.yr;
  EXPECT_ERROR(MatBSRCustomSetChunksPerThread(A, 0), PETSC_ERR_ARG_OUTOFRANGE, "chunks per thread");
  EXPECT_ERROR(MatBSRCustomSetNumThreads(A, -3), PETSC_ERR_ARG_OUTOFRANGE, "threads");
  EXPECT_ERROR(MatBSRCustomSetCPUStreams(A, 3), PETSC_ERR_ARG_OUTOFRANGE, "CPU streams");
  EXPECT_ERROR(MatBSRCustomSetCPUStreams(A, 0), PETSC_ERR_ARG_OUTOFRANGE, "CPU streams");
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cpu_streams", "8", PETSC_ERR_ARG_OUTOFRANGE, "-mat_bsrcustom_cpu_streams"));
  EXPECT_ERROR(MatBSRCustomSetCPUPrefetch(A, -64), PETSC_ERR_ARG_OUTOFRANGE, "CPU prefetch distance");
  EXPECT_ERROR(MatBSRCustomSetCPUPrefetch(A, 1048577), PETSC_ERR_ARG_OUTOFRANGE, "CPU prefetch distance");
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cpu_prefetch", "4000000", PETSC_ERR_ARG_OUTOFRANGE, "-mat_bsrcustom_cpu_prefetch"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cpu_prefetch", "8k", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_cpu_prefetch"));
  EXPECT_ERROR(MatBSRCustomSetSharedRows(A, (MatBSRCustomSharedRows)7), PETSC_ERR_ARG_OUTOFRANGE, "shared-rows");
  EXPECT_ERROR(MatBSRCustomSetCUDADevice(A, -2), PETSC_ERR_ARG_OUTOFRANGE, "CUDA device");
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cuda_device", "-5", PETSC_ERR_ARG_OUTOFRANGE, "-mat_bsrcustom_cuda_device"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_chunks_per_thread", "0", PETSC_ERR_ARG_OUTOFRANGE, "-mat_bsrcustom_chunks_per_thread"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_threads", "100000", PETSC_ERR_ARG_OUTOFRANGE, "-mat_bsrcustom_threads"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_threads", "two", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_threads"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_chunks_per_thread", "8x", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_chunks_per_thread"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_shared_rows", "sometimes", PETSC_ERR_ARG_UNKNOWN_TYPE, "-mat_bsrcustom_shared_rows"));
  /* a GPU backend where there is none: a clear error that says what is missing */
  if (MatBSRCustomCUDADeviceCount() == 0) {
    PetscCall(OptionError(ctx, "-mat_bsrcustom_backend", "cuda", MatBSRCustomHasCUDA() ? PETSC_ERR_SUP_SYS : PETSC_ERR_SUP, MatBSRCustomHasCUDA() ? "no CUDA device" : "no CUDA backend"));
    EXPECT_ERROR(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUSPARSE), MatBSRCustomHasCUDA() ? PETSC_ERR_SUP_SYS : PETSC_ERR_SUP, "MatBSRCustomSetBackend()");
  }
  PetscCall(OptionError(ctx, "-mat_bsrcustom_backend", "gpu", PETSC_ERR_ARG_UNKNOWN_TYPE, "-mat_bsrcustom_backend"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cuda_kernel", "fastest", PETSC_ERR_ARG_UNKNOWN_TYPE, "-mat_bsrcustom_cuda_kernel"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cuda_pin_vectors", "sometimes", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_cuda_pin_vectors"));
  PetscCall(OptionError(ctx, "-mat_bsrcustom_cuda_pin_vectors", "2", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_cuda_pin_vectors"));
#if BSRC_PETSCBOOL_IS_ENUM /* a PetscBool that is neither true nor false */
  EXPECT_ERROR(MatBSRCustomSetCUDAPinVectors(A, (PetscBool)2), PETSC_ERR_ARG_OUTOFRANGE, "page-locking");
#endif
  PetscCall(OptionError(ctx, "-mat_bsrcustom_huge_pages", "maybe", PETSC_ERR_ARG_WRONG, "-mat_bsrcustom_huge_pages"));
#if BSRC_PETSCBOOL_IS_ENUM
  EXPECT_ERROR(MatBSRCustomSetHugePages(A, (PetscBool)2), PETSC_ERR_ARG_OUTOFRANGE, "huge pages");
#endif
  /* the matrix is unharmed by the rejected settings */
  PetscCall(MatBSRCustomGetChunksPerThread(A, &c));
  TEST_CHECK(PETSC_COMM_WORLD, c == 8, ctx->failures, "a rejected setting changed chunks per thread to %" PetscInt_FMT, c);
  PetscCall(MatBSRCustomGetCPUStreams(A, &c));
  TEST_CHECK(PETSC_COMM_WORLD, c == PETSC_DECIDE, ctx->failures, "a rejected setting changed the CPU streams to %" PetscInt_FMT " (default PETSC_DECIDE)", c);
  PetscCall(MatBSRCustomGetCPUPrefetch(A, &c));
  TEST_CHECK(PETSC_COMM_WORLD, c == 8192, ctx->failures, "a rejected setting changed the CPU prefetch distance to %" PetscInt_FMT " (default 8192)", c);
  PetscCall(MatBSRCustomGetCUDAPinVectors(A, &pin));
  TEST_CHECK(PETSC_COMM_WORLD, pin, ctx->failures, "page-locking of host vectors is off after a rejected setting (default: on)");
  PetscCall(PinOption(NULL, &pin));
  TEST_CHECK(PETSC_COMM_WORLD, pin, ctx->failures, "page-locking of host vectors is off by default");
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Ref, x, yr));
  PetscCall(TestRelDiff(y, yr, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel < 1e-13, ctx->failures, "products after rejected settings differ by %g", (double)rel);
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

/* PETSc's spellings of a boolean are accepted; a bare option means true */
static PetscErrorCode BooleanSpellings(TestContext *ctx)
{
  const char *values[] = {"false", "NO", "off", "0", "true", "Yes", "on", "1", ""};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(values); i++) {
    PetscBool pin = (PetscBool)(i < 4), want = (PetscBool)(i >= 4);
    PetscCall(PinOption(values[i], &pin));
    TEST_CHECK(PETSC_COMM_WORLD, pin == want, ctx->failures, "-mat_bsrcustom_cuda_pin_vectors \"%s\" gave %s", values[i], PetscBools[pin]);
  }
  PetscFunctionReturn(0);
}

/* streams: PETSC_DECIDE walks 2 tasks on one thread and 1 on several; a number is taken as given */
static PetscErrorCode Streams(TestContext *ctx)
{
  Fixture   f;
  Mat       A, Ref;
  Vec       x, y, yr;
  PetscInt  t0, w1, w2, w3;
  PetscReal rel0;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  A   = f.A;
  Ref = f.Ref;
  x   = f.x;
  y   = f.y;
  yr  = f.yr;
  PetscCall(MatBSRCustomGetNumThreads(A, &t0));
  PetscCall(ViewedStreams(A, 1, &w1));
  PetscCall(ViewedStreams(A, 2, &w2));
  PetscCall(MatBSRCustomSetCPUStreams(A, 4));
  PetscCall(ViewedStreams(A, 1, &w3));
  TEST_CHECK(PETSC_COMM_WORLD, w1 == 2 && w2 == 1 && w3 == 4, ctx->failures, "MatView reports %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT " tasks walked at once (PETSC_DECIDE on 1 and 2 threads, then 4), expected 2, 1, 4", w1, w2, w3);
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_cpu_streams", "PETSC_DECIDE"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bsrcustom_cpu_streams"));
  PetscCall(MatBSRCustomGetCPUStreams(A, &w3));
  TEST_CHECK(PETSC_COMM_WORLD, w3 == PETSC_DECIDE, ctx->failures, "-mat_bsrcustom_cpu_streams PETSC_DECIDE gave %" PetscInt_FMT, w3);
  PetscCall(MatBSRCustomSetNumThreads(A, t0));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Ref, x, yr));
  PetscCall(TestRelDiff(y, yr, &rel0));
  TEST_CHECK(PETSC_COMM_WORLD, rel0 < 1e-13, ctx->failures, "products after the streams settings differ by %g", (double)rel0);
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

/* MatSetValuesBlocked of one block at block (row, col) of A, errors returned: their code and message */
static PetscErrorCode BlockedInsertError(Mat A, PetscInt row, PetscInt col, PetscErrorCode *code, char *msg, size_t len)
{
  const PetscScalar v[4] = {1.0, 2.0, 3.0, 4.0};
  const char       *text;
  BSRCErrorText     specific = NULL;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *code = MatSetValuesBlocked(A, 1, &row, 1, &col, v, INSERT_VALUES);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscErrorMessage(*code, &text, &specific));
  PetscCall(PetscStrncpy(msg, *code && specific ? specific : "", len));
  PetscFunctionReturn(0);
}

/* an out-of-range block row or column in MatSetValuesBlocked of an assembled matrix: BAIJ's error
   code and message, which names the block index (on several ranks ours takes some such insertions
   through scalar indices, whose errors named the scalar index) */
static PetscErrorCode BadBlockIndex(TestContext *ctx)
{
  Fixture  f;
  PetscInt M, N, rs;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  PetscCall(MatGetSize(f.A, &M, &N));
  PetscCall(MatGetOwnershipRange(f.A, &rs, NULL));
  {
    const PetscInt mbs = M / bs, nbs = N / bs;
    const struct {
      PetscInt    row, col, idx, max;
      const char *what;
    } bad[] = {
      {rs / bs, nbs, nbs, nbs - 1, "block column"},
      {rs / bs, nbs + 7, nbs + 7, nbs - 1, "block column"},
      {mbs, 0, mbs, mbs - 1, "block row"},
    };

    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(bad); k++) {
      PetscErrorCode code, refcode;
      char           msg[512], refmsg[512], needle[64];
      PetscCall(BlockedInsertError(f.A, bad[k].row, bad[k].col, &code, msg, sizeof(msg)));
      PetscCall(BlockedInsertError(f.Ref, bad[k].row, bad[k].col, &refcode, refmsg, sizeof(refmsg)));
      PetscCall(PetscSNPrintf(needle, sizeof(needle), "too large %" PetscInt_FMT " max %" PetscInt_FMT, bad[k].idx, bad[k].max));
      TEST_CHECK(PETSC_COMM_SELF, code == PETSC_ERR_ARG_OUTOFRANGE && code == refcode, ctx->failures, "[%d] %s %" PetscInt_FMT ": error code %d, MATBAIJ's %d, expected %d", (int)ctx->rank, bad[k].what, bad[k].idx, (int)code, (int)refcode, (int)PETSC_ERR_ARG_OUTOFRANGE);
      TEST_CHECK(PETSC_COMM_SELF, strstr(msg, "Block") && strstr(msg, needle), ctx->failures, "[%d] %s %" PetscInt_FMT ": message \"%s\" does not name the block index (\"Block ... %s\")", (int)ctx->rank, bad[k].what, bad[k].idx, msg, needle);
      TEST_CHECK(PETSC_COMM_SELF, !strcmp(msg, refmsg), ctx->failures, "[%d] %s %" PetscInt_FMT ": message \"%s\", MATBAIJ's \"%s\"", (int)ctx->rank, bad[k].what, bad[k].idx, msg, refmsg);
    }
  }
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

/* NaN in the matrix and Inf in x: the same entries of y are NaN/Inf as with BAIJ */
static PetscErrorCode NaNInf(TestContext *ctx)
{
  Fixture            f;
  Mat                A, Ref;
  Vec                x, y, yr;
  PetscReal          nanv = (PetscReal)NAN, infv = (PetscReal)INFINITY;
  PetscInt           row = 2, col = 3;
  const PetscScalar *ya, *yra;
  PetscBool          same      = PETSC_TRUE;
  PetscInt           nonfinite = 0;

  PetscFunctionBegin;
  PetscCall(SetUp(&f));
  A   = f.A;
  Ref = f.Ref;
  x   = f.x;
  y   = f.y;
  yr  = f.yr;
  PetscCall(MatSetValue(A, row, col, nanv, INSERT_VALUES));
  PetscCall(MatSetValue(Ref, row, col, nanv, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(VecSetValue(x, 9, infv, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Ref, x, yr));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(yr, &yra));
  for (PetscInt i = 0; i < nb * bs; i++) {
    PetscReal a = PetscRealPart(ya[i]), r = PetscRealPart(yra[i]);
    if (isnan(a) != isnan(r) || isinf(a) != isinf(r) || (isinf(a) && (a > 0) != (r > 0))) same = PETSC_FALSE;
    nonfinite += !isfinite(r);
  }
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(yr, &yra));
  TEST_CHECK(PETSC_COMM_WORLD, same, ctx->failures, "NaN/Inf pattern of y differs from BAIJ's");
  TEST_CHECK(PETSC_COMM_WORLD, nonfinite > 0, ctx->failures, "the test matrix did not produce NaN/Inf at all");
  PetscCall(TearDown(&f));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"wrong_sizes", WrongSizes, 0}, {"unassembled", Unassembled, 0}, {"rejected_settings", RejectedSettings, 0}, {"boolean_spellings", BooleanSpellings, 0}, {"streams", Streams, 0}, {"nan_inf", NaNInf, 0}, {"bad_block_index", BadBlockIndex, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("bad input", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
