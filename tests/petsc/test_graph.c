static const char help[] = "MatCreateGraph of bsrcustom (what PCGAMG coarsens, issue 37) against MatCreateGraph of MATAIJ holding\n"
                           "the same matrix with the same block size, each case reported by name:\n"
                           "  random_bs<k>   bs k = 1..6, a nonsymmetric random pattern (empty block rows, weak and zero blocks):\n"
                           "                 every (symmetrize, scale, filter -1/0/0.01/0.1, index list where PETSc has them)\n"
                           "  stencil_bs<k>  a symmetric 3D stencil, with MAT_SYMMETRIC set (no symmetrization) and without\n"
                           "  empty_rank     a layout with no rows on the last rank (one rank: an empty matrix)\n"
                           "  mpi_type       mpibsrcustom against mpiaij named outright (one rank: no ghost columns)\n"
                           "  threads        4500 block rows a rank: the collapse on 2 OpenMP threads\n"
                           "  new_values     the graph follows new values of the same matrix\n"
                           "  native_route   the graph is made from the blocks: no AIJ copy of the matrix is made\n"
                           "  bad_index      an index list entry outside the block is refused (PETSc with index lists)\n"
                           "  bad_layout     rows and columns laid out differently are refused\n"
                           "Same type, sizes, block sizes, nonzero pattern and symmetry flags; values equal to 1e-14 relative.\n";

#include "testutils.h"

static const PetscReal filters[] = {-1.0, 0.0, 0.01, 0.1};

/* a small deterministic generator, the same on every rank for the same global block row */
static PetscReal NextRand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

/* Block row i of the random pattern on nb block columns: none for every 7th row; else the diagonal
   block and up to 4 others. Values in [-1, 1]; the second block of every third row is weak (1e-3) and
   that of every fifth row all zero (filter 0 must drop it). Columns sorted, distinct. */
static void RandomBlockRow(PetscInt i, PetscInt nb, PetscInt bs, PetscInt *n, PetscInt cols[], PetscScalar vals[])
{
  unsigned s   = 2654435761u * (unsigned)(i + 1);
  PetscInt cnt = 0;

  *n = 0;
  if (i % 7 == 3 || nb == 0) return;
  cols[cnt++] = i;
  for (PetscInt k = 0; k < 4; k++) {
    PetscInt  c = (PetscInt)(NextRand(&s) * nb) % nb, pos = cnt;
    PetscBool dup = PETSC_FALSE;
    for (PetscInt q = 0; q < cnt; q++) dup = (PetscBool)(dup || cols[q] == c);
    if (dup) continue;
    while (pos > 0 && cols[pos - 1] > c) {
      cols[pos] = cols[pos - 1];
      pos--;
    }
    cols[pos] = c;
    cnt++;
  }
  for (PetscInt k = 0; k < cnt * bs * bs; k++) {
    PetscReal v     = 2.0 * NextRand(&s) - 1.0;
    PetscInt  block = k / (bs * bs);
    vals[k]         = (block == 1 && i % 5 == 0) ? 0.0 : (block == 1 && i % 3 == 0) ? 1e-3 * v : v;
  }
  *n = cnt;
}

