static const char help[] = "Transpose products and products with dense matrices of bsrcustom (issue 30), against MATBAIJ and\n"
                           "column-by-column references, each case reported by name:\n"
                           "  transpose_vs_baij    MatMultTranspose(Add), MatMultHermitianTranspose(Add): bs 1-8, 11; empty and long rows;\n"
                           "                       1-2 threads; the cached copy and -mat_bsrcustom_transpose baij\n"
                           "  transpose_refresh    new values (copy refreshed, not rebuilt) and a new block (copy rebuilt)\n"
                           "  transpose_view_flops MatView names the path; one MatMultTranspose logs its flops once\n"
                           "  matmatmult_dense     MatMatMult / MatProduct AB with k = 1, 2, 3, 8, 17, 64 columns, B with a leading\n"
                           "                       dimension larger than its rows; MAT_REUSE_MATRIX after new values; one kernel pass\n"
                           "  ksp_bicg_lsqr        KSP BiCG and LSQR iteration counts equal to MATBAIJ's (a nonsymmetric operator)\n"
                           "  kspmatsolve_cg       KSPMatSolve with CG against k separate KSPSolve\n"
                           "  gpu_transpose_vs_baij  GPU backends: the transposed copy on the device against MATBAIJ, bs 1,2,3,5,8,11, empty and\n"
                           "                       long rows, host and the matrix's own vectors, that it ran on the GPU; -mat_bsrcustom_transpose baij\n"
                           "  gpu_transpose_refresh  GPU: after MatScale, MatDiagonalScale, MatSetValues (values) and a new block (structure); MatBindToCPU\n"
                           "  gpu_transpose_flops  GPU, one rank: one MatMultTranspose, and one MatMult, log their flops once\n"
                           "Options: -nbrows <n> block rows per rank, -max_threads <t>.\n";

#include <stdlib.h>
#include <string.h>

#include "testutils.h"
#include <petscksp.h>

static PetscInt  failures = 0; /* checks failed on this rank; each case passes its share to the runner */
static PetscReal tol      = 1e-13;

static PetscErrorCode Check(Vec got, Vec want, const char *what)
{
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(TestRelDiff(got, want, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= tol, failures, "%s: relative difference %g", what, (double)rel);
  PetscFunctionReturn(0);
}

/* y = A^T x, z = w + A^T x (z != w), w = w + A^T x in place, and the Hermitian ones, against Ref's,
   on vectors of V's type (A's own: CUDA vectors of a GPU backend where PETSc has them; Ref's: host) */
static PetscErrorCode CompareTransposesOn(Mat A, Mat Ref, Mat V, const char *what)
{
  Vec  x, y, yr, w, z, zr, w2;
  char name[512];

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(V, &y, &x)); /* y: columns, x: rows */
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &zr));
  PetscCall(VecDuplicate(y, &w2));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(w, NULL));
  for (int herm = 0; herm < 2; herm++) {
    PetscCall(VecSet(y, 12345.0)); /* must not be read */
    if (herm) PetscCall(MatMultHermitianTranspose(A, x, y));
    else PetscCall(MatMultTranspose(A, x, y));
    PetscCall(MatMultTranspose(Ref, x, yr));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: %s", what, herm ? "MatMultHermitianTranspose" : "MatMultTranspose"));
    PetscCall(Check(y, yr, name));
    if (herm) PetscCall(MatMultHermitianTransposeAdd(A, x, w, z));
    else PetscCall(MatMultTransposeAdd(A, x, w, z));
    PetscCall(MatMultTransposeAdd(Ref, x, w, zr));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: %s", what, herm ? "MatMultHermitianTransposeAdd" : "MatMultTransposeAdd"));
    PetscCall(Check(z, zr, name));
    PetscCall(VecCopy(w, w2));
    PetscCall(MatMultTransposeAdd(A, x, w2, w2));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: MatMultTransposeAdd in place", what));
    PetscCall(Check(w2, zr, name));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&w2));
  PetscFunctionReturn(0);
}

