/*
   MATSEQBSRCUSTOM: a SeqBAIJ matrix whose MatMult/MatMultAdd run the fixed-size-task OpenMP
   kernel (kernels/bsrk_tasks_omp.cpp). Built the way PETSc's own BAIJ subtypes are (baijmkl):
   create = SeqBAIJ create + in-place convert; the convert swaps a few ops, hangs our context on
   A->spptr and renames the type; the reverse convert undoes exactly that.

   Everything about storage, assembly and preallocation stays SeqBAIJ's: the kernel reads BAIJ's
   own arrays (column-major bs x bs blocks) in place. What a backend needs to run them (the cpu
   backend's task partition, a device copy) it holds in the block's held object, made again only when
   the block structure or the settings it depends on change.
*/
#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

/* the options check the same limit the kernel layer does */
_Static_assert(MATBSRCUSTOM_MAX_CPU_PREFETCH == BSRK_MAX_PREFETCH_BYTES, "prefetch limits of bsrcustomimpl.h and bsrkernels.h differ");

/* out = alpha*A*x + beta*in on A's backend; in is not read when beta == 0. between: the calling
   thread's work between its tasks on the cpu backend (the GPU backends have no use for it). */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomApply_Private(Mat A, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  bsrk_matrix       M;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M));
  PetscCall((*b->backend->apply)(A, &M, alpha, x, beta, in, out, between));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_SeqBSRCustom(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomApply_Private(A, 1.0, x, 0.0, NULL, y, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_SeqBSRCustom(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomApply_Private(A, 1.0, x, 1.0, y, z, NULL));
  PetscFunctionReturn(0);
}

/*
   The MatMult/MatMultAdd that SeqBAIJ's preallocation picks for A's block size, read off a 1-block
   SeqBAIJ that PETSc preallocates itself with A's options prefix, so the same options apply
   (-mat_no_unroll, -mat_baij_mult_version). SeqBAIJ picks its kernels there and nowhere else: a
   matrix made by MatDuplicate_SeqBAIJ keeps the generic MatMult_SeqBAIJ_N whatever its block size;
   and Debian's PETSc hides the MatMult_SeqBAIJ_<bs> symbols.
*/
static PetscErrorCode MatSeqBSRCustomPreallocatedBAIJMultOps(Mat A, PetscErrorCode (**mult)(Mat, Vec, Vec), PetscErrorCode (**multadd)(Mat, Vec, Vec, Vec))
{
  Mat         T;
  PetscInt    bs;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(MatCreate(PETSC_COMM_SELF, &T));
  PetscCall(MatSetSizes(T, bs, bs, bs, bs));
  PetscCall(MatSetOptionsPrefix(T, prefix));
  PetscCall(MatSetType(T, MATSEQBAIJ));
  PetscCall(MatSeqBAIJSetPreallocation(T, bs, 1, NULL));
  *mult    = T->ops->mult;
  *multadd = T->ops->multadd;
  PetscCall(MatDestroy(&T));
  PetscFunctionReturn(0);
}

/* Keeps b->baij_mult/multadd, what the reverse convert puts back, at SeqBAIJ's choice for a
   preallocated matrix of A's block size: taken again whenever SeqBAIJ's own are found on A (after
   the convert, a preallocation, a duplicate); before any preallocation SeqBAIJ's generic ones stand,
   and the preallocation will pick. */
static PetscErrorCode MatSeqBSRCustomSaveBAIJMultOps(Mat A)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (A->ops->mult == MatMult_SeqBSRCustom && A->ops->multadd == MatMultAdd_SeqBSRCustom) PetscFunctionReturn(0);
  if (A->preallocated) PetscCall(MatSeqBSRCustomPreallocatedBAIJMultOps(A, &b->baij_mult, &b->baij_multadd));
  else {
    b->baij_mult    = A->ops->mult;
    b->baij_multadd = A->ops->multadd;
  }
  PetscFunctionReturn(0);
}

