/*
   The cpu backend of a seqbsrcustom matrix (and of an MPI matrix's blocks): products on the OpenMP
   task kernel of kernels/ over the task partition it holds for the block (bsrcustomheld.h), cut again
   only when the block rows or the thread and chunk settings change; the transposed copy's products on
   a partition of its own, the block SpMM, and the backend's MatView lines.
*/
#include "seqbsrcustomimpl.h"
#include "bsrk_products.h"
#include <../src/mat/impls/bsrcustom/backends/bsrcustomheld.h>
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

/* Error from the PETSc-free kernel layer -> PETSc error naming what failed. */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomKernelCheck_Private(Mat A, bsrk_status st, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(st != BSRK_ERR_ALLOC, PetscObjectComm((PetscObject)A), PETSC_ERR_MEM, "Out of memory in %s", what);
  PetscCheck(st == BSRK_OK, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s rejected its arguments (status %d)", what, (int)st);
  PetscFunctionReturn(0);
}

/* A's task partition for M (A's view), cut again where A's block rows (their generation) or the
   thread and chunk settings changed; a new partition also asks for huge pages under the values and
   starts the team's measurements again. The table's `ready`, and the first step of every product of
   this backend's (a GPU backend's fallback to it, too) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUReady_Private(Mat A, const bsrk_matrix *M)
{
  Mat_SeqBSRCustom    *b      = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomCPUHeld *c      = &b->held->cpu;
  const PetscInt       wanted = b->set.nthreads * b->set.chunks_per_thread;
  size_t               bytes;

  PetscFunctionBegin;
  if (c->built && c->wanted == wanted && c->rows == b->row_generation) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
  bsrk_partition_free(&c->tasks);
  c->built = PETSC_FALSE;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_partition_build(M->nbrows, M->rowptr, wanted, &c->tasks), "the task partition"));
  bytes = bsrk_tasks_workspace_bytes(&c->tasks, M->bs);
  if (bytes > c->workspace_bytes) {
    PetscCall(PetscFree(c->workspace));
    PetscCall(PetscMalloc(bytes, &c->workspace));
    c->workspace_bytes = bytes;
  }
  c->huge_granted = PETSC_FALSE; /* the values the threads stream, onto huge pages (already huge pages stay) */
  if (b->set.huge_pages) PetscCall(MatBSRCustomAdviseHugePages_Private(A, M->values, (size_t)M->rowptr[M->nbrows] * (size_t)(M->bs * M->bs) * sizeof(PetscScalar), &c->huge_granted));
  bsrk_team_init(&c->team); /* new tasks, new times */
  c->built  = PETSC_TRUE;
  c->wanted = wanted;
  c->rows   = b->row_generation;
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
  {
    char why[512];

    PetscCall(MatBSRCustomThreadsWhy_Private(&b->set, why, sizeof(why)));
    PetscCall(PetscInfo(A, "Partitioned %" PetscInt_FMT " blocks of %" PetscInt_FMT " block rows (bs %" PetscInt_FMT ") into %" PetscInt_FMT " tasks: %" PetscInt_FMT " threads (%s) x %" PetscInt_FMT " chunks per thread\n", (PetscInt)M->rowptr[M->nbrows],
                        (PetscInt)M->nbrows, (PetscInt)M->bs, (PetscInt)c->tasks.ntasks, b->set.nthreads, why, b->set.chunks_per_thread));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUNumTasks_Private(Mat A, const bsrk_matrix *M, PetscInt *ntasks)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCPUReady_Private(A, M));
  *ntasks = (PetscInt)((Mat_SeqBSRCustom *)A->spptr)->held->cpu.tasks.ntasks;
  PetscFunctionReturn(0);
}