/* A and Ref scaled by the same random diagonals, D_l A D_r */
static PetscErrorCode DiagonalScaleBoth(Mat A, Mat Ref)
{
  Vec l, r;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(Ref, &r, &l));
  PetscCall(VecSetRandom(l, NULL));
  PetscCall(VecSetRandom(r, NULL));
  PetscCall(MatDiagonalScale(A, l, r));
  PetscCall(MatDiagonalScale(Ref, l, r));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareTransposes(Mat A, Mat Ref, const char *what)
{
  PetscFunctionBegin;
  PetscCall(CompareTransposesOn(A, Ref, A, what));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetTransposeMode(Mat A, const char *mode)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_transpose", mode));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bsrcustom_transpose"));
  PetscFunctionReturn(0);
}

/* the local block on several ranks, A itself on one (for MatView text and the copy's state) */
static PetscErrorCode SeqPart(Mat A, Mat *S)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  *S = A;
  if (size > 1) PetscCall(MatBSRCustomGetLocalAndGhost(A, S, NULL, NULL, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseTransposeVsBAIJ(PetscInt nbrows, PetscInt max_threads)
{
  const PetscInt bss[] = {1, 2, 3, 4, 5, 6, 7, 8, 11};
  char           what[256];

  PetscFunctionBegin;
  for (size_t ib = 0; ib < PETSC_STATIC_ARRAY_LENGTH(bss); ib++)
    for (int shape = 0; shape < 3; shape++) {
      const PetscInt bs = bss[ib];
      Mat            A, Ref;
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nbrows, nbrows + 4, 5, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 31u + (unsigned)bs, &Ref));
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbrows, nbrows + 4, 5, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 31u + (unsigned)bs, &A));
      for (PetscInt t = 1; t <= PetscMin(2, max_threads); t++) {
        PetscCall(MatBSRCustomSetNumThreads(A, t));
        PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d threads %" PetscInt_FMT " cached", bs, shape, t));
        PetscCall(CompareTransposes(A, Ref, what));
      }
      PetscCall(SetTransposeMode(A, "baij"));
      PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d baij", bs, shape));
      PetscCall(CompareTransposes(A, Ref, what));
      PetscCall(SetTransposeMode(A, "cached"));
      PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d cached again", bs, shape));
      PetscCall(CompareTransposes(A, Ref, what));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Ref));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseTransposeRefresh(PetscInt nbrows)
{
  PetscInt    bs = 3, rs, re, row, col, N;
  Mat         A, Ref, S;
  PetscScalar v[9];
  char        text[4096];

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nbrows, nbrows, 4, PETSC_TRUE, PETSC_FALSE, 7u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbrows, nbrows, 4, PETSC_TRUE, PETSC_FALSE, 7u, &A));
  PetscCall(CompareTransposes(A, Ref, "refresh: first"));
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(Ref, -2.0));
  PetscCall(CompareTransposes(A, Ref, "refresh: after MatScale"));
  PetscCall(SeqPart(A, &S));
  PetscCall(TestViewInfoText(S, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_WORLD, strstr(text, "built 1 time(s), values refreshed 1 time(s)") != NULL, failures, "refresh: after new values the copy should be built once and refreshed once:\n%s", text);
  /* MPIBAIJ scales its blocks through their operations: the copies must follow all the same */
  PetscCall(DiagonalScaleBoth(A, Ref));
  PetscCall(CompareTransposes(A, Ref, "refresh: after MatDiagonalScale"));
  /* a new block in an empty block row (every third is empty): a new structure */
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  row = rs / bs + 2 - (rs / bs) % 3;
  if (row < rs / bs) row += 3;
  if (row * bs >= re) row = rs / bs;
  PetscCall(MatGetSize(A, NULL, &N));
  col = (row + 5) % (N / bs);
  for (PetscInt k = 0; k < 9; k++) v[k] = 0.5 + (PetscScalar)k;
  PetscCall(TestSetBlockInBoth(A, Ref, row, col, v, ADD_VALUES, PETSC_TRUE));
  PetscCall(CompareTransposes(A, Ref, "refresh: after a new block"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseViewFlops(PetscInt nbrows)
{
  PetscInt       bs = 4, N;
  Mat            A, S;
  Vec            x, y;
  char           text[4096];
  PetscLogDouble f0, f1;
  MatInfo        info;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbrows, nbrows + 2, 5, PETSC_TRUE, PETSC_TRUE, 3u, &A));
  PetscCall(MatCreateVecs(A, &y, &x));
  PetscCall(VecSet(x, 1.0));
  PetscCall(SeqPart(A, &S));
  PetscCall(TestViewInfoText(S, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_WORLD, strstr(text, "MatMultTranspose: cached transposed copy, task kernel (built at the first") != NULL, failures, "view: before a transpose product:\n%s", text);
  PetscCall(PetscGetFlops(&f0));
  PetscCall(MatMultTranspose(A, x, y));
  PetscCall(PetscGetFlops(&f1));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  /* our count: 2 nz - (nonempty rows of A^T) bs; BAIJ's would come on top if both logged */
  PetscCall(MatGetSize(A, NULL, &N));
  TEST_CHECK(PETSC_COMM_WORLD, f1 - f0 <= 2.0 * info.nz_used && f1 - f0 >= 2.0 * info.nz_used - (PetscLogDouble)N, failures, "flops: one MatMultTranspose of %g nonzeros logged %g flops", info.nz_used, f1 - f0);
  PetscCall(TestViewInfoText(S, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_WORLD, strstr(text, "MatMultTranspose: cached transposed copy, task kernel (") != NULL && strstr(text, "built 1 time(s)") != NULL, failures, "view: after a transpose product:\n%s", text);
  PetscCall(SetTransposeMode(A, "baij"));
  PetscCall(MatMultTranspose(A, x, y));
  PetscCall(SeqPart(A, &S));
  PetscCall(TestViewInfoText(S, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_WORLD, strstr(text, "MatMultTranspose: BAIJ's serial transpose product") != NULL, failures, "view: baij mode:\n%s", text);
  if (size > 1) { /* the MPI matrix's own line */
    PetscViewer v;
    PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerPopFormat(v));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* a dense m x k (local rows m) matrix on a user array with leading dimension lda, random values */
static PetscErrorCode DenseWithLDA(Mat A, PetscInt k, PetscInt extra, PetscScalar **data, Mat *B)
{
  PetscInt m, lda, N;
  unsigned s = 99u + (unsigned)k;
  PetscInt rs;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, NULL, &m));
  PetscCall(MatGetSize(A, NULL, &N));
  lda = m + extra;
  PetscCall(MatGetOwnershipRangeColumn(A, &rs, NULL));
  PetscCall(PetscMalloc1(PetscMax(lda * k, 1), data));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < lda; i++) {
      s                    = (s * 1664525u + 1013904223u) ^ (unsigned)(rs + i);
      (*data)[j * lda + i] = i < m ? (PetscScalar)((s >> 8) / 16777216.0 - 0.5) : (PetscScalar)1e300; /* padding: never read */
    }
  PetscCall(MatCreateDense(PetscObjectComm((PetscObject)A), m, PETSC_DECIDE, N, k, *data, B));
  PetscCall(MatDenseSetLDA(*B, lda));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseMatMatMult(PetscInt nbrows, PetscInt max_threads)
{
  const PetscInt ks[] = {1, 2, 3, 8, 17, 64}, bss[] = {1, 2, 3, 5, 8, 11};
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (size_t ib = 0; ib < PETSC_STATIC_ARRAY_LENGTH(bss); ib++) {
    const PetscInt bs = bss[ib];
    Mat            A, Ref;
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nbrows, nbrows + 3, 5, PETSC_TRUE, PETSC_TRUE, 57u + (unsigned)bs, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbrows, nbrows + 3, 5, PETSC_TRUE, PETSC_TRUE, 57u + (unsigned)bs, &A));
    PetscCall(MatBSRCustomSetNumThreads(A, PetscMin(2, max_threads)));
    for (size_t ik = 0; ik < PETSC_STATIC_ARRAY_LENGTH(ks); ik++) {
      const PetscInt k = ks[ik];
      Mat            B, C, D;
      PetscScalar   *data;
      PetscReal      worst;
      PetscLogDouble e0, e1;

      PetscCall(DenseWithLDA(A, k, 3 + k % 5, &data, &B));
      /* MatMatMult */
      PetscCall(TestEventCount("BSRCustomKernel", &e0));
      PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, 2.0, &C));
      PetscCall(TestEventCount("BSRCustomKernel", &e1));
      PetscCall(TestCompareDenseProduct(C, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT " lda rows + %" PetscInt_FMT ": relative difference %g", bs, k, 3 + k % 5, (double)worst);
      /* one pass: the local block's SpMM (and the ghost block's), not one kernel per column */
      TEST_CHECK(PETSC_COMM_WORLD, e1 - e0 == (size > 1 ? 2.0 : 1.0), failures, "MatMatMult bs %" PetscInt_FMT " k %" PetscInt_FMT ": %g kernel calls, expected %d", bs, k, e1 - e0, size > 1 ? 2 : 1);
      /* MAT_REUSE_MATRIX after new values */
      PetscCall(MatScale(A, 3.0));
      PetscCall(MatScale(Ref, 3.0));
      PetscCall(MatMatMult(A, B, MAT_REUSE_MATRIX, 2.0, &C));
      PetscCall(TestCompareDenseProduct(C, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, failures, "MatMatMult reuse bs %" PetscInt_FMT " k %" PetscInt_FMT ": relative difference %g", bs, k, (double)worst);
      /* MatProduct AB by hand */
      PetscCall(MatProductCreate(A, B, NULL, &D));
      PetscCall(MatProductSetType(D, MATPRODUCT_AB));
      PetscCall(MatProductSetFromOptions(D));
      PetscCall(MatProductSymbolic(D));
      PetscCall(MatProductNumeric(D));
      PetscCall(TestCompareDenseProduct(D, Ref, B, &worst));
      TEST_CHECK(PETSC_COMM_WORLD, worst <= tol, failures, "MatProduct AB bs %" PetscInt_FMT " k %" PetscInt_FMT ": relative difference %g", bs, k, (double)worst);
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

/* a nonsymmetric operator: the block diffusion matrix with its rows scaled by 1 + (i mod 7)/4 */
static PetscErrorCode NonsymmetricMatrix(MatType type, PetscInt n, PetscInt bs, Mat *A)
{
  Vec          l;
  PetscScalar *a;
  PetscInt     rs, nl;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, type, n, bs, A));
  PetscCall(MatCreateVecs(*A, NULL, &l));
  PetscCall(VecGetOwnershipRange(l, &rs, NULL));
  PetscCall(VecGetLocalSize(l, &nl));
  PetscCall(VecGetArray(l, &a));
  for (PetscInt i = 0; i < nl; i++) a[i] = 1.0 + (PetscScalar)((rs + i) % 7) / 4.0;
  PetscCall(VecRestoreArray(l, &a));
  PetscCall(MatDiagonalScale(*A, l, NULL));
  PetscCall(VecDestroy(&l));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(Mat A, KSPType type, PCType pctype, Vec b, PetscInt *its, PetscReal *rnorm)
{
  KSP                ksp;
  PC                 pc;
  Vec                x;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  TEST_CHECK(PETSC_COMM_WORLD, reason > 0, failures, "%s did not converge (%s)", type, KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseKSPBiCGLSQR(void)
{
  PetscInt n = 6, bs = 3;
  Mat      A, Ref;
  Vec      b;
  KSPType  types[] = {KSPBICG, KSPLSQR};
  PCType   pcs[]   = {PCJACOBI, PCNONE};

  PetscFunctionBegin;
  PetscCall(NonsymmetricMatrix(MATBAIJ, n, bs, &Ref));
  PetscCall(NonsymmetricMatrix(MATBSRCUSTOM, n, bs, &A));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  for (int i = 0; i < 2; i++) {
    PetscInt  its, itsr;
    PetscReal r, rr;
    PetscCall(Solve(A, types[i], pcs[i], b, &its, &r));
    PetscCall(Solve(Ref, types[i], pcs[i], b, &itsr, &rr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %" PetscInt_FMT " iterations (baij %" PetscInt_FMT "), residual %g (baij %g)\n", types[i], its, itsr, (double)r, (double)rr));
    TEST_CHECK(PETSC_COMM_WORLD, its == itsr, failures, "%s: %" PetscInt_FMT " iterations, baij %" PetscInt_FMT, types[i], its, itsr);
    /* the products differ from BAIJ's in rounding, which the Krylov recurrences amplify: the final
       residuals agree to within a factor, not to the last digit */
    TEST_CHECK(PETSC_COMM_WORLD, r <= 10.0 * rr && rr <= 10.0 * r, failures, "%s: residual %g, baij %g", types[i], (double)r, (double)rr);
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseKSPMatSolve(void)
{
  PetscInt     n = 6, bs = 3, k = 5;
  Mat          A, B, X;
  KSP          ksp;
  PC           pc;
  PetscScalar *data;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &A));
  PetscCall(DenseWithLDA(A, k, 0, &data, &B));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPMatSolve(ksp, B, X));
  for (PetscInt j = 0; j < k; j++) {
    Vec       b, x, xj;
    PetscReal rel;
    PetscCall(MatCreateVecs(A, &xj, NULL));
    PetscCall(MatDenseGetColumnVecRead(B, j, &b));
    PetscCall(KSPSolve(ksp, b, xj));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &b));
    PetscCall(MatDenseGetColumnVecRead(X, j, &x));
    PetscCall(TestRelDiff(x, xj, &rel));
    PetscCall(MatDenseRestoreColumnVecRead(X, j, &x));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-9, failures, "KSPMatSolve column %" PetscInt_FMT ": relative difference %g from KSPSolve", j, (double)rel);
    PetscCall(VecDestroy(&xj));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree(data));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* ---- GPU backends: the transposed copy on the device ---- */

/* products run on the transposed copy's device matrix of this rank's (local) block, read from its
   MatView line; -1 where the line does not name the GPU path */
static PetscErrorCode GPUTransposeProducts(Mat A, PetscInt *count, char *text, size_t len)
{
  Mat         S;
  const char *p;

  PetscFunctionBegin;
  PetscCall(SeqPart(A, &S));
  PetscCall(TestViewInfoText(S, text, len));
  *count = -1;
  p      = strstr(text, " product(s) on the GPU");
  if (strstr(text, "MatMultTranspose: cached transposed copy on the GPU, our kernels (kernel ") && p) {
    while (p > text && p[-1] >= '0' && p[-1] <= '9') p--;
    *count = (PetscInt)atol(p);
  }
  PetscFunctionReturn(0);
}

/* the transpose products against MATBAIJ's on host vectors and on A's own, and that they ran on the
   GPU (the device copy's product count grew: a silent fallback to a host path fails) */
static PetscErrorCode GPUCompare(Mat A, Mat Ref, const char *what)
{
  PetscInt before, after;
  char     text[4096], name[512];

  PetscFunctionBegin;
  PetscCall(GPUTransposeProducts(A, &before, text, sizeof(text)));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s, host vectors", what));
  PetscCall(CompareTransposesOn(A, Ref, Ref, name));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s, the matrix's vectors", what));
  PetscCall(CompareTransposesOn(A, Ref, A, name));
  PetscCall(GPUTransposeProducts(A, &after, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_SELF, after >= 12 + PetscMax(before, 0), failures, "%s: the transpose products did not all run on the GPU (%" PetscInt_FMT " before, %" PetscInt_FMT " after 12 products):\n%s", what, before, after, text);
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseGPUTransposeVsBAIJ(TestContext *ctx)
{
  const PetscInt bss[] = {1, 2, 3, 5, 8, 11};
  const PetscInt nb    = 23;
  PetscBool      skip;
  char           what[256], text[4096];

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  for (size_t ib = 0; ib < PETSC_STATIC_ARRAY_LENGTH(bss); ib++)
    for (int shape = 0; shape < 3; shape++) {
      const PetscInt bs = bss[ib];
      Mat            A, Ref;
      PetscInt       count;
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nb, nb + 4, 5, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 41u + (unsigned)bs, &Ref));
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nb, nb + 4, 5, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 41u + (unsigned)bs, &A));
      PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cuda bs %" PetscInt_FMT " shape %d", bs, shape));
      PetscCall(GPUCompare(A, Ref, what));
      if (bs == 1 || bs == 3) { /* the cusparse backend shares the device copy (its kernel cuSPARSE) */
        PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUSPARSE));
        PetscCall(PetscSNPrintf(what, sizeof(what), "cusparse bs %" PetscInt_FMT " shape %d", bs, shape));
        PetscCall(CompareTransposesOn(A, Ref, Ref, what));
        PetscCall(CompareTransposesOn(A, Ref, A, what));
        PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
      }
      /* -mat_bsrcustom_transpose baij: BAIJ's host code, the copy (and its device matrix) freed */
      PetscCall(SetTransposeMode(A, "baij"));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cuda bs %" PetscInt_FMT " shape %d baij", bs, shape));
      PetscCall(CompareTransposesOn(A, Ref, Ref, what));
      PetscCall(CompareTransposesOn(A, Ref, A, what));
      PetscCall(GPUTransposeProducts(A, &count, text, sizeof(text)));
      TEST_CHECK(PETSC_COMM_SELF, count == -1 && strstr(text, "MatMultTranspose: BAIJ's serial transpose product on the host (-mat_bsrcustom_transpose baij") != NULL, failures, "%s: MatView should name BAIJ's host code:\n%s", what, text);
      PetscCall(SetTransposeMode(A, "cached"));
      PetscCall(PetscSNPrintf(what, sizeof(what), "cuda bs %" PetscInt_FMT " shape %d cached again", bs, shape));
      PetscCall(GPUCompare(A, Ref, what));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Ref));
    }
  PetscFunctionReturn(0);
}

