static const char help[] = "mpibsrcustom against MPIBAIJ on layouts that stress the local/ghost split: uneven row\n"
                           "distributions with ranks that own no rows, no ghost columns at all, every column a ghost, and a\n"
                           "second assembly that adds new off-process entries. Also: 1 vs 2 threads, MatGetDiagonalBlock.\n";

/* Coverage (cases, -test_list): <layout>_bs<1-6>, layouts
     uneven      uneven row distribution, rank 1 owns no rows, a band crossing rank boundaries
     no_ghosts   only own columns (no ghost columns, checked on several ranks)
     all_ghosts  only the next rank's columns (every column a ghost, checked on several ranks)
   each: MatMult, MatMultAdd z != y and z == y against MPIBAIJ and MPIAIJ to 1e-13; 2 threads against 1;
   MatGetDiagonalBlock is seqbsrcustom; a second assembly adding off-process entries (against MPIAIJ).
   Ranks: 1, 2, 3, 4; 2 and 4 with -mat_bsrcustom_backend cuda (skipped without a GPU). */

#include "testutils.h"

typedef enum {
  LAYOUT_UNEVEN,
  LAYOUT_NO_GHOSTS,
  LAYOUT_ALL_GHOSTS
} Layout;
static const char *LayoutNames[] = {"uneven rows (a rank owns none)", "no ghost columns", "every column a ghost"};

/* Local block rows of rank r out of p for each layout (rank 1 owns nothing in the uneven one). */
static PetscInt LocalBlockRows(Layout layout, PetscMPIInt r, PetscMPIInt p)
{
  if (layout == LAYOUT_UNEVEN) return (p > 1 && r == 1) ? 0 : 5 + 3 * r;
  return 6 + r;
}

/* Block columns of global block row gi (owned by rank r, whose block range is [rs, re) of N). */
static PetscInt RowPattern(Layout layout, PetscInt gi, PetscInt rs, PetscInt re, PetscInt N, PetscInt nextrs, PetscInt nextre, PetscInt *cols)
{
  PetscInt n = 0;
  switch (layout) {
  case LAYOUT_UNEVEN: /* a band that wraps around: crosses rank boundaries */
    for (PetscInt d = -2; d <= 3; d++) cols[n++] = ((gi + d) % N + N) % N;
    break;
  case LAYOUT_NO_GHOSTS: /* only own columns */
    for (PetscInt c = rs; c < re; c++)
      if (c == gi || (c + gi) % 3 == 0) cols[n++] = c;
    break;
  case LAYOUT_ALL_GHOSTS: /* only the next rank's columns */
    for (PetscInt c = nextrs; c < nextre; c++)
      if (c % 2 == gi % 2 || c == nextrs) cols[n++] = c;
    break;
  }
  /* sort and unique */
  PetscSortRemoveDupsInt(&n, cols);
  return n;
}