/* BAIJ re-selects MatMult by block size at preallocation: remember its choice, then put ours back. */
static PetscErrorCode MatSeqBSRCustomInstallMultOps(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomSaveBAIJMultOps(A));
  A->ops->mult    = MatMult_SeqBSRCustom;
  A->ops->multadd = MatMultAdd_SeqBSRCustom;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatAssemblyEnd_SeqBSRCustom(Mat A, MatAssemblyType mode)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  bsrk_matrix       M;

  PetscFunctionBegin;
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MatSeqBSRCustomGPUCOOAssembly_Private(A));
  PetscCall((*b->baij_assemblyend)(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomFollowStructure_Private(A));
  PetscCall(MatSeqBSRCustomInstallMultOps(A));
  PetscCall(MatSeqBSRCustomProductsInstall_Private(A, PETSC_TRUE));
  PetscCall(MatSeqBSRCustomUpdate_Private(A, PETSC_TRUE, &M));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetFromOptions_SeqBSRCustom(Mat A, BSRCOptionItems PetscOptionsObject)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (b->baij_setfromoptions) PetscCall((*b->baij_setfromoptions)(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "SeqBSRCustom options");
  PetscCall(MatBSRCustomOptionsProcess_Private(A, PetscOptionsObject, &b->set));
  PetscOptionsHeadEnd();
  PetscCall(MatBSRCustomHoldSettings_Private(A, &b->set, b->bound, &b->set, &b->bound, &b->backend));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatView_SeqBSRCustom(Mat A, PetscViewer viewer)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscBool         isascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall((*b->baij_view)(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(0);
  if (A->assembled) {
    bsrk_matrix M;

    PetscCall(MatSeqBSRCustomPrepare_Private(A, &M));
  }
  PetscCall((*b->backend->view)(A, viewer));
  PetscCall(MatSeqBSRCustomTransposeView_Private(A, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqBSRCustomDetach(Mat, PetscBool);

/* FD coloring: BAIJ's, under the base type name (see MatBSRCustomFDColoringCall_Private()). */
static PetscErrorCode MatFDColoringCreate_SeqBSRCustom(Mat A, ISColoring iscoloring, MatFDColoring c)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomFDColoringCall_Private(A, MATSEQBAIJ, MATSEQBSRCUSTOM, ((Mat_SeqBSRCustom *)A->spptr)->baij_fdcoloringcreate, iscoloring, c));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatFDColoringSetUp_SeqBSRCustom(Mat A, ISColoring iscoloring, MatFDColoring c)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomFDColoringCall_Private(A, MATSEQBAIJ, MATSEQBSRCUSTOM, ((Mat_SeqBSRCustom *)A->spptr)->baij_fdcoloringsetup, iscoloring, c));
  PetscCall(MatBSRCustomFDColoringHostWork_Private(c));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_SeqBSRCustom(Mat A)
{
  Mat_SeqBSRCustom *b                 = (Mat_SeqBSRCustom *)A->spptr;
  PetscErrorCode (*baij_destroy)(Mat) = b->baij_destroy;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomDetach(A, PETSC_FALSE));
  PetscCall((*baij_destroy)(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDuplicate_SeqBSRCustom(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr, *d;

  PetscFunctionBegin;
  PetscCall((*b->baij_duplicate)(A, op, M));
  PetscCall(MatConvert_SeqBAIJ_SeqBSRCustom(*M, MATSEQBSRCUSTOM, MAT_INPLACE_MATRIX, M));
  d = (Mat_SeqBSRCustom *)(*M)->spptr;
  PetscCall(MatBSRCustomHoldSettings_Private(*M, &b->set, b->bound, &d->set, &d->bound, &d->backend)); /* the copy goes to the device at its first product */
  PetscCall(MatSeqBSRCustomDuplicateCOO_Private(A, *M));
  PetscFunctionReturn(0);
}

/* gives back what backend `ops` holds for A and its transposed copy (device copies) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomRelease_Private(Mat A, const MatBSRCustomBackendOps *ops)
{
  MatSeqBSRCustomKept *k = NULL;

  PetscFunctionBegin;
  PetscCall((*ops->release)(A, NULL));
  PetscCall(MatSeqBSRCustomTransposeKept_Private(A, &k));
  if (k) PetscCall((*ops->release)(A, k));
  PetscFunctionReturn(0);
}

/* Settings and queries behind the public setters and getters (options/bsrcustomsetcpu.c, options/bsrcustomsetgpu.c). */
static PetscErrorCode MatBSRCustomGetSettings_SeqBSRCustom(Mat A, MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  *set = ((Mat_SeqBSRCustom *)A->spptr)->set;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomSetSettings_SeqBSRCustom(Mat A, const MatBSRCustomSettings *set)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  {
    /* a backend that keeps other memory than the new one's gives it back (the device copies); a
       binding to the CPU keeps them, for the first product after unbinding */
    const MatBSRCustomBackendOps *was = MatBSRCustomBackendOf_Private(&b->set, PETSC_FALSE), *now = MatBSRCustomBackendOf_Private(set, PETSC_FALSE);
    if (was->release != now->release) PetscCall(MatSeqBSRCustomRelease_Private(A, was));
  }
  PetscCall(MatBSRCustomHoldSettings_Private(A, set, b->bound, &b->set, &b->bound, &b->backend));
  PetscFunctionReturn(0);
}

/* MatBindToCPU: a bound matrix runs the CPU kernel and makes host vectors; the device copy is kept
   (it is brought up to date at the first product after unbinding) */
static PetscErrorCode MatBindToCPU_SeqBSRCustom(Mat A, PetscBool flg)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomHoldSettings_Private(A, &b->set, flg, &b->set, &b->bound, &b->backend));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomGetCUDAKernelUsed_SeqBSRCustom(Mat A, MatBSRCustomCUDAKernel *used)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomGPUKernelUsed_Private(A, used));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomGetNumTasks_SeqBSRCustom(Mat A, PetscInt *ntasks)
{
  bsrk_matrix M;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The tasks exist only once the matrix is assembled");
  PetscCall(MatSeqBSRCustomPrepare_Private(A, &M));
  PetscCall(MatSeqBSRCustomCPUNumTasks_Private(A, &M, ntasks));
  PetscFunctionReturn(0);
}

/* Block preallocation: SeqBAIJ's, remembering that the caller gave block counts. */
static PetscErrorCode MatSeqBAIJSetPreallocation_SeqBSRCustom(Mat A, PetscInt bs, PetscInt nz, const PetscInt nnz[])
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (b->aij_bs1 && PetscAbs(bs) > 1 && !A->assembled && !A->was_assembled) {
    MatBSRCustomSettings set = b->set;
    /* AIJ-style preallocation came first and fixed block size 1, which SeqBAIJ cannot change: start
       again from a fresh matrix (nothing is lost: a new preallocation drops what was inserted) */
    PetscCall(PetscInfo(A, "Block size %" PetscInt_FMT " asked for after AIJ-style preallocation fixed 1: the matrix is made again\n", PetscAbs(bs)));
    PetscCall(MatSetType(A, MATSEQBAIJ));
    PetscCall(MatSetType(A, MATSEQBSRCUSTOM));
    ((Mat_SeqBSRCustom *)A->spptr)->set = set;
    PetscCall(MatSeqBAIJSetPreallocation(A, bs, nz, nnz));
    PetscFunctionReturn(0);
  }
  PetscCall((*b->baij_seqbaijsetpreallocation)(A, bs, nz, nnz));
  b->aij_bs1 = PETSC_FALSE;
  if (nnz || (nz != PETSC_DEFAULT && nz != PETSC_DECIDE)) b->block_preallocated = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetValues_SeqBSRCustom(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomSetValuesAllowNull_Private(((Mat_SeqBSRCustom *)A->spptr)->baij_setvalues, A, m, im, n, in, v, mode));
  PetscFunctionReturn(0);
}

/* BAIJ's concatenation (MatCreateMPIMatConcatenateSeqMat(), MatCreateRedundantMatrix()) makes a MATBAIJ. */
static PetscErrorCode MatCreateMPIMatConcatenateSeqMat_SeqBSRCustom(MPI_Comm comm, Mat inmat, PetscInt n, MatReuse scall, Mat *outmat)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqBSRCustom *)inmat->spptr)->baij_concatenate)(comm, inmat, n, scall, outmat));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(MatBSRCustomAdopt_Private(inmat, outmat));
  PetscFunctionReturn(0);
}

