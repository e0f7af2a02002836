static const char help[] = "What a PETSc user does with a BAIJ matrix works on bsrcustom, keeps the type and gives BAIJ's results:\n"
                           "MatDuplicate, MatCopy, MatConvert to/from aij/baij/dense, MatTranspose, MatCreateSubMatrices,\n"
                           "MatZeroRows, MatGetDiagonal, MatInvertBlockDiagonal, MatGetRow, MatView/MatLoad, LU/ILU/Cholesky/ICC,\n"
                           "AIJ-style preallocation of a matrix whose type came from the options.\n";

/* Coverage (cases, -test_list), bs 3, 24 block rows per rank (empty block rows), against MATBAIJ:
     create_preallocate   MatSetType gives (seq|mpi)bsrcustom; MatXAIJSetPreallocation allocates as BAIJ
     duplicate_copy       MatDuplicate (values, pattern only), MatCopy same and different pattern
     convert              MatConvert to/from aij, baij, dense (seq/mpi and generic), in place both ways
     transpose            MatTranspose keeps the type
     submatrices          MatCreateSubMatrices (initial, reuse), MatCreateSubMatrix (parallel)
     diagonal_getrow      MatGetDiagonal (bitwise), MatGetRow of every local row (bitwise)
     invert_block_diag    MatInvertBlockDiagonal of an SPD matrix (bitwise)
     factor_<lu,ilu,cholesky,icc>  MATSOLVERPETSC factorizations (on the diagonal block on several
                          ranks), solutions to 1e-12
     zero_rows            MatZeroRows with and without a diagonal block, keep-pattern
     view_load            MatView ASCII info, binary MatView/MatLoad (-file) bitwise
     aij_preallocation    -aijway_mat_type bsrcustom with AIJ-style preallocation: no mallocs
   Products to 1e-13 (1e-14 for the AIJ-preallocated one). Ranks: 1, 2 (CMakeLists.txt). */

#include "testutils.h"
#include <petscviewer.h>
#include <string.h>

static const PetscInt bs = 3, nb = 24;

/* seq or mpi flavour of a type, by the communicator's size */
static MatType Flavour(MatType seq, MatType mpi)
{
  PetscMPIInt size;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  return size > 1 ? mpi : seq;
}

static PetscErrorCode CheckType(TestContext *ctx, Mat A, MatType want, const char *what)
{
  PetscBool same;
  MatType   t;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, want, &same));
  PetscCall(MatGetType(A, &t));
  TEST_CHECK(PETSC_COMM_WORLD, same, ctx->failures, "%s: type is %s, expected %s", what, t, want);
  PetscFunctionReturn(0);
}

