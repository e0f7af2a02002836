/*
   Registration of the bsrcustom types, the dispatching root name "bsrcustom", our log events,
   the options shared by the seq and mpi types, and the public setters.
*/
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/mpi/mpibsrcustomimpl.h>
#include <omp.h>
#include <errno.h>
#include <stdlib.h>

const char *const MatBSRCustomSharedRowsTypes[] = {"carry", "atomic", "MatBSRCustomSharedRows", "MAT_BSRCUSTOM_SHARED_ROWS_", NULL};

PetscLogEvent    MATBSRCUSTOM_PartitionBuild = 0, MATBSRCUSTOM_Kernel = 0;
static PetscBool MatBSRCustomPackageInitialized = PETSC_FALSE;

PETSC_INTERN PetscInt MatBSRCustomDefaultThreads(void)
{
  return (PetscInt)omp_get_max_threads();
}

static PetscErrorCode MatBSRCustomFinalizePackage(void)
{
  PetscFunctionBegin;
  MatBSRCustomPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomInitializePackage(void)
{
  PetscFunctionBegin;
  if (MatBSRCustomPackageInitialized) PetscFunctionReturn(0);
  MatBSRCustomPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("BSRCustomTasks", MAT_CLASSID, &MATBSRCUSTOM_PartitionBuild));
  PetscCall(PetscLogEventRegister("BSRCustomKernel", MAT_CLASSID, &MATBSRCUSTOM_Kernel));
  PetscCall(MatRegister(MATSEQBSRCUSTOM, MatCreate_SeqBSRCustom));
  PetscCall(MatRegister(MATMPIBSRCUSTOM, MatCreate_MPIBSRCustom));
  PetscCall(MatRegisterRootName(MATBSRCUSTOM, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM));
  PetscCall(MatSeqBSRCustomRegisterFactors());
  PetscCall(PetscRegisterFinalize(MatBSRCustomFinalizePackage));
  PetscFunctionReturn(0);
}

/*@C
   MatBSRCustomRegisterAll - Registers MATBSRCUSTOM, MATSEQBSRCUSTOM and MATMPIBSRCUSTOM, their
   factorizations and log events. Programs that link libpetscbsrcustom call it once after
   PetscInitialize(); programs that load it with -dll_append need not (PETSc calls
   PetscDLLibraryRegister_petscbsrcustom()). Calling it again does nothing.

   Not Collective

   Level: beginner

.seealso: `MATBSRCUSTOM`, `MatCreateBSRCustom()`
@*/
PetscErrorCode MatBSRCustomRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomInitializePackage());
  PetscFunctionReturn(0);
}