/*
  out = alpha*M*x + beta*in on the task kernel (in is not read when beta == 0), M being A's own BSR
  view or a matrix kept for A (its transposed copy), each with its tasks, thread team and workspace;
  logs M's flops. between (may be NULL): the calling thread's work between its tasks.
*/
static PetscErrorCode RunTasks(Mat A, const bsrk_matrix *M, const bsrk_partition *tasks, bsrk_team *team, void *workspace, PetscInt nonzero_block_rows, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between, const char *what)
{
  Mat_SeqBSRCustom  *b = (Mat_SeqBSRCustom *)A->spptr;
  const PetscScalar *xa, *ina = NULL;
  PetscScalar       *outa;
  PetscBool          adapt;
  bsrk_threads       kind;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  if (beta == (PetscScalar)0.0) {
    PetscCall(VecGetArrayWrite(out, &outa));
  } else if (in == out) {
    PetscCall(VecGetArray(out, &outa));
    ina = outa;
  } else {
    PetscCall(VecGetArrayRead(in, &ina));
    PetscCall(VecGetArrayWrite(out, &outa));
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, x, out, 0));
  adapt = (PetscBool)(b->set.cpu_busy_fallback && b->set.nthreads > 1);
  kind  = adapt ? bsrk_team_begin(team, bsrk_team_clock()) : BSRK_THREADS_OPENMP;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_tasks_multadd_between(M, tasks, kind, (int)b->set.nthreads, (int)MatBSRCustomCPUStreams_Private(&b->set), (int)b->set.cpu_prefetch, (bsrk_shared_rows)b->set.shared_rows, alpha, xa, beta, ina, outa, workspace, between), what));
  if (adapt) {
    const int mode = team->mode;
    bsrk_team_end(team, bsrk_team_clock());
    if (mode != team->mode)
      PetscCall(PetscInfo(A, "%s (%s: measured %.3g ms a product on the OpenMP team, %.3g ms on the passive team)\n", team->mode == BSRK_THREADS_PASSIVE ? "Cores busy: products on the passive team" : "Products on the OpenMP team again", what,
                          1e3 * team->mean[BSRK_THREADS_OPENMP], 1e3 * team->mean[BSRK_THREADS_PASSIVE]));
  }
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, x, out, 0));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (beta == (PetscScalar)0.0) {
    PetscCall(VecRestoreArrayWrite(out, &outa));
  } else if (in == out) {
    PetscCall(VecRestoreArray(out, &outa));
  } else {
    PetscCall(VecRestoreArrayRead(in, &ina));
    PetscCall(VecRestoreArrayWrite(out, &outa));
  }
  {
    const PetscLogDouble bs = (PetscLogDouble)M->bs, nblocks = (PetscLogDouble)M->rowptr[M->nbrows];
    PetscCall(PetscLogFlops(2.0 * nblocks * bs * bs - (beta == (PetscScalar)0.0 ? (PetscLogDouble)nonzero_block_rows * bs : 0.0)));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUApply_Private(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  Mat_SeqBSRCustom    *b = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomCPUHeld *c = &b->held->cpu;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomCPUReady_Private(A, M));
  PetscCall(RunTasks(A, M, &c->tasks, &c->team, c->workspace, b->nonzero_block_rows, alpha, x, beta, in, out, between, "the task kernel"));
  PetscFunctionReturn(0);
}

