/*
   MATMPIBSRCUSTOM: an MPIBAIJ matrix whose MatMult/MatMultAdd overlap the halo exchange with our
   kernels. Each rank owns a band of block rows, stored by MPIBAIJ as a local block (its own columns,
   local numbering) and a ghost block (off-rank block columns compressed to 0..nghost-1, with the map
   to global block columns). After assembly both become MATSEQBSRCUSTOM (in place), so the local and
   ghost products run the fixed-size-task kernel; the exchange of x's ghost entries is our own
   VecScatter (PetscSF underneath), rebuilt only when the ghost columns change:

       begin halo exchange -> local product y = A_loc x_own -> end exchange -> ghost product y += A_gh x_ghost

   Like seqbsrcustom: create = MPIBAIJ create + in-place convert; the reverse convert undoes it.
*/
#include "mpibsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>

static PetscErrorCode MatMPIBSRCustomAttach(Mat);
static PetscErrorCode MatMPIBSRCustomDetach(Mat, PetscBool);

/* MPIBAIJ's own operations, taken once from a pristine MPIBAIJ matrix (the first one converted). */
static struct _MatOps MPIBAIJBaseOps;
static PetscErrorCode (*MPIBAIJBasePreallocation)(Mat, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = NULL;
static PetscErrorCode (*MPIBAIJBaseRetrieveValues)(Mat)                                                                  = NULL;
static PetscBool MPIBAIJBaseOpsSet                                                                                       = PETSC_FALSE;

/*
   Our context. MatHeaderMerge() (MatAXPY with a different pattern, hence MatCopy_Basic) keeps A's ops
   and type name but takes the data, spptr and composed functions of a plain MPIBAIJ matrix it built:
   such a matrix is adopted again here, by the first of our operations that sees it.
*/
static PetscErrorCode MatMPIBSRCustomContext(Mat A, Mat_MPIBSRCustom **c)
{
  PetscFunctionBegin;
  if (!A->spptr) {
    PetscCall(PetscInfo(A, "Adopting a matrix whose bsrcustom context was replaced (MatHeaderMerge)\n"));
    PetscCall(MatMPIBSRCustomAttach(A));
  }
  *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscFunctionReturn(0);
}

/* The local and ghost blocks, MPIBAIJ's own matrices (its getter insists on the base type's name). */
static PetscErrorCode MatMPIBSRCustomQueryBlocks(Mat A, Mat *local, Mat *ghost, const PetscInt **ghost_cols)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJ));
  PetscCall(MatMPIBAIJGetSeqBAIJ(A, local, ghost, ghost_cols));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBSRCUSTOM));
  PetscFunctionReturn(0);
}

/* Both blocks as seqbsrcustom with this matrix's settings. */
static PetscErrorCode MatMPIBSRCustomConvertBlocks(Mat A)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  Mat               blk[2];
  const PetscInt   *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomQueryBlocks(A, &blk[0], &blk[1], &garray));
  c->local = blk[0];
  c->ghost = blk[1];
  for (int k = 0; k < 2; k++) {
    PetscBool ours;
    if (!blk[k]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)blk[k], MATSEQBSRCUSTOM, &ours));
    if (!ours) PetscCall(MatConvert_SeqBAIJ_SeqBSRCustom(blk[k], MATSEQBSRCUSTOM, MAT_INPLACE_MATRIX, &blk[k]));
    PetscUseMethod(blk[k], "MatBSRCustomSetSettings_C", (Mat, const MatBSRCustomSettings *), (blk[k], &c->set));
    {
      Mat_SeqBSRCustom *bb = (Mat_SeqBSRCustom *)blk[k]->spptr;
      PetscCall(MatBSRCustomHoldSettings_Private(blk[k], &bb->set, c->bound, &bb->set, &bb->bound, &bb->backend));
    }
  }
  PetscFunctionReturn(0);
}

/* The halo scatter, rebuilt only when the ghost block columns differ from those it was built for. */
static PetscErrorCode MatMPIBSRCustomSetUpHalo(Mat A)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  Mat               Ad, Ao;
  const PetscInt   *garray;
  PetscInt          bs, nghost;
  PetscBool         same = PETSC_FALSE;
  IS                from, to;
  Vec               x;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomQueryBlocks(A, &Ad, &Ao, &garray));
  PetscCall(MatGetBlockSize(A, &bs));
  nghost = Ao ? Ao->cmap->n / bs : 0;
  if (c->halo && nghost == c->nghost) PetscCall(PetscArraycmp(garray, c->ghost_cols, nghost, &same));
  /* the scatter is collective: rebuild everywhere if any rank's ghosts changed */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, BSRC_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (same) PetscFunctionReturn(0);
  PetscCall(VecScatterDestroy(&c->halo));
  PetscCall(VecDestroy(&c->ghost_x));
  PetscCall(MatBSRCustomMPIHeldReset_Private(c->held));
  PetscCall(MatMPIBSRCustomTransposeHaloFree_Private(c));
  PetscCall(PetscFree(c->ghost_cols));
  PetscCall(PetscMalloc1(nghost, &c->ghost_cols));
  PetscCall(PetscArraycpy(c->ghost_cols, garray, nghost));
  c->nghost = nghost;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nghost * bs, &c->ghost_x));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, nghost, c->ghost_cols, PETSC_COPY_VALUES, &from));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, nghost * bs, 0, 1, &to));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(VecScatterCreate(x, from, c->ghost_x, to, &c->halo));
  PetscCall(VecDestroy(&x));
  PetscCall(ISDestroy(&from));
  PetscCall(ISDestroy(&to));
  PetscCall(PetscInfo(A, "Halo: %" PetscInt_FMT " ghost block columns\n", nghost));
  PetscFunctionReturn(0);
}

