static const char help[] = "Every way PETSc lets a program change a matrix's values, followed by every product bsrcustom\n"
                           "accelerates or caches (issue 38): each result against MATBAIJ/MATAIJ. Cases:\n"
                           "  store_retrieve     MatStoreValues, MatScale (products run), MatRetrieveValues\n"
                           "  get_restore_array  the values scaled through MatSeqBAIJGetArray/RestoreArray (of the blocks\n"
                           "                     MatMPIBAIJGetSeqBAIJ gives, on several ranks)\n"
                           "  scale, zero_rows, copy, set_values  MatScale, MatZeroRows, MatCopy, MatSetValues + assembly\n"
                           "  no_new_nonzeros    MAT_NEW_NONZERO_LOCATIONS false, then every product (fresh and reused)\n"
                           "  ours_times_ours    AB, AtB, PtAP of two bsrcustom matrices (square blocks), fresh and reused\n"
                           "  gamg_retrieve      CG + PCGAMG after MatStoreValues/MatScale/MatRetrieveValues: as MATAIJ\n"
                           "  gamg_bs2           CG + PCGAMG on a bs 2 problem with GAMG's default near null space: as MATAIJ\n"
                           "The products: MatMult(Add), MatMultTranspose(Add), MatMatMult with a dense matrix, MatMatMult and\n"
                           "MatPtAP with an AIJ matrix and with a bsrcustom one, PCPBJACOBI's apply.\n"
                           "Options: -nbrows <n> block rows per rank, -bs <b>.\n";

#include "testutils.h"
#include <petscksp.h>

static PetscReal tol = 1e-12;

typedef struct {
  PetscInt bs, nbrows;
} Sizes;

/* The products kept between calls (MAT_REUSE_MATRIX after a change of values), and the PC on A. */
typedef struct {
  PetscBool pc_follows;      /* false: PETSc cannot know that A changed, a PC set up on A keeps what it had */
  Mat       A, Ref;          /* ours and MATBAIJ, the same values, changed alike */
  Mat       P, Pours;        /* a prolongator-like AIJ matrix (block sizes bs, bs) and the same as bsrcustom */
  Mat       AP, PtAP;        /* A P and P^T A P, AIJ P, reused */
  Mat       APo, PtAPo, PtA; /* the same with bsrcustom P, reused; PtA = P^T A */
  PC        pc;              /* PCPBJACOBI on A, set up again by PETSc when A changed */
} Products;

/* ||C - R||_F / ||R||_F of two sparse matrices of any types, through AIJ copies. */
static PetscErrorCode SparseRelDiff(Mat C, Mat R, PetscReal *rel)
{
  Mat       c, r;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &c));
  PetscCall(MatConvert(R, MATAIJ, MAT_INITIAL_MATRIX, &r));
  PetscCall(MatNorm(r, NORM_FROBENIUS, &nr));
  PetscCall(MatAXPY(c, -1.0, r, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(c, NORM_FROBENIUS, &nd));
  *rel = nd / PetscMax(nr, PETSC_SMALL);
  PetscCall(MatDestroy(&c));
  PetscCall(MatDestroy(&r));
  PetscFunctionReturn(0);
}

/* An AIJ copy of Ref for the reference products, made without the options Ref may carry
   (MAT_NEW_NONZERO_LOCATIONS false would stop the copy's own assembly). */
static PetscErrorCode ReferenceAIJ(Mat Ref, Mat *aij)
{
  Mat      d;
  PetscInt m, n, M, N;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(Ref, &m, &n));
  PetscCall(MatGetSize(Ref, &M, &N));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)Ref), &d));
  PetscCall(MatSetSizes(d, m, n, M, N));
  PetscCall(MatSetType(d, MATAIJ));
  PetscCall(MatSetUp(d));
  {
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(Ref, &rs, &re));
    for (PetscInt i = rs; i < re; i++) {
      PetscInt           n;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(Ref, i, &n, &cols, &vals));
      PetscCall(MatSetValues(d, 1, &i, n, cols, vals, INSERT_VALUES));
      PetscCall(MatRestoreRow(Ref, i, &n, &cols, &vals));
    }
  }
  PetscCall(MatAssemblyBegin(d, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(d, MAT_FINAL_ASSEMBLY));
  *aij = d;
  PetscFunctionReturn(0);
}

