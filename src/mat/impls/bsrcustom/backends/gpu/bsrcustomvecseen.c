/*
   What PCPBJACOBI's choice of host or GPU (seq/seqbsrcustomblockdiag.c) needs to know of a matrix's
   GPU products: the kinds of vectors they ran on, recorded on the matrix; and the block diagonal
   given to PBJacobi for the GPU, kept on the matrix while its values are current, after which a
   product on host vectors is refused (PBJacobi's GPU apply would read them as CUDA vectors).
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/* the kinds of vectors a matrix's GPU products ran on */
typedef struct {
  PetscBool host, device;
} MatBSRCustomVectorsSeen;

static PetscErrorCode VectorsSeenDestroy(void *arg)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(BSRC_CTX_OF(arg)));
  PetscFunctionReturn(0);
}

/* Notes the kind of vectors a product of A ran on (MatBSRCustomSolveOnDevice reads it), in a
   container composed on A */
static PetscErrorCode MatBSRCustomNoteVectors(Mat A, PetscBool on_device)
{
  PetscContainer           seen;
  MatBSRCustomVectorsSeen *v;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "BSRCustom_VectorsSeen", (PetscObject *)&seen));
  if (!seen) {
    PetscCall(PetscNew(&v));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &seen));
    PetscCall(PetscContainerSetPointer(seen, v));
    PetscCall(BSRCContainerSetDestroy(seen, VectorsSeenDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, "BSRCustom_VectorsSeen", (PetscObject)seen));
    PetscCall(PetscContainerDestroy(&seen)); /* A holds it */
  } else PetscCall(PetscContainerGetPointer(seen, (void **)&v));
  if (on_device) v->device = PETSC_TRUE;
  else v->host = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomVectorsSeen_Private(Mat A, PetscBool *any, PetscBool *host)
{
  PetscContainer seen;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "BSRCustom_VectorsSeen", (PetscObject *)&seen));
  *any  = (PetscBool)(seen != NULL);
  *host = PETSC_FALSE;
  if (seen) {
    const MatBSRCustomVectorsSeen *v;
    PetscCall(PetscContainerGetPointer(seen, (void **)&v));
    *host = v->host;
  }
  PetscFunctionReturn(0);
}

static PetscInt made_id = -1; /* composed data on A: the block diagonal kept on it is current */

PETSC_INTERN PetscErrorCode MatBSRCustomDeviceBlockDiagonal_Private(Mat A, Mat *diag)
{
  PetscObject cached  = NULL;
  PetscBool   current = PETSC_FALSE;
  PetscInt    made;

  PetscFunctionBegin;
  *diag = NULL;
  if (made_id < 0) PetscFunctionReturn(0);
  PetscCall(PetscObjectQuery((PetscObject)A, "BSRCustom_BlockDiagonal", &cached));
  PetscCall(PetscObjectComposedDataGetInt((PetscObject)A, made_id, made, current));
  (void)made;
  if (cached && current) *diag = (Mat)cached;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomDeviceBlockDiagonalKeep_Private(Mat A, Mat diag)
{
  PetscFunctionBegin;
  if (made_id < 0) PetscCall(PetscObjectComposedDataRegister(&made_id));
  PetscCall(PetscObjectCompose((PetscObject)A, "BSRCustom_BlockDiagonal", (PetscObject)diag));
  PetscCall(PetscObjectComposedDataSetInt((PetscObject)A, made_id, 1));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomCheckHostVectors(Mat A, Vec v)
{
  PetscFunctionBegin;
#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL) && defined(BSRC_HAVE_PETSC_CUDA)
  {
    Mat                  held = NULL;
    MatBSRCustomSettings set;

    PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, &set));
    if (!set.cuda_pbjacobi) PetscFunctionReturn(0); /* what PBJacobi gets from now on is for the host */
    PetscCall(MatBSRCustomDeviceBlockDiagonal_Private(A, &held));
    if (held) {
      VecType type;
      PetscCall(VecGetType(v, &type));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "This matrix gave PCPBJACOBI its diagonal blocks for the GPU (its solve looked to run on CUDA vectors; -info says why) and now multiplies a %s (host) vector, which PBJacobi's GPU apply would read as a CUDA vector: keep to one kind of vector with this matrix, or set -mat_bsrcustom_cuda_pbjacobi false", type);
    }
  }
#endif
  (void)A, (void)v;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomNoteVectors_Private(Mat A, Vec v, PetscBool on_device)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomNoteVectors(A, on_device));
  if (!on_device) PetscCall(MatBSRCustomCheckHostVectors(A, v));
  PetscFunctionReturn(0);
}