/* BAIJ's own converters are composed under "seqbaij" names; publish them under ours (those that read
   their source by type name go through the AIJ copy: bsrcustomconvertviaaij.c). */
static PetscErrorCode MatSeqBSRCustomComposeBAIJConverters(Mat A, PetscBool install)
{
  const char *targets[] = {MATSEQAIJ, MATSEQSBAIJ};
  char        from[128], to[128];

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(targets); i++) {
    void (*f)(void) = NULL;
    PetscCall(PetscSNPrintf(from, sizeof(from), "MatConvert_seqbaij_%s_C", targets[i]));
    PetscCall(PetscSNPrintf(to, sizeof(to), "MatConvert_seqbsrcustom_%s_C", targets[i]));
    if (install) PetscCall(PetscObjectQueryFunction((PetscObject)A, from, &f));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, to, f));
  }
  PetscCall(MatBSRCustomComposeConvertersViaAIJ_Private(A, MATSEQBAIJ, MATSEQBSRCUSTOM, install));
  PetscFunctionReturn(0);
}

/* the methods both types compose, composed for this one (bsrcustomlifecycle.c) */
static const MatBSRCustomTypeMethods SeqBSRCustomTypeMethods = {
  .to_base_name     = "MatConvert_seqbsrcustom_seqbaij_C",
  .to_base          = MatConvert_SeqBSRCustom_SeqBAIJ,
  .get_settings     = MatBSRCustomGetSettings_SeqBSRCustom,
  .set_settings     = MatBSRCustomSetSettings_SeqBSRCustom,
  .cuda_kernel_used = MatBSRCustomGetCUDAKernelUsed_SeqBSRCustom,
  .num_tasks        = MatBSRCustomGetNumTasks_SeqBSRCustom,
};

