/*
   PCPBJACOBI on the GPU for a bsrcustom matrix: the decision whether it gets the diagonal blocks as a
   matrix of their own (MATOP_GET_BLOCK_DIAGONAL, seq/seqbsrcustomblockdiag.c), and that matrix.

   PETSc's PBJacobi applies on the device only when the operator, or the block-diagonal matrix the
   operator gives, is MATAIJCUSPARSE. On a GPU backend of a CUDA-enabled PETSc we give it the diagonal
   blocks as a (seq|mpi)aijcusparse matrix with our block size: PBJacobi inverts them on the host once
   per setup, as for BAIJ, and then applies them with a batched GEMV on CUDA vectors, so a CG + PBJacobi
   iteration never copies a vector to the host. That apply reads its vectors as CUDA vectors, and the
   choice is made at the PC's setup, before it sees one: we give the blocks only where the solve's
   vectors are CUDA vectors, as far as the matrix can tell, since that apply reads host vectors as CUDA
   vectors without a word (MatBSRCustomSolveOnDevice: the DM's vector type where the matrix came from
   a DM, else whether its products all ran on CUDA vectors, else what MatCreateVecs makes). Elsewhere
   (host vectors, CPU backend, bound to the CPU, no CUDA in PETSc, a block row without its diagonal
   block) we give nothing and PBJacobi runs BAIJ's host path, with BAIJ's errors; -info says which
   and why.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <petscdm.h>

#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL) && defined(BSRC_HAVE_PETSC_CUDA)
static PetscErrorCode IsCUDAVecType(VecType t, PetscBool *cuda)
{
  char *found = NULL;

  PetscFunctionBegin;
  if (t) PetscCall(PetscStrstr(t, "cuda", &found));
  *cuda = (PetscBool)(found != NULL);
  PetscFunctionReturn(0);
}

/* Whether the solve that sets PBJacobi up on A runs on CUDA vectors, as far as A can tell. PETSc's GPU
   apply reads host vectors as CUDA vectors without a word, so the answer is yes only on positive
   evidence: the vector type of the DM A came from (KSP takes its vectors there); without a DM, A's
   products so far all ran on CUDA vectors, or there were none and MatCreateVecs gives CUDA vectors
   (KSP's without a DM). One host product is enough for the host. The same answer on every rank. */
static PetscErrorCode MatBSRCustomSolveOnDevice(Mat A, PetscBool *on_device, char *why, size_t len)
{
  DM        dm = NULL;
  PetscBool seen, host;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &dm));
  PetscCall(MatBSRCustomVectorsSeen_Private(A, &seen, &host));
  if (dm) {
    VecType vt;
    PetscCall(DMGetVecType(dm, &vt));
    PetscCall(IsCUDAVecType(vt, on_device));
    PetscCall(PetscSNPrintf(why, len, "the matrix's DM makes %s vectors", vt ? vt : "default"));
  } else if (seen) {
    *on_device = (PetscBool)!host;
    PetscCall(PetscSNPrintf(why, len, "the matrix's products so far ran on %s", host ? "host vectors" : "CUDA vectors only"));
  } else {
    PetscCall(IsCUDAVecType(A->defaultvectype, on_device));
    PetscCall(PetscSNPrintf(why, len, "no product ran yet and MatCreateVecs gives %s vectors", A->defaultvectype ? A->defaultvectype : "host"));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, on_device, 1, BSRC_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}
PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalWanted_Private(Mat A, PetscBool *want, Mat *diag)
{
  PetscBool            bound, on_device;
  MatBSRCustomSettings set;
  PetscObjectState     state;
  char                 why[256];

  PetscFunctionBegin;
  *want = PETSC_FALSE;
  *diag = NULL;
  PetscCall(MatBSRCustomValuesState_Private(A, &state)); /* the kept block diagonal goes stale with it */
  PetscCall(MatBoundToCPU(A, &bound));                   /* true for the CPU backend as well */
  PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, &set));
  if (bound || !set.cuda_pbjacobi) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomDeviceBlockDiagonal_Private(A, diag));
  if (*diag) {
    PetscCall(PetscObjectReference((PetscObject)*diag));
    PetscFunctionReturn(0);
  }
  PetscCall(MatBSRCustomSolveOnDevice(A, &on_device, why, sizeof(why)));
  PetscCall(PetscInfo(A, "PCPBJACOBI applies on the %s: %s\n", on_device ? "GPU" : "host", why));
  *want = on_device;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalMake_Private(Mat A, PetscInt nbrows, const PetscInt where[], const PetscScalar aa[], Mat *diag)
{
  PetscInt    bs, rstart, *nnz;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), diag));
  PetscCall(MatSetSizes(*diag, A->rmap->n, A->rmap->n, A->rmap->N, A->rmap->N));
  PetscCall(MatSetBlockSize(*diag, bs));
  PetscCall(MatSetType(*diag, size > 1 ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE));
  PetscCall(PetscMalloc1(nbrows, &nnz));
  for (PetscInt r = 0; r < nbrows; r++) nnz[r] = 1;
  PetscCall(MatXAIJSetPreallocation(*diag, bs, nnz, NULL, NULL, NULL));
  PetscCall(PetscFree(nnz));
  if (size > 1) {
    /* MATMPIAIJCUSPARSE's preallocation makes its local block without the block size, and PBJacobi
       inverts that block: with block size 1 it would invert scalars and copy bs*bs times as many
       entries to the device as it has. Setting the block size again now reaches the local block. */
    Mat      loc;
    PetscInt lbs;
    PetscCall(MatSetBlockSize(*diag, bs));
    PetscCall(MatMPIAIJGetSeqAIJ(*diag, &loc, NULL, NULL));
    PetscCall(MatGetBlockSize(loc, &lbs));
    PetscCheck(lbs == bs, PETSC_COMM_SELF, PETSC_ERR_LIB, "The local block of the block diagonal for PCPBJACOBI has block size %" PetscInt_FMT ", not %" PetscInt_FMT, lbs, bs);
  }
  PetscCall(MatSetOption(*diag, MAT_ROW_ORIENTED, PETSC_FALSE)); /* BAIJ keeps each block column-major */
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  for (PetscInt r = 0; r < nbrows; r++) {
    const PetscInt row = rstart / bs + r;
    PetscCall(MatSetValuesBlocked(*diag, 1, &row, 1, &row, aa + (size_t)where[r] * bs * bs, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*diag, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*diag, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*diag, MAT_ROW_ORIENTED, PETSC_TRUE));
  PetscCall(MatBSRCustomDeviceBlockDiagonalKeep_Private(A, *diag));
  PetscCall(PetscInfo(A, "Diagonal blocks (bs %" PetscInt_FMT ") given to PCPBJACOBI as %s, applied on the GPU\n", bs, ((PetscObject)*diag)->type_name));
  PetscFunctionReturn(0);
}

#else /* no MATOP_GET_BLOCK_DIAGONAL in this PETSc, or no CUDA in it: PBJacobi stays on the host */

PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalWanted_Private(Mat A, PetscBool *want, Mat *diag)
{
  PetscFunctionBegin;
  (void)A;
  *want = PETSC_FALSE;
  *diag = NULL;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalMake_Private(Mat A, PetscInt nbrows, const PetscInt where[], const PetscScalar aa[], Mat *diag)
{
  PetscFunctionBegin;
  (void)nbrows, (void)where, (void)aa;
  *diag = NULL;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "No GPU block diagonal for PCPBJACOBI in this build");
}
#endif
