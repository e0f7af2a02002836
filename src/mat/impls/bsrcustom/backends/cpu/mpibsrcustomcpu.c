/*
   The cpu backend of an MPI matrix's products: the local block's task kernel runs while the halo
   exchange moves (its calling thread letting MPI progress between tasks), the ghost block's after.
*/
#include "mpibsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

/* MPI progress (see MatBSRCustomSetMPIProgress()): one MPI_Iprobe lets the library move the halo's
   messages. Open MPI and MPICH progress every pending request inside any such call; a message above
   the eager limit needs both sides to take part, so without it a rank's exchange would end only once
   each neighbour had finished its own local product and entered VecScatterEnd. */
static void MatMPIBSRCustomProgress(void *ctx)
{
  int flag;

  (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, PetscObjectComm((PetscObject)ctx), &flag, MPI_STATUS_IGNORE);
}

/* *use = hook, filled with MPI progress on A's communicator, where A's settings ask for it and the
   block's product may call MPI (several ranks; one thread, or MPI_THREAD_FUNNELED from the main
   thread); else NULL */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUBetween_Private(Mat A, Mat block, bsrk_between *hook, const bsrk_between **use)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscMPIInt       size;
  PetscBool         ours;

  PetscFunctionBegin;
  *use = NULL;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)block, MATSEQBSRCUSTOM, &ours));
  if (!c->set.mpi_progress || size == 1 || !ours) PetscFunctionReturn(0);
  if (((Mat_SeqBSRCustom *)block->spptr)->set.nthreads > 1) { /* thread 0 of the team calls MPI while the others compute */
    int provided, is_main;
    PetscCallMPI(MPI_Query_thread(&provided));
    PetscCallMPI(MPI_Is_thread_main(&is_main));
    if (provided < MPI_THREAD_FUNNELED || !is_main) PetscFunctionReturn(0);
  }
  hook->fn  = MatMPIBSRCustomProgress;
  hook->ctx = (void *)A;
  *use      = hook;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUPlaceVectors_Private(Mat A, Vec x, PetscScalar beta, Vec in, Vec out, Vec ghost_x, PetscBool *on_device)
{
  PetscFunctionBegin;
  (void)A, (void)x, (void)beta, (void)in, (void)out, (void)ghost_x;
  *on_device = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCPUOnDevice_Private(Vec x, PetscBool *on_device)
{
  PetscFunctionBegin;
  (void)x;
  *on_device = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscBool on_device, PetscScalar beta, Vec x, Vec in, Vec out, const bsrk_between *between, PetscBool *split)
{
  PetscFunctionBegin;
  (void)Ao, (void)G, (void)on_device;
  PetscCall(MatSeqBSRCustomCPUApply_Private(Ad, M, 1.0, x, beta, beta == (PetscScalar)0.0 ? NULL : in, out, between));
  *split = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscBool split, Vec ghost, Vec out)
{
  PetscFunctionBegin;
  (void)Ad, (void)M, (void)split;
  PetscCall(MatSeqBSRCustomCPUApply_Private(Ao, G, 1.0, ghost, 1.0, out, out, NULL));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSpMMSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy)
{
  PetscFunctionBegin;
  (void)Ao, (void)G;
  PetscCall(MatSeqBSRCustomCPUSpMM_Private(Ad, M, k, 1.0, X, ldx, 0.0, Y, ldy));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSpMMSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy)
{
  PetscFunctionBegin;
  (void)Ad, (void)M;
  if (Ao->cmap->n > 0) PetscCall(MatSeqBSRCustomCPUSpMM_Private(Ao, G, k, 1.0, Xg, ldg, 1.0, Y, ldy));
  PetscFunctionReturn(0);
}

PETSC_INTERN const char *MatMPIBSRCustomCPUPath_Private(PetscBool on_device, PetscBool staged, PetscBool split, PetscBool between)
{
  (void)on_device, (void)staged, (void)split;
  return between ? "CPU kernels, MPI progress between the local product's tasks" : "CPU kernels";
}

PETSC_INTERN const char *MatMPIBSRCustomCPUTransposePath_Private(PetscBool on_device, PetscBool baij)
{
  (void)on_device;
  return baij ? "blocks by BAIJ's serial transpose; the ghost part's reverse scatter ADD overlaps the local block's" : "blocks by their cached transposed copies (task kernel); the ghost part's reverse scatter ADD overlaps the local block's";
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUView_Private(Mat A, const char *path, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)A, (void)path, (void)viewer;
  PetscFunctionReturn(0);
}