/* new values (MatScale, MatDiagonalScale, MatSetValues + assembly): the device copy's values follow;
   a new block: the copy is rebuilt and its structure uploaded again; MatBindToCPU: the host path */
static PetscErrorCode CaseGPUTransposeRefresh(TestContext *ctx)
{
  const PetscInt bs = 3, nb = 23;
  PetscInt       rs, re, row, col, count;
  Mat            A, Ref;
  PetscScalar    v[9];
  PetscBool      skip;
  char           text[4096];

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nb, nb, 4, PETSC_TRUE, PETSC_FALSE, 17u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nb, nb, 4, PETSC_TRUE, PETSC_FALSE, 17u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: first"));
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(Ref, -2.0));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: after MatScale"));
  PetscCall(GPUTransposeProducts(A, &count, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_SELF, strstr(text, "built 1 time(s), values refreshed 1 time(s)") != NULL, failures, "gpu refresh: after MatScale the copy should be built once and refreshed once:\n%s", text);
  PetscCall(DiagonalScaleBoth(A, Ref));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: after MatDiagonalScale"));
  /* new values of one existing block through MatSetValues + assembly */
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (int i = 0; i < 9; i++) v[i] = 0.25 * (i + 1);
  row = rs / bs + ((rs / bs) % 3 == 2); /* not empty (block rows 2, 5, ... are) */
  {
    const PetscInt *cols;
    PetscInt        ncols;
    PetscCall(MatGetRow(Ref, row * bs, &ncols, &cols, NULL));
    PetscCheck(ncols > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block row %" PetscInt_FMT " is empty", row);
    col = cols[0] / bs;
    PetscCall(MatRestoreRow(Ref, row * bs, &ncols, &cols, NULL));
  }
  PetscCall(TestSetBlockInBoth(A, Ref, row, col, v, INSERT_VALUES, PETSC_FALSE));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: after MatSetValues"));
  /* a new block in an empty block row (every third is empty): a new structure */
  row = rs / bs + 2 - (rs / bs) % 3;
  if (row * bs >= re) row = rs / bs;
  { /* in this rank's own columns (A is 23 block columns wide on any number of ranks): the local block gets it */
    PetscInt cs, ce;
    PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
    col = ce > cs ? cs / bs + (row - rs / bs + 5) % ((ce - cs) / bs) : 0;
  }
  PetscCall(TestSetBlockInBoth(A, Ref, row, col, v, ADD_VALUES, PETSC_TRUE));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: after a new block"));
  PetscCall(GPUTransposeProducts(A, &count, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_SELF, strstr(text, "built 2 time(s)") != NULL, failures, "gpu refresh: after a new block the copy should be built again:\n%s", text);
  /* bound to the CPU: the task kernel on the host copy (where PETSc binds at all: without device
     support, as Debian's 3.18, MatBindToCPU() is a no-op and MatBoundToCPU() always says true) */
  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(CompareTransposesOn(A, Ref, Ref, "gpu refresh: bound to the CPU"));
#if defined(PETSC_HAVE_DEVICE)
  PetscCall(GPUTransposeProducts(A, &count, text, sizeof(text)));
  TEST_CHECK(PETSC_COMM_SELF, count == -1 && strstr(text, "MatMultTranspose: cached transposed copy, task kernel (") != NULL, failures, "gpu refresh: bound to the CPU, MatView should name the task kernel:\n%s", text);
#endif
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  PetscCall(MatScale(A, 0.5));
  PetscCall(MatScale(Ref, 0.5));
  PetscCall(GPUCompare(A, Ref, "gpu refresh: unbound, after MatScale"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* one rank: one MatMultTranspose logs the copy's flops once, and one MatMult its own (as GPU flops,
   which PETSc adds to the total) */
static PetscErrorCode CaseGPUTransposeFlops(TestContext *ctx)
{
  Mat            A;
  Vec            x, y;
  MatInfo        info;
  PetscInt       N;
  PetscLogDouble f0, f1;
  PetscBool      skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  if (ctx->size > 1) {
    PetscCall(TestSkip(ctx, "one rank only (several ranks add the reverse scatter's sums)"));
    PetscFunctionReturn(0);
  }
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 4, 23, 25, 5, PETSC_TRUE, PETSC_TRUE, 3u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(MatCreateVecs(A, &y, &x));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMultTranspose(A, x, y)); /* built and uploaded */
  PetscCall(PetscGetFlops(&f0));
  PetscCall(MatMultTranspose(A, x, y));
  PetscCall(PetscGetFlops(&f1));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  PetscCall(MatGetSize(A, NULL, &N));
  TEST_CHECK(PETSC_COMM_WORLD, f1 - f0 <= 2.0 * info.nz_used && f1 - f0 >= 2.0 * info.nz_used - (PetscLogDouble)N, failures, "gpu flops: one MatMultTranspose of %g nonzeros logged %g flops", info.nz_used, f1 - f0);
  /* and MatMult's, on a PETSc with or without a GPU log (3.18 has none: they are plain flops there) */
  PetscCall(PetscGetFlops(&f0));
  PetscCall(MatMult(A, y, x));
  PetscCall(PetscGetFlops(&f1));
  TEST_CHECK(PETSC_COMM_WORLD, f1 - f0 <= 2.0 * info.nz_used && f1 - f0 >= 2.0 * info.nz_used - (PetscLogDouble)N, failures, "gpu flops: one MatMult of %g nonzeros logged %g flops", info.nz_used, f1 - f0);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* the GPU cases' checks, counted in `failures`, become the case's failures */
#define GPU_CASE(name, fn) \
  static PetscErrorCode name(TestContext *ctx) \
  { \
    const PetscInt before = failures; \
    PetscFunctionBegin; \
    PetscCall(fn(ctx)); \
    ctx->failures += failures - before; \
    PetscFunctionReturn(0); \
  }
GPU_CASE(GPUTransposeVsBAIJ, CaseGPUTransposeVsBAIJ)
GPU_CASE(GPUTransposeRefresh, CaseGPUTransposeRefresh)
GPU_CASE(GPUTransposeFlops, CaseGPUTransposeFlops)

typedef struct {
  PetscInt nbrows, max_threads;
} Params;

/* a case of the runner: the checks it fails, counted in `failures`, become the case's failures */
#define RUNNER_CASE(name, call) \
  static PetscErrorCode name(TestContext *ctx) \
  { \
    const Params  *prm    = (const Params *)ctx->data; \
    const PetscInt before = failures; \
    PetscFunctionBegin; \
    (void)prm; \
    PetscCall(call); \
    ctx->failures += failures - before; \
    PetscFunctionReturn(0); \
  }
RUNNER_CASE(TransposeVsBAIJ, CaseTransposeVsBAIJ(prm->nbrows, prm->max_threads))
RUNNER_CASE(TransposeRefresh, CaseTransposeRefresh(prm->nbrows))
RUNNER_CASE(ViewFlops, CaseViewFlops(prm->nbrows))
RUNNER_CASE(MatMatMultDense, CaseMatMatMult(prm->nbrows, prm->max_threads))
RUNNER_CASE(KSPBiCGLSQR, CaseKSPBiCGLSQR())
RUNNER_CASE(KSPMatSolveCG, CaseKSPMatSolve())

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"transpose_vs_baij", TransposeVsBAIJ, 0},
    {"transpose_refresh", TransposeRefresh, 0},
    {"transpose_view_flops", ViewFlops, 0},
    {"matmatmult_dense", MatMatMultDense, 0},
    {"ksp_bicg_lsqr", KSPBiCGLSQR, 0},
    {"kspmatsolve_cg", KSPMatSolveCG, 0},
    {"gpu_transpose_vs_baij", GPUTransposeVsBAIJ, 0},
    {"gpu_transpose_refresh", GPUTransposeRefresh, 0},
    {"gpu_transpose_flops", GPUTransposeFlops, 0},
  };
  Params prm = {23, 2};
  int    status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &prm.nbrows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_threads", &prm.max_threads, NULL));
  PetscCall(TestRunCases("transpose products", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &prm, &status));
  PetscCall(PetscFinalize());
  return status;
}
