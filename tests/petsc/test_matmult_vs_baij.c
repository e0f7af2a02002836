static const char help[] = "MatMult/MatMultAdd of bsrcustom against MATBAIJ on random block matrices.\n"
                           "Block sizes 1-8, 11, 16; empty block rows; one long block row; several thread and chunk settings;\n"
                           "value-only and structural reassembly (what the backend made for the structure, the cpu backend's\n"
                           "task partition or a GPU backend's device structure, is made again only for the latter);\n"
                           "the matrix values on huge pages (-mat_bsrcustom_huge_pages) and not.\n";

/* Coverage (cases, -test_list), MatMult, MatMultAdd z != y and z == y against MATBAIJ to 1e-13:
     products_bs<1-8,11,16>  3 shapes (plain, empty block rows, + one long block row) x threads 1-4
                             (up to -max_threads) x chunks per thread 1, 8, 2048 x shared rows carry,
                             atomic; -nbrows block rows per rank (37), -per_row blocks (5)
     reassembly              bs 3: value-only reassembly keeps what the backend made for the structure
                             (cpu: the task partition; GPU: the device structure), a new block in an
                             empty block row makes it again; products after each
     huge_pages              bs 5, 4000 block rows (6.4 MB of values per rank): values on huge pages (the
                             default) and not, MatView says which (cpu backend)
   Ranks: 1, 2, 3, 4; 1, 2, 4 with -mat_bsrcustom_backend cuda (skipped without a GPU); valgrind. */

#include <stdio.h>
#include <string.h>

#include "testutils.h"

typedef struct {
  PetscInt nbrows, per_row, max_threads; /* -nbrows, -per_row, -max_threads */
} Params;