/* install: ours; otherwise removes ours and, with restore, puts SeqBAIJ's preallocation back (not
   before a destroy: PETSc 3.25's MatHeaderMerge would then leak the list it went into) */
static PetscErrorCode MatSeqBSRCustomComposeMethods(Mat A, PetscBool install, PetscBool restore)
{
#define BSRC_COMPOSE(name, fn) PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? (void (*)(void))(fn) : NULL))
  PetscFunctionBegin;
  PetscCall(MatBSRCustomComposeTypeMethods_Private(A, &SeqBSRCustomTypeMethods, install));
  BSRC_COMPOSE("MatSeqAIJSetPreallocation_C", MatSeqAIJSetPreallocation_SeqBSRCustom);
  BSRC_COMPOSE("MatSeqAIJSetPreallocationCSR_C", MatSeqAIJSetPreallocationCSR_SeqBSRCustom);
  if (install) {
    BSRC_COMPOSE("MatSeqBAIJSetPreallocation_C", MatSeqBAIJSetPreallocation_SeqBSRCustom);
  } else {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqBAIJSetPreallocation_C", restore ? ((Mat_SeqBSRCustom *)A->spptr)->baij_seqbaijsetpreallocation : NULL));
  }
  PetscCall(MatSeqBSRCustomComposeValueRoutes_Private(A, install, restore));
  PetscCall(MatSeqBSRCustomComposeCOO_Private(A, install));
  PetscCall(MatSeqBSRCustomComposeBAIJConverters(A, install));
  PetscCall(MatBSRCustomComposeAIJProducts_Private(A, MATSEQBSRCUSTOM, install));
  PetscCall(MatSeqBSRCustomComposeGalerkinProducts_Private(A, install));
#undef BSRC_COMPOSE
  PetscFunctionReturn(0);
}