/* MPIBAIJ's retrieve copies the blocks' stored values back without a state increase of A (the blocks'
   own states increase, seqbsrcustomvalues.c): A's too, so that a PC set up on A is set up again */
static PetscErrorCode MatRetrieveValues_MPIBSRCustom(Mat A)
{
  PetscFunctionBegin;
  PetscCall((*MPIBAIJBaseRetrieveValues)(A));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(0);
}

/*
   The other way: the blocks' values changed where A's state did not (a program writes them through
   MatMPIBAIJGetSeqBAIJ() and MatSeqBAIJGetArray(), MatRetrieveValues() retrieves theirs): A's state is
   increased, so that what is derived from A's values (its AIJ copy, PCPBJACOBI's blocks, a PC set up on
   it) is made again. The blocks themselves are current: where A had told them all before, they need
   not be told again.
*/
static PetscErrorCode MatBSRCustomSyncState_MPIBSRCustom(Mat A)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  Mat               Ad, Ao;
  const PetscInt   *garray;
  PetscObjectState  sd, so = 0, st;

  PetscFunctionBegin;
  if (!A->assembled) PetscFunctionReturn(0);
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(PetscObjectStateGet((PetscObject)Ad, &sd));
  if (Ao) PetscCall(PetscObjectStateGet((PetscObject)Ao, &so));
  if (c->seen_valid && (sd != c->seen_local || so != c->seen_ghost)) {
    PetscCall(PetscObjectStateGet((PetscObject)A, &st));
    PetscCall(PetscObjectStateIncrease((PetscObject)A));
    if (c->blocks_state == st) PetscCall(PetscObjectStateGet((PetscObject)A, &c->blocks_state));
  }
  c->seen_local = sd;
  c->seen_ghost = so;
  c->seen_valid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Blocks a MatHeaderMerge left as MPIBAIJ's until the next assembly: the same four steps with their own
   products (the steps of a table that has nothing else) */
static PetscErrorCode MatMPIBSRCustomBaseLocalMult(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  if (p->beta == (PetscScalar)0.0) PetscCall((*p->Ad->ops->mult)(p->Ad, p->x, p->out));
  else PetscCall((*p->Ad->ops->multadd)(p->Ad, p->x, p->in, p->out));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMPIBSRCustomBaseGhostMultAdd(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall((*p->Ao->ops->multadd)(p->Ao, p->ghost, p->out, p->out));
  p->path = "MPIBAIJ's (blocks that are not " MATSEQBSRCUSTOM ")";
  PetscFunctionReturn(0);
}

static const MatBSRCustomBackendOps MPIBAIJBlocksSteps = {
  .name              = "MPIBAIJ's blocks",
  .mpi_halo_begin    = MatBSRCustomMPIScatterBegin_Private,
  .mpi_local_mult    = MatMPIBSRCustomBaseLocalMult,
  .mpi_halo_end      = MatBSRCustomMPIScatterEnd_Private,
  .mpi_ghost_multadd = MatMPIBSRCustomBaseGhostMultAdd,
};

/* the product's record, and the table whose steps run it: A's backend's, with the blocks' views, where
   both blocks are ours */
static PetscErrorCode MatMPIBSRCustomProductBegin(Mat A, Vec x, PetscScalar beta, Vec in, Vec out, MatBSRCustomMPIProduct *p, const MatBSRCustomBackendOps **be)
{
  Mat_MPIBSRCustom *c = NULL;
  PetscBool         ours[2];

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall(MatMPIBSRCustomProductInit_Private(A, x, beta, in, out, p));
  PetscCall(PetscObjectTypeCompare((PetscObject)p->Ad, MATSEQBSRCUSTOM, &ours[0]));
  PetscCall(PetscObjectTypeCompare((PetscObject)p->Ao, MATSEQBSRCUSTOM, &ours[1]));
  *be = &MPIBAIJBlocksSteps;
  if (!ours[0] || !ours[1]) PetscFunctionReturn(0);
  *be = c->backend;
  PetscCall(MatMPIBSRCustomBlocksFollowState_Private(A, p->Ad, p->Ao));
  PetscCall(MatSeqBSRCustomPrepare_Private(p->Ad, &p->M));
  PetscCall(MatSeqBSRCustomPrepare_Private(p->Ao, &p->G));
  PetscFunctionReturn(0);
}

/* -info says once which path runs; MatView shows the last */
static PetscErrorCode MatMPIBSRCustomProductEnd(Mat A, const MatBSRCustomMPIProduct *p)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (p->path != c->path) PetscCall(PetscInfo(A, "MatMult path: %s\n", p->path));
  c->path = p->path;
  PetscFunctionReturn(0);
}

