/*
   seqbsrcustom's transpose products and products with a dense matrix (issue 30).

   MatMultTranspose(Add) (and the Hermitian ones, the same for real scalars) on the cpu backend run the
   task kernel on a cached transposed copy: A^T's block structure with every block transposed, a plain
   bsrk_matrix with its own fixed-size tasks (kernels/bsrk_transpose.cpp). So y = A^T x reads its
   values in storage order and writes each y row once, at MatMult's speed, where BAIJ's own transpose
   product scatters into y serially. The copy is built at the first transpose product and again
   whenever the block structure changes (Mat_SeqBSRCustom::structure_generation); when only the values
   changed (A's object state) they are copied through the stored block permutation. It costs the
   matrix's memory again (plus an index per block); -mat_bsrcustom_transpose baij gives it back and
   runs BAIJ's code.

   On the GPU backends the same copy is uploaded as a second device matrix and the transpose product
   runs our kernels on it (auto: the copy's own choice), on host or CUDA vectors as MatMult does
   (seqbsrcustomcuda.c): its structure is uploaded when the copy is (re)built, its values when they
   were refreshed. The refresh stays on the host (the permutation copy, then one upload of the values):
   the values come from the host matrix anyway (A's own device copy is uploaded from it too), so a
   device-side permutation would save only a host pass over memory, for a second code path to keep
   equal to this one. The host copy thus stays too (the matrix's memory again on the host and on the
   device).

   MatProduct AB with a seqdense B (MatMatMult, KSPMatSolve): the block SpMM of the kernel layer, one
   pass over the matrix for the k columns, on A's own tasks, honouring both leading dimensions; on
   the GPU backends the GPU's block SpMM (seqbsrcustomcuda.c, cuda/bsrcuda_spmm.cu), on device arrays
   for a seqdensecuda B of a CUDA PETSc.
*/
#include "seqbsrcustomimpl.h"
#include "bsrk_products.h"

typedef struct {
  bsrk_transpose              T;
  PetscBool                   built;
  PetscInt                    structure_generation; /* A's, when T's structure was built */
  PetscObjectState            values_state;         /* A's object state when T's values were copied */
  bsrk_partition              tasks;
  PetscInt                    tasks_wanted;
  void                       *workspace;
  size_t                      workspace_bytes;
  PetscInt                    nonzero_block_rows; /* of A^T, for the flop count */
  bsrk_team                   team;
  PetscInt                    builds, refreshes;
  PetscInt                    values_version; /* counts builds and refreshes: the device copy's values id */
  MatSeqBSRCustomDeviceMatrix dev;            /* the GPU backends' device copy of T */
  const char                 *path;           /* the path of the last transpose product (-info says when it changes) */
  void                       *spmm_ws;        /* the block SpMM's workspace (carries, row-major copy of B), kept for the next product */
  size_t                      spmm_ws_bytes;
} SeqTransposeCopy;

static const char *const TransposePaths[] = {"cached transposed copy, task kernel", "BAIJ's serial transpose product", "cached transposed copy on the GPU, our kernels"};

/* frees the transposed copy; all: the SpMM workspace and the context too */
static PetscErrorCode SeqTransposeCopyFree(Mat A, PetscBool all)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = (SeqTransposeCopy *)b->transpose;

  PetscFunctionBegin;
  if (!t) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomCUDAKeptFree(&t->dev));
  bsrk_transpose_free(&t->T);
  bsrk_partition_free(&t->tasks);
  PetscCall(PetscFree(t->workspace));
  t->workspace_bytes = 0;
  t->built           = PETSC_FALSE;
  t->tasks_wanted    = -1;
  if (all) {
    PetscCall(PetscFree(t->spmm_ws));
    PetscCall(PetscFree(b->transpose));
  }
  PetscFunctionReturn(0);
}