/* every thread, chunk and shared-rows setting on block size ctx->param, three shapes */
static PetscErrorCode Products(TestContext *ctx)
{
  const Params   *prm    = (const Params *)ctx->data;
  const PetscInt  nbrows = prm->nbrows, per_row = prm->per_row, max_threads = prm->max_threads;
  const PetscReal tol       = 1e-13;
  MPI_Comm        comm      = ctx->comm;
  const PetscInt  threads[] = {1, 2, 3, 4};
  const PetscInt  chunks[]  = {1, 8, 2048};
  const PetscInt  bs        = ctx->param;

  PetscFunctionBegin;
  for (int shape = 0; shape < 3; shape++) {
    const PetscBool empty = (PetscBool)(shape >= 1), longrow = (PetscBool)(shape == 2);
    Mat             A, Ref;
    char            what[256];

    PetscCall(TestRandomBlockMatrix(comm, MATBAIJ, bs, nbrows, nbrows + 5, per_row, empty, longrow, 17u + (unsigned)bs, &Ref));
    PetscCall(TestRandomBlockMatrix(comm, MATBSRCUSTOM, bs, nbrows, nbrows + 5, per_row, empty, longrow, 17u + (unsigned)bs, &A));
    for (size_t it = 0; it < PETSC_STATIC_ARRAY_LENGTH(threads); it++) {
      if (threads[it] > max_threads) continue;
      for (size_t ic = 0; ic < PETSC_STATIC_ARRAY_LENGTH(chunks); ic++) {
        for (int mode = 0; mode < 2; mode++) {
          PetscCall(MatBSRCustomSetNumThreads(A, threads[it]));
          PetscCall(MatBSRCustomSetChunksPerThread(A, chunks[ic]));
          PetscCall(MatBSRCustomSetSharedRows(A, (MatBSRCustomSharedRows)mode));
          PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d threads %" PetscInt_FMT " chunks %" PetscInt_FMT " %s", bs, shape, threads[it], chunks[ic], MatBSRCustomSharedRowsTypes[mode]));
          PetscCall(TestCompareProducts(A, Ref, tol, &ctx->failures, what));
        }
      }
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }
  PetscFunctionReturn(0);
}

/* What the backend made for the structure so far: the cpu backend cuts a task partition (at assembly),
   a GPU backend uploads the structure to the device (at the next product) and cuts none. */
static PetscErrorCode StructureBuilds(PetscLogDouble *count)
{
  PetscLogDouble tasks, uploads;

  PetscFunctionBegin;
  PetscCall(TestEventCount("BSRCustomTasks", &tasks));
  PetscCall(TestEventCount("BSRCustomUpStruct", &uploads));
  *count = tasks + uploads;
  PetscFunctionReturn(0);
}

/* Reassembly: values only (nothing made again for the structure), then a new nonzero (made again). */
static PetscErrorCode Reassembly(TestContext *ctx)
{
  const Params   *prm    = (const Params *)ctx->data;
  const PetscInt  nbrows = prm->nbrows, per_row = prm->per_row;
  const PetscReal tol  = 1e-13;
  MPI_Comm        comm = ctx->comm;
  Mat             A, Ref;
  PetscLogDouble  before, after;
  PetscInt        row = 0, col = 0, bs = 3;
  PetscScalar     v[9];

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(comm, MATBAIJ, bs, nbrows, nbrows, per_row, PETSC_TRUE, PETSC_FALSE, 5u, &Ref));
  PetscCall(TestRandomBlockMatrix(comm, MATBSRCUSTOM, bs, nbrows, nbrows, per_row, PETSC_TRUE, PETSC_FALSE, 5u, &A));
  PetscCall(TestCompareProducts(A, Ref, tol, &ctx->failures, "before reassembly"));
  PetscCall(StructureBuilds(&before));
  TEST_CHECK(comm, before > 0, ctx->failures, "no task partition or device structure was made for the matrix (%g)", before);
  PetscCall(MatScale(Ref, 2.0));
  PetscCall(MatScale(A, 2.0));
  for (PetscInt k = 0; k < 9; k++) v[k] = 0.25 * (PetscScalar)(k + 1);
  {
    PetscInt rs;
    PetscCall(MatGetOwnershipRange(A, &rs, NULL));
    row = rs / bs;
    if (row % 3 == 2) row++; /* every third block row is empty by construction */
    /* an existing block of that row: its first column */
    {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(Ref, row * bs, &nc, &cols, &vals));
      PetscCheck(nc > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test matrix row %" PetscInt_FMT " unexpectedly empty", row);
      col = cols[0] / bs;
      PetscCall(MatRestoreRow(Ref, row * bs, &nc, &cols, &vals));
    }
  }
  PetscCall(MatSetValuesBlocked(Ref, 1, &row, 1, &col, v, ADD_VALUES));
  PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &col, v, ADD_VALUES));
  PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(TestCompareProducts(A, Ref, tol, &ctx->failures, "after value-only reassembly"));
  PetscCall(StructureBuilds(&after));
  TEST_CHECK(comm, after == before, ctx->failures, "value-only reassembly made the partition or device structure again (%g -> %g builds)", before, after);

  /* new block in an empty block row (row 2 is empty by construction) */
  {
    PetscInt rs, re, erow;
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    erow = rs / bs + 2 - (rs / bs) % 3;
    if (erow < rs / bs) erow += 3;
    if (erow * bs >= re) erow = rs / bs;
    {
      PetscInt N;
      PetscCall(MatGetSize(A, NULL, &N));
      col = erow % (N / bs);
    }
    PetscCall(MatSetOption(Ref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValuesBlocked(Ref, 1, &erow, 1, &col, v, ADD_VALUES));
    PetscCall(MatSetValuesBlocked(A, 1, &erow, 1, &col, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(TestCompareProducts(A, Ref, tol, &ctx->failures, "after structural reassembly"));
  PetscCall(StructureBuilds(&before)); /* after the products: a GPU backend uploads at the first */
  TEST_CHECK(comm, before > after, ctx->failures, "structural reassembly did not make the partition or device structure again (%g builds)", before);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* Huge pages (cpu backend): values of 6.4 MB per rank span whole 2 MiB pages, so the advice really
   runs (MADV_COLLAPSE moves the pages under the values); products against BAIJ with it (the
   default) and without, and MatView saying which */
static PetscErrorCode HugePages(TestContext *ctx)
{
  const PetscReal     tol  = 1e-13;
  MPI_Comm            comm = ctx->comm;
  MatBSRCustomBackend backend;
  Mat                 A, Ref;
  PetscBool           huge = PETSC_FALSE;
  char                text[2048];
  const char         *state;

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(comm, MATBAIJ, 5, 4000, 4000, 8, PETSC_FALSE, PETSC_FALSE, 11u, &Ref));
  PetscCall(TestRandomBlockMatrix(comm, MATBSRCUSTOM, 5, 4000, 4000, 8, PETSC_FALSE, PETSC_FALSE, 11u, &A));
  PetscCall(MatBSRCustomGetBackend(A, &backend));
  PetscCall(MatBSRCustomGetHugePages(A, &huge));
  TEST_CHECK(comm, huge, ctx->failures, "huge pages are not asked for by default");
  for (int on = 1; on >= 0 && backend == MAT_BSRCUSTOM_BACKEND_CPU; on--) {
    Mat As = A;
    PetscCall(MatBSRCustomSetHugePages(A, (PetscBool)on));
    PetscCall(MatBSRCustomSetChunksPerThread(A, on ? 8 : 4)); /* a new partition: the advice is given again (or not) */
    PetscCall(TestCompareProducts(A, Ref, tol, &ctx->failures, on ? "values on huge pages" : "huge pages not asked for"));
    {
      PetscMPIInt size;
      PetscCallMPI(MPI_Comm_size(comm, &size));
      if (size > 1) PetscCall(MatBSRCustomGetLocalAndGhost(A, &As, NULL, NULL, NULL, NULL, NULL));
    }
    PetscCall(TestViewInfoText(As, text, sizeof(text)));
    state = strstr(text, "huge pages for the values ");
    TEST_CHECK(comm, state != NULL, ctx->failures, "MatView does not say whether the values are on huge pages:\n%s", text);
    if (state) {
      state += strlen("huge pages for the values ");
      TEST_CHECK(comm, on ? strncmp(state, "not asked", 9) != 0 : strncmp(state, "not asked", 9) == 0, ctx->failures, "MatView with huge pages %s: %s", on ? "on" : "off", state);
      if (on) PetscCall(PetscPrintf(PETSC_COMM_SELF, "huge pages for the values: %.*s\n", (int)strcspn(state, "\n"), state));
    }
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"products_bs1", Products, 1}, {"products_bs2", Products, 2}, {"products_bs3", Products, 3},   {"products_bs4", Products, 4},   {"products_bs5", Products, 5}, {"products_bs6", Products, 6},
    {"products_bs7", Products, 7}, {"products_bs8", Products, 8}, {"products_bs11", Products, 11}, {"products_bs16", Products, 16}, {"reassembly", Reassembly, 0}, {"huge_pages", HugePages, 0},
  };
  Params prm = {37, 5, 4};
  int    status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &prm.nbrows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-per_row", &prm.per_row, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_threads", &prm.max_threads, NULL)); /* oversubscribed runs */
  /* where run with -mat_bsrcustom_backend cuda without a GPU, the runner skips every case */
  PetscCall(TestRunCases("matmult vs baij", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &prm, &status));
  PetscCall(PetscFinalize());
  return status;
}