/*
   out = A x + beta in (beta 0 or 1) as MPIAIJ's MatMult, each step A's backend's
   (bsrcustommpiproduct.h): halo begun, the local block's product, halo ended, the ghost block's added.
   cpu: the local product on the task kernel, its calling thread letting MPI progress between tasks
   (-mat_bsrcustom_mpi_progress). GPU backends, host vectors: x uploaded and the local kernel queued
   without waiting while the exchange runs on the host, the ghost kernel into the same device y, y
   downloaded once; CUDA vectors: a device ghost vector, filled by PetscSF on the GPU or, where MPI reads
   host memory only, by our staged halo (backends/gpu/bsrcustomstagedhalo.c) while the local kernel runs.
*/
static PetscErrorCode MatMPIBSRCustomApply(Mat A, Vec x, PetscScalar beta, Vec in, Vec out)
{
  const MatBSRCustomBackendOps *be = NULL;
  MatBSRCustomMPIProduct        p;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomProductBegin(A, x, beta, in, out, &p, &be));
  PetscCall((*be->mpi_halo_begin)(&p));
  PetscCall((*be->mpi_local_mult)(&p));
  PetscCall((*be->mpi_halo_end)(&p));
  PetscCall((*be->mpi_ghost_multadd)(&p));
  PetscCall(MatMPIBSRCustomProductEnd(A, &p));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_MPIBSRCustom(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomApply(A, x, 0.0, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_MPIBSRCustom(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomApply(A, x, 1.0, y, z));
  PetscFunctionReturn(0);
}

/* After MPIBAIJ has (re)assembled or duplicated: our blocks, our halo, our MatMult. */
static PetscErrorCode MatMPIBSRCustomSetUp(Mat A)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomConvertBlocks(A));
  PetscCall(MatMPIBSRCustomSetUpHalo(A));
  if (A->ops->mult != MatMult_MPIBSRCustom) c->baij_mult = A->ops->mult;
  if (A->ops->multadd != MatMultAdd_MPIBSRCustom) c->baij_multadd = A->ops->multadd;
  A->ops->mult    = MatMult_MPIBSRCustom;
  A->ops->multadd = MatMultAdd_MPIBSRCustom;
  PetscCall(MatMPIBSRCustomProductsInstall_Private(A, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* After MatSetValuesCOO from device memory (mpibsrcustomcoo.c), the assembly that closes it (PETSc
   3.25) changes no value where nothing was set on A (insertmode) or changed (A's state) since: the
   blocks need not be told of the state increase MatAssemblyEnd() then makes, so that their device
   copies stay current. Values set on A reach its blocks unseen by them (MPIBAIJ writes their arrays):
   their device copies then follow. */
static PetscErrorCode MatMPIBSRCustomCOOAssembly(Mat A, Mat_MPIBSRCustom *c)
{
  PetscObjectState state;

  PetscFunctionBegin;
  if (A->insertmode != NOT_SET_VALUES && A->preallocated) {
    Mat Ad, Ao; /* MPIBAIJ's blocks now: new off-rank blocks may have replaced the ghost block since c's record */
    PetscCall(MatMPIBSRCustomQueryBlocks(A, &Ad, &Ao, NULL));
    if (Ad) PetscCall(MatSeqBSRCustomGPUCOOForget_Private(Ad));
    if (Ao) PetscCall(MatSeqBSRCustomGPUCOOForget_Private(Ao));
  }
  if (!c->coo_device_fresh) PetscFunctionReturn(0);
  c->coo_device_fresh = PETSC_FALSE;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (A->insertmode == NOT_SET_VALUES && state == c->blocks_state) c->blocks_state = state + 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatAssemblyEnd_MPIBSRCustom(Mat A, MatAssemblyType mode)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MatMPIBSRCustomCOOAssembly(A, c));
  PetscCall((*c->baij_assemblyend)(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) {
    PetscCall(MatMPIBSRCustomSetUp(A));
    PetscCall(MatMPIBSRCustomFollowStructure_Private(A, c->local, c->ghost));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetFromOptions_MPIBSRCustom(Mat A, BSRCOptionItems PetscOptionsObject)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  if (c->baij_setfromoptions) PetscCall((*c->baij_setfromoptions)(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "MPIBSRCustom options");
  PetscCall(MatBSRCustomOptionsProcess_Private(A, PetscOptionsObject, &c->set));
  PetscOptionsHeadEnd();
  PetscCall(MatBSRCustomHoldSettings_Private(A, &c->set, c->bound, &c->set, &c->bound, &c->backend));
  if (A->assembled) PetscCall(MatMPIBSRCustomConvertBlocks(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatView_MPIBSRCustom(Mat A, PetscViewer viewer)
{
  Mat_MPIBSRCustom *c = NULL;
  PetscBool         isascii;
  PetscViewerFormat format;
  Mat               Ad, Ao;
  const PetscInt   *garray;
  PetscMPIInt       rank;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall((*c->baij_view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: backend %s on every rank, block size %" PetscInt_FMT ", %" PetscInt_FMT " threads x %" PetscInt_FMT " chunks per thread, %" PetscInt_FMT " walked at once by a thread, values prefetched %" PetscInt_FMT " bytes ahead (0: none), shared rows by %s; halo exchange overlapped with the local product\n",
                                   c->backend->name, A->rmap->bs, c->set.nthreads, c->set.chunks_per_thread, (PetscInt)bsrk_streams_used(A->rmap->bs, (int)MatBSRCustomCPUStreams_Private(&c->set)), c->set.cpu_prefetch,
                                   MatBSRCustomSharedRowsTypes[c->set.shared_rows]));
  {
    char why[512];

    PetscCall(MatBSRCustomThreadsWhy_Private(&c->set, why, sizeof(why)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: %" PetscInt_FMT " threads a rank (rank 0: %s)\n", c->set.nthreads, why));
  }
  if (!A->assembled) PetscFunctionReturn(0);
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  {
    MatInfo  il, ig;
    PetscInt tl = 0, tg = 0, bs2 = A->rmap->bs * A->rmap->bs;
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &il));
    PetscCall(MatGetInfo(Ao, MAT_LOCAL, &ig));
    PetscCall(MatBSRCustomGetNumTasks(Ad, &tl));
    PetscCall(MatBSRCustomGetNumTasks(Ao, &tg));
    PetscCall((*c->backend->mpi_view)(A, &c->set, c->path, viewer));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] local block: %" PetscInt_FMT " x %" PetscInt_FMT " block rows/cols, %" PetscInt_FMT " blocks, %" PetscInt_FMT " tasks; ghost block: %" PetscInt_FMT " ghost block columns, %" PetscInt_FMT " blocks, %" PetscInt_FMT " tasks\n", rank,
                                                 Ad->rmap->n / A->rmap->bs, Ad->cmap->n / A->rmap->bs, (PetscInt)(il.nz_used / bs2), tl, c->nghost, (PetscInt)(ig.nz_used / bs2), tg));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscCall(MatMPIBSRCustomTransposeView_Private(A, viewer));
  PetscFunctionReturn(0);
}

/* FD coloring: MPIBAIJ's, under the base type name (see MatBSRCustomFDColoringCall_Private()). */
static PetscErrorCode MatFDColoringCreate_MPIBSRCustom(Mat A, ISColoring iscoloring, MatFDColoring fd)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall(MatBSRCustomFDColoringCall_Private(A, MATMPIBAIJ, MATMPIBSRCUSTOM, c->baij_fdcoloringcreate, iscoloring, fd));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatFDColoringSetUp_MPIBSRCustom(Mat A, ISColoring iscoloring, MatFDColoring fd)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall(MatBSRCustomFDColoringCall_Private(A, MATMPIBAIJ, MATMPIBSRCUSTOM, c->baij_fdcoloringsetup, iscoloring, fd));
  PetscCall(MatBSRCustomFDColoringHostWork_Private(fd));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetValues_MPIBSRCustom(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall(MatBSRCustomSetValuesAllowNull_Private(c->baij_setvalues, A, m, im, n, in, v, mode));
  PetscFunctionReturn(0);
}

/* through the scalar path where a new ghost may come (mpibsrcustomsetvalues.c) */
static PetscErrorCode MatSetValuesBlocked_MPIBSRCustom(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall(MatMPIBSRCustomSetValuesBlocked_Private(A, c, m, im, n, in, v, mode));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomGetSettings_MPIBSRCustom(Mat A, MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  *set = ((Mat_MPIBSRCustom *)A->spptr)->set;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomSetSettings_MPIBSRCustom(Mat A, const MatBSRCustomSettings *set)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomHoldSettings_Private(A, set, c->bound, &c->set, &c->bound, &c->backend));
  if (A->assembled) PetscCall(MatMPIBSRCustomConvertBlocks(A));
  PetscFunctionReturn(0);
}

/* MatBindToCPU: the bound matrix and its blocks run the CPU kernel on host vectors */
static PetscErrorCode MatBindToCPU_MPIBSRCustom(Mat A, PetscBool flg)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomHoldSettings_Private(A, &c->set, flg, &c->set, &c->bound, &c->backend));
  if (A->assembled) PetscCall(MatMPIBSRCustomConvertBlocks(A));
  PetscFunctionReturn(0);
}

/* The kernel that runs on this rank's local block. */
static PetscErrorCode MatBSRCustomGetCUDAKernelUsed_MPIBSRCustom(Mat A, MatBSRCustomCUDAKernel *used)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatBSRCustomGetCUDAKernel(Ad, NULL, used));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomGetNumTasks_MPIBSRCustom(Mat A, PetscInt *ntasks)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The tasks exist only once the matrix is assembled");
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatBSRCustomGetNumTasks(Ad, ntasks));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomGetLocalAndGhost_MPIBSRCustom(Mat A, Mat *local, Mat *ghost, PetscInt *nghost, const PetscInt **ghost_cols, VecScatter *halo, Vec *ghost_x)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  const PetscInt   *garray;
  Mat               Ad, Ao;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The local/ghost split exists only once the matrix is assembled");
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &Ad, &Ao, &garray));
  if (local) *local = Ad;
  if (ghost) *ghost = Ao;
  if (nghost) *nghost = c->nghost;
  if (ghost_cols) *ghost_cols = c->ghost_cols;
  if (halo) *halo = c->halo;
  if (ghost_x) *ghost_x = c->ghost_x;
  PetscFunctionReturn(0);
}