/* P: n rows (A's) by about n/2 columns, two blocks a block row, block sizes (bs, bs), random values. */
static PetscErrorCode MakeP(Mat A, Mat *P)
{
  PetscInt    bs, m, rs, re, nbc, cbs, ncols_local;
  PetscMPIInt size, rank;
  unsigned    s = 12345u;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  ncols_local = ((m / bs) / 2 + 1) * bs;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, m, ncols_local, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, bs, bs));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*P, 2 * bs, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, 2 * bs, NULL, 2 * bs, NULL));
  PetscCall(MatGetOwnershipRange(*P, &rs, &re));
  PetscCall(MatGetSize(*P, NULL, &nbc));
  nbc /= bs;
  cbs = bs;
  for (PetscInt bi = rs / bs; bi < re / bs; bi++) {
    PetscInt    bc[2] = {(bi / 2) % nbc, (bi * 7 + 3) % nbc};
    PetscScalar v[64 * 64];
    for (int k = 0; k < 2; k++) {
      if (k == 1 && bc[1] == bc[0]) continue;
      for (PetscInt q = 0; q < bs * cbs; q++) {
        s    = s * 1664525u + 1013904223u ^ (unsigned)bi;
        v[q] = (PetscScalar)((s >> 8) % 1000) / 1000.0 - 0.3;
      }
      PetscCall(MatSetValuesBlocked(*P, 1, &bi, 1, &bc[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckSparse(TestContext *ctx, Mat C, Mat R, const char *what, const char *when)
{
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(SparseRelDiff(C, R, &rel));
  TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s: %s differs from MATAIJ's by %g", when, what, (double)rel);
  PetscFunctionReturn(0);
}

/* Every product of A against the reference (Ref, and an AIJ copy of it), reused products updated in
   place, fresh ones made again. */
static PetscErrorCode CompareAll(TestContext *ctx, Products *p, const char *when)
{
  Mat       Raij, R, C, B, D;
  Vec       x, y, yr, w, z, zr;
  PetscReal rel;
  PetscInt  n;
  MatReuse  reuse = p->AP ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;

  PetscFunctionBegin;
  /* products with vectors */
  PetscCall(TestCompareProducts(p->A, p->Ref, tol, &ctx->failures, when));
  PetscCall(MatCreateVecs(p->Ref, &x, &y));
  PetscCall(VecDuplicate(x, &yr));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &zr));
  PetscCall(VecSetRandom(y, NULL));
  PetscCall(VecSetRandom(w, NULL));
  PetscCall(MatMultTranspose(p->A, y, x));
  PetscCall(MatMultTranspose(p->Ref, y, yr));
  PetscCall(TestRelDiff(x, yr, &rel));
  TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s: MatMultTranspose differs from MATBAIJ's by %g", when, (double)rel);
  PetscCall(MatMultTransposeAdd(p->A, y, w, z));
  PetscCall(MatMultTransposeAdd(p->Ref, y, w, zr));
  PetscCall(TestRelDiff(z, zr, &rel));
  TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s: MatMultTransposeAdd differs from MATBAIJ's by %g", when, (double)rel);

  /* PCPBJACOBI: PETSc sets it up again when A changed; the reference is a fresh one on a copy */
  if (p->pc_follows) {
    PC  fresh;
    Mat dup;
    PetscCall(PCSetUp(p->pc));
    PetscCall(PCApply(p->pc, w, z));
    PetscCall(MatDuplicate(p->Ref, MAT_COPY_VALUES, &dup));
    PetscCall(PCCreate(ctx->comm, &fresh));
    PetscCall(PCSetOperators(fresh, dup, dup));
    PetscCall(PCSetType(fresh, PCPBJACOBI));
    PetscCall(PCSetUp(fresh));
    PetscCall(PCApply(fresh, w, zr));
    PetscCall(TestRelDiff(z, zr, &rel));
    TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s: PCPBJACOBI's apply differs from a fresh one on MATBAIJ by %g", when, (double)rel);
    PetscCall(PCDestroy(&fresh));
    PetscCall(MatDestroy(&dup));
  }

  /* with a dense matrix */
  PetscCall(MatGetLocalSize(p->A, NULL, &n));
  PetscCall(MatCreateDense(ctx->comm, n, PETSC_DECIDE, PETSC_DETERMINE, 3, NULL, &B));
  PetscCall(MatSetRandom(B, NULL));
  PetscCall(MatMatMult(p->A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &D));
  PetscCall(TestCompareDenseProduct(D, p->Ref, B, &rel));
  TEST_CHECK(ctx->comm, rel <= tol, ctx->failures, "%s: MatMatMult with a dense matrix differs from MATBAIJ's MatMult by %g", when, (double)rel);
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&B));

  /* sparse products: with AIJ P and with bsrcustom P, reused and fresh */
  PetscCall(ReferenceAIJ(p->Ref, &Raij));
  PetscCall(MatMatMult(Raij, p->P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &R));
  PetscCall(MatMatMult(p->A, p->P, reuse, PETSC_DEFAULT, &p->AP));
  PetscCall(CheckSparse(ctx, p->AP, R, "MatMatMult(A, P aij) reused", when));
  PetscCall(MatMatMult(p->A, p->P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(CheckSparse(ctx, C, R, "MatMatMult(A, P aij)", when));
  PetscCall(MatDestroy(&C));
  PetscCall(MatMatMult(p->A, p->Pours, reuse, PETSC_DEFAULT, &p->APo));
  PetscCall(CheckSparse(ctx, p->APo, R, "MatMatMult(A, P bsrcustom) reused", when));
  PetscCall(MatDestroy(&R));
  PetscCall(MatPtAP(Raij, p->P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &R));
  PetscCall(MatPtAP(p->A, p->P, reuse, PETSC_DEFAULT, &p->PtAP));
  PetscCall(CheckSparse(ctx, p->PtAP, R, "MatPtAP(A, P aij) reused", when));
  PetscCall(MatPtAP(p->A, p->P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(CheckSparse(ctx, C, R, "MatPtAP(A, P aij)", when));
  PetscCall(MatDestroy(&C));
  PetscCall(MatPtAP(p->A, p->Pours, reuse, PETSC_DEFAULT, &p->PtAPo));
  PetscCall(CheckSparse(ctx, p->PtAPo, R, "MatPtAP(A, P bsrcustom) reused", when));
  PetscCall(MatPtAP(p->A, p->Pours, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(CheckSparse(ctx, C, R, "MatPtAP(A, P bsrcustom)", when));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscCall(MatTransposeMatMult(p->P, Raij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &R));
  PetscCall(MatTransposeMatMult(p->Pours, p->A, reuse, PETSC_DEFAULT, &p->PtA));
  PetscCall(CheckSparse(ctx, p->PtA, R, "MatTransposeMatMult(P bsrcustom, A) reused", when));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&Raij));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zr));
  PetscFunctionReturn(0);
}

static PetscErrorCode ProductsCreate(TestContext *ctx, Products *p)
{
  const Sizes *sz = (const Sizes *)ctx->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->pc_follows = PETSC_TRUE;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, sz->bs, sz->nbrows, sz->nbrows * ctx->size, 4, PETSC_TRUE, PETSC_TRUE, 7u, &p->A));
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBAIJ, sz->bs, sz->nbrows, sz->nbrows * ctx->size, 4, PETSC_TRUE, PETSC_TRUE, 7u, &p->Ref));
  /* the diagonal blocks PBJacobi inverts: present and well conditioned */
  PetscCall(MatSetOption(p->A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(p->Ref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatShift(p->A, 8.0));
  PetscCall(MatShift(p->Ref, 8.0));
  PetscCall(MakeP(p->Ref, &p->P));
  PetscCall(MatConvert(p->P, MATBSRCUSTOM, MAT_INITIAL_MATRIX, &p->Pours));
  PetscCall(PCCreate(ctx->comm, &p->pc));
  PetscCall(PCSetOperators(p->pc, p->A, p->A));
  PetscCall(PCSetType(p->pc, PCPBJACOBI));
  PetscFunctionReturn(0);
}

static PetscErrorCode ProductsDestroy(Products *p)
{
  PetscFunctionBegin;
  PetscCall(PCDestroy(&p->pc));
  PetscCall(MatDestroy(&p->A));
  PetscCall(MatDestroy(&p->Ref));
  PetscCall(MatDestroy(&p->P));
  PetscCall(MatDestroy(&p->Pours));
  PetscCall(MatDestroy(&p->AP));
  PetscCall(MatDestroy(&p->PtAP));
  PetscCall(MatDestroy(&p->APo));
  PetscCall(MatDestroy(&p->PtAPo));
  PetscCall(MatDestroy(&p->PtA));
  PetscFunctionReturn(0);
}

/* The values of M scaled by s through the arrays of its sequential blocks (MatSeqBAIJGetArray). */
static PetscErrorCode ScaleThroughArrays(Mat M, PetscScalar s)
{
  Mat         blocks[2] = {NULL, NULL};
  PetscMPIInt size;
  PetscBool   ours;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)M), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATMPIBSRCUSTOM, &ours));
  if (ours) PetscCall(MatBSRCustomGetLocalAndGhost(M, &blocks[0], &blocks[1], NULL, NULL, NULL, NULL));
  else if (size > 1) PetscCall(MatMPIBAIJGetSeqBAIJ(M, &blocks[0], &blocks[1], NULL));
  else blocks[0] = M;
  for (int k = 0; k < 2; k++) {
    PetscScalar *a;
    PetscInt     nz, bs;
    MatInfo      info;
    if (!blocks[k]) continue;
    PetscCall(MatGetInfo(blocks[k], MAT_LOCAL, &info));
    PetscCall(MatGetBlockSize(blocks[k], &bs));
    nz = (PetscInt)info.nz_used;
    PetscCall(MatSeqBAIJGetArray(blocks[k], &a));
    for (PetscInt i = 0; i < nz; i++) a[i] *= s;
    PetscCall(MatSeqBAIJRestoreArray(blocks[k], &a));
  }
  PetscFunctionReturn(0);
}

