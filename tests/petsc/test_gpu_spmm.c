static const char help[] = "Products with dense matrices (MatMatMult, MatProduct AB, KSPMatSolve) on the GPU backend: the block\n"
                           "SpMM on the GPU against MATBAIJ, each case reported by name (skipped without a GPU):\n"
                           "  gpu_spmm_vs_baij   bs 1, 2, 3, 5, 8, 11; k = 1, 2, 3, 8, 17, 64; B with a leading dimension larger\n"
                           "                     than its rows; empty block rows and a very long one; MatMatMult, MAT_REUSE_MATRIX\n"
                           "                     after new values (MatScale, MatDiagonalScale), MatProduct AB by hand; the result type is B's; one kernel call\n"
                           "                     (per block) and the GPU SpMM's count in MatView; flops logged once\n"
                           "  gpu_spmm_cusparse  the same products on the cusparse backend (k > 1 runs our SpMM there too)\n"
                           "  gpu_spmm_densecuda MATDENSECUDA B (a PETSc configured with CUDA; skipped otherwise): device arrays,\n"
                           "                     the result MATDENSECUDA\n"
                           "  gpu_kspmatsolve    KSPMatSolve with CG on the GPU backend against k separate KSPSolve\n"
                           "Options: -nbrows <n> block rows per rank.\n";

#include <string.h>

#include "testutils.h"
#include <petscksp.h>

static PetscReal tol = 1e-13;

/* the local block on several ranks, A itself on one (for MatView's text) */
static PetscErrorCode SeqPart(Mat A, Mat *S)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  *S = A;
  if (size > 1) PetscCall(MatBSRCustomGetLocalAndGhost(A, S, NULL, NULL, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

/* The count of GPU SpMMs that MatView reports for A's (local) block: "... (N product(s) so far" after
   "block SpMM on the GPU, one pass for all columns"; -1 where the line is missing (the GPU path is not
   the one MatView names). */
static PetscErrorCode GPUSpMMCount(Mat A, PetscInt *count, char *text, size_t len)
{
  Mat         S;
  const char *p, *q;

  PetscFunctionBegin;
  PetscCall(SeqPart(A, &S));
  PetscCall(TestViewInfoText(S, text, len));
  *count = -1;
  p      = strstr(text, "block SpMM on the GPU, one pass for all columns");
  q      = p ? strstr(p, "; ") : NULL;
  if (q) *count = (PetscInt)atol(q + 2);
  PetscFunctionReturn(0);
}

/* a dense matrix of `type` with A's column layout, k columns, on a user array of leading dimension
   local rows + extra (the padding is 1e300: never to be read) */
static PetscErrorCode DenseWithLDA(Mat A, MatType type, PetscInt k, PetscInt extra, PetscScalar **data, Mat *B)
{
  PetscInt m, lda, N, rs;
  unsigned s = 99u + (unsigned)k;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, NULL, &m));
  PetscCall(MatGetSize(A, NULL, &N));
  PetscCall(MatGetOwnershipRangeColumn(A, &rs, NULL));
  lda = m + extra;
  PetscCall(PetscMalloc1(PetscMax(lda * k, 1), data));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < lda; i++) {
      s                    = (s * 1664525u + 1013904223u) ^ (unsigned)(rs + i);
      (*data)[j * lda + i] = i < m ? (PetscScalar)((s >> 8) / 16777216.0 - 0.5) : (PetscScalar)1e300;
    }
  if (!strcmp(type, MATDENSE)) {
    PetscCall(MatCreateDense(PetscObjectComm((PetscObject)A), m, PETSC_DECIDE, N, k, *data, B));
    PetscCall(MatDenseSetLDA(*B, lda));
  } else { /* a device type: its own storage with leading dimension lda, filled from data */
    PetscScalar *b;
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
    PetscCall(MatSetSizes(*B, m, PETSC_DECIDE, N, k));
    PetscCall(MatSetType(*B, type));
    PetscCall(MatDenseSetLDA(*B, lda));
    PetscCall(MatSetUp(*B));
    PetscCall(MatDenseGetArrayWrite(*B, &b));
    for (PetscInt j = 0; j < k; j++) PetscCall(PetscArraycpy(b + j * lda, *data + j * lda, m));
    PetscCall(MatDenseRestoreArrayWrite(*B, &b));
  }
  PetscFunctionReturn(0);
}

