/*
   The package: registration of the bsrcustom types, of the dispatching root name "bsrcustom" and of
   our log events (bsrcustomcommon.c holds them), and MatCreateBSRCustom(). The settings and the names of
   their public enums live in options/bsrcustomsettings.c, their public setters in
   options/bsrcustomsetcpu.c and options/bsrcustomsetgpu.c.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

static PetscBool MatBSRCustomPackageInitialized = PETSC_FALSE;

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
  PetscCall(PetscLogEventRegister("BSRCustomUpStruct", MAT_CLASSID, &MATBSRCUSTOM_UploadStructure)); /* inside BSRCustomUpload: the structure part */
  PetscCall(PetscLogEventRegister("BSRCustomGraph", MAT_CLASSID, &MATBSRCUSTOM_Graph));
  PetscCall(PetscLogEventRegister("BSRCustomBlkProd", MAT_CLASSID, &MATBSRCUSTOM_BlockProduct));
  PetscCall(MatRegister(MATSEQBSRCUSTOM, MatCreate_SeqBSRCustom));
  PetscCall(MatRegister(MATMPIBSRCUSTOM, MatCreate_MPIBSRCustom));
  PetscCall(MatRegisterRootName(MATBSRCUSTOM, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM));
  PetscCall(MatBSRCustomRegisterFactors_Private());
  PetscCall(MatBSRCustomRegisterGAMG_Private());
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