/* MPIBAIJ's MatGetMultiProcBlock() makes a MATMPIBAIJ. */
static PetscErrorCode MatGetMultiProcBlock_MPIBSRCustom(Mat A, MPI_Comm subcomm, MatReuse scall, Mat *sub)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall((*c->baij_getmultiprocblock)(A, subcomm, scall, sub));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(MatBSRCustomAdopt_Private(A, sub));
  PetscFunctionReturn(0);
}

/* A subset pattern is merged row by row (seq/seqbsrcustomsubsetaxpy.c). MPIBAIJ's MatAXPY() with a new
   pattern builds a MATMPIBAIJ and merges it into Y (MatHeaderMerge): Y keeps our operations but loses
   our context, composed methods and blocks; they are put back at once. */
static PetscErrorCode MatAXPY_MPIBSRCustom(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_MPIBSRCustom    *c = NULL;
  MatBSRCustomSettings set;
  PetscBool            done;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSubsetAXPY_Private(Y, a, X, str, &done));
  if (done) PetscFunctionReturn(0);
  PetscCall(MatMPIBSRCustomContext(Y, &c));
  set = c->set;
  PetscCall((*c->baij_axpy)(Y, a, X, str));
  if (!Y->spptr) {
    PetscCall(MatMPIBSRCustomAttach(Y));
    PetscCall(MatBSRCustomSetSettings_MPIBSRCustom(Y, &set));
  }
  PetscFunctionReturn(0);
}