/* ||a - b||_inf / ||b||_inf on the host arrays of two vectors of the same layout, of any types (a
   CUDA vector and a host one) */
static PetscErrorCode RelDiffAnyType(Vec a, Vec b, PetscReal *rel)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          loc[2] = {0.0, 0.0}, glob[2];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    loc[0] = PetscMax(loc[0], PetscAbsScalar(x[i] - y[i]));
    loc[1] = PetscMax(loc[1], PetscAbsScalar(y[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *rel = glob[0] / PetscMax(glob[1], PETSC_SMALL);
  PetscFunctionReturn(0);
}

/* The products of A (on `backend`) with dense matrices of `dtype` against Ref (MATBAIJ). */
static PetscErrorCode CheckSpMM(TestContext *ctx, MatBSRCustomBackend backend, MatType dtype, PetscInt nbrows, const PetscInt *bss, size_t nbs, const PetscInt *ks, size_t nk)
{
  char text[8192];

  PetscFunctionBegin;
  for (size_t ib = 0; ib < nbs; ib++) {
    const PetscInt bs = bss[ib];
    Mat            A, Ref;
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nbrows, nbrows + 3, 5, PETSC_TRUE, PETSC_TRUE, 57u + (unsigned)bs, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbrows, nbrows + 3, 5, PETSC_TRUE, PETSC_TRUE, 57u + (unsigned)bs, &A));
    PetscCall(MatBSRCustomSetBackend(A, backend));
    for (size_t ik = 0; ik < nk; ik++) {
      const PetscInt k = ks[ik], extra = 3 + k % 5;
      Mat            B, C, D;
      PetscScalar   *data;
      PetscReal      worst;
      PetscLogDouble e0, e1, f0, f1;
      PetscInt       n0, n1, nrows, ncols;
      MatType        ctype, btype;
      PetscBool      same;
      MatInfo        info;

      PetscCall(DenseWithLDA(A, dtype, k, extra, &data, &B));
      /* MatMatMult: one kernel call per block (local, and ghost on several ranks), counted by MatView */
      PetscCall(GPUSpMMCount(A, &n0, text, sizeof(text)));
      PetscCall(TestEventCount("BSRCustomKernel", &e0));
      PetscCall(PetscGetFlops(&f0));
      PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, 2.0, &C));
      PetscCall(PetscGetFlops(&f1));
      PetscCall(TestEventCount("BSRCustomKernel", &e1));
      PetscCall(GPUSpMMCount(A, &n1, text, sizeof(text)));
      PetscCall(TestCompareDenseProduct(C, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, ctx->failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT " lda rows + %" PetscInt_FMT ": relative difference %g", bs, k, extra, (double)worst);
      TEST_CHECK(PETSC_COMM_WORLD, e1 - e0 == (ctx->size > 1 ? 2.0 : 1.0), ctx->failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT ": %g kernel calls, expected %d (one pass, not one per column)", bs, k, e1 - e0, ctx->size > 1 ? 2 : 1);
      TEST_CHECK(PETSC_COMM_WORLD, n0 >= 0 && n1 == n0 + 1, ctx->failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT ": MatView's GPU SpMM count went from %" PetscInt_FMT " to %" PetscInt_FMT " (-1: no GPU SpMM line):\n%s", bs, k, n0, n1, text);
      /* flops once: k (2 nz - at most one add fewer per row) on this rank */
      PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
      PetscCall(MatGetLocalSize(A, &nrows, NULL));
      TEST_CHECK(PETSC_COMM_SELF, f1 - f0 <= 2.0 * k * info.nz_used && f1 - f0 >= k * (2.0 * info.nz_used - nrows), ctx->failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT ": %g flops logged for %g nonzeros", bs, k, f1 - f0, info.nz_used);
      /* the result is of B's type */
      PetscCall(MatGetType(B, &btype));
      PetscCall(MatGetType(C, &ctype));
      PetscCall(PetscStrcmp(btype, ctype, &same));
      TEST_CHECK(PETSC_COMM_WORLD, same, ctx->failures, "MatMatMult with %s gave %s", btype, ctype);
      PetscCall(MatGetSize(C, NULL, &ncols));
      TEST_CHECK(PETSC_COMM_WORLD, ncols == k, ctx->failures, "MatMatMult: %" PetscInt_FMT " columns, expected %" PetscInt_FMT, ncols, k);
      /* MAT_REUSE_MATRIX after new values: the device copy is refreshed */
      PetscCall(MatScale(A, 3.0));
      PetscCall(MatScale(Ref, 3.0));
      PetscCall(MatMatMult(A, B, MAT_REUSE_MATRIX, 2.0, &C));
      PetscCall(TestCompareDenseProduct(C, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, ctx->failures, "MatMatMult reuse after MatScale bs %" PetscInt_FMT " k %" PetscInt_FMT ": relative difference %g", bs, k, (double)worst);
      /* MatProduct AB by hand */
      PetscCall(MatProductCreate(A, B, NULL, &D));
      PetscCall(MatProductSetType(D, MATPRODUCT_AB));
      PetscCall(MatProductSetFromOptions(D));
      PetscCall(MatProductSymbolic(D));
      PetscCall(MatProductNumeric(D));
      PetscCall(TestCompareDenseProduct(D, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, ctx->failures, "MatProduct AB bs %" PetscInt_FMT " k %" PetscInt_FMT ": relative difference %g", bs, k, (double)worst);
      PetscCall(GPUSpMMCount(A, &n0, text, sizeof(text)));
      TEST_CHECK(PETSC_COMM_WORLD, n0 == n1 + 2, ctx->failures, "MatMatMult reuse and MatProduct AB bs %" PetscInt_FMT " k %" PetscInt_FMT ": GPU SpMM count %" PetscInt_FMT ", expected %" PetscInt_FMT, bs, k, n0, n1 + 2);
      /* new values through MatDiagonalScale (MPIBAIJ scales its blocks through their operations,
         leaving their states behind): the device copies must follow */
      {
        Vec          l;
        PetscScalar *la;
        PetscInt     rs;
        PetscCall(MatCreateVecs(Ref, NULL, &l));
        PetscCall(VecGetOwnershipRange(l, &rs, NULL));
        PetscCall(VecGetArray(l, &la));
        for (PetscInt i = 0; i < nrows; i++) la[i] = 1.0 + (PetscScalar)((rs + i) % 3) / 8.0;
        PetscCall(VecRestoreArray(l, &la));
        PetscCall(MatDiagonalScale(A, l, NULL));
        PetscCall(MatDiagonalScale(Ref, l, NULL));
        PetscCall(VecDestroy(&l));
      }
      PetscCall(MatMatMult(A, B, MAT_REUSE_MATRIX, 2.0, &C));
      PetscCall(TestCompareDenseProduct(C, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, ctx->failures, "MatMatMult reuse after MatDiagonalScale bs %" PetscInt_FMT " k %" PetscInt_FMT ": relative difference %g", bs, k, (double)worst);
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&C));
      PetscCall(MatDestroy(&B));
      PetscCall(PetscFree(data));
      PetscCall(MatScale(A, 1.0 / 3.0));
      PetscCall(MatScale(Ref, 1.0 / 3.0));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt nbrows;
} Params;

static const PetscInt all_bs[] = {1, 2, 3, 5, 8, 11}, all_k[] = {1, 2, 3, 8, 17, 64};

static PetscErrorCode SpMMVsBAIJ(TestContext *ctx)
{
  const Params *prm = (const Params *)ctx->data;
  PetscBool     skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(CheckSpMM(ctx, MAT_BSRCUSTOM_BACKEND_CUDA, MATDENSE, prm->nbrows, all_bs, PETSC_STATIC_ARRAY_LENGTH(all_bs), all_k, PETSC_STATIC_ARRAY_LENGTH(all_k)));
  PetscFunctionReturn(0);
}

static PetscErrorCode SpMMCusparse(TestContext *ctx)
{
  const Params  *prm  = (const Params *)ctx->data;
  const PetscInt bs[] = {1, 3, 11}, ks[] = {1, 8, 17};
  PetscBool      skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(CheckSpMM(ctx, MAT_BSRCUSTOM_BACKEND_CUSPARSE, MATDENSE, prm->nbrows, bs, PETSC_STATIC_ARRAY_LENGTH(bs), ks, PETSC_STATIC_ARRAY_LENGTH(ks)));
  PetscFunctionReturn(0);
}

static PetscErrorCode SpMMDenseCUDA(TestContext *ctx)
{
  const Params *prm = (const Params *)ctx->data;
  PetscBool     skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
#if defined(BSRC_HAVE_PETSC_CUDA)
  PetscCall(CheckSpMM(ctx, MAT_BSRCUSTOM_BACKEND_CUDA, MATDENSECUDA, prm->nbrows, all_bs, PETSC_STATIC_ARRAY_LENGTH(all_bs), all_k, PETSC_STATIC_ARRAY_LENGTH(all_k)));
#else
  (void)prm;
  PetscCall(TestSkip(ctx, "this PETSc has no MATDENSECUDA (configured without CUDA)"));
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPMatSolveGPU(TestContext *ctx)
{
  PetscInt     n = 6, bs = 3, k = 5;
  Mat          A, B, X;
  KSP          ksp;
  PC           pc;
  PetscScalar *data;
  PetscBool    skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(DenseWithLDA(A, MATDENSE, k, 0, &data, &B));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPMatSolve(ksp, B, X));
  for (PetscInt j = 0; j < k; j++) {
    Vec                b, x, xj, bj;
    PetscReal          rel;
    const PetscScalar *ba;
    PetscScalar       *bja;
    PetscInt           nl;
    PetscCall(MatCreateVecs(A, &xj, &bj)); /* A's own vector type (CUDA vectors on a CUDA PETSc) */
    PetscCall(MatDenseGetColumnVecRead(B, j, &b));
    PetscCall(VecGetLocalSize(b, &nl));
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(bj, &bja));
    PetscCall(PetscArraycpy(bja, ba, nl));
    PetscCall(VecRestoreArrayWrite(bj, &bja));
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &b));
    PetscCall(KSPSolve(ksp, bj, xj));
    PetscCall(MatDenseGetColumnVecRead(X, j, &x));
    PetscCall(RelDiffAnyType(x, xj, &rel));
    PetscCall(MatDenseRestoreColumnVecRead(X, j, &x));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-9, ctx->failures, "KSPMatSolve column %" PetscInt_FMT ": relative difference %g from KSPSolve", j, (double)rel);
    PetscCall(VecDestroy(&xj));
    PetscCall(VecDestroy(&bj));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree(data));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"gpu_spmm_vs_baij", SpMMVsBAIJ, 0},
    {"gpu_spmm_cusparse", SpMMCusparse, 0},
    {"gpu_spmm_densecuda", SpMMDenseCUDA, 0},
    {"gpu_kspmatsolve", KSPMatSolveGPU, 0},
  };
  Params prm = {23};
  int    status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &prm.nbrows, NULL));
  PetscCall(TestRunCases("gpu spmm", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &prm, &status));
  PetscCall(PetscFinalize());
  return status;
}