typedef enum {
  ROUTE_STORE_RETRIEVE,
  ROUTE_GET_RESTORE_ARRAY,
  ROUTE_SCALE,
  ROUTE_ZERO_ROWS,
  ROUTE_COPY,
  ROUTE_SET_VALUES,
  ROUTE_NO_NEW_NONZEROS
} Route;

static PetscErrorCode RouteApply(TestContext *ctx, Products *p, Route route)
{
  Mat both[2] = {p->A, p->Ref};

  PetscFunctionBegin;
  switch (route) {
  case ROUTE_STORE_RETRIEVE:
    for (int k = 0; k < 2; k++) {
      PetscCall(MatSetOption(both[k], MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
      PetscCall(MatStoreValues(both[k]));
      PetscCall(MatScale(both[k], 5.0));
    }
    PetscCall(CompareAll(ctx, p, "after MatStoreValues + MatScale"));
    for (int k = 0; k < 2; k++) PetscCall(MatRetrieveValues(both[k]));
    break;
  case ROUTE_GET_RESTORE_ARRAY:
    for (int k = 0; k < 2; k++) PetscCall(ScaleThroughArrays(both[k], 3.0));
    break;
  case ROUTE_SCALE:
    for (int k = 0; k < 2; k++) PetscCall(MatScale(both[k], -2.0));
    break;
  case ROUTE_ZERO_ROWS: {
    PetscInt rs, re, rows[2];
    PetscCall(MatGetOwnershipRange(p->A, &rs, &re));
    rows[0] = rs;
    rows[1] = PetscMin(rs + 4, re - 1);
    for (int k = 0; k < 2; k++) PetscCall(MatZeroRows(both[k], 2, rows, 3.0, NULL, NULL));
  } break;
  case ROUTE_COPY:
    for (int k = 0; k < 2; k++) {
      Mat src;
      PetscCall(MatDuplicate(both[k], MAT_COPY_VALUES, &src));
      PetscCall(MatScale(src, 0.25));
      PetscCall(MatShift(src, 1.0));
      PetscCall(MatCopy(src, both[k], SAME_NONZERO_PATTERN));
      PetscCall(MatDestroy(&src));
    }
    break;
  case ROUTE_SET_VALUES: {
    PetscScalar v[64 * 64];
    PetscInt    bs, rs;
    PetscCall(MatGetBlockSize(p->A, &bs));
    PetscCall(MatGetOwnershipRange(p->A, &rs, NULL));
    for (PetscInt q = 0; q < bs * bs; q++) v[q] = 0.5 + q;
    PetscCall(TestSetBlockInBoth(p->A, p->Ref, rs / bs, rs / bs, v, ADD_VALUES, PETSC_FALSE));
  } break;
  case ROUTE_NO_NEW_NONZEROS:
    PetscCall(MatSetOption(p->A, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
    break;
  }
  PetscFunctionReturn(0);
}

static const char *const route_names[] = {"MatStoreValues/MatRetrieveValues", "MatSeqBAIJGetArray/RestoreArray", "MatScale", "MatZeroRows", "MatCopy", "MatSetValues + assembly", "MAT_NEW_NONZERO_LOCATIONS false"};

static PetscErrorCode ValueRoute(TestContext *ctx)
{
  Products p;
  char     when[128];

  PetscFunctionBegin;
  PetscCall(ProductsCreate(ctx, &p));
  PetscCall(CompareAll(ctx, &p, "before any change")); /* every cache made */
  PetscCall(RouteApply(ctx, &p, (Route)ctx->param));
  PetscCall(PetscSNPrintf(when, sizeof(when), "after %s", route_names[ctx->param]));
  if (ctx->param == ROUTE_GET_RESTORE_ARRAY && ctx->size > 1) {
    /* the contract on several ranks (README): values written into a block's array reach our copies
       by themselves, and what PETSc derived from A (a PC's setup) after an assembly of A */
    p.pc_follows = PETSC_FALSE;
    PetscCall(CompareAll(ctx, &p, when));
    p.pc_follows = PETSC_TRUE;
    PetscCall(MatAssemblyBegin(p.A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(p.A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscSNPrintf(when, sizeof(when), "after %s and an assembly", route_names[ctx->param]));
  }
  PetscCall(CompareAll(ctx, &p, when));
  PetscCall(ProductsDestroy(&p));
  PetscFunctionReturn(0);
}

/* A second set of products of two bsrcustom matrices after new values of both: reused results follow. */
static PetscErrorCode OursTimesOurs(TestContext *ctx)
{
  Products p;

  PetscFunctionBegin;
  PetscCall(ProductsCreate(ctx, &p));
  PetscCall(CompareAll(ctx, &p, "first products"));
  PetscCall(MatScale(p.A, 1.5));
  PetscCall(MatScale(p.Ref, 1.5));
  PetscCall(MatScale(p.P, -0.5));
  PetscCall(MatScale(p.Pours, -0.5));
  PetscCall(CompareAll(ctx, &p, "after new values of A and P"));
  PetscCall(ProductsDestroy(&p));
  PetscFunctionReturn(0);
}

/* CG + GAMG on `type` for A (converted from Aaij): iterations and solution */
static PetscErrorCode SolveGAMG(Mat A, Vec b, Vec x, PetscInt *its)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareGAMG(TestContext *ctx, Mat A, Mat Aaij, const char *when)
{
  Vec       b, x, xr;
  PetscInt  its, itsr;
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(Aaij, &x, &b));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSet(b, 1.0));
  PetscCall(SolveGAMG(Aaij, b, xr, &itsr));
  PetscCall(SolveGAMG(A, b, x, &its));
  PetscCall(TestRelDiff(x, xr, &rel));
  TEST_CHECK(ctx->comm, its == itsr, ctx->failures, "%s: CG + GAMG took %" PetscInt_FMT " iterations, %" PetscInt_FMT " on MATAIJ", when, its, itsr);
  TEST_CHECK(ctx->comm, rel <= 1e-8, ctx->failures, "%s: the GAMG solution differs from MATAIJ's by %g", when, (double)rel);
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscFunctionReturn(0);
}

static PetscErrorCode GAMGRetrieve(TestContext *ctx)
{
  Mat A, Aaij;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATBSRCUSTOM, 6, 3, &A));
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATAIJ, 6, 3, &Aaij));
  PetscCall(CompareGAMG(ctx, A, Aaij, "first solve"));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscCall(MatStoreValues(A));
  PetscCall(MatScale(A, 4.0));
  PetscCall(MatScale(Aaij, 4.0));
  PetscCall(CompareGAMG(ctx, A, Aaij, "after MatStoreValues + MatScale"));
  PetscCall(MatRetrieveValues(A));
  PetscCall(MatScale(Aaij, 0.25));
  PetscCall(CompareGAMG(ctx, A, Aaij, "after MatRetrieveValues"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aaij));
  PetscFunctionReturn(0);
}