/* What PETSc calls when -dll_append / -dll_prepend loads libpetscbsrcustom.so. */
PetscErrorCode PetscDLLibraryRegister_petscbsrcustom(void)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomInitializePackage());
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCheckChunks_Private(Mat A, PetscInt chunks, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(chunks >= 1 && chunks <= MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "%s: chunks per thread must be in [1, %d], got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, chunks);
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCheckThreads_Private(Mat A, PetscInt nthreads, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(nthreads == PETSC_DEFAULT || (nthreads >= 1 && nthreads <= MATBSRCUSTOM_MAX_THREADS), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "%s: threads must be in [1, %d] (or PETSC_DEFAULT), got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_THREADS, nthreads);
  PetscFunctionReturn(0);
}

/* PETSc's own integer parser does not name the option in its error; ours does. */
static PetscErrorCode MatBSRCustomParseInt(Mat A, const char *option, const char *text, PetscInt *value)
{
  char     *end = NULL;
  long long v;

  PetscFunctionBegin;
  errno = 0;
  v     = strtoll(text, &end, 10);
  PetscCheck(end != text && *end == '\0' && errno == 0 && v >= PETSC_MIN_INT && v <= PETSC_MAX_INT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "%s expects an integer, got \"%s\"", option, text);
  *value = (PetscInt)v;
  PetscFunctionReturn(0);
}

/* Enum values are parsed here too: PETSc's enum reader leaks on a bad value and its message is generic. */
static PetscErrorCode MatBSRCustomParseSharedRows(Mat A, const char *option, const char *text, MatBSRCustomSharedRows *mode)
{
  PetscInt  v;
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(PetscEListFind(2, MatBSRCustomSharedRowsTypes, text, &v, &found));
  PetscCheck(found, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_UNKNOWN_TYPE, "%s: unknown value \"%s\"; use %s or %s", option, text, MatBSRCustomSharedRowsTypes[0], MatBSRCustomSharedRowsTypes[1]);
  *mode = (MatBSRCustomSharedRows)v;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomOptionsProcess_Private(Mat A, PetscOptionItems *PetscOptionsObject, PetscInt *nthreads, PetscInt *chunks, MatBSRCustomSharedRows *shared)
{
  char      buf[64];
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, *nthreads));
  PetscCall(PetscOptionsString("-mat_bsrcustom_threads", "OpenMP threads that run MatMult (default: OMP_NUM_THREADS)", "MatBSRCustomSetNumThreads", buf, buf, sizeof(buf), &set));
  if (set) {
    PetscCall(MatBSRCustomParseInt(A, "-mat_bsrcustom_threads", buf, nthreads));
    PetscCall(MatBSRCustomCheckThreads_Private(A, *nthreads, "-mat_bsrcustom_threads"));
  }
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, *chunks));
  PetscCall(PetscOptionsString("-mat_bsrcustom_chunks_per_thread", "Fixed-size tasks per thread, cut at assembly", "MatBSRCustomSetChunksPerThread", buf, buf, sizeof(buf), &set));
  if (set) {
    PetscCall(MatBSRCustomParseInt(A, "-mat_bsrcustom_chunks_per_thread", buf, chunks));
    PetscCall(MatBSRCustomCheckChunks_Private(A, *chunks, "-mat_bsrcustom_chunks_per_thread"));
  }
  PetscCall(PetscStrncpy(buf, MatBSRCustomSharedRowsTypes[*shared], sizeof(buf)));
  PetscCall(PetscOptionsString("-mat_bsrcustom_shared_rows", "How a block row split between tasks is summed: carry or atomic", "MatBSRCustomSetSharedRows", buf, buf, sizeof(buf), &set));
  if (set) PetscCall(MatBSRCustomParseSharedRows(A, "-mat_bsrcustom_shared_rows", buf, shared));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomOptionsFromDatabase_Private(Mat A, PetscInt *nthreads, PetscInt *chunks, MatBSRCustomSharedRows *shared)
{
  PetscOptions options = ((PetscObject)A)->options;
  const char  *prefix  = ((PetscObject)A)->prefix;
  char         buf[64];
  PetscBool    set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(options, prefix, "-mat_bsrcustom_threads", buf, sizeof(buf), &set));
  if (set) {
    PetscCall(MatBSRCustomParseInt(A, "-mat_bsrcustom_threads", buf, nthreads));
    PetscCall(MatBSRCustomCheckThreads_Private(A, *nthreads, "-mat_bsrcustom_threads"));
  }
  PetscCall(PetscOptionsGetString(options, prefix, "-mat_bsrcustom_chunks_per_thread", buf, sizeof(buf), &set));
  if (set) {
    PetscCall(MatBSRCustomParseInt(A, "-mat_bsrcustom_chunks_per_thread", buf, chunks));
    PetscCall(MatBSRCustomCheckChunks_Private(A, *chunks, "-mat_bsrcustom_chunks_per_thread"));
  }
  PetscCall(PetscOptionsGetString(options, prefix, "-mat_bsrcustom_shared_rows", buf, sizeof(buf), &set));
  if (set) PetscCall(MatBSRCustomParseSharedRows(A, "-mat_bsrcustom_shared_rows", buf, shared));
  PetscFunctionReturn(0);
}

/*@C
   MatCreateBSRCustom - Creates a MATBSRCUSTOM matrix (MATSEQBSRCUSTOM on one rank, MATMPIBSRCUSTOM
   on several) with BAIJ-style block preallocation.

   Collective

   Input Parameters:
+  comm - MPI communicator
.  bs - block size
.  m, n - local rows and columns (or PETSC_DECIDE)
.  M, N - global rows and columns (or PETSC_DETERMINE)
.  d_nz, d_nnz - block nonzeros per block row in the diagonal part (d_nnz may be NULL)
-  o_nz, o_nnz - block nonzeros per block row in the off-diagonal part (ignored on one rank)

   Output Parameter:
.  A - the matrix

   Level: beginner

.seealso: `MATBSRCUSTOM`, `MatCreateBAIJ()`
@*/
PetscErrorCode MatCreateBSRCustom(MPI_Comm comm, PetscInt bs, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscValidPointer(A, 11);
  PetscCall(MatBSRCustomInitializePackage());
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATBSRCUSTOM));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, d_nz, d_nnz));
  PetscCall(MatMPIBAIJSetPreallocation(*A, bs, d_nz, d_nnz, o_nz, o_nnz));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetChunksPerThread - Sets how many fixed-size tasks per thread the nonzero blocks are
   cut into (the partition is rebuilt at the next MatMult or assembly).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  chunks - tasks per thread, >= 1 (default 8)

   Options Database Key:
.  -mat_bsrcustom_chunks_per_thread <c> - tasks per thread

   Level: intermediate

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetNumThreads()`, `MatBSRCustomGetNumTasks()`
@*/
PetscErrorCode MatBSRCustomSetChunksPerThread(Mat A, PetscInt chunks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, chunks, 2);
  PetscUseMethod(A, "MatBSRCustomSetChunksPerThread_C", (Mat, PetscInt), (A, chunks));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetChunksPerThread - Gets the fixed-size tasks per thread.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  chunks - tasks per thread

   Level: intermediate

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomGetChunksPerThread(Mat A, PetscInt *chunks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidIntPointer(chunks, 2);
  PetscUseMethod(A, "MatBSRCustomGetChunksPerThread_C", (Mat, PetscInt *), (A, chunks));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetNumThreads - Sets the OpenMP threads that run MatMult/MatMultAdd on this matrix.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  nthreads - threads, >= 1, or PETSC_DEFAULT for omp_get_max_threads() (OMP_NUM_THREADS)

   Options Database Key:
.  -mat_bsrcustom_threads <n> - threads

   Level: intermediate

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetNumThreads(Mat A, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, nthreads, 2);
  PetscUseMethod(A, "MatBSRCustomSetNumThreads_C", (Mat, PetscInt), (A, nthreads));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetNumThreads - Gets the OpenMP threads that run MatMult on this matrix.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  nthreads - threads

   Level: intermediate

.seealso: `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomGetNumThreads(Mat A, PetscInt *nthreads)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidIntPointer(nthreads, 2);
  PetscUseMethod(A, "MatBSRCustomGetNumThreads_C", (Mat, PetscInt *), (A, nthreads));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetSharedRows - Chooses how a block row split between two tasks is summed:
   MAT_BSRCUSTOM_SHARED_ROWS_CARRY (each task keeps its partial sum, added after the parallel loop;
   results do not depend on thread timing) or MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC (one atomic add per
   element of each shared task-row).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  mode - the mode

   Options Database Key:
.  -mat_bsrcustom_shared_rows <carry,atomic> - the mode

   Level: advanced

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetSharedRows(Mat A, MatBSRCustomSharedRows mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscUseMethod(A, "MatBSRCustomSetSharedRows_C", (Mat, MatBSRCustomSharedRows), (A, mode));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetSharedRows - Gets how split block rows are summed.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  mode - the mode

   Level: advanced

.seealso: `MatBSRCustomSetSharedRows()`
@*/
PetscErrorCode MatBSRCustomGetSharedRows(Mat A, MatBSRCustomSharedRows *mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidPointer(mode, 2);
  PetscUseMethod(A, "MatBSRCustomGetSharedRows_C", (Mat, MatBSRCustomSharedRows *), (A, mode));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetNumTasks - Gets the number of fixed-size tasks of an assembled matrix (on several
   ranks: of this rank's local block).

   Not Collective

   Input Parameter:
.  A - an assembled MATBSRCUSTOM matrix

   Output Parameter:
.  ntasks - the tasks (at most threads x chunks per thread; fewer when there are fewer blocks)

   Level: advanced

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomGetNumTasks(Mat A, PetscInt *ntasks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidIntPointer(ntasks, 2);
  PetscUseMethod(A, "MatBSRCustomGetNumTasks_C", (Mat, PetscInt *), (A, ntasks));
  PetscFunctionReturn(0);
}

/*@C
   MatBSRCustomGetLocalAndGhost - Gets the pieces of this rank's share of an assembled MATMPIBSRCUSTOM
   matrix: the local block (own columns), the ghost block (off-rank columns, compressed), the ghost
   block columns in global numbering, and the halo scatter with its ghost vector. For diagnostics and
   benchmarks (e.g. timing the halo exchange alone); do not destroy what it returns.

   Not Collective

   Input Parameter:
.  A - an assembled MATMPIBSRCUSTOM matrix

   Output Parameters (each may be NULL):
+  local - the local block, a MATSEQBSRCUSTOM
.  ghost - the ghost block, a MATSEQBSRCUSTOM with nghost block columns
.  nghost - the number of ghost block columns
.  ghost_cols - their global block column numbers
.  halo - the scatter that fills ghost_x from a vector of A's column layout
-  ghost_x - the ghost values of x

   Level: developer

.seealso: `MATMPIBSRCUSTOM`
@*/
PetscErrorCode MatBSRCustomGetLocalAndGhost(Mat A, Mat *local, Mat *ghost, PetscInt *nghost, const PetscInt *ghost_cols[], VecScatter *halo, Vec *ghost_x)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatBSRCustomGetLocalAndGhost_C", (Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *), (A, local, ghost, nghost, ghost_cols, halo, ghost_x));
  PetscFunctionReturn(0);
}