/* the methods both types compose, composed for this one (bsrcustomlifecycle.c) */
static const MatBSRCustomTypeMethods MPIBSRCustomTypeMethods = {
  .to_base_name     = "MatConvert_mpibsrcustom_mpibaij_C",
  .to_base          = MatConvert_MPIBSRCustom_MPIBAIJ,
  .get_settings     = MatBSRCustomGetSettings_MPIBSRCustom,
  .set_settings     = MatBSRCustomSetSettings_MPIBSRCustom,
  .cuda_kernel_used = MatBSRCustomGetCUDAKernelUsed_MPIBSRCustom,
  .num_tasks        = MatBSRCustomGetNumTasks_MPIBSRCustom,
};

/* MPIBAIJ's converters are composed under "mpibaij" names; publish them under ours (those that read
   their source by type name go through the AIJ copy: bsrcustomconvertviaaij.c). */
/* install: ours; otherwise removes ours and, with restore, puts MPIBAIJ's preallocation back (not
   before a destroy: PETSc 3.25's MatHeaderMerge would then leak the list it went into) */
static PetscErrorCode MatMPIBSRCustomComposeMethods(Mat A, PetscBool install, PetscBool restore)
{
  const char *targets[] = {MATMPISBAIJ, MATMPIADJ}; /* MATMPIAIJ: ours (mpibsrcustomaij.c) */
  char        from[128], to[128];

#define BSRC_COMPOSE(name, fn) PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? (void (*)(void))(fn) : NULL))
  PetscFunctionBegin;
  PetscCall(MatBSRCustomComposeTypeMethods_Private(A, &MPIBSRCustomTypeMethods, install));
  BSRC_COMPOSE("MatBSRCustomGetLocalAndGhost_C", MatBSRCustomGetLocalAndGhost_MPIBSRCustom);
  BSRC_COMPOSE("MatBSRCustomSyncState_C", MatBSRCustomSyncState_MPIBSRCustom);
  BSRC_COMPOSE("MatConvert_mpibsrcustom_mpiaij_C", MatConvert_MPIBSRCustom_MPIAIJ);
  if (install) {
    BSRC_COMPOSE("MatRetrieveValues_C", MatRetrieveValues_MPIBSRCustom);
  } else {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatRetrieveValues_C", restore ? MPIBAIJBaseRetrieveValues : NULL));
  }
  BSRC_COMPOSE("MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIBSRCustom);
  BSRC_COMPOSE("MatMPIAIJSetPreallocationCSR_C", MatMPIAIJSetPreallocationCSR_MPIBSRCustom);
  if (install) {
    BSRC_COMPOSE("MatMPIBAIJSetPreallocation_C", MatMPIBAIJSetPreallocation_MPIBSRCustom);
  } else {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIBAIJSetPreallocation_C", restore ? MPIBAIJBasePreallocation : NULL));
  }
#undef BSRC_COMPOSE
  PetscCall(MatBSRCustomComposeAIJProducts_Private(A, MATMPIBSRCUSTOM, install));
  PetscCall(MatMPIBSRCustomComposeGalerkinProducts_Private(A, install));
  PetscCall(MatMPIBSRCustomComposeCOO_Private(A, install));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(targets); i++) {
    void (*f)(void) = NULL;
    PetscCall(PetscSNPrintf(from, sizeof(from), "MatConvert_mpibaij_%s_C", targets[i]));
    PetscCall(PetscSNPrintf(to, sizeof(to), "MatConvert_mpibsrcustom_%s_C", targets[i]));
    if (install) PetscCall(PetscObjectQueryFunction((PetscObject)A, from, &f));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, to, f));
  }
  PetscCall(MatBSRCustomComposeConvertersViaAIJ_Private(A, MATMPIBAIJ, MATMPIBSRCUSTOM, install));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MPIBSRCustom(Mat A)
{
  Mat_MPIBSRCustom *c = NULL;
  PetscErrorCode (*baij_destroy)(Mat);

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  baij_destroy = c->baij_destroy;
  PetscCall(MatMPIBSRCustomDetach(A, PETSC_FALSE));
  PetscCall((*baij_destroy)(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDuplicate_MPIBSRCustom(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_MPIBSRCustom *c = NULL, *d;

  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomContext(A, &c));
  PetscCall((*c->baij_duplicate)(A, op, M));
  PetscCall(MatConvert_MPIBAIJ_MPIBSRCustom(*M, MATMPIBSRCUSTOM, MAT_INPLACE_MATRIX, M));
  d = (Mat_MPIBSRCustom *)(*M)->spptr;
  PetscCall(MatBSRCustomHoldSettings_Private(*M, &c->set, c->bound, &d->set, &d->bound, &d->backend));
  if ((*M)->assembled) PetscCall(MatMPIBSRCustomSetUp(*M));
  d->ignore_off_proc = c->ignore_off_proc; /* as MPIBAIJ's copy keeps it */
  PetscCall(MatMPIBSRCustomDuplicateCOO_Private(A, *M));
  PetscFunctionReturn(0);
}

/* Hangs a fresh context on B (an MPIBAIJ matrix by its data) and installs our operations. */
static PetscErrorCode MatMPIBSRCustomAttach(Mat B)
{
  Mat_MPIBSRCustom *c = NULL;

  PetscFunctionBegin;
  PetscCheck(MPIBAIJBaseOpsSet, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIBAIJ's operations were never recorded");
  PetscCall(PetscNew(&c));
  PetscCall(MatBSRCustomMPIHeldCreate_Private(&c->held));
  c->baij_destroy                                 = MPIBAIJBaseOps.destroy;
  c->baij_duplicate                               = MPIBAIJBaseOps.duplicate;
  c->baij_assemblyend                             = MPIBAIJBaseOps.assemblyend;
  c->baij_view                                    = MPIBAIJBaseOps.view;
  c->baij_setfromoptions                          = MPIBAIJBaseOps.setfromoptions;
  c->baij_mult                                    = MPIBAIJBaseOps.mult;
  c->baij_multadd                                 = MPIBAIJBaseOps.multadd;
  c->baij_fdcoloringcreate                        = MPIBAIJBaseOps.fdcoloringcreate;
  c->baij_fdcoloringsetup                         = MPIBAIJBaseOps.fdcoloringsetup;
  c->baij_setvalues                               = MPIBAIJBaseOps.setvalues;
  c->baij_getmultiprocblock                       = MPIBAIJBaseOps.getmultiprocblock;
  c->baij_axpy                                    = MPIBAIJBaseOps.axpy;
  c->baij_bindtocpu                               = MPIBAIJBaseOps.bindtocpu;
  c->baij_setvaluesblocked                        = MPIBAIJBaseOps.setvaluesblocked;
  c->baij_mpibaijsetpreallocation                 = MPIBAIJBasePreallocation;
  c->baij_transpose_ops.multtranspose             = MPIBAIJBaseOps.multtranspose; /* Y's ops may be ours already (MatHeaderMerge) */
  c->baij_transpose_ops.multtransposeadd          = MPIBAIJBaseOps.multtransposeadd;
  c->baij_transpose_ops.multhermitiantranspose    = MPIBAIJBaseOps.multhermitiantranspose;
  c->baij_transpose_ops.multhermitiantransposeadd = MPIBAIJBaseOps.multhermitiantransposeadd;
  c->block_preallocated                           = B->preallocated;
  PetscCall(MatBSRCustomSettingsDefault_Private(&c->set));
  c->backend = MatBSRCustomBackendOf_Private(&c->set, c->bound);
  B->spptr   = c;

  B->ops->destroy          = MatDestroy_MPIBSRCustom;
  B->ops->duplicate        = MatDuplicate_MPIBSRCustom;
  B->ops->assemblyend      = MatAssemblyEnd_MPIBSRCustom;
  B->ops->view             = MatView_MPIBSRCustom;
  B->ops->setfromoptions   = MatSetFromOptions_MPIBSRCustom;
  B->ops->setvalues        = MatSetValues_MPIBSRCustom;
  B->ops->setvaluesblocked = MatSetValuesBlocked_MPIBSRCustom;
  if (c->baij_getmultiprocblock) B->ops->getmultiprocblock = MatGetMultiProcBlock_MPIBSRCustom;
  if (c->baij_axpy) B->ops->axpy = MatAXPY_MPIBSRCustom;
  B->ops->bindtocpu = MatBindToCPU_MPIBSRCustom;
  PetscCall(MatBSRCustomInstallBlockDiagonal_Private(B, PETSC_TRUE));
  PetscCall(MatBSRCustomMakersInstall_Private(B, &MPIBAIJBaseOps, &c->makers, PETSC_TRUE));
  B->ops->creategraph = MatCreateGraph_BSRCustom; /* from the blocks (seq/seqbsrcustomgraph.c); the makers put the base's back */
  if (c->baij_fdcoloringcreate) B->ops->fdcoloringcreate = MatFDColoringCreate_MPIBSRCustom;
  if (c->baij_fdcoloringsetup) B->ops->fdcoloringsetup = MatFDColoringSetUp_MPIBSRCustom;
  PetscCall(MatMPIBSRCustomComposeMethods(B, PETSC_TRUE, PETSC_FALSE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIBSRCUSTOM));
  PetscCall(MatBSRCustomOptionsFromDatabase_Private(B, &c->set));
  PetscCall(MatBSRCustomHoldSettings_Private(B, &c->set, c->bound, &c->set, &c->bound, &c->backend));
  if (B->assembled) {
    PetscCall(MatMPIBSRCustomSetUp(B));
    PetscCall(MatMPIBSRCustomFollowStructure_Private(B, c->local, c->ghost));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatConvert_MPIBAIJ_MPIBSRCustom(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       B = *newmat;
  PetscBool already;

  PetscFunctionBegin;
  (void)type;
  PetscCall(MatBSRCustomNodeLearn_Private(PetscObjectComm((PetscObject)A))); /* collective here; once per process (default threads, GPU) */
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBSRCUSTOM, &already));
  if (reuse == MAT_REUSE_MATRIX || already) {
    *newmat = B;
    PetscFunctionReturn(0);
  }
  if (!MPIBAIJBaseOpsSet) {
    PetscCall(PetscMemcpy(&MPIBAIJBaseOps, B->ops, sizeof(struct _MatOps)));
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatMPIBAIJSetPreallocation_C", &MPIBAIJBasePreallocation));
    PetscCheck(MPIBAIJBasePreallocation, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIBAIJ preallocation routine missing");
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatRetrieveValues_C", &MPIBAIJBaseRetrieveValues));
    PetscCheck(MPIBAIJBaseRetrieveValues, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIBAIJ's MatRetrieveValues missing");
    MPIBAIJBaseOpsSet = PETSC_TRUE;
  }
  PetscCall(MatMPIBSRCustomAttach(B));
  *newmat = B;
  PetscFunctionReturn(0);
}

/* Takes our operations, methods, context and blocks off B (an mpibsrcustom), which is MPIBAIJ again;
   restore: MPIBAIJ's own preallocation method is composed back (not before a destroy). */
static PetscErrorCode MatMPIBSRCustomDetach(Mat B, PetscBool restore)
{
  Mat_MPIBSRCustom *c = NULL;
  Mat               blk[2];
  const PetscInt   *garray;

  PetscFunctionBegin;
  c = (Mat_MPIBSRCustom *)B->spptr;
  /* the blocks go back to seqbaij (MatDestroy of the base frees them) */
  PetscCall(MatMPIBSRCustomQueryBlocks(B, &blk[0], &blk[1], &garray));
  for (int k = 0; k < 2; k++) {
    PetscBool ours;
    if (!blk[k]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)blk[k], MATSEQBSRCUSTOM, &ours));
    if (ours) PetscCall(MatConvert_SeqBSRCustom_SeqBAIJ(blk[k], MATSEQBAIJ, MAT_INPLACE_MATRIX, &blk[k]));
  }
  B->ops->destroy           = c->baij_destroy;
  B->ops->duplicate         = c->baij_duplicate;
  B->ops->assemblyend       = c->baij_assemblyend;
  B->ops->view              = c->baij_view;
  B->ops->setfromoptions    = c->baij_setfromoptions;
  B->ops->mult              = c->baij_mult;
  B->ops->multadd           = c->baij_multadd;
  B->ops->fdcoloringcreate  = c->baij_fdcoloringcreate;
  B->ops->fdcoloringsetup   = c->baij_fdcoloringsetup;
  B->ops->setvalues         = c->baij_setvalues;
  B->ops->setvaluesblocked  = c->baij_setvaluesblocked;
  B->ops->getmultiprocblock = c->baij_getmultiprocblock;
  B->ops->axpy              = c->baij_axpy;
  B->ops->bindtocpu         = c->baij_bindtocpu;
  PetscCall(MatBSRCustomInstallBlockDiagonal_Private(B, PETSC_FALSE));
  PetscCall((*MatBSRCustomBackendBoundCPU.vectors_follow)(B)); /* MPIBAIJ's: host vectors, bound */
  PetscCall(MatBSRCustomMakersInstall_Private(B, NULL, &c->makers, PETSC_FALSE));
  PetscCall(MatMPIBSRCustomProductsInstall_Private(B, PETSC_FALSE));
  PetscCall(MatMPIBSRCustomComposeMethods(B, PETSC_FALSE, restore));
  PetscCall(VecScatterDestroy(&c->halo));
  PetscCall(VecDestroy(&c->ghost_x));
  PetscCall(MatBSRCustomMPIHeldDestroy_Private(&c->held));
  PetscCall(MatMPIBSRCustomTransposeHaloFree_Private(c));
  PetscCall(PetscFree(c->ghost_cols));
  PetscCall(PetscFree(B->spptr));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIBAIJ));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatConvert_MPIBSRCustom_MPIBAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomConvertToBase_Private(A, MatMPIBSRCustomDetach, reuse, newmat));
  PetscFunctionReturn(0);
}