/* bs 2, no near null space given: GAMG's default (constant per component) gives P square 2x2 blocks */
static PetscErrorCode GAMGBs2(TestContext *ctx)
{
  Mat A, Aaij;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATBSRCUSTOM, 8, 2, &A));
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATAIJ, 8, 2, &Aaij));
  PetscCall(CompareGAMG(ctx, A, Aaij, "bs 2"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aaij));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"store_retrieve", ValueRoute, ROUTE_STORE_RETRIEVE}, {"get_restore_array", ValueRoute, ROUTE_GET_RESTORE_ARRAY}, {"scale", ValueRoute, ROUTE_SCALE},    {"zero_rows", ValueRoute, ROUTE_ZERO_ROWS}, {"copy", ValueRoute, ROUTE_COPY},
    {"set_values", ValueRoute, ROUTE_SET_VALUES},         {"no_new_nonzeros", ValueRoute, ROUTE_NO_NEW_NONZEROS},     {"ours_times_ours", OursTimesOurs, 0}, {"gamg_retrieve", GAMGRetrieve, 0},         {"gamg_bs2", GAMGBs2, 0},
  };
  Sizes sz = {3, 9};
  int   status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &sz.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &sz.nbrows, NULL));
  PetscCheck(sz.bs >= 1 && sz.bs <= 64, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs %" PetscInt_FMT ": 1-64", sz.bs);
  PetscCall(TestRunCases("value routes", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &sz, &status));
  PetscCall(PetscFinalize());
  return status;
}