/* the kept matrix's partition, cut for A's thread and chunk settings and k's structure */
static PetscErrorCode KeptTasks(Mat A, MatSeqBSRCustomKept *k)
{
  Mat_SeqBSRCustom *b      = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          wanted = b->set.nthreads * b->set.chunks_per_thread;
  size_t            bytes;

  PetscFunctionBegin;
  if (k->tasks_wanted == wanted && k->tasks_structure == k->structure) PetscFunctionReturn(0);
  bsrk_partition_free(&k->tasks);
  k->tasks_wanted = -1;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_partition_build(k->M.nbrows, k->M.rowptr, wanted, &k->tasks), "the task partition of the transposed copy"));
  bytes = bsrk_tasks_workspace_bytes(&k->tasks, k->M.bs);
  if (bytes > k->workspace_bytes) {
    PetscCall(PetscFree(k->workspace));
    PetscCall(PetscMalloc(bytes, &k->workspace));
    k->workspace_bytes = bytes;
  }
  k->tasks_wanted    = wanted;
  k->tasks_structure = k->structure;
  bsrk_team_init(&k->team);
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUKeptApply_Private(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  PetscFunctionBegin;
  PetscCall(KeptTasks(A, k));
  PetscCall(RunTasks(A, &k->M, &k->tasks, &k->team, k->workspace, k->nonzero_block_rows, alpha, x, beta, in, out, between, "the task kernel (transposed copy)"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUKeptFree_Private(MatSeqBSRCustomKept *k)
{
  PetscFunctionBegin;
  bsrk_partition_free(&k->tasks);
  PetscCall(PetscFree(k->workspace));
  k->workspace_bytes = 0;
  k->tasks_wanted    = -1;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUTransposeView_Private(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer)
{
  const char *spmm = "block SpMM, one pass for all columns";

  PetscFunctionBegin;
  if (baij) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: BAIJ's serial transpose product (-mat_bsrcustom_transpose baij, no extra memory); MatMatMult with a dense matrix: %s\n", spmm));
  else if (!k) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (built at the first transpose product); MatMatMult with a dense matrix: %s\n", MATBSRCUSTOM_CPU_TRANSPOSE_PATH, spmm));
  else {
    const PetscInt nblocks = k->M.rowptr[k->M.nbrows];
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (%" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows, %" PetscInt_FMT " tasks, %.3g MiB; built %" PetscInt_FMT " time(s), values refreshed %" PetscInt_FMT " time(s)); MatMatMult with a dense matrix: %s\n", MATBSRCUSTOM_CPU_TRANSPOSE_PATH, nblocks,
                                     (PetscInt)k->M.nbrows, k->tasks_wanted >= 0 ? (PetscInt)k->tasks.ntasks : 0, (double)nblocks * (double)(A->rmap->bs * A->rmap->bs * sizeof(PetscScalar) + 2 * sizeof(bsrk_idx)) / 1048576.0, builds, refreshes, spmm));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUSpMM_Private(Mat A, const bsrk_matrix *M, PetscInt k, PetscScalar alpha, const PetscScalar *X, PetscInt ldx, PetscScalar beta, PetscScalar *Y, PetscInt ldy)
{
  Mat_SeqBSRCustom    *b = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomCPUHeld *c = &b->held->cpu;
  size_t               bytes;
  bsrk_threads         kind;

  PetscFunctionBegin;
  if (k < 1) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomCPUReady_Private(A, M));
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, 0, 0, 0));
  /* the threads MatMult's measurements chose (busy cores: the passive team); not timed into them */
  kind = b->set.cpu_busy_fallback && b->set.nthreads > 1 ? (bsrk_threads)c->team.mode : BSRK_THREADS_OPENMP;
  if (k == 1) { /* one column: MatMult's kernel with its settings and workspace */
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_tasks_multadd_on(M, &c->tasks, kind, (int)b->set.nthreads, (int)MatBSRCustomCPUStreams_Private(&b->set), (int)b->set.cpu_prefetch, (bsrk_shared_rows)b->set.shared_rows, alpha, X, beta, Y, Y, c->workspace), "the task kernel"));
  } else {
    bytes = bsrk_spmm_workspace_bytes(M, &c->tasks, (bsrk_idx)k);
    if (bytes > c->spmm_workspace_bytes) { /* kept: a new allocation each product cost page faults on the copy of B */
      PetscCall(PetscFree(c->spmm_workspace));
      PetscCall(PetscMalloc(bytes, &c->spmm_workspace));
      c->spmm_workspace_bytes = bytes;
    }
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_tasks_spmm_on(M, &c->tasks, kind, (int)b->set.nthreads, (bsrk_idx)k, alpha, X, (bsrk_idx)ldx, beta, Y, (bsrk_idx)ldy, Y, (bsrk_idx)ldy, c->spmm_workspace), "the block SpMM"));
  }
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, 0, 0, 0));
  {
    const PetscLogDouble bs = (PetscLogDouble)M->bs, nblocks = (PetscLogDouble)M->rowptr[M->nbrows];
    PetscCall(PetscLogFlops((PetscLogDouble)k * (2.0 * nblocks * bs * bs - (beta == (PetscScalar)0.0 ? (PetscLogDouble)b->nonzero_block_rows * bs : 0.0))));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUProductDense_Private(Mat A, const bsrk_matrix *M, Mat B, Mat C)
{
  const PetscScalar *x;
  PetscScalar       *y;
  PetscInt           ldx, ldy, k;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &k));
  PetscCall(MatDenseGetLDA(B, &ldx));
  PetscCall(MatDenseGetLDA(C, &ldy));
  PetscCall(MatDenseGetArrayRead(B, &x));
  PetscCall(MatDenseGetArrayWrite(C, &y));
  PetscCall(MatSeqBSRCustomCPUSpMM_Private(A, M, k, 1.0, x, ldx, 0.0, y, ldy));
  PetscCall(MatDenseRestoreArrayRead(B, &x));
  PetscCall(MatDenseRestoreArrayWrite(C, &y));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqBSRCustom          *b = (Mat_SeqBSRCustom *)A->spptr;
  const MatBSRCustomCPUHeld *c = &b->held->cpu;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: backend cpu (OpenMP fixed-size tasks), block size %" PetscInt_FMT ", %" PetscInt_FMT " threads x %" PetscInt_FMT " chunks per thread = %" PetscInt_FMT " tasks, %" PetscInt_FMT " walked at once by a thread, values prefetched %" PetscInt_FMT " bytes ahead (0: none), shared rows by %s, huge pages for the values %s, busy-core fallback %s\n",
                                   A->rmap->bs, b->set.nthreads, b->set.chunks_per_thread, c->built ? (PetscInt)c->tasks.ntasks : 0, (PetscInt)bsrk_streams_used(A->rmap->bs, (int)MatBSRCustomCPUStreams_Private(&b->set)), b->set.cpu_prefetch, b->set.shared_rows == MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC ? "atomic" : "carry",
                                   !b->set.huge_pages ? "not asked for"
                                   : c->huge_granted  ? "granted"
                                                      : "asked for, not granted (-info says why)",
                                   b->set.cpu_busy_fallback ? "on" : "off"));
  {
    char why[512];

    PetscCall(MatBSRCustomThreadsWhy_Private(&b->set, why, sizeof(why)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: %" PetscInt_FMT " threads: %s\n", b->set.nthreads, why));
  }
  if (b->set.cpu_busy_fallback && b->set.nthreads > 1)
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: products now on the %s team (measured %.3g ms a product on the OpenMP team, %.3g ms on the passive team; %ld change(s))\n", c->team.mode == BSRK_THREADS_PASSIVE ? "passive" : "OpenMP",
                                     1e3 * c->team.mean[BSRK_THREADS_OPENMP], 1e3 * c->team.mean[BSRK_THREADS_PASSIVE], c->team.switches));
  PetscFunctionReturn(0);
}