/* AIJ (and anything else) -> ours */
static PetscErrorCode MatConvert_Any_MPIBSRCustom(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomConvertViaBase_Private(A, MATMPIBAIJ, MatConvert_MPIBAIJ_MPIBSRCustom, type, reuse, newmat));
  PetscFunctionReturn(0);
}

/*MC
   MATMPIBSRCUSTOM - "mpibsrcustom" - a parallel Block Sparse Row matrix: storage, assembly (including
   off-process MatSetValues) and preallocation are MATMPIBAIJ's. Each rank's band of block rows is split
   into a local block (its own columns) and a ghost block (off-rank columns compressed to the ghosts
   this rank needs), both MATSEQBSRCUSTOM, so both products run the fixed-size-task OpenMP kernel; the
   exchange of x's ghost entries (a VecScatter) overlaps the local product.

   Threads per rank: -mat_bsrcustom_threads, else OMP_NUM_THREADS, else the node's cores shared among
   its ranks (c cores, p ranks: c/p each, at least 1, at most the cores a rank is bound to). With t
   threads and p ranks on a node, keep t x p at most the node's cores and start ranks with `mpiexec
   --bind-to none` (or a binding of t cores per rank), since Open MPI pins each rank to one core by
   default.

   Options Database Keys:
+  -mat_type bsrcustom - selects the type (with -dll_append path/libpetscbsrcustom.so)
.  -mat_bsrcustom_threads <n> - OpenMP threads for MatMult (default: OMP_NUM_THREADS where set, else the node's cores / the job's ranks on it, at least 1; MatBSRCustomSetNumThreads())
.  -mat_bsrcustom_chunks_per_thread <c> - tasks per thread (default 8)
.  -mat_bsrcustom_cpu_streams <1,2,4,PETSC_DECIDE> - tasks a thread walks at once, in lockstep (default PETSC_DECIDE: 2 on one thread, else 1)
.  -mat_bsrcustom_cpu_prefetch <bytes> - how far ahead of each block its values are prefetched, 0 for none (default 8192)
.  -mat_bsrcustom_shared_rows <carry,atomic> - how split block rows are summed (default carry)
.  -mat_bsrcustom_huge_pages <true,false> - ask for transparent huge pages under the values (default true)
.  -mat_bsrcustom_cpu_busy_fallback <true,false> - products on a team whose threads sleep between them while that is faster than the OpenMP team (busy cores; default true)
.  -mat_bsrcustom_mpi_progress <true,false> - several ranks, cpu backend: MPI progress between the local product's tasks, so that the halo exchange moves while it runs (default true)
.  -mat_bsrcustom_transpose <cached,baij> - MatMultTranspose(Add): our kernels on a cached transposed copy (the task kernel; on the GPU backends the copy is also a second device matrix; built at the first transpose product, refreshed with the values; the matrix's memory again) or BAIJ's serial code on the host (no extra memory) (default cached)
.  -mat_bsrcustom_backend <cpu,cuda,cusparse> - where MatMult runs (default cpu)
.  -mat_bsrcustom_cuda_kernel <auto,rowmajor_shared,thread_private,team_scalar,vector_unrolled,warp_row,hybrid,segmented,sliced> - the kernel of the cuda backend (default auto: picked per matrix)
.  -mat_bsrcustom_cusparse_alg <bsrmv,spmv> - the cuSPARSE routine of the cusparse backend (default bsrmv)
.  -mat_bsrcustom_cuda_device <n> - the GPU of the GPU backends (default -1: node-local rank modulo the visible GPUs)
.  -mat_bsrcustom_cuda_pin_vectors <true,false> - page-lock large host vectors on their second use (default true)
-  -mat_bsrcustom_cuda_pbjacobi <true,false> - with CUDA vectors of a CUDA-enabled PETSc, PCPBJACOBI applies on the GPU (default true)

   MATBSRCUSTOM, MATSEQBSRCUSTOM and MATMPIBSRCUSTOM take the same options.

   Level: beginner

.seealso: `MATBSRCUSTOM`, `MATSEQBSRCUSTOM`, `MATMPIBAIJ`, `MatBSRCustomGetLocalAndGhost()`
M*/
PETSC_INTERN PetscErrorCode MatCreate_MPIBSRCustom(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATMPIBAIJ));
  PetscCall(MatConvert_MPIBAIJ_MPIBSRCustom(A, MATMPIBSRCUSTOM, MAT_INPLACE_MATRIX, &A));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpibaij_mpibsrcustom_C", MatConvert_MPIBAIJ_MPIBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaij_mpibsrcustom_C", MatConvert_Any_MPIBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpisbaij_mpibsrcustom_C", MatConvert_Any_MPIBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpidense_mpibsrcustom_C", MatConvert_Any_MPIBSRCustom));
  PetscFunctionReturn(0);
}