/*
   MatZeroRows: BAIJ compresses its arrays in place without calling ops->assemblyend, so we wrap it
   to have the next product compare the block rows (the cpu backend then cuts its tasks again).
*/
static PetscErrorCode MatZeroRows_SeqBSRCustom(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_SeqBSRCustom *c = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*c->baij_zerorows)(A, n, rows, diag, x, b));
  c->rows_followed = PETSC_FALSE;                                         /* the next product compares the rows */
  if (A->assembled) PetscCall(MatSeqBSRCustomFollowStructure_Private(A)); /* rows without their blocks */
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatConvert_SeqBAIJ_SeqBSRCustom(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat               B = *newmat;
  Mat_SeqBSRCustom *b;

  PetscBool already;

  PetscFunctionBegin;
  (void)type;
  PetscCall(MatBSRCustomNodeLearn_Private(PetscObjectComm((PetscObject)A))); /* on one rank's PETSC_COMM_WORLD: once per process */
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBSRCUSTOM, &already));
  if (reuse == MAT_REUSE_MATRIX || already) {
    *newmat = B;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscNew(&b));
  b->baij_destroy          = B->ops->destroy;
  b->baij_duplicate        = B->ops->duplicate;
  b->baij_assemblyend      = B->ops->assemblyend;
  b->baij_view             = B->ops->view;
  b->baij_setfromoptions   = B->ops->setfromoptions;
  b->baij_fdcoloringsetup  = B->ops->fdcoloringsetup;
  b->baij_fdcoloringcreate = B->ops->fdcoloringcreate;
  b->baij_setvalues        = B->ops->setvalues;
  b->baij_bindtocpu        = B->ops->bindtocpu;
  b->block_preallocated    = B->preallocated;
  PetscCall(MatBSRCustomHeldCreate_Private(&b->held));
  PetscCall(MatBSRCustomSettingsDefault_Private(&b->set));
  b->backend = MatBSRCustomBackendOf_Private(&b->set, b->bound);
  B->spptr   = b;
  PetscCall(MatSeqBSRCustomSaveBAIJMethods_Private(B, (void (*)(void))MatSeqBAIJSetPreallocation_SeqBSRCustom));

  b->baij_zerorows       = B->ops->zerorows;
  b->baij_concatenate    = B->ops->creatempimatconcatenateseqmat;
  B->ops->destroy        = MatDestroy_SeqBSRCustom;
  B->ops->duplicate      = MatDuplicate_SeqBSRCustom;
  B->ops->assemblyend    = MatAssemblyEnd_SeqBSRCustom;
  B->ops->view           = MatView_SeqBSRCustom;
  B->ops->setfromoptions = MatSetFromOptions_SeqBSRCustom;
  B->ops->zerorows       = MatZeroRows_SeqBSRCustom;
  B->ops->setvalues      = MatSetValues_SeqBSRCustom;
  B->ops->bindtocpu      = MatBindToCPU_SeqBSRCustom;
  PetscCall(MatBSRCustomInstallBlockDiagonal_Private(B, PETSC_TRUE));
  PetscCall(MatSeqBSRCustomInstallInvertBlockDiagonal_Private(B, PETSC_TRUE));
  if (b->baij_concatenate) B->ops->creatempimatconcatenateseqmat = MatCreateMPIMatConcatenateSeqMat_SeqBSRCustom;
  PetscCall(MatBSRCustomMakersInstall_Private(B, B->ops, &b->makers, PETSC_TRUE));
  B->ops->creategraph = MatCreateGraph_BSRCustom; /* from the blocks (seqbsrcustomgraph.c); the makers put the base's back */
  if (b->baij_fdcoloringsetup) B->ops->fdcoloringsetup = MatFDColoringSetUp_SeqBSRCustom;
  if (b->baij_fdcoloringcreate) B->ops->fdcoloringcreate = MatFDColoringCreate_SeqBSRCustom;
  PetscCall(MatSeqBSRCustomInstallMultOps(B));
  PetscCall(MatSeqBSRCustomProductsInstall_Private(B, PETSC_TRUE));
  PetscCall(MatSeqBSRCustomComposeMethods(B, PETSC_TRUE, PETSC_FALSE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQBSRCUSTOM));
  /* settings given on the command line apply even where the program never calls MatSetFromOptions() */
  PetscCall(MatBSRCustomOptionsFromDatabase_Private(B, &b->set));
  PetscCall(MatBSRCustomHoldSettings_Private(B, &b->set, b->bound, &b->set, &b->bound, &b->backend));
  if (B->assembled) {
    bsrk_matrix M;

    PetscCall(MatSeqBSRCustomFollowStructure_Private(B));
    PetscCall(MatSeqBSRCustomUpdate_Private(B, PETSC_TRUE, &M));
  }
  *newmat = B;
  PetscFunctionReturn(0);
}

/* Takes our operations, methods and context off B (a seqbsrcustom), which is SeqBAIJ again; restore:
   SeqBAIJ's own preallocation method is composed back (not before a destroy). */
