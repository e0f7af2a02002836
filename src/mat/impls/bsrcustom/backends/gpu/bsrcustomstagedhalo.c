/*
   The halo exchange of mpibsrcustom on CUDA vectors when MPI cannot read device memory (PETSc's
   -use_gpu_aware_mpi 0). PetscSF would pack x's entries on the GPU, copy them to the host and wait
   for that copy before the local kernel is even queued, and queue the copy back behind the local
   kernel: the exchange then adds to the product instead of hiding behind it. Here the gather is
   queued first, the local kernel right behind it on the same stream, and both copies run on a
   stream of their own while the local kernel computes; only the ghost kernel waits for the
   received entries.

     Begin: gather (caller's stream) -> copy to pinned host (own stream); receives posted
     [the caller queues the local kernel]
     End:   wait for the copy, send, wait for the messages -> copy into the ghost vector (own
            stream), the caller's stream waits for it
     [the caller queues the ghost kernel]

   The plan (who sends which entries to whom) is made once per ghost pattern from the ghost block
   columns: they are sorted, so the entries from one rank are contiguous in the ghost vector and
   arrive straight into it.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda_halo.h"

struct _n_MatBSRCustomStagedHalo {
  MPI_Comm        comm;
  PetscMPIInt     tag;
  PetscMPIInt     nfrom, nto;        /* ranks received from, sent to */
  PetscMPIInt    *from, *to;         /* those ranks */
  PetscInt       *from_off, *to_off; /* entries from from[k] at recv[from_off[k]..from_off[k+1]); likewise to */
  MPI_Request    *req;               /* nfrom receives, then nto sends */
  bsrc_cuda_halo *dev;
};

static PetscErrorCode HaloCheck(bsrc_cuda_halo *H, bsrc_cuda_status st, const char *what)
{
  PetscFunctionBegin;
  if (st == BSRC_CUDA_OK) PetscFunctionReturn(0);
  SETERRQ(PETSC_COMM_SELF, st == BSRC_CUDA_ERR_MEM ? PETSC_ERR_MEM : (st == BSRC_CUDA_ERR_ARG ? PETSC_ERR_ARG_WRONG : PETSC_ERR_GPU), "%s: %s", what, bsrc_cuda_halo_last_error(H));
}

