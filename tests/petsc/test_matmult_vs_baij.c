static const char help[] = "MatMult/MatMultAdd of bsrcustom against MATBAIJ on random block matrices.\n"
                           "Block sizes 1-8, 11, 16; empty block rows; one long block row; several thread and chunk settings;\n"
                           "value-only and structural reassembly (the task partition is rebuilt only for the latter);\n"
                           "the matrix values on huge pages (-mat_bsrcustom_huge_pages) and not.\n";

#include <stdio.h>
#include <string.h>

#include "testutils.h"

int main(int argc, char **argv)
{
  const PetscInt bss[]     = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16};
  const PetscInt threads[] = {1, 2, 3, 4};
  const PetscInt chunks[]  = {1, 8, 2048};
  PetscInt       failures = 0, nchecks = 0, nbrows = 37, per_row = 5, max_threads = 4;
  PetscReal      tol      = 1e-13;
  MPI_Comm       comm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  TEST_RETURN_IF_GPU_MISSING(); /* where run with -mat_bsrcustom_backend cuda */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbrows", &nbrows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-per_row", &per_row, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_threads", &max_threads, NULL)); /* oversubscribed runs */

  for (size_t ib = 0; ib < PETSC_STATIC_ARRAY_LENGTH(bss); ib++) {
    for (int shape = 0; shape < 3; shape++) {
      const PetscBool empty = (PetscBool)(shape >= 1), longrow = (PetscBool)(shape == 2);
      const PetscInt  bs    = bss[ib];
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
            PetscCall(TestCompareProducts(A, Ref, tol, &failures, what));
            nchecks++;
          }
        }
      }
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Ref));
    }
  }

  /* Reassembly: values only (no new partition), then a new nonzero (new partition). */
  {
    Mat            A, Ref;
    PetscLogDouble before, after;
    PetscInt       row = 0, col = 0, bs = 3;
    PetscScalar    v[9];

    PetscCall(TestRandomBlockMatrix(comm, MATBAIJ, bs, nbrows, nbrows, per_row, PETSC_TRUE, PETSC_FALSE, 5u, &Ref));
    PetscCall(TestRandomBlockMatrix(comm, MATBSRCUSTOM, bs, nbrows, nbrows, per_row, PETSC_TRUE, PETSC_FALSE, 5u, &A));
    PetscCall(TestCompareProducts(A, Ref, tol, &failures, "before reassembly"));
    PetscCall(TestEventCount("BSRCustomTasks", &before));
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
    PetscCall(TestCompareProducts(A, Ref, tol, &failures, "after value-only reassembly"));
    PetscCall(TestEventCount("BSRCustomTasks", &after));
    TEST_CHECK(comm, after == before, failures, "value-only reassembly rebuilt the partition (%g -> %g builds)", before, after);
    nchecks++;

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
    PetscCall(TestEventCount("BSRCustomTasks", &before));
    TEST_CHECK(comm, before > after, failures, "structural reassembly did not rebuild the partition (%g builds)", before);
    PetscCall(TestCompareProducts(A, Ref, tol, &failures, "after structural reassembly"));
    nchecks++;
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }

  /* Huge pages (cpu backend): values of 6.4 MB per rank span whole 2 MiB pages, so the advice really
     runs (MADV_COLLAPSE moves the pages under the values); products against BAIJ with it (the
     default) and without, and MatView saying which */
  {
    MatBSRCustomBackend backend;
    Mat                 A, Ref;
    PetscBool           huge = PETSC_FALSE;
    char                text[2048];
    const char         *state;

    PetscCall(TestRandomBlockMatrix(comm, MATBAIJ, 5, 4000, 4000, 8, PETSC_FALSE, PETSC_FALSE, 11u, &Ref));
    PetscCall(TestRandomBlockMatrix(comm, MATBSRCUSTOM, 5, 4000, 4000, 8, PETSC_FALSE, PETSC_FALSE, 11u, &A));
    PetscCall(MatBSRCustomGetBackend(A, &backend));
    PetscCall(MatBSRCustomGetHugePages(A, &huge));
    TEST_CHECK(comm, huge, failures, "huge pages are not asked for by default");
    for (int on = 1; on >= 0 && backend == MAT_BSRCUSTOM_BACKEND_CPU; on--) {
      Mat As = A;
      PetscCall(MatBSRCustomSetHugePages(A, (PetscBool)on));
      PetscCall(MatBSRCustomSetChunksPerThread(A, on ? 8 : 4)); /* a new partition: the advice is given again (or not) */
      PetscCall(TestCompareProducts(A, Ref, tol, &failures, on ? "values on huge pages" : "huge pages not asked for"));
      nchecks++;
      {
        PetscMPIInt size;
        PetscCallMPI(MPI_Comm_size(comm, &size));
        if (size > 1) PetscCall(MatBSRCustomGetLocalAndGhost(A, &As, NULL, NULL, NULL, NULL, NULL));
      }
      PetscCall(TestViewInfoText(As, text, sizeof(text)));
      state = strstr(text, "huge pages for the values ");
      TEST_CHECK(comm, state != NULL, failures, "MatView does not say whether the values are on huge pages:\n%s", text);
      if (state) {
        state += strlen("huge pages for the values ");
        TEST_CHECK(comm, on ? strncmp(state, "not asked", 9) != 0 : strncmp(state, "not asked", 9) == 0, failures, "MatView with huge pages %s: %s", on ? "on" : "off", state);
        if (on) PetscCall(PetscPrintf(PETSC_COMM_SELF, "huge pages for the values: %.*s\n", (int)strcspn(state, "\n"), state));
      }
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }

  PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " configurations checked, %" PetscInt_FMT " failures\n", nchecks, failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