/* the context, made at its first use */
static PetscErrorCode SeqTransposeCopyContext(Mat A, SeqTransposeCopy **copy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (!b->transpose) {
    SeqTransposeCopy *t;
    PetscCall(PetscNew(&t));
    bsrk_team_init(&t->team);
    t->tasks_wanted  = -1;
    t->dev.structure = -1;
    b->transpose     = t;
  }
  *copy = (SeqTransposeCopy *)b->transpose;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeDeviceFree_Private(Mat A)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (b->transpose) PetscCall(MatSeqBSRCustomCUDAKeptFree(&((SeqTransposeCopy *)b->transpose)->dev));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomOnCPU_Private(Mat A, PetscBool *cpu)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  *cpu = (PetscBool)(b->set.backend == MAT_BSRCUSTOM_BACKEND_CPU || b->bound);
  PetscFunctionReturn(0);
}

/* The copy in step with A: structure rebuilt after a structure change, values after a value change;
   tasks: its task partition for the cpu kernel too (the GPU backends need none). */
static PetscErrorCode SeqTransposeCopyUpdate(Mat A, PetscBool tasks, SeqTransposeCopy **copy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = NULL;
  bsrk_matrix       M;
  PetscObjectState  state;
  PetscInt          wanted = b->set.nthreads * b->set.chunks_per_thread;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M)); /* A's tasks and structure generation first */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  PetscCall(SeqTransposeCopyContext(A, &t));
  if (!t->built || t->structure_generation != b->structure_generation || t->T.nblocks != M.rowptr[M.nbrows] || t->T.M.nbcols != M.nbrows || t->T.M.nbrows != M.nbcols) {
    PetscCall(PetscLogEventBegin(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
    t->built = PETSC_FALSE;
    bsrk_partition_free(&t->tasks);
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_transpose_build(&M, &t->T), "the transposed copy"));
    t->tasks_wanted       = -1;
    t->nonzero_block_rows = 0;
    for (PetscInt i = 0; i < t->T.M.nbrows; i++) t->nonzero_block_rows += (t->T.rowptr[i + 1] > t->T.rowptr[i]);
    t->built                = PETSC_TRUE;
    t->structure_generation = b->structure_generation;
    t->values_state         = state;
    t->builds++;
    t->values_version++;
    PetscCall(PetscLogEventEnd(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "Built the transposed copy for MatMultTranspose: %" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows (bs %" PetscInt_FMT "), %.3g MiB\n", (PetscInt)t->T.nblocks, (PetscInt)t->T.M.nbrows, (PetscInt)M.bs, (double)t->T.nblocks * (double)(M.bs * M.bs * sizeof(PetscScalar) + 2 * sizeof(bsrk_idx)) / 1048576.0));
  } else if (t->values_state != state) {
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_transpose_values(&M, &t->T, (int)b->set.nthreads), "the transposed copy's values"));
    t->values_state = state;
    t->refreshes++;
    t->values_version++;
  }
  if (tasks && t->tasks_wanted != wanted) {
    size_t bytes;
    bsrk_partition_free(&t->tasks);
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_partition_build(t->T.M.nbrows, t->T.M.rowptr, wanted, &t->tasks), "the transposed copy's task partition"));
    bytes = bsrk_tasks_workspace_bytes(&t->tasks, M.bs);
    if (bytes > t->workspace_bytes) {
      PetscCall(PetscFree(t->workspace));
      PetscCall(PetscMalloc(bytes, &t->workspace));
      t->workspace_bytes = bytes;
    }
    t->tasks_wanted = wanted;
    bsrk_team_init(&t->team);
  }
  *copy = t;
  PetscFunctionReturn(0);
}