/* The random matrix as `type` with nrows_local block rows on this rank (square, columns laid out like rows) */
static PetscErrorCode RandomMatrix(MPI_Comm comm, MatType type, PetscInt bs, PetscInt nrows_local, Mat *A)
{
  PetscInt     rstart, rend, nb, n, *cols;
  PetscScalar *vals;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nrows_local * bs, nrows_local * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &nb, NULL));
  nb /= bs;
  PetscCall(PetscMalloc2(5, &cols, 5 * bs * bs, &vals));
  for (PetscInt i = rstart / bs; i < rend / bs; i++) {
    RandomBlockRow(i, nb, bs, &n, cols, vals);
    /* vals holds the blocks one after another, each row-major: one block at a time */
    for (PetscInt k = 0; k < n; k++) PetscCall(MatSetValuesBlocked(*A, 1, &i, 1, &cols[k], vals + k * bs * bs, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(0);
}

/* G against the reference R: type, sizes, block sizes, symmetry flags, pattern and values row by row */
static PetscErrorCode CompareGraphs(TestContext *ctx, Mat G, Mat R, const char *what)
{
  PetscInt  m, n, M, N, rm, rn, rM, rN, bs, cbs, rbs, rcbs, rstart, rend, bad = 0;
  PetscBool same_type, gset, gsym, rset, rsym;
  MatType   gtype, rtype;
  char      first[256] = "";

  PetscFunctionBegin;
  PetscCall(MatGetType(G, &gtype));
  PetscCall(MatGetType(R, &rtype));
  PetscCall(PetscStrcmp(gtype, rtype, &same_type));
  TEST_CHECK(ctx->comm, same_type, ctx->failures, "%s: graph type %s, AIJ's %s", what, gtype, rtype);
  PetscCall(MatGetSize(G, &M, &N));
  PetscCall(MatGetSize(R, &rM, &rN));
  PetscCall(MatGetLocalSize(G, &m, &n));
  PetscCall(MatGetLocalSize(R, &rm, &rn));
  TEST_CHECK(PETSC_COMM_SELF, M == rM && N == rN && m == rm && n == rn, ctx->failures, "%s: sizes %" PetscInt_FMT "x%" PetscInt_FMT " (local %" PetscInt_FMT "x%" PetscInt_FMT "), AIJ's %" PetscInt_FMT "x%" PetscInt_FMT " (%" PetscInt_FMT "x%" PetscInt_FMT ")", what, M, N, m, n, rM, rN, rm, rn);
  PetscCall(MatGetBlockSizes(G, &bs, &cbs));
  PetscCall(MatGetBlockSizes(R, &rbs, &rcbs));
  TEST_CHECK(ctx->comm, bs == rbs && cbs == rcbs, ctx->failures, "%s: block sizes %" PetscInt_FMT ",%" PetscInt_FMT ", AIJ's %" PetscInt_FMT ",%" PetscInt_FMT, what, bs, cbs, rbs, rcbs);
  PetscCall(MatIsSymmetricKnown(G, &gset, &gsym));
  PetscCall(MatIsSymmetricKnown(R, &rset, &rsym));
  TEST_CHECK(ctx->comm, gset == rset && (!gset || gsym == rsym), ctx->failures, "%s: symmetry known %d (symmetric %d), AIJ's %d (%d)", what, (int)gset, (int)gsym, (int)rset, (int)rsym);
  if (M != rM || m != rm) PetscFunctionReturn(0);
  PetscCall(MatGetOwnershipRange(R, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt    *gc, *rc;
    const PetscScalar *gv, *rv;
    PetscInt           gn, rnz;

    PetscCall(MatGetRow(G, row, &gn, &gc, &gv));
    PetscCall(MatGetRow(R, row, &rnz, &rc, &rv));
    if (gn != rnz) {
      if (!bad++) PetscCall(PetscSNPrintf(first, sizeof(first), "row %" PetscInt_FMT ": %" PetscInt_FMT " entries, AIJ's %" PetscInt_FMT, row, gn, rnz));
    } else {
      for (PetscInt k = 0; k < gn; k++) {
        PetscReal diff = PetscAbsScalar(gv[k] - rv[k]);
        if (gc[k] != rc[k]) {
          if (!bad++) PetscCall(PetscSNPrintf(first, sizeof(first), "row %" PetscInt_FMT " entry %" PetscInt_FMT ": column %" PetscInt_FMT ", AIJ's %" PetscInt_FMT, row, k, gc[k], rc[k]));
        } else if (gv[k] != rv[k] && !(diff <= 1e-14 * PetscAbsScalar(rv[k]))) {
          if (!bad++) PetscCall(PetscSNPrintf(first, sizeof(first), "row %" PetscInt_FMT " column %" PetscInt_FMT ": %g, AIJ's %g", row, gc[k], (double)PetscRealPart(gv[k]), (double)PetscRealPart(rv[k])));
        }
      }
    }
    PetscCall(MatRestoreRow(G, row, &gn, &gc, &gv));
    PetscCall(MatRestoreRow(R, row, &rnz, &rc, &rv));
  }
  TEST_CHECK(PETSC_COMM_SELF, bad == 0, ctx->failures, "%s: %" PetscInt_FMT " rows or entries differ, first %s", what, bad, first);
  PetscFunctionReturn(0);
}

/* The graphs of A (ours) and Ref (AIJ) for one set of arguments, compared */
static PetscErrorCode CompareOne(TestContext *ctx, Mat A, Mat Ref, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt nidx, PetscInt idx[], const char *what)
{
  Mat  G, R;
  char name[512];

  PetscFunctionBegin;
  PetscCall(BSRCMatCreateGraph(A, sym, scale, filter, nidx, idx, &G));
  PetscCall(BSRCMatCreateGraph(Ref, sym, scale, filter, nidx, idx, &R));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s, sym %d scale %d filter %g index list of %" PetscInt_FMT, what, (int)sym, (int)scale, (double)filter, nidx));
  PetscCall(CompareGraphs(ctx, G, R, name));
  PetscCall(MatDestroy(&G));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(0);
}

/* every combination of the arguments; index lists: none, the first row, the last and the first rows
   (in that order), where PETSc takes them */
static PetscErrorCode CompareAll(TestContext *ctx, Mat A, Mat Ref, const char *what)
{
  PetscInt bs, lists[3][2], nlists = 1, nidx[3] = {0, 1, 2};

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  lists[1][0] = 0;
  lists[2][0] = bs - 1;
  lists[2][1] = 0;
  if (BSRC_CREATEGRAPH_HAS_INDEX) nlists = bs > 1 ? 3 : 2;
  for (int sym = 0; sym < 2; sym++)
    for (int scale = 0; scale < 2; scale++)
      for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(filters); f++)
        for (PetscInt l = 0; l < nlists; l++) PetscCall(CompareOne(ctx, A, Ref, (PetscBool)sym, (PetscBool)scale, filters[f], nidx[l], nidx[l] ? lists[l] : NULL, what));
  PetscFunctionReturn(0);
}

static PetscErrorCode RandomCase(TestContext *ctx)
{
  Mat  A, Ref;
  char what[64];

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, ctx->param, 13 + ctx->rank, &A));
  PetscCall(RandomMatrix(ctx->comm, MATAIJ, ctx->param, 13 + ctx->rank, &Ref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "random bs %" PetscInt_FMT, ctx->param));
  PetscCall(CompareAll(ctx, A, Ref, what));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* enough block rows for the collapse to run on 2 OpenMP threads (what the small cases do not reach) */
static PetscErrorCode ThreadsCase(TestContext *ctx)
{
  Mat A, Ref;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, 3, 4500, &A));
  PetscCall(RandomMatrix(ctx->comm, MATAIJ, 3, 4500, &Ref));
  PetscCall(MatBSRCustomSetNumThreads(A, 2));
  PetscCall(CompareOne(ctx, A, Ref, PETSC_TRUE, PETSC_TRUE, 0.01, 0, NULL, "4500 block rows a rank, 2 threads"));
  PetscCall(CompareOne(ctx, A, Ref, PETSC_FALSE, PETSC_FALSE, -1.0, 0, NULL, "4500 block rows a rank, 2 threads"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* the mpi types named outright: on one rank an MPI matrix without ghost columns */
static PetscErrorCode MPITypeCase(TestContext *ctx)
{
  Mat A, Ref;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATMPIBSRCUSTOM, 3, 12, &A));
  PetscCall(RandomMatrix(ctx->comm, MATMPIAIJ, 3, 12, &Ref));
  PetscCall(CompareAll(ctx, A, Ref, "mpibsrcustom against mpiaij"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

static PetscErrorCode StencilCase(TestContext *ctx)
{
  Mat  A, Ref;
  char what[64];

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATBSRCUSTOM, 4, ctx->param, &A));
  PetscCall(TestBlockDiffusionMatrix(ctx->comm, MATAIJ, 4, ctx->param, &Ref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "stencil bs %" PetscInt_FMT, ctx->param));
  PetscCall(CompareAll(ctx, A, Ref, what));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(Ref, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscSNPrintf(what, sizeof(what), "stencil bs %" PetscInt_FMT " known symmetric", ctx->param));
  PetscCall(CompareAll(ctx, A, Ref, what));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

static PetscErrorCode EmptyRankCase(TestContext *ctx)
{
  Mat      A, Ref;
  PetscInt n = ctx->rank == ctx->size - 1 ? 0 : 9 + ctx->rank;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, 3, n, &A));
  PetscCall(RandomMatrix(ctx->comm, MATAIJ, 3, n, &Ref));
  PetscCall(CompareAll(ctx, A, Ref, "no rows on the last rank"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* new values (a scaled row), same pattern: the graph follows them */
static PetscErrorCode NewValuesCase(TestContext *ctx)
{
  Mat A, Ref, G0, G1;
  Vec l;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, 2, 11, &A));
  PetscCall(RandomMatrix(ctx->comm, MATAIJ, 2, 11, &Ref));
  PetscCall(BSRCMatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, 0.05, 0, NULL, &G0));
  PetscCall(MatCreateVecs(A, NULL, &l));
  PetscCall(VecSet(l, 1.0));
  PetscCall(VecSetValue(l, 0, 50.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(l));
  PetscCall(VecAssemblyEnd(l));
  PetscCall(MatDiagonalScale(A, l, NULL));
  PetscCall(MatDiagonalScale(Ref, l, NULL));
  PetscCall(CompareOne(ctx, A, Ref, PETSC_TRUE, PETSC_TRUE, 0.05, 0, NULL, "after new values"));
  PetscCall(BSRCMatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, 0.05, 0, NULL, &G1));
  {
    PetscBool eq;
    PetscCall(MatEqual(G0, G1, &eq));
    TEST_CHECK(ctx->comm, !eq, ctx->failures, "the graph did not change with the values");
  }
  PetscCall(MatDestroy(&G0));
  PetscCall(MatDestroy(&G1));
  PetscCall(VecDestroy(&l));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* the graph comes from the blocks: our graph event runs, and no AIJ copy hangs on the matrix after */
static PetscErrorCode NativeRouteCase(TestContext *ctx)
{
  Mat            A, G;
  PetscLogDouble before, after;
  PetscObject    twin;

  PetscFunctionBegin;
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, 3, 10, &A));
  PetscCall(TestEventCount("BSRCustomGraph", &before));
  PetscCall(BSRCMatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, 0.01, 0, NULL, &G));
  PetscCall(TestEventCount("BSRCustomGraph", &after));
  PetscCall(PetscObjectQuery((PetscObject)A, "BSRCustom_AIJTwin", &twin));
  TEST_CHECK(ctx->comm, after == before + 1, ctx->failures, "the graph event ran %g times, not once", after - before);
  TEST_CHECK(PETSC_COMM_SELF, twin == NULL, ctx->failures, "an AIJ copy of the matrix was made for its graph");
  PetscCall(MatDestroy(&G));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode BadIndexCase(TestContext *ctx)
{
  Mat            A, G = NULL;
  PetscInt       idx[2] = {0, 3};
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!BSRC_CREATEGRAPH_HAS_INDEX) {
    PetscCall(TestSkip(ctx, "this PETSc's MatCreateGraph takes no index list"));
    PetscFunctionReturn(0);
  }
  PetscCall(RandomMatrix(ctx->comm, MATBSRCUSTOM, 3, 6, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BSRCMatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, -1.0, 2, idx, &G);
  PetscCall(PetscPopErrorHandler());
  TEST_CHECK(ctx->comm, ierr == PETSC_ERR_ARG_OUTOFRANGE, ctx->failures, "index 3 of a 3x3 block: error %d, not PETSC_ERR_ARG_OUTOFRANGE", (int)ierr);
  PetscCall(MatDestroy(&G));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* rows and columns laid out differently (one rank: more columns than rows; several: the same sizes
   split differently) are refused */
static PetscErrorCode BadLayoutCase(TestContext *ctx)
{
  Mat            A, G = NULL;
  PetscInt       nrows = ctx->size == 1 ? 6 : 8 + (ctx->rank == 0 ? ctx->size - 1 : -1);
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(ctx->comm, MATBSRCUSTOM, 2, nrows, 8 * ctx->size, 3, PETSC_FALSE, PETSC_FALSE, 5u, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BSRCMatCreateGraph(A, PETSC_TRUE, PETSC_TRUE, -1.0, 0, NULL, &G);
  PetscCall(PetscPopErrorHandler());
  TEST_CHECK(ctx->comm, ierr == PETSC_ERR_ARG_SIZ, ctx->failures, "rows and columns laid out differently: error %d, not PETSC_ERR_ARG_SIZ", (int)ierr);
  PetscCall(MatDestroy(&G));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"random_bs1", RandomCase, 1},   {"random_bs2", RandomCase, 2},    {"random_bs3", RandomCase, 3},        {"random_bs4", RandomCase, 4},   {"random_bs5", RandomCase, 5},    {"random_bs6", RandomCase, 6},    {"stencil_bs1", StencilCase, 1},
    {"stencil_bs2", StencilCase, 2}, {"stencil_bs3", StencilCase, 3},  {"stencil_bs4", StencilCase, 4},      {"stencil_bs5", StencilCase, 5}, {"stencil_bs6", StencilCase, 6},  {"empty_rank", EmptyRankCase, 0}, {"mpi_type", MPITypeCase, 0},
    {"threads", ThreadsCase, 0},     {"new_values", NewValuesCase, 0}, {"native_route", NativeRouteCase, 0}, {"bad_index", BadIndexCase, 0},  {"bad_layout", BadLayoutCase, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("graph", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