/* ||A x - B x|| / ||B x|| for a random x */
static PetscErrorCode CheckSameOperator(TestContext *ctx, Mat A, Mat B, PetscReal tol, const char *what)
{
  Vec         x, ya, yb;
  PetscReal   rel;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(MatCreateVecs(B, &x, &yb));
  PetscCall(VecDuplicate(yb, &ya));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(TestRelDiff(ya, yb, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= tol, ctx->failures, "%s: products differ by %g", what, (double)rel);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* Solves with a factorization of A and of Ref (same ordering), compares solutions. */
static PetscErrorCode CheckFactor(TestContext *ctx, Mat A, Mat Ref, MatFactorType ftype, const char *what)
{
  Mat           F[2];
  Mat           M[2] = {A, Ref};
  Vec           b, x[2];
  IS            row, col;
  MatFactorInfo info;
  PetscReal     rel;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(Ref, &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(VecSet(b, 1.0));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatGetFactor(M[k], MATSOLVERPETSC, ftype, &F[k]));
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill   = 2.0;
    info.levels = 0;
    PetscCall(MatGetOrdering(M[k], MATORDERINGNATURAL, &row, &col));
    if (ftype == MAT_FACTOR_LU) PetscCall(MatLUFactorSymbolic(F[k], M[k], row, col, &info));
    else if (ftype == MAT_FACTOR_ILU) PetscCall(MatILUFactorSymbolic(F[k], M[k], row, col, &info));
    else if (ftype == MAT_FACTOR_CHOLESKY) PetscCall(MatCholeskyFactorSymbolic(F[k], M[k], row, &info));
    else PetscCall(MatICCFactorSymbolic(F[k], M[k], row, &info));
    if (ftype == MAT_FACTOR_LU || ftype == MAT_FACTOR_ILU) PetscCall(MatLUFactorNumeric(F[k], M[k], &info));
    else PetscCall(MatCholeskyFactorNumeric(F[k], M[k], &info));
    PetscCall(MatSolve(F[k], b, x[k]));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatDestroy(&F[k]));
  }
  PetscCall(TestRelDiff(x[0], x[1], &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-12, ctx->failures, "%s: solutions differ by %g", what, (double)rel);
  PetscCall(VecDestroy(&x[0]));
  PetscCall(VecDestroy(&x[1]));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* A symmetric positive definite block matrix: B^T B + n I from a random block matrix B. */
static PetscErrorCode SPDMatrix(MatType type, PetscInt bs, PetscInt nb, Mat *S)
{
  Mat         R, Rt, P;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATAIJ, bs, nb, nb * size, 3, PETSC_FALSE, PETSC_FALSE, 99u, &R));
  PetscCall(MatTranspose(R, MAT_INITIAL_MATRIX, &Rt));
  PetscCall(MatMatMult(Rt, R, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &P));
  PetscCall(MatSetOption(P, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* a missing diagonal entry */
  PetscCall(MatShift(P, (PetscScalar)(nb * bs)));
  PetscCall(MatSetBlockSize(P, bs));
  PetscCall(MatConvert(P, type, MAT_INITIAL_MATRIX, S));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&Rt));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(0);
}

/* the matrix every case starts from, as MATBAIJ (Ref) and ours (A): square, with square diagonal
   blocks on every rank */