/* nothing to give back when the backend changes: the partition it holds stays with the block (a later
   return to the cpu backend finds it current), the kept copy's partition goes with the copy */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPURelease_Private(Mat A, MatSeqBSRCustomKept *k)
{
  PetscFunctionBegin;
  (void)A, (void)k;
  PetscFunctionReturn(0);
}

/* the matrix's vectors are host vectors and it runs on the CPU */
/* MATSEQAIJ and MATMPIAIJ take any vectors already */
PETSC_INTERN PetscErrorCode MatBSRCustomCPUAIJMade_Private(Mat M)
{
  PetscFunctionBegin;
  (void)M;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCPUVectorsFollow_Private(Mat A)
{
  PetscFunctionBegin;
#if defined(BSRC_HAVE_PETSC_CUDA)
  PetscCall(MatSetVecType(A, VECSTANDARD));
#endif
#if defined(BSRC_HAVE_DEVICE_BINDING)
  A->boundtocpu = PETSC_TRUE;
#endif
  (void)A;
  PetscFunctionReturn(0);
}

/* GAMG's block products on the host, OpenMP over the rows of C on A's threads */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUBlockProductPlan_Private(Mat A, bsrk_product_kind kind, const bsrk_rect_matrix *RA, const bsrk_rect_matrix *RP, bsrk_block_product **plan)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (kind == BSRK_PRODUCT_PTAP) PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_ptap_symbolic(RA, RP, (int)b->set.nthreads, plan), "the symbolic phase of P^T A P"));
  else PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_ap_symbolic(RA, RP, (int)b->set.nthreads, plan), "the symbolic phase of A P"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUBlockProductNumeric_Private(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  (void)M;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_block_product_numeric_from(plan, RA, A_blocks, RP, (int)b->set.nthreads, C_values), "the numeric phase of the block product"));
  PetscCall(PetscLogFlops(bsrk_block_product_flops(plan)));
  PetscFunctionReturn(0);
}