static PetscErrorCode Build(MatType type, Layout layout, PetscInt bs, Mat *A)
{
  PetscMPIInt  rank, size;
  PetscInt     m, rs, re, N, *ranges, cols[64], nc, nextrs, nextre;
  PetscScalar *vals;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc1(size + 1, &ranges));
  ranges[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) ranges[r + 1] = ranges[r] + LocalBlockRows(layout, r, size);
  N      = ranges[size];
  m      = LocalBlockRows(layout, rank, size);
  rs     = ranges[rank];
  re     = ranges[rank + 1];
  nextrs = ranges[(rank + 1) % size];
  nextre = ranges[(rank + 1) % size + 1];
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m * bs, m * bs, N * bs, N * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatMPIBAIJSetPreallocation(*A, bs, 8, NULL, 8, NULL));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, 16, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 8 * bs, NULL, 8 * bs, NULL)); /* for an AIJ reference */
  PetscCall(MatSeqAIJSetPreallocation(*A, 16 * bs, NULL));
  PetscCall(PetscMalloc1(64 * bs * bs, &vals));
  for (PetscInt gi = rs; gi < re; gi++) {
    nc = RowPattern(layout, gi, rs, re, N, nextrs, nextre, cols);
    for (PetscInt k = 0; k < nc * bs * bs; k++) vals[k] = (PetscScalar)(1.0 + ((gi * 31 + k * 7) % 13) / 13.0);
    PetscCall(MatSetValuesBlocked(*A, 1, &gi, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(vals));
  PetscCall(PetscFree(ranges));
  PetscFunctionReturn(0);
}

/* ctx->param = 16 * layout + bs */
static PetscErrorCode LayoutCase(TestContext *ctx)
{
  const Layout      layout = (Layout)(ctx->param / 16);
  const PetscInt    bs     = ctx->param % 16;
  const PetscMPIInt size = ctx->size, rank = ctx->rank;
  Mat               A, Ref, Aij;
  char              what[128];
  PetscInt          nghost;

  PetscFunctionBegin;
  PetscCall(Build(MATBAIJ, layout, bs, &Ref));
  PetscCall(Build(MATAIJ, layout, bs, &Aij)); /* independent of BAIJ's code */
  PetscCall(Build(MATBSRCUSTOM, layout, bs, &A));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT ", %s", bs, LayoutNames[layout]));
  PetscCall(PetscInfo(NULL, "case %s\n", what)); /* -info shows which case a failure belongs to */
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, what));
  PetscCall(TestCompareProducts(A, Aij, 1e-13, &ctx->failures, what));
  if (size > 1) {
    PetscInt m;
    PetscCall(MatBSRCustomGetLocalAndGhost(A, NULL, NULL, &nghost, NULL, NULL, NULL));
    PetscCall(MatGetLocalSize(A, &m, NULL));
    if (layout == LAYOUT_NO_GHOSTS) TEST_CHECK(PETSC_COMM_SELF, nghost == 0, ctx->failures, "[%d] %s: %" PetscInt_FMT " ghosts", rank, what, nghost);
    if (layout == LAYOUT_ALL_GHOSTS) TEST_CHECK(PETSC_COMM_SELF, nghost > 0, ctx->failures, "[%d] %s: no ghosts", rank, what);
  }
  /* threads: 1 and 2 agree (different task partitions, same sums to rounding) */
  {
    Vec       x, y1, y2;
    PetscReal rel;
    PetscCall(MatCreateVecs(A, &x, &y1));
    PetscCall(VecDuplicate(y1, &y2));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatBSRCustomSetNumThreads(A, 1));
    PetscCall(MatMult(A, x, y1));
    PetscCall(MatBSRCustomSetNumThreads(A, 2));
    PetscCall(MatMult(A, x, y2));
    PetscCall(TestRelDiff(y2, y1, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: 2 threads differ from 1 by %g", what, (double)rel);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
  }
  /* the diagonal block, for block Jacobi / ASM, is ours */
  {
    Mat       D;
    PetscBool ours;
    PetscCall(MatGetDiagonalBlock(A, &D));
    PetscCall(PetscObjectTypeCompare((PetscObject)D, MATSEQBSRCUSTOM, &ours));
    TEST_CHECK(PETSC_COMM_WORLD, ours, ctx->failures, "%s: MatGetDiagonalBlock is not seqbsrcustom", what);
  }
  /* second assembly adding new off-process entries: rank r adds to the first row of rank r+1,
     in a column far from anything there (MPIBAIJ disassembles and rebuilds its ghost block) */
  {
    PetscInt    rs, re, N, target, col;
    PetscScalar v[36];
    PetscInt   *ranges;
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    PetscCall(MatGetSize(A, &N, NULL));
    N /= bs;
    PetscCall(PetscMalloc1(size + 1, &ranges));
    ranges[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) ranges[r + 1] = ranges[r] + LocalBlockRows(layout, r, size);
    target = -1;
    for (PetscMPIInt r = 1; r <= size; r++) {
      PetscMPIInt q = (rank + r) % size;
      if (ranges[q + 1] > ranges[q]) {
        target = ranges[q];
        break;
      }
    }
    col = (target + N / 2 + rank) % N;
    for (int k = 0; k < 36; k++) v[k] = 0.5 + k;
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(Aij, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (target >= 0) {
      PetscCall(MatSetValuesBlocked(A, 1, &target, 1, &col, v, ADD_VALUES));
      PetscCall(MatSetValuesBlocked(Aij, 1, &target, 1, &col, v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Aij, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Aij, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscStrlcat(what, ", after adding off-process entries", sizeof(what)));
    PetscCall(PetscInfo(NULL, "case %s\n", what)); /* -info shows which case a failure belongs to */
    /* against MPIAIJ only: PETSc 3.18's MPIBAIJ puts a new off-process block column (bs > 1) into
       ghost column 0 after assembly (see mpibsrcustom.c), so it is no reference here */
    PetscCall(TestCompareProducts(A, Aij, 1e-13, &ctx->failures, what));
    PetscCall(PetscFree(ranges));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscCall(MatDestroy(&Aij));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  /* the order of the old loops: block size outside, layout inside */
  const TestCase cases[] = {
    {"uneven_bs1", LayoutCase, 16 * LAYOUT_UNEVEN + 1},         {"no_ghosts_bs1", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 1},   {"all_ghosts_bs1", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 1}, {"uneven_bs2", LayoutCase, 16 * LAYOUT_UNEVEN + 2},
    {"no_ghosts_bs2", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 2},   {"all_ghosts_bs2", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 2}, {"uneven_bs3", LayoutCase, 16 * LAYOUT_UNEVEN + 3},         {"no_ghosts_bs3", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 3},
    {"all_ghosts_bs3", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 3}, {"uneven_bs4", LayoutCase, 16 * LAYOUT_UNEVEN + 4},         {"no_ghosts_bs4", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 4},   {"all_ghosts_bs4", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 4},
    {"uneven_bs5", LayoutCase, 16 * LAYOUT_UNEVEN + 5},         {"no_ghosts_bs5", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 5},   {"all_ghosts_bs5", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 5}, {"uneven_bs6", LayoutCase, 16 * LAYOUT_UNEVEN + 6},
    {"no_ghosts_bs6", LayoutCase, 16 * LAYOUT_NO_GHOSTS + 6},   {"all_ghosts_bs6", LayoutCase, 16 * LAYOUT_ALL_GHOSTS + 6},
  };
  char name[32];
  int  status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PetscSNPrintf(name, sizeof(name), "mpi layouts on %d ranks", (int)size));
  }
  /* where run with -mat_bsrcustom_backend cuda without a GPU, the runner skips every case */
  PetscCall(TestRunCases(name, PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