static PetscErrorCode MakePair(TestContext *ctx, Mat *A, Mat *Ref)
{
  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nb, nb * ctx->size, 4, PETSC_TRUE, PETSC_FALSE, 3u, Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nb, nb * ctx->size, 4, PETSC_TRUE, PETSC_FALSE, 3u, A));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreatePreallocate(TestContext *ctx)
{
  Mat     A, Ref;
  MatInfo ia, ir;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(CheckType(ctx, A, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatSetType(bsrcustom) on one rank"));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &ia));
  PetscCall(MatGetInfo(Ref, MAT_LOCAL, &ir));
  TEST_CHECK(PETSC_COMM_WORLD, ia.nz_allocated == ir.nz_allocated, ctx->failures, "MatXAIJSetPreallocation: %g entries allocated, BAIJ %g", ia.nz_allocated, ir.nz_allocated);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatDuplicate (values and pattern only), MatCopy */
static PetscErrorCode DuplicateCopy(TestContext *ctx)
{
  Mat A, Ref, B;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatDuplicate"));
  PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, "MatDuplicate(MAT_COPY_VALUES)"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &B));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatDuplicate(MAT_DO_NOT_COPY_VALUES)"));
  PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
  PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, "MatCopy(SAME_NONZERO_PATTERN)"));
  PetscCall(MatZeroEntries(B));
  PetscCall(MatCopy(Ref, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatCopy(BAIJ -> ours)"));
  PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, "MatCopy(DIFFERENT_NONZERO_PATTERN)"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatConvert out of and into our type */
static PetscErrorCode Convert(TestContext *ctx)
{
  Mat A, Ref, B, C;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  const MatType to[] = {Flavour(MATSEQAIJ, MATMPIAIJ), Flavour(MATSEQBAIJ, MATMPIBAIJ), Flavour(MATSEQDENSE, MATMPIDENSE), MATAIJ, MATBAIJ};
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(to); i++) {
    char what[128];
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatConvert(bsrcustom -> %s)", to[i]));
    PetscCall(MatConvert(A, to[i], MAT_INITIAL_MATRIX, &B));
    PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, what));
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatConvert(%s -> bsrcustom)", to[i]));
    PetscCall(MatSetBlockSize(B, bs));
    PetscCall(MatConvert(B, MATBSRCUSTOM, MAT_INITIAL_MATRIX, &C));
    PetscCall(CheckType(ctx, C, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), what));
    PetscCall(CheckSameOperator(ctx, C, Ref, 1e-13, what));
    PetscCall(MatDestroy(&C));
    PetscCall(MatConvert(B, MATBSRCUSTOM, MAT_INPLACE_MATRIX, &B));
    PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatConvert in place"));
    PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, "MatConvert in place"));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatConvert(B, Flavour(MATSEQBAIJ, MATMPIBAIJ), MAT_INPLACE_MATRIX, &B));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBAIJ, MATMPIBAIJ), "MatConvert(bsrcustom -> (mpi/seq)baij, in place)"));
  PetscCall(CheckSameOperator(ctx, B, Ref, 1e-13, "MatConvert(bsrcustom -> seqbaij, in place)"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatTranspose keeps the type and transposes */
static PetscErrorCode Transpose(TestContext *ctx)
{
  Mat A, Ref, B, Rt;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatTranspose(Ref, MAT_INITIAL_MATRIX, &Rt));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatTranspose"));
  PetscCall(CheckSameOperator(ctx, B, Rt, 1e-13, "MatTranspose"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&Rt));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatCreateSubMatrices (what ASM does: sequential pieces) and MatCreateSubMatrix (parallel) */
static PetscErrorCode SubMatrices(TestContext *ctx)
{
  Mat      A, Ref, B, C;
  IS       is, isp;
  Mat     *subA, *subR;
  PetscInt rs, re, nloc;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, (nb / 2) * bs, 3 * bs, 1, &is));
  PetscCall(ISSetBlockSize(is, bs));
  PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_INITIAL_MATRIX, &subA));
  PetscCall(MatCreateSubMatrices(Ref, 1, &is, &is, MAT_INITIAL_MATRIX, &subR));
  PetscCall(CheckType(ctx, subA[0], MATSEQBSRCUSTOM, "MatCreateSubMatrices"));
  PetscCall(CheckSameOperator(ctx, subA[0], subR[0], 1e-13, "MatCreateSubMatrices"));
  PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_REUSE_MATRIX, &subA));
  PetscCall(CheckSameOperator(ctx, subA[0], subR[0], 1e-13, "MatCreateSubMatrices(MAT_REUSE_MATRIX)"));
  PetscCall(MatDestroySubMatrices(1, &subA));
  PetscCall(MatDestroySubMatrices(1, &subR));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  nloc = ((re - rs) / bs / 2) * bs;                                                  /* the first half of this rank's block rows */
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, nloc, rs + (re - rs - nloc), 1, &isp)); /* the last rows: a proper subset */
  PetscCall(ISSetBlockSize(isp, bs));
  /* all columns: PETSc 3.18's MPIBAIJ rejects a column subset here ("key ... greater than largest key allowed") */
  {
    IS       iscol;
    PetscInt cs, ce;
    PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
    PetscCall(ISCreateStride(PETSC_COMM_WORLD, ce - cs, cs, 1, &iscol));
    PetscCall(ISSetBlockSize(iscol, bs));
    PetscCall(MatCreateSubMatrix(Ref, isp, iscol, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatCreateSubMatrix(A, isp, iscol, MAT_INITIAL_MATRIX, &B));
    PetscCall(ISDestroy(&iscol));
  }
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatCreateSubMatrix"));
  PetscCall(CheckSameOperator(ctx, B, C, 1e-13, "MatCreateSubMatrix"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscCall(ISDestroy(&is));
  PetscCall(ISDestroy(&isp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatGetDiagonal, MatGetRow */
static PetscErrorCode DiagonalGetRow(TestContext *ctx)
{
  Mat                A, Ref;
  Vec                da, dr;
  PetscReal          rel;
  PetscInt           nca, ncr, rs, re;
  const PetscInt    *ca, *cr;
  const PetscScalar *va, *vr;
  PetscBool          same = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(MatCreateVecs(A, NULL, &da));
  PetscCall(VecDuplicate(da, &dr));
  PetscCall(MatGetDiagonal(A, da));
  PetscCall(MatGetDiagonal(Ref, dr));
  PetscCall(TestRelDiff(da, dr, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel == 0, ctx->failures, "MatGetDiagonal differs by %g", (double)rel);
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscCall(MatGetRow(A, r, &nca, &ca, &va));
    PetscCall(MatGetRow(Ref, r, &ncr, &cr, &vr));
    same = (PetscBool)(nca == ncr);
    for (PetscInt k = 0; same && k < nca; k++) same = (PetscBool)(ca[k] == cr[k] && va[k] == vr[k]);
    PetscCall(MatRestoreRow(A, r, &nca, &ca, &va));
    PetscCall(MatRestoreRow(Ref, r, &ncr, &cr, &vr));
    TEST_CHECK(PETSC_COMM_WORLD, same, ctx->failures, "MatGetRow(%" PetscInt_FMT ") differs", r);
    if (!same) break;
  }
  PetscCall(VecDestroy(&da));
  PetscCall(VecDestroy(&dr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatInvertBlockDiagonal of an SPD block matrix */
static PetscErrorCode InvertBlockDiagonal(TestContext *ctx)
{
  const PetscScalar *ia, *ir;
  PetscBool          same = PETSC_TRUE;
  Mat                Sa, Sr;

  PetscFunctionBegin;
  PetscCall(SPDMatrix(MATBSRCUSTOM, bs, nb, &Sa));
  PetscCall(SPDMatrix(MATBAIJ, bs, nb, &Sr));
  PetscCall(MatInvertBlockDiagonal(Sa, &ia));
  PetscCall(MatInvertBlockDiagonal(Sr, &ir));
  for (PetscInt k = 0; k < nb * bs * bs; k++) same = (PetscBool)(same && ia[k] == ir[k]); /* nb block rows per rank */
  TEST_CHECK(PETSC_COMM_WORLD, same, ctx->failures, "MatInvertBlockDiagonal differs");
  PetscCall(MatDestroy(&Sa));
  PetscCall(MatDestroy(&Sr));
  PetscFunctionReturn(0);
}

/* factorizations (ctx->param: the MatFactorType) through MATSOLVERPETSC, registered for our type; on
   several ranks on the diagonal blocks, as block Jacobi and ASM use them */
static PetscErrorCode Factor(TestContext *ctx)
{
  const MatFactorType ftype  = (MatFactorType)ctx->param;
  const char         *name[] = {"none", "LU", "Cholesky", "ILU(0)", "ICC(0)"}; /* MAT_FACTOR_NONE, LU, CHOLESKY, ILU, ICC */
  Mat                 Sa, Sr, Da, Dr;

  PetscFunctionBegin;
  PetscCall(SPDMatrix(MATBSRCUSTOM, bs, nb, &Sa));
  PetscCall(SPDMatrix(MATBAIJ, bs, nb, &Sr));
  Da = Sa;
  Dr = Sr;
  if (strcmp(Flavour("seq", "mpi"), "seq")) {
    PetscCall(MatGetDiagonalBlock(Sa, &Da));
    PetscCall(MatGetDiagonalBlock(Sr, &Dr));
    PetscCall(CheckType(ctx, Da, MATSEQBSRCUSTOM, "MatGetDiagonalBlock"));
  }
  PetscCall(CheckFactor(ctx, Da, Dr, ftype, name[ftype]));
  PetscCall(MatDestroy(&Sa));
  PetscCall(MatDestroy(&Sr));
  PetscFunctionReturn(0);
}

/* MatZeroRows (structure and values change; the task partition must follow) */
static PetscErrorCode ZeroRows(TestContext *ctx)
{
  Mat      A, Ref, B, C;
  PetscInt rows[] = {0, 5, 6, 7, 40};

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatDuplicate(Ref, MAT_COPY_VALUES, &C));
  /* some zeroed rows lack a diagonal block: MatZeroRows inserts one */
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatZeroRows(B, 5, rows, 2.0, NULL, NULL));
  PetscCall(MatZeroRows(C, 5, rows, 2.0, NULL, NULL));
  PetscCall(CheckSameOperator(ctx, B, C, 1e-13, "MatZeroRows"));
  PetscCall(MatSetOption(B, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscCall(MatSetOption(C, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  rows[0] = 10;
  PetscCall(MatZeroRows(B, 1, rows, 0.0, NULL, NULL));
  PetscCall(MatZeroRows(C, 1, rows, 0.0, NULL, NULL));
  PetscCall(CheckSameOperator(ctx, B, C, 1e-13, "MatZeroRows(keep pattern)"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatView (ASCII info names our backend) and a binary MatView/MatLoad round trip through -file */
static PetscErrorCode ViewLoad(TestContext *ctx)
{
  Mat         A, Ref, B;
  char        file[PETSC_MAX_PATH_LEN] = "conformance_matrix.dat";
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(MakePair(ctx, &A, &Ref));
  PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-file", file, sizeof(file), NULL));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetBlockSize(B, bs));
  PetscCall(MatSetType(B, MATBSRCUSTOM));
  PetscCall(MatLoad(B, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "MatLoad"));
  PetscCall(CheckSameOperator(ctx, B, A, 0.0, "MatLoad of what MatView wrote (same type, same tasks: bitwise)"));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* A program that preallocates the AIJ way on a matrix whose type came from the options */
static PetscErrorCode AIJPreallocation(TestContext *ctx)
{
  Mat       B, C;
  PetscInt *nnz, *onnz, n = nb * bs, N, rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetOptionsPrefix(B, "aijway_"));
  PetscCall(MatSetFromOptions(B)); /* run with -aijway_mat_type bsrcustom */
  PetscCall(PetscMalloc2(n, &nnz, n, &onnz));
  for (PetscInt r = 0; r < n; r++) {
    nnz[r]  = 3;
    onnz[r] = 1;
  }
  PetscCall(MatSeqAIJSetPreallocation(B, 0, nnz));
  PetscCall(MatMPIAIJSetPreallocation(B, 0, nnz, 0, onnz));
  PetscCall(MatGetSize(B, &N, NULL));
  PetscCall(MatGetOwnershipRange(B, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt    cols[3] = {r - 1, r, r + 1};
    PetscScalar vals[3] = {-1.0, 2.0 + r, -1.0};
    if (r == 0) PetscCall(MatSetValues(B, 1, &r, 2, cols + 1, vals + 1, INSERT_VALUES));
    else if (r == N - 1) PetscCall(MatSetValues(B, 1, &r, 2, cols, vals, INSERT_VALUES));
    else PetscCall(MatSetValues(B, 1, &r, 3, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckType(ctx, B, Flavour(MATSEQBSRCUSTOM, MATMPIBSRCUSTOM), "-mat_type bsrcustom with AIJ-style preallocation"));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(CheckSameOperator(ctx, B, C, 1e-14, "AIJ-style preallocation"));
  {
    MatInfo info;
    PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
    TEST_CHECK(PETSC_COMM_WORLD, info.mallocs == 0, ctx->failures, "AIJ-style preallocation caused %g mallocs", info.mallocs);
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscCall(PetscFree2(nnz, onnz));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"create_preallocate", CreatePreallocate, 0},
    {"duplicate_copy", DuplicateCopy, 0},
    {"convert", Convert, 0},
    {"transpose", Transpose, 0},
    {"submatrices", SubMatrices, 0},
    {"diagonal_getrow", DiagonalGetRow, 0},
    {"invert_block_diag", InvertBlockDiagonal, 0},
    {"factor_lu", Factor, MAT_FACTOR_LU},
    {"factor_ilu", Factor, MAT_FACTOR_ILU},
    {"factor_cholesky", Factor, MAT_FACTOR_CHOLESKY},
    {"factor_icc", Factor, MAT_FACTOR_ICC},
    {"zero_rows", ZeroRows, 0},
    {"view_load", ViewLoad, 0},
    {"aij_preallocation", AIJPreallocation, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("conformance", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