/* -info: which path the transpose products take, said when it changes */
static PetscErrorCode SeqTransposeSayPath(Mat A, const char *path)
{
  SeqTransposeCopy *t = NULL;

  PetscFunctionBegin;
  PetscCall(SeqTransposeCopyContext(A, &t));
  if (t->path != path) {
    t->path = path;
    PetscCall(PetscInfo(A, "MatMultTranspose runs %s\n", path));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeApply_Private(Mat A, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = NULL;
  PetscBool         cpu;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomOnCPU_Private(A, &cpu));
  if (b->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ) { /* BAIJ's, on host arrays (it logs its flops) */
    MatBSRCustomTransposeOps *ops = &b->baij_transpose_ops;
    PetscCheck(alpha == (PetscScalar)1.0 && (beta == (PetscScalar)0.0 || beta == (PetscScalar)1.0), PETSC_COMM_SELF, PETSC_ERR_SUP, "BAIJ's transpose products take alpha 1 and beta 0 or 1");
    if (b->transpose && ((SeqTransposeCopy *)b->transpose)->built) {
      PetscCall(PetscInfo(A, "Freed the transposed copy: MatMultTranspose runs %s (-mat_bsrcustom_transpose baij)\n", TransposePaths[1]));
      PetscCall(SeqTransposeCopyFree(A, PETSC_FALSE));
    }
    PetscCall(SeqTransposeSayPath(A, TransposePaths[1]));
    if (beta == (PetscScalar)0.0) PetscCall((*ops->multtranspose)(A, x, out));
    else PetscCall((*ops->multtransposeadd)(A, x, in, out));
    PetscFunctionReturn(0);
  }
  PetscCall(SeqTransposeSayPath(A, TransposePaths[cpu ? 0 : 2]));
  PetscCall(SeqTransposeCopyUpdate(A, cpu, &t));
  if (cpu) {
    if (t->dev.gpu && b->set.backend == MAT_BSRCUSTOM_BACKEND_CPU) PetscCall(MatSeqBSRCustomCUDAKeptFree(&t->dev)); /* a GPU backend's, left behind */
    PetscCall(MatSeqBSRCustomRunTasks_Private(A, &t->T.M, &t->tasks, &t->team, t->workspace, t->nonzero_block_rows, alpha, x, beta, in, out, between, "the task kernel (transposed copy)"));
  } else PetscCall(MatSeqBSRCustomCUDAKeptApply(A, &t->dev, &t->T.M, t->builds, t->values_version, t->nonzero_block_rows, "The transposed copy", alpha, x, beta, in, out));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTranspose_SeqBSRCustom(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomTransposeApply_Private(A, 1.0, x, 0.0, NULL, y, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTransposeAdd_SeqBSRCustom(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomTransposeApply_Private(A, 1.0, x, 1.0, y, z, NULL));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = (SeqTransposeCopy *)b->transpose;
  PetscBool         cpu;
  char              spmm[256] = "";

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomOnCPU_Private(A, &cpu));
  if (!cpu) PetscCall(MatSeqBSRCustomCUDASpMMView(A, spmm, sizeof(spmm)));
  if (b->set.transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ)
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s%s (-mat_bsrcustom_transpose baij, no extra memory); MatMatMult with a dense matrix: %s\n", TransposePaths[1], cpu ? "" : " on the host", cpu ? "block SpMM, one pass for all columns" : spmm));
  else if (!cpu) {
    const char *kernel = NULL;
    double      mib    = 0.0;
    if (t && t->built && t->dev.gpu) PetscCall(MatSeqBSRCustomCUDAKeptInfo(A, &t->dev, &kernel, &mib));
    if (!kernel) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (built and uploaded at the first transpose product); MatMatMult with a dense matrix: %s\n", TransposePaths[2], spmm));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (kernel %s; %" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows, %.3g MiB on the device; built %" PetscInt_FMT " time(s), values refreshed %" PetscInt_FMT " time(s), %" PetscInt_FMT " product(s) on the GPU); MatMatMult with a dense matrix: %s\n", TransposePaths[2], kernel,
                                       (PetscInt)t->T.nblocks, (PetscInt)t->T.M.nbrows, mib, t->builds, t->refreshes, t->dev.products, spmm));
  } else if (!t || !t->built) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (built at the first transpose product); MatMatMult with a dense matrix: block SpMM, one pass for all columns\n", TransposePaths[0]));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: MatMultTranspose: %s (%" PetscInt_FMT " blocks in %" PetscInt_FMT " block rows, %" PetscInt_FMT " tasks, %.3g MiB; built %" PetscInt_FMT " time(s), values refreshed %" PetscInt_FMT " time(s)); MatMatMult with a dense matrix: block SpMM, one pass for all columns\n", TransposePaths[0],
                                     (PetscInt)t->T.nblocks, (PetscInt)t->T.M.nbrows, (PetscInt)t->tasks.ntasks, (double)t->T.nblocks * (double)(A->rmap->bs * A->rmap->bs * sizeof(PetscScalar) + 2 * sizeof(bsrk_idx)) / 1048576.0, t->builds, t->refreshes));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomSpMM_Private(Mat A, PetscInt k, PetscScalar alpha, const PetscScalar *X, PetscInt ldx, PetscScalar beta, PetscScalar *Y, PetscInt ldy)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  SeqTransposeCopy *t = NULL;
  bsrk_matrix       M;
  size_t            bytes;
  bsrk_threads      kind;

  PetscFunctionBegin;
  if (k < 1) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M));
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_Kernel, A, 0, 0, 0));
  /* the threads MatMult's measurements chose (busy cores: the passive team); not timed into them */
  kind = b->set.cpu_busy_fallback && b->set.nthreads > 1 ? (bsrk_threads)b->team.mode : BSRK_THREADS_OPENMP;
  if (k == 1) { /* one column: MatMult's kernel with its settings and workspace */
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_tasks_multadd_on(&M, &b->tasks, kind, (int)b->set.nthreads, (int)MatBSRCustomCPUStreams_Private(&b->set), (int)b->set.cpu_prefetch, (bsrk_shared_rows)b->set.shared_rows, alpha, X, beta, Y, Y, b->workspace), "the task kernel"));
  } else {
    PetscCall(SeqTransposeCopyContext(A, &t));
    bytes = bsrk_spmm_workspace_bytes(&M, &b->tasks, (bsrk_idx)k);
    if (bytes > t->spmm_ws_bytes) { /* kept: a new allocation each product cost page faults on the copy of B */
      PetscCall(PetscFree(t->spmm_ws));
      PetscCall(PetscMalloc(bytes, &t->spmm_ws));
      t->spmm_ws_bytes = bytes;
    }
    PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_tasks_spmm_on(&M, &b->tasks, kind, (int)b->set.nthreads, (bsrk_idx)k, alpha, X, (bsrk_idx)ldx, beta, Y, (bsrk_idx)ldy, Y, (bsrk_idx)ldy, t->spmm_ws), "the block SpMM"));
  }
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_Kernel, A, 0, 0, 0));
  {
    const PetscLogDouble bs = (PetscLogDouble)M.bs, nblocks = (PetscLogDouble)M.rowptr[M.nbrows];
    PetscCall(PetscLogFlops((PetscLogDouble)k * (2.0 * nblocks * bs * bs - (beta == (PetscScalar)0.0 ? (PetscLogDouble)b->nonzero_block_rows * bs : 0.0))));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomProductByColumns_Private(Mat A, Mat B, Mat C)
{
  PetscInt N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, NULL, &N));
  for (PetscInt j = 0; j < N; j++) {
    Vec x, y;
    PetscCall(MatDenseGetColumnVecRead(B, j, &x));
    PetscCall(MatDenseGetColumnVecWrite(C, j, &y));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &x));
    PetscCall(MatDenseRestoreColumnVecWrite(C, j, &y));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_SeqBSRCustom_SeqDense(Mat C)
{
  Mat                A = C->product->A, B = C->product->B;
  const PetscScalar *x;
  PetscScalar       *y;
  PetscInt           ldx, ldy, k;
  PetscBool          cpu;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomOnCPU_Private(A, &cpu));
  if (!cpu) PetscCall(MatSeqBSRCustomCUDAProductDense(A, B, C)); /* GPU backends: the SpMM on the GPU */
  else {
    PetscCall(MatGetSize(B, NULL, &k));
    PetscCall(MatDenseGetLDA(B, &ldx));
    PetscCall(MatDenseGetLDA(C, &ldy));
    PetscCall(MatDenseGetArrayRead(B, &x));
    PetscCall(MatDenseGetArrayWrite(C, &y));
    PetscCall(MatSeqBSRCustomSpMM_Private(A, k, 1.0, x, ldx, 0.0, y, ldy));
    PetscCall(MatDenseRestoreArrayRead(B, &x));
    PetscCall(MatDenseRestoreArrayWrite(C, &y));
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_SeqBSRCustom_SeqDense(Mat C)
{
  Mat       A = C->product->A, B = C->product->B;
  PetscBool isdense, cpu;

  PetscFunctionBegin;
  PetscCheck(A->cmap->n == B->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A has %" PetscInt_FMT " columns, B %" PetscInt_FMT " rows", A->cmap->n, B->rmap->n);
  PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C, &isdense, MATSEQDENSE, MATMPIDENSE, ""));
  if (!isdense) PetscCall(MatSetType(C, ((PetscObject)B)->type_name));
  PetscCall(MatSetUp(C));
  C->ops->productsymbolic = MatProductSymbolic_SeqBSRCustom_SeqDense;
  C->ops->productnumeric  = MatProductNumeric_SeqBSRCustom_SeqDense;
  PetscCall(MatSeqBSRCustomOnCPU_Private(A, &cpu));
  PetscCall(PetscInfo(C, "MatProduct AB of %s with %s (%" PetscInt_FMT " columns): %s\n", ((PetscObject)A)->type_name, ((PetscObject)B)->type_name, B->cmap->N, cpu ? "block SpMM on the task partition, one pass over the matrix" : "block SpMM on the GPU, one pass for all columns"));
  PetscFunctionReturn(0);
}

