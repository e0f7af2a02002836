/* Helpers shared by the PETSc-level tests: random block matrices and comparisons. */
#ifndef BSRC_TESTUTILS_H
#define BSRC_TESTUTILS_H

#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h> /* PETSc version differences */

/* Random block-sparse pattern on the given communicator: nbrows_local block rows per rank,
   bs x bs blocks; every third block row empty when with_empty_rows; block row 1 (global) long
   (about half of all block columns) when with_long_row. Values uniform in [-1,1]; assembled as
   `type` with BAIJ-style preallocation. Same seed -> same matrix for any type. */
PetscErrorCode TestRandomBlockMatrix(MPI_Comm comm, MatType type, PetscInt bs, PetscInt nbrows_local, PetscInt nbcols_global, PetscInt blocks_per_row, PetscBool with_empty_rows, PetscBool with_long_row, unsigned seed, Mat *A);

/* The SPD system of the KSP tests: a 3D block diffusion operator on an n^3 grid (7-point coupling
   between nodes), bs x bs blocks with a fixed symmetric coupling inside, assembled as `type`. */
PetscErrorCode TestBlockDiffusionMatrix(MPI_Comm comm, MatType type, PetscInt n, PetscInt bs, Mat *A);

/* Where the options ask for a GPU backend (-mat_bsrcustom_backend cuda|cusparse) and this build or
   machine has none: prints "SKIPPED: ..." and returns PETSC_TRUE; the test then exits with 77, which
   CTest reports as skipped (SKIP_RETURN_CODE). */
PetscErrorCode TestGPUMissing(PetscBool *missing);
#define TEST_SKIP_CODE 77
/* in main(): leaves with TEST_SKIP_CODE when the options ask for a GPU this build or machine lacks */
#define TEST_RETURN_IF_GPU_MISSING() \
  do { \
    PetscBool missing_; \
    PetscCall(TestGPUMissing(&missing_)); \
    if (missing_) { \
      PetscCall(PetscFinalize()); \
      return TEST_SKIP_CODE; \
    } \
  } while (0)

/* y = A x (y filled with garbage first: it must not be read), z = A x + w, w = A x + w in place,
   each against Ref to the relative tolerance tol; failures are counted and printed. */
PetscErrorCode TestCompareProducts(Mat A, Mat Ref, PetscReal tol, PetscInt *failures, const char *what);

/* How often the log event `name` has run (logging must be on: PetscLogDefaultBegin()). */
PetscErrorCode TestEventCount(const char *name, PetscLogDouble *count);

/* MatView of a sequential matrix A in PETSC_VIEWER_ASCII_INFO, as text (at most len - 1 bytes). A
   string viewer does not take that format, so it goes through a file of this rank's, removed after. */
PetscErrorCode TestViewInfoText(Mat A, char *text, size_t len);

/* ||a - b||_inf / max(||b||_inf, tiny) */
PetscErrorCode TestRelDiff(Vec a, Vec b, PetscReal *rel);

/* Counts failures; prints a line per failed check on rank 0. */
#define TEST_CHECK(comm, cond, failures, ...) \
  do { \
    if (!(cond)) { \
      PetscCall(PetscPrintf(comm, "FAIL %s:%d: ", __FILE__, __LINE__)); \
      PetscCall(PetscPrintf(comm, __VA_ARGS__)); \
      PetscCall(PetscPrintf(comm, "\n")); \
      (failures)++; \
    } \
  } while (0)

#endif
