/*
   The lifecycle pieces that seqbsrcustom and mpibsrcustom share: conversions between our type and its
   base BAIJ type, the methods both compose, and where a type keeps its settings and CPU binding. The
   type-specific steps (attach, detach, the blocks of an mpi matrix) come in as function pointers, so
   nothing here calls back into seq/ or mpi/.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/* AIJ (and anything else) -> ours: through the base BAIJ type, whose converters know the block size,
   then the in-place convert of our type. */
PETSC_INTERN PetscErrorCode MatBSRCustomConvertViaBase_Private(Mat A, MatType base, PetscErrorCode (*inplace)(Mat, MatType, MatReuse, Mat *), MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, DIFFERENT_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  PetscCall(MatConvert(A, base, MAT_INITIAL_MATRIX, &B));
  PetscCall((*inplace)(B, type, MAT_INPLACE_MATRIX, &B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(0);
}

/* ours -> the base BAIJ type: a copy (or A itself, in place) that detach turns back into BAIJ */
PETSC_INTERN PetscErrorCode MatBSRCustomConvertToBase_Private(Mat A, PetscErrorCode (*detach)(Mat, PetscBool), MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;

  PetscFunctionBegin;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  PetscCall((*detach)(B, PETSC_TRUE));
  *newmat = B;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomComposeTypeMethods_Private(Mat A, const MatBSRCustomTypeMethods *m, PetscBool install)
{
#define BSRC_COMPOSE(name, fn) PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? (void (*)(void))(fn) : NULL))
  PetscFunctionBegin;
  BSRC_COMPOSE(m->to_base_name, m->to_base);
  BSRC_COMPOSE("MatBSRCustomGetSettings_C", m->get_settings);
  BSRC_COMPOSE("MatBSRCustomSetSettings_C", m->set_settings);
  BSRC_COMPOSE("MatBSRCustomGetCUDAKernelUsed_C", m->cuda_kernel_used);
  BSRC_COMPOSE("MatBSRCustomGetNumTasks_C", m->num_tasks);
#undef BSRC_COMPOSE
  PetscCall(MatBSRCustomComposeCPUSettings_Private(A, install));
  PetscCall(MatBSRCustomComposeGPUSettings_Private(A, install));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomHoldSettings_Private(Mat A, const MatBSRCustomSettings *set, PetscBool bound, MatBSRCustomSettings *held_set, PetscBool *held_bound, const MatBSRCustomBackendOps **held_backend)
{
  PetscFunctionBegin;
  *held_set     = *set;
  *held_bound   = bound;
  *held_backend = MatBSRCustomBackendOf_Private(held_set, bound);
  PetscCall((*(*held_backend)->vectors_follow)(A));
  PetscFunctionReturn(0);
}
