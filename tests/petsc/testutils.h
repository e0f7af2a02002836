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
   machine has none: *missing is PETSC_TRUE and reason (if not NULL) says what is lacking. The runner
   below then reports every case as skipped (exit 77, which CTest reports as skipped). */
PetscErrorCode TestGPUMissing(PetscBool *missing, char *reason, size_t len);
#define TEST_SKIP_CODE 77

/* y = A x (y filled with garbage first: it must not be read), z = A x + w, w = A x + w in place,
   each against Ref to the relative tolerance tol, on Ref's vectors and, where A's own vectors are of
   another type (CUDA vectors of a GPU backend), on those too; failures are counted and printed. */
PetscErrorCode TestCompareProducts(Mat A, Mat Ref, PetscReal tol, PetscInt *failures, const char *what);
/* The same, on A's own vectors only when own_vectors is true. */
PetscErrorCode TestCompareProductsOn(Mat A, Mat Ref, PetscReal tol, PetscBool own_vectors, PetscInt *failures, const char *what);

/* The same change to a matrix and its reference: block (row, col) (global block indices) set to or
   added with the bs x bs values v, then both assembled (MAT_FINAL_ASSEMBLY). new_block: the block may
   be a new nonzero (MAT_NEW_NONZERO_ALLOCATION_ERR is turned off on both first). */
PetscErrorCode TestSetBlockInBoth(Mat A, Mat Ref, PetscInt row, PetscInt col, const PetscScalar v[], InsertMode mode, PetscBool new_block);

/* worst = max over columns j of ||C(:,j) - Ref B(:,j)|| / ||Ref B(:,j)||, C and B dense (host or CUDA:
   read through host copies), Ref the reference matrix's MatMult. */
PetscErrorCode TestCompareDenseProduct(Mat C, Mat Ref, Mat B, PetscReal *worst);

/* How often the log event `name` has run (logging must be on: PetscLogDefaultBegin()). */
PetscErrorCode TestEventCount(const char *name, PetscLogDouble *count);

/* MatView of a sequential matrix A in PETSC_VIEWER_ASCII_INFO, as text (at most len - 1 bytes). A
   string viewer does not take that format, so it goes through a file of this rank's, removed after. */
PetscErrorCode TestViewInfoText(Mat A, char *text, size_t len);

/* ||a - b||_inf / max(||b||_inf, tiny) */
PetscErrorCode TestRelDiff(Vec a, Vec b, PetscReal *rel);

/* ||A x - B x|| / ||B x|| for a random x, A and B with the same layouts */
PetscErrorCode TestSameOperator(Mat A, Mat B, PetscReal *rel);

/* ||C - R||_F / ||R||_F, C of any type (compared through an AIJ copy), R AIJ */
PetscErrorCode TestMatrixRelDiff(Mat C, Mat R, PetscReal *rel);

/* A check: where cond is false, counts a failure in `failures` and prints "  check failed at
   file:line: <message>" through comm (rank 0 of comm prints; PETSC_COMM_SELF: this rank, for
   conditions that differ between ranks). The runner reports the first failed check of a case as its
   reason. A check never returns early: every rank goes on through the same collective calls. */
#define TEST_CHECK(comm, cond, failures, ...) \
  do { \
    if (!(cond)) { \
      PetscCall(TestCheckFailed(comm, __FILE__, __LINE__, __VA_ARGS__)); \
      (failures)++; \
    } \
  } while (0)
PetscErrorCode TestCheckFailed(MPI_Comm comm, const char *file, int line, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(4, 5);

/* ---- Named test cases ----------------------------------------------------------------------------

   A program is a table of named cases run in order, each reported on its own line:
     ok <name>                        every check passed (on every rank)
     FAIL <name>: <first failed check> (<n> failed checks[ summed over the ranks, the first on rank r])
     skipped <name>: <reason>         not run here (a GPU case without a GPU): not counted as a pass
   then "<program>: p passed, f failed, s skipped". Exit status: 1 if a case failed, 77 (CTest:
   skipped) if every case that ran was skipped, 0 otherwise. Pass and fail are agreed on by all ranks
   (the failure counts are summed over PETSC_COMM_WORLD after each case). A case that stops with a
   PETSc error prints "FAIL <name>: PETSc error ..." and aborts all ranks (MPI_Abort), since the other
   ranks may be waiting in a collective call it never reaches: no hang.
   Options: -test_case <name>[,<name>...] runs only those; -test_list prints the names. Where the
   options ask for a GPU backend this build or machine lacks (-mat_bsrcustom_backend cuda), every
   case is skipped. */
typedef struct {
  MPI_Comm    comm; /* PETSC_COMM_WORLD */
  PetscMPIInt rank, size;
  PetscInt    param;    /* the running case's param (a block size, ...) */
  PetscInt    failures; /* failed checks of the running case on this rank (TEST_CHECK(..., ctx->failures, ...)) */
  PetscBool   skipped;  /* set through TestSkip() */
  char        skip_reason[256];
  void       *data; /* the program's shared fixtures, as given to TestRunCases() */
} TestContext;

typedef struct {
  const char *name; /* short, no spaces: what -test_case takes */
  PetscErrorCode (*run)(TestContext *ctx);
  PetscInt param; /* optional: ctx->param while it runs (one function, several cases) */
} TestCase;

/* Marks the running case as skipped (it should then return without checks). Collective: every rank
   should skip alike; where only some do, the case counts as skipped if no rank failed a check. */
PetscErrorCode TestSkip(TestContext *ctx, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);

/* In a GPU case: *skip is PETSC_TRUE, and the case marked skipped, where this build has no CUDA
   backend or no CUDA device is visible; the case then returns at once. */
PetscErrorCode TestSkipWithoutGPU(TestContext *ctx, PetscBool *skip);

/* Runs `call` with errors returned (not printed, not fatal) and checks, as checks of the running case
   ctx reported through comm, its error code and, where needle is not NULL, that its message holds
   needle (PETSC_COMM_SELF where only some ranks raise it) */
#define TEST_EXPECT_ERROR(ctx, comm, call, code, needle) \
  do { \
    PetscErrorCode e_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    e_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(TestCheckError(ctx, comm, e_, code, needle, #call)); \
  } while (0)
PetscErrorCode TestCheckError(TestContext *ctx, MPI_Comm comm, PetscErrorCode got, PetscErrorCode want, const char *needle, const char *what);

/* Runs the selected cases; *status is what main() returns after PetscFinalize(). */
PetscErrorCode TestRunCases(const char *program, size_t ncases, const TestCase cases[], void *data, int *status);

#endif
