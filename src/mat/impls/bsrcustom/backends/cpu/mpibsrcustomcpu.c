/*
   The cpu backend of an MPI matrix's products: the local block's task kernel runs while the halo
   exchange moves (its calling thread letting MPI progress between tasks), the ghost block's after.
*/
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/backends/bsrcustommpiproduct.h>
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

/* host vectors and the host ghost vector (the record's defaults); p->between: MPI progress on A's communicator, where A's
   settings ask for it and the local block's product may call MPI (several ranks; one thread, or
   MPI_THREAD_FUNNELED from the main thread) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUPlace_Private(MatBSRCustomMPIProduct *p)
{
  PetscMPIInt size;
  PetscBool   ours;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)p->A), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)p->Ad, MATSEQBSRCUSTOM, &ours));
  if (!p->set->mpi_progress || size == 1 || !ours) PetscFunctionReturn(0);
  if (((Mat_SeqBSRCustom *)p->Ad->spptr)->set.nthreads > 1) { /* thread 0 of the team calls MPI while the others compute */
    int provided, is_main;
    PetscCallMPI(MPI_Query_thread(&provided));
    PetscCallMPI(MPI_Is_thread_main(&is_main));
    if (provided < MPI_THREAD_FUNNELED || !is_main) PetscFunctionReturn(0);
  }
  p->hook.fn  = MatMPIBSRCustomProgress;
  p->hook.ctx = (void *)p->A;
  p->between  = &p->hook;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUHaloBegin_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomCPUPlace_Private(p));
  PetscCall(MatBSRCustomMPIScatterBegin_Private(p));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPULocalMult_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCPUApply_Private(p->Ad, &p->M, 1.0, p->x, p->beta, p->beta == (PetscScalar)0.0 ? NULL : p->in, p->out, p->between));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUGhostMultAdd_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCPUApply_Private(p->Ao, &p->G, 1.0, p->ghost, 1.0, p->out, p->out, NULL));
  p->path = p->between ? "CPU kernels, MPI progress between the local product's tasks" : "CPU kernels";
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

PETSC_INTERN const char *MatMPIBSRCustomCPUTransposePath_Private(PetscBool on_device, PetscBool baij)
{
  (void)on_device;
  return baij ? "blocks by BAIJ's serial transpose; the ghost part's reverse scatter ADD overlaps the local block's" : "blocks by their cached transposed copies (task kernel); the ghost part's reverse scatter ADD overlaps the local block's";
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUView_Private(Mat A, const MatBSRCustomSettings *set, const char *path, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)A, (void)set, (void)path, (void)viewer;
  PetscFunctionReturn(0);
}