/* Collective on A's communicator. ghost_cols: the nghost sorted global block columns of the ghost block. */
PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloCreate(Mat A, PetscInt nghost, const PetscInt ghost_cols[], PetscInt device, MatBSRCustomStagedHalo *hout)
{
  MatBSRCustomStagedHalo h;
  PetscMPIInt            size, rank, *nwant, *ngive, *sdispl, *rdispl;
  PetscInt               bs, cstart, nsend = 0, *want, *give;
  bsrk_idx              *send_idx;
  MPI_Comm               comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  *hout = NULL;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt k = 1; k < nghost; k++) PetscCheck(ghost_cols[k - 1] < ghost_cols[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ghost block columns are not sorted at %" PetscInt_FMT, k);
  PetscCall(PetscNew(&h));
  h->comm = comm;
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h->tag));
  /* how many block columns this rank wants from each rank: the owners of its ghost columns */
  PetscCall(PetscCalloc4(size, &nwant, size, &ngive, size + 1, &sdispl, size + 1, &rdispl));
  for (PetscInt k = 0; k < nghost; k++) {
    PetscMPIInt owner;
    PetscCall(PetscLayoutFindOwner(A->cmap, ghost_cols[k] * bs, &owner));
    PetscCheck(owner != rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ghost block column %" PetscInt_FMT " is owned by this rank", ghost_cols[k]);
    nwant[owner]++;
  }
  PetscCallMPI(MPI_Alltoall(nwant, 1, MPI_INT, ngive, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    rdispl[r + 1] = rdispl[r] + nwant[r];
    sdispl[r + 1] = sdispl[r] + ngive[r];
    if (nwant[r]) h->nfrom++;
    if (ngive[r]) h->nto++;
  }
  /* the block columns each rank asks of this one, in the asker's (sorted) order */
  PetscCall(PetscMalloc2(nghost, &want, sdispl[size], &give));
  PetscCall(PetscArraycpy(want, ghost_cols, nghost));
  PetscCallMPI(MPI_Alltoallv(want, nwant, rdispl, MPIU_INT, give, ngive, sdispl, MPIU_INT, comm));
  PetscCall(PetscMalloc5(h->nfrom, &h->from, h->nfrom + 1, &h->from_off, h->nto, &h->to, h->nto + 1, &h->to_off, h->nfrom + h->nto, &h->req));
  h->nfrom = h->nto = 0;
  h->from_off[0] = h->to_off[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    if (nwant[r]) {
      h->from[h->nfrom]         = r;
      h->from_off[h->nfrom + 1] = h->from_off[h->nfrom] + (PetscInt)nwant[r] * bs;
      h->nfrom++;
    }
    if (ngive[r]) {
      h->to[h->nto]         = r;
      h->to_off[h->nto + 1] = h->to_off[h->nto] + (PetscInt)ngive[r] * bs;
      h->nto++;
    }
  }
  /* the local entries of x this rank sends, block column by block column */
  nsend  = (PetscInt)sdispl[size] * bs;
  cstart = A->cmap->rstart / bs;
  PetscCall(PetscMalloc1(nsend, &send_idx));
  for (PetscInt k = 0; k < sdispl[size]; k++) {
    const PetscInt lb = give[k] - cstart;
    PetscCheck(lb >= 0 && lb * bs < A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A rank asked for block column %" PetscInt_FMT ", which this rank does not own", give[k]);
    for (PetscInt j = 0; j < bs; j++) send_idx[k * bs + j] = (bsrk_idx)(lb * bs + j);
  }
  PetscCall(HaloCheck(NULL, bsrc_cuda_halo_create((int)device, (bsrk_idx)nsend, send_idx, (bsrk_idx)(nghost * bs), &h->dev), "Creating the staged halo on the GPU"));
  PetscCall(PetscFree(send_idx));
  PetscCall(PetscFree2(want, give));
  PetscCall(PetscFree4(nwant, ngive, sdispl, rdispl));
  PetscCall(PetscInfo(A, "Staged device halo: %" PetscInt_FMT " entries from %d ranks, %" PetscInt_FMT " entries to %d ranks\n", nghost * bs, h->nfrom, nsend, h->nto));
  *hout = h;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloDestroy(MatBSRCustomStagedHalo *h)
{
  PetscFunctionBegin;
  if (!*h) PetscFunctionReturn(0);
  bsrc_cuda_halo_destroy((*h)->dev);
  PetscCall(PetscFree5((*h)->from, (*h)->from_off, (*h)->to, (*h)->to_off, (*h)->req));
  PetscCall(PetscFree(*h));
  PetscFunctionReturn(0);
}

/* Queues the gather of x's entries to send on PETSc's stream, ahead of the local kernel, and posts the receives. */
PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloBegin(MatBSRCustomStagedHalo h, Vec x, void *stream)
{
  const PetscScalar *xa;
  PetscMemType       mt;
  double            *recv = bsrc_cuda_halo_recv_buffer(h->dev);

  PetscFunctionBegin;
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
  PetscCheck(!PetscMemTypeHost(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The staged device halo needs x on the device");
  PetscCall(HaloCheck(h->dev, bsrc_cuda_halo_pack(h->dev, stream, xa), "Packing the halo on the GPU"));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)h->to_off[h->nto] * sizeof(PetscScalar)));
  /* the receive buffer is free once its last copy to the device is done */
  PetscCall(HaloCheck(h->dev, bsrc_cuda_halo_wait_unpacked(h->dev), "Halo"));
  for (PetscMPIInt k = 0; k < h->nfrom; k++) PetscCallMPI(MPI_Irecv(recv + h->from_off[k], (PetscMPIInt)(h->from_off[k + 1] - h->from_off[k]), MPIU_SCALAR, h->from[k], h->tag, h->comm, &h->req[k]));
  PetscFunctionReturn(0);
}

/* Sends once the gathered entries are on the host, waits for the messages, queues their copy into
   the ghost vector and makes PETSc's stream wait for it. */
PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloEnd(MatBSRCustomStagedHalo h, Vec ghost, void *stream)
{
  double      *send = bsrc_cuda_halo_send_buffer(h->dev);
  PetscScalar *ga;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscCall(HaloCheck(h->dev, bsrc_cuda_halo_wait_packed(h->dev), "Halo"));
  for (PetscMPIInt k = 0; k < h->nto; k++) PetscCallMPI(MPI_Isend(send + h->to_off[k], (PetscMPIInt)(h->to_off[k + 1] - h->to_off[k]), MPIU_SCALAR, h->to[k], h->tag, h->comm, &h->req[h->nfrom + k]));
  PetscCallMPI(MPI_Waitall(h->nfrom + h->nto, h->req, MPI_STATUSES_IGNORE));
  PetscCall(VecGetArrayWriteAndMemType(ghost, &ga, &mt));
  PetscCheck(!PetscMemTypeHost(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The staged device halo needs a device ghost vector");
  PetscCall(HaloCheck(h->dev, bsrc_cuda_halo_unpack(h->dev, stream, ga), "Copying the halo to the GPU"));
  PetscCall(VecRestoreArrayWriteAndMemType(ghost, &ga));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)h->from_off[h->nfrom] * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}
#else
/* no CUDA in this build: the GPU backends are never chosen (MatBSRCustomBackendCheck_Private refuses
   them first), so no staged halo is ever made; the entries still say what is missing */
PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloCreate(Mat A, PetscInt nghost, const PetscInt ghost_cols[], PetscInt device, MatBSRCustomStagedHalo *hout)
{
  PetscFunctionBegin;
  (void)nghost, (void)ghost_cols, (void)device;
  *hout = NULL;
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, "The halo exchange staged through the host"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloDestroy(MatBSRCustomStagedHalo *h)
{
  PetscFunctionBegin;
  PetscCheck(!*h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A staged halo in a build without CUDA");
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloBegin(MatBSRCustomStagedHalo h, Vec x, void *stream)
{
  PetscFunctionBegin;
  (void)x, (void)stream;
  PetscCheck(!h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A staged halo in a build without CUDA");
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomStagedHaloEnd(MatBSRCustomStagedHalo h, Vec ghost, void *stream)
{
  PetscFunctionBegin;
  (void)ghost, (void)stream;
  PetscCheck(!h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A staged halo in a build without CUDA");
  PetscFunctionReturn(0);
}
#endif