/* composed as MatProductSetFromOptions_seqbsrcustom_seqdense_C (and _seqdensecuda_C: a CUDA PETSc's
   dense matrices, whose device arrays the GPU backends use): AB is ours, the other types PETSc's
   fallbacks (AtB runs MatMultTranspose per column, which is ours) */
static PetscErrorCode MatProductSetFromOptions_SeqBSRCustom_SeqDense(Mat C)
{
  PetscFunctionBegin;
  if (C->product->type == MATPRODUCT_AB) C->ops->productsymbolic = MatProductSymbolic_SeqBSRCustom_SeqDense;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomProductsInstall_Private(Mat A, PetscBool install)
{
  Mat_SeqBSRCustom         *b   = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomTransposeOps *ops = &b->baij_transpose_ops;

  PetscFunctionBegin;
  if (install) {
    /* what BAIJ installed (again, after a preallocation): kept for the baij mode and the GPU backends */
    if (A->ops->multtranspose != MatMultTranspose_SeqBSRCustom) ops->multtranspose = A->ops->multtranspose;
    if (A->ops->multtransposeadd != MatMultTransposeAdd_SeqBSRCustom) ops->multtransposeadd = A->ops->multtransposeadd;
    if (A->ops->multhermitiantranspose != MatMultTranspose_SeqBSRCustom) ops->multhermitiantranspose = A->ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd != MatMultTransposeAdd_SeqBSRCustom) ops->multhermitiantransposeadd = A->ops->multhermitiantransposeadd;
    A->ops->multtranspose    = MatMultTranspose_SeqBSRCustom;
    A->ops->multtransposeadd = MatMultTransposeAdd_SeqBSRCustom;
#if !defined(PETSC_USE_COMPLEX)
    A->ops->multhermitiantranspose    = MatMultTranspose_SeqBSRCustom; /* real scalars: the same product */
    A->ops->multhermitiantransposeadd = MatMultTransposeAdd_SeqBSRCustom;
#endif
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdense_C", MatProductSetFromOptions_SeqBSRCustom_SeqDense));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdensecuda_C", MatProductSetFromOptions_SeqBSRCustom_SeqDense));
  } else {
    if (A->ops->multtranspose == MatMultTranspose_SeqBSRCustom) A->ops->multtranspose = ops->multtranspose;
    if (A->ops->multtransposeadd == MatMultTransposeAdd_SeqBSRCustom) A->ops->multtransposeadd = ops->multtransposeadd;
    if (A->ops->multhermitiantranspose == MatMultTranspose_SeqBSRCustom) A->ops->multhermitiantranspose = ops->multhermitiantranspose;
    if (A->ops->multhermitiantransposeadd == MatMultTransposeAdd_SeqBSRCustom) A->ops->multhermitiantransposeadd = ops->multhermitiantransposeadd;
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdense_C", NULL));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_seqbsrcustom_seqdensecuda_C", NULL));
    PetscCall(SeqTransposeCopyFree(A, PETSC_TRUE));
  }
  PetscFunctionReturn(0);
}
