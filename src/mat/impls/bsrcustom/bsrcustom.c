/*
   The package: registration of the bsrcustom types and of the dispatching root name "bsrcustom", our
   log events, MatCreateBSRCustom() and the mpi type's pieces query. The settings and the names of
   their public enums live in bsrcustomsettings.c, their public setters in bsrcustomsetcpu.c and
   bsrcustomsetgpu.c.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <omp.h>

PetscLogEvent    MATBSRCUSTOM_PartitionBuild = 0, MATBSRCUSTOM_Kernel = 0, MATBSRCUSTOM_Upload = 0, MATBSRCUSTOM_Graph = 0;
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
  PetscCall(PetscLogEventRegister("BSRCustomUpload", MAT_CLASSID, &MATBSRCUSTOM_Upload));
  PetscCall(PetscLogEventRegister("BSRCustomGraph", MAT_CLASSID, &MATBSRCUSTOM_Graph));
  PetscCall(MatRegister(MATSEQBSRCUSTOM, MatCreate_SeqBSRCustom));
  PetscCall(MatRegister(MATMPIBSRCUSTOM, MatCreate_MPIBSRCustom));
  PetscCall(MatRegisterRootName(MATBSRCUSTOM, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM));
  PetscCall(MatBSRCustomRegisterFactors_Private());
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
  PetscAssertPointer(A, 11);
  PetscCall(MatBSRCustomInitializePackage());
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATBSRCUSTOM));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, d_nz, d_nnz));
  PetscCall(MatMPIBAIJSetPreallocation(*A, bs, d_nz, d_nnz, o_nz, o_nnz));
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