static PetscErrorCode MatSeqBSRCustomDetach(Mat B, PetscBool restore)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)B->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomSaveBAIJMultOps(B)); /* a preallocation since the last assembly may have left SeqBAIJ's */
  B->ops->destroy                       = b->baij_destroy;
  B->ops->duplicate                     = b->baij_duplicate;
  B->ops->assemblyend                   = b->baij_assemblyend;
  B->ops->view                          = b->baij_view;
  B->ops->setfromoptions                = b->baij_setfromoptions;
  B->ops->fdcoloringsetup               = b->baij_fdcoloringsetup;
  B->ops->fdcoloringcreate              = b->baij_fdcoloringcreate;
  B->ops->zerorows                      = b->baij_zerorows;
  B->ops->mult                          = b->baij_mult;
  B->ops->multadd                       = b->baij_multadd;
  B->ops->setvalues                     = b->baij_setvalues;
  B->ops->bindtocpu                     = b->baij_bindtocpu;
  B->ops->creatempimatconcatenateseqmat = b->baij_concatenate;
  PetscCall(MatBSRCustomInstallBlockDiagonal_Private(B, PETSC_FALSE));
  PetscCall(MatSeqBSRCustomInstallInvertBlockDiagonal_Private(B, PETSC_FALSE));
  PetscCall((*MatBSRCustomBackendBoundCPU.vectors_follow)(B)); /* BAIJ's: host vectors, bound */
  PetscCall(MatBSRCustomMakersInstall_Private(B, NULL, &b->makers, PETSC_FALSE));
  PetscCall(MatSeqBSRCustomComposeMethods(B, PETSC_FALSE, restore));
  PetscCall(MatSeqBSRCustomProductsInstall_Private(B, PETSC_FALSE));
  PetscCall(MatSeqBSRCustomRelease_Private(B, MatBSRCustomBackendOf_Private(&b->set, PETSC_FALSE)));
  PetscCall(MatBSRCustomHeldDestroy_Private(&b->held));
  PetscCall(PetscFree(b->rowptr_copy));
  PetscCall(PetscFree(B->spptr));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQBAIJ));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatConvert_SeqBSRCustom_SeqBAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomConvertToBase_Private(A, MatSeqBSRCustomDetach, reuse, newmat));
  PetscFunctionReturn(0);
}

/* AIJ (and anything else) -> ours */
static PetscErrorCode MatConvert_Any_SeqBSRCustom(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomConvertViaBase_Private(A, MATSEQBAIJ, MatConvert_SeqBAIJ_SeqBSRCustom, type, reuse, newmat));
  PetscFunctionReturn(0);
}

/*MC
   MATSEQBSRCUSTOM - "seqbsrcustom" - a sequential Block Sparse Row matrix: storage, assembly,
   preallocation and factorizations are MATSEQBAIJ's; MatMult and MatMultAdd run an OpenMP kernel
   over fixed-size tasks: the nonzero blocks are cut once, at assembly, into
   threads x chunks_per_thread equal ranges (they may split a block row); threads take ranges;
   a block row split between ranges is summed once per range (carry or atomic).

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

.seealso: `MATBSRCUSTOM`, `MATMPIBSRCUSTOM`, `MATSEQBAIJ`, `MatBSRCustomSetChunksPerThread()`, `MatBSRCustomSetNumThreads()`
M*/
PETSC_INTERN PetscErrorCode MatCreate_SeqBSRCustom(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQBAIJ));
  PetscCall(MatConvert_SeqBAIJ_SeqBSRCustom(A, MATSEQBSRCUSTOM, MAT_INPLACE_MATRIX, &A));
  /* what MatConvert(..., "seqbsrcustom") finds on a matrix of our type (step 2 of its search) */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqbaij_seqbsrcustom_C", MatConvert_SeqBAIJ_SeqBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqaij_seqbsrcustom_C", MatConvert_Any_SeqBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqsbaij_seqbsrcustom_C", MatConvert_Any_SeqBSRCustom));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_seqdense_seqbsrcustom_C", MatConvert_Any_SeqBSRCustom));
  PetscFunctionReturn(0);
}
