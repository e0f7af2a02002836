static const char help[] = "The GPU backends of bsrcustom against its CPU backend (and MATBAIJ), through PETSc:\n"
                           "every CUDA kernel and both cuSPARSE routines, block sizes 1-8, 11, 16, empty block rows, one long\n"
                           "block row, a single-block matrix, MatMult and MatMultAdd (in place and not), values changed and\n"
                           "reassembled, structure changed and reassembled, uploads only when something changed; on several ranks the\n"
                           "split product (local kernel before the halo exchange ends, ghost kernel into the same device y); device\n"
                           "binding: node-local rank modulo the visible GPUs, -mat_bsrcustom_cuda_device, MatView's rank -> device;\n"
                           "host vectors page-locked on their second use (-mat_bsrcustom_cuda_pin_vectors): duplicates, placed, reset\n"
                           "and replaced arrays, the option off.\n"
                           "Exits with 77 (CTest: skipped) where this build or machine has no GPU.\n";

/* Coverage (cases, -test_list):
     kernels_bs<1-8,11,16>  every CUDA kernel (auto, and each by name) and both cuSPARSE algorithms;
                            3 shapes (plain, empty block rows, + one long block row); MatMult,
                            MatMultAdd z != y and z == y against MATBAIJ to 1e-13
     single_block           one 3x3 block per rank
     reassembly_uploads     bs 3: auto resolves to a kernel; no upload for an unchanged matrix; MatScale,
                            value-only reassembly, structural reassembly (uploaded); MatDuplicate, MatCopy
     pinned_host_vectors    bs 4, 40000 entries per rank: page-locked on second use, ghost vector,
                            duplicates, placed/reset/replaced arrays, the option off, MatView's line
     device_binding         node-local rank modulo GPUs, every device by hand, a refused device, MatView
   Ranks: 1, 2, 4 (CMakeLists.txt). Every case is skipped (visibly; exit 77 if all are) where this
   build or machine has no GPU. */

#include "testutils.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h> /* MatBSRCustomCUDAVecPinned_Private() */

/* y = A x, z = A x + w, then w = A x + w in place, on these very vectors (page-locked or not), each
   against Ref. */
static PetscErrorCode PinnedProducts(TestContext *ctx, Mat A, Mat Ref, Vec x, Vec y, Vec z, Vec w, const char *what)
{
  Vec       r, wr;
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(y, &r));
  PetscCall(VecDuplicate(w, &wr));
  PetscCall(VecCopy(w, wr));
  PetscCall(VecSet(y, PETSC_MAX_REAL)); /* MatMult must overwrite it */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Ref, x, r));
  PetscCall(TestRelDiff(y, r, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMult differs from the reference by %g", what, (double)rel);
  PetscCall(MatMultAdd(A, x, w, z));
  PetscCall(MatMultAdd(Ref, x, w, r));
  PetscCall(TestRelDiff(z, r, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMultAdd(z != y) differs by %g", what, (double)rel);
  PetscCall(MatMultAdd(A, x, w, w));
  PetscCall(MatMultAdd(Ref, x, wr, wr));
  PetscCall(TestRelDiff(w, wr, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMultAdd(z == y) differs by %g", what, (double)rel);
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&wr));
  PetscFunctionReturn(0);
}

/* Checks on this rank whether each of the n vectors is page-locked as expected. */
static PetscErrorCode ExpectPinned(TestContext *ctx, PetscInt n, const Vec v[], const char *const names[], PetscBool want, const char *when)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscBool pinned;
    PetscInt  nloc;
    PetscCall(MatBSRCustomCUDAVecPinned_Private(v[i], &pinned));
    PetscCall(VecGetLocalSize(v[i], &nloc));
    TEST_CHECK(PETSC_COMM_SELF, pinned == want, ctx->failures, "%s (%" PetscInt_FMT " local entries) %s page-locked %s", names[i], nloc, pinned ? "is" : "is not", when);
  }
  PetscFunctionReturn(0);
}

/* Whether the ascii_info view of A, written to file, has a line containing `needle` (all ranks learn it). */
static PetscErrorCode ViewHas(Mat A, const char *file, const char *needle, PetscBool *has)
{
  PetscViewer v;
  PetscMPIInt rank;
  int         found = 0;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, file, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    char  line[512];
    FILE *fp;
    PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &fp));
    while (fgets(line, sizeof(line), fp))
      if (strstr(line, needle)) found = 1;
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  }
  PetscCallMPI(MPI_Bcast(&found, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  *has = (PetscBool)found;
  PetscFunctionReturn(0);
}

static PetscErrorCode KernelsAllShapes(TestContext *ctx)
{
  const PetscInt bs   = ctx->param;
  const PetscInt size = ctx->size;
  PetscBool      skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  for (int shape = 0; shape < 3; shape++) {
    Mat A, Ref;
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, 29, 29 * size, 6, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 7u + (unsigned)bs, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, 29, 29 * size, 6, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 7u + (unsigned)bs, &A));
    for (int k = MAT_BSRCUSTOM_CUDA_KERNEL_AUTO; k <= MAT_BSRCUSTOM_CUDA_KERNEL_SLICED + 2; k++) {
      char what[128];
      if (k <= MAT_BSRCUSTOM_CUDA_KERNEL_SLICED) {
        PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
        PetscCall(MatBSRCustomSetCUDAKernel(A, (MatBSRCustomCUDAKernel)k));
        PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d kernel %s", bs, shape, MatBSRCustomCUDAKernels[k]));
      } else {
        MatBSRCustomCUSPARSEAlg alg = (MatBSRCustomCUSPARSEAlg)(k - MAT_BSRCUSTOM_CUDA_KERNEL_SLICED - 1);
        PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUSPARSE));
        PetscCall(MatBSRCustomSetCUSPARSEAlg(A, alg));
        PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d cusparse %s", bs, shape, MatBSRCustomCUSPARSEAlgs[alg]));
      }
      PetscCall(PetscInfo(A, "configuration: %s\n", what)); /* with -info <file>: the last one a crash reached */
      PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, what));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SingleBlock(TestContext *ctx)
{
  Mat       A, Ref;
  PetscBool skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 3, 1, ctx->size, 1, PETSC_FALSE, PETSC_FALSE, 3u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 3, 1, ctx->size, 1, PETSC_FALSE, PETSC_FALSE, 3u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "a single block per rank"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* value and structure changes with upload accounting */
static PetscErrorCode ReassemblyUploads(TestContext *ctx)
{
  Mat                    A, Ref;
  PetscLogDouble         u0, u1, u2, u3;
  PetscInt               rs, row, col;
  PetscScalar            v[9];
  MatBSRCustomCUDAKernel used;
  PetscBool              skip;
  const PetscInt         size = ctx->size;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 3, 40, 40 * size, 5, PETSC_TRUE, PETSC_FALSE, 5u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 3, 40, 40 * size, 5, PETSC_TRUE, PETSC_FALSE, 5u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "before changes"));
  PetscCall(MatBSRCustomGetCUDAKernel(A, NULL, &used));
  TEST_CHECK(PETSC_COMM_WORLD, used != MAT_BSRCUSTOM_CUDA_KERNEL_AUTO, ctx->failures, "auto did not resolve to a kernel");
  PetscCall(TestEventCount("BSRCustomUpload", &u0));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "unchanged"));
  PetscCall(TestEventCount("BSRCustomUpload", &u1));
  TEST_CHECK(PETSC_COMM_WORLD, u1 == u0, ctx->failures, "products of an unchanged matrix uploaded it again (%g -> %g)", u0, u1);
  /* values only */
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatScale(Ref, -0.5));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "after MatScale"));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  { /* the first non-empty block row of this rank (every third one is empty) and its first block column */
    PetscInt           nc    = 0;
    PetscBool          found = PETSC_FALSE;
    const PetscInt    *cols;
    const PetscScalar *vals;
    for (row = rs / 3; !found; row++) {
      PetscCall(MatGetRow(Ref, row * 3, &nc, &cols, &vals));
      if (nc > 0) {
        col   = cols[0] / 3;
        found = PETSC_TRUE;
      }
      PetscCall(MatRestoreRow(Ref, row * 3, &nc, &cols, &vals)); /* (sets nc to 0) */
    }
    row--;
  }
  for (int k = 0; k < 9; k++) v[k] = 1.0 + k;
  PetscCall(TestSetBlockInBoth(A, Ref, row, col, v, ADD_VALUES, PETSC_FALSE));
  PetscCall(TestEventCount("BSRCustomUpload", &u2));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "after a value-only reassembly"));
  /* structure: a block in an empty block row (every third one is empty) */
  row = rs / 3 + 2 - (rs / 3) % 3;
  col = row;
  PetscCall(TestSetBlockInBoth(A, Ref, row, col, v, ADD_VALUES, PETSC_TRUE));
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "after a structural reassembly"));
  PetscCall(TestEventCount("BSRCustomUpload", &u3));
  TEST_CHECK(PETSC_COMM_WORLD, u3 > u2, ctx->failures, "a structural change was not uploaded (%g -> %g)", u2, u3);
  /* MatDuplicate and MatCopy carry the backend and their own device copies */
  {
    Mat B;
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    PetscCall(TestCompareProducts(B, Ref, 1e-13, &ctx->failures, "MatDuplicate of a GPU matrix"));
    PetscCall(MatScale(B, 2.0));
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscCall(TestCompareProducts(B, Ref, 1e-13, &ctx->failures, "MatCopy into a GPU matrix"));
    PetscCall(MatDestroy(&B));
  }
  {
    PetscViewer viewer;
    PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &viewer));
    PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(A, viewer));
    PetscCall(PetscViewerPopFormat(viewer));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* The host vectors of the page-locking cases: x, y, z and w, and their names in the messages. */
typedef struct {
  Vec x, y, z, w;
} PinnedVectors;

static const char *const pinned_names[] = {"x", "y", "z", "w"};

/* x and y page-locked on their second use, not their first; the MPI product's ghost vector once it
   is large enough (min_entries); host writes into a page-locked x reach the next products. */
static PetscErrorCode PinnedFirstUses(TestContext *ctx, Mat A, Mat Ref, PinnedVectors *V, PetscInt min_entries)
{
  PetscFunctionBegin;
  {
    Vec v[] = {V->x, V->y};
    PetscCall(MatMult(A, V->x, V->y));
    PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_FALSE, "after its first use"));
    PetscCall(MatMult(A, V->x, V->y));
    PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_TRUE, "after its second use"));
  }
  if (ctx->size > 1) { /* the ghost vector the MPI product fills: page-locked once it is large enough */
    Vec      gx;
    PetscInt ng;
    PetscCall(MatBSRCustomGetLocalAndGhost(A, NULL, NULL, NULL, NULL, NULL, &gx));
    PetscCall(VecGetLocalSize(gx, &ng));
    PetscCall(ExpectPinned(ctx, 1, &gx, (const char *const[]){"the ghost vector"}, (PetscBool)(ng >= min_entries), "after two products"));
  }
  for (int k = 0; k < 3; k++) {
    PetscCall(VecSetRandom(V->x, NULL)); /* host writes into a page-locked array reach the next product */
    PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "page-locked x, y, z, w"));
  }
  {
    Vec v[] = {V->x, V->y, V->z, V->w};
    PetscCall(ExpectPinned(ctx, 4, v, pinned_names, PETSC_TRUE, "after several products"));
  }
  PetscFunctionReturn(0);
}

/* A duplicate has its own array and state: page-locked on its own second use; a duplicate of that
   one, never used, outlives its parent; x stays page-locked and right. */
static PetscErrorCode PinnedDuplicates(TestContext *ctx, Mat A, Mat Ref, PinnedVectors *V)
{
  Vec p, q;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(V->x, &p));
  PetscCall(VecCopy(V->x, p));
  PetscCall(ExpectPinned(ctx, 1, &p, (const char *const[]){"a VecDuplicate of x"}, PETSC_FALSE, "before any use"));
  PetscCall(PinnedProducts(ctx, A, Ref, p, V->y, V->z, V->w, "VecDuplicate of a page-locked x"));
  PetscCall(ExpectPinned(ctx, 1, &p, (const char *const[]){"a VecDuplicate of x"}, PETSC_TRUE, "after three uses"));
  PetscCall(VecDuplicate(p, &q));
  PetscCall(ExpectPinned(ctx, 1, &q, (const char *const[]){"a VecDuplicate of a duplicate"}, PETSC_FALSE, "before any use"));
  PetscCall(VecDestroy(&p));
  PetscCall(VecSet(q, 1.0));
  PetscCall(VecDestroy(&q));
  PetscCall(ExpectPinned(ctx, 1, &V->x, pinned_names, PETSC_TRUE, "after its duplicates were destroyed"));
  PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "x after its duplicates were destroyed"));
  PetscFunctionReturn(0);
}

/* Placed arrays (the user's, pageable) are staged; VecResetArray brings back the page-locked ones.
   VecReplaceArray frees the page-locked array: unpinned first; the new one earns its own. */
static PetscErrorCode PinnedPlacedAndReplacedArrays(TestContext *ctx, Mat A, Mat Ref, PinnedVectors *V)
{
  PetscScalar       *user_x, *user_y, *fresh_x, *fresh_y;
  const PetscScalar *a;
  PetscInt           n, m;
  Vec                v[2] = {V->x, V->y};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(V->x, &n));
  PetscCall(VecGetLocalSize(V->y, &m));
  PetscCall(PetscMalloc2(n, &user_x, m, &user_y));
  PetscCall(VecGetArrayRead(V->x, &a));
  PetscCall(PetscArraycpy(user_x, a, n));
  PetscCall(VecRestoreArrayRead(V->x, &a));
  PetscCall(VecPlaceArray(V->x, user_x));
  PetscCall(VecPlaceArray(V->y, user_y));
  PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "placed (pageable) arrays in x and y"));
  PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "placed (pageable) arrays in x and y, again"));
  PetscCall(VecResetArray(V->x));
  PetscCall(VecResetArray(V->y));
  PetscCall(PetscFree2(user_x, user_y));
  PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "x and y after VecResetArray"));
  PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_TRUE, "after VecPlaceArray and VecResetArray"));
  PetscCall(PetscMalloc1(n, &fresh_x));
  PetscCall(PetscMalloc1(m, &fresh_y));
  PetscCall(VecReplaceArray(V->x, fresh_x));
  PetscCall(VecReplaceArray(V->y, fresh_y));
  PetscCall(VecSetRandom(V->x, NULL));
  PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_FALSE, "right after VecReplaceArray"));
  PetscCall(MatMult(A, V->x, V->y));
  PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_FALSE, "after the first use of its replaced array"));
  PetscCall(MatMult(A, V->x, V->y));
  PetscCall(ExpectPinned(ctx, 2, v, pinned_names, PETSC_TRUE, "after the second use of its replaced array"));
  PetscCall(PinnedProducts(ctx, A, Ref, V->x, V->y, V->z, V->w, "x and y after VecReplaceArray"));
  PetscFunctionReturn(0);
}

/* The option off (on a duplicate of A): nothing new is page-locked; vectors page-locked before stay
   so and still work; MatView says which way host vectors go. */
static PetscErrorCode PinnedOptionOff(TestContext *ctx, Mat A, Mat Ref, PinnedVectors *V, const char *file)
{
  Mat       B;
  Vec       x2, y2;
  PetscBool pin = PETSC_TRUE, has = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatBSRCustomSetCUDAPinVectors(B, PETSC_FALSE));
  PetscCall(MatBSRCustomGetCUDAPinVectors(B, &pin));
  TEST_CHECK(PETSC_COMM_WORLD, !pin, ctx->failures, "MatBSRCustomSetCUDAPinVectors(B, PETSC_FALSE) did not stick");
  PetscCall(MatCreateVecs(Ref, &x2, &y2));
  PetscCall(VecSetRandom(x2, NULL));
  for (int k = 0; k < 3; k++) PetscCall(PinnedProducts(ctx, B, Ref, x2, y2, V->z, V->w, "pinning off: new vectors"));
  {
    Vec v[] = {x2, y2};
    PetscCall(ExpectPinned(ctx, 2, v, (const char *const[]){"x2", "y2"}, PETSC_FALSE, "with -mat_bsrcustom_cuda_pin_vectors false"));
  }
  PetscCall(PinnedProducts(ctx, B, Ref, V->x, V->y, V->z, V->w, "pinning off: vectors page-locked before"));
  PetscCall(ViewHas(B, file, "host vectors: staged through pinned buffers", &has));
  TEST_CHECK(PETSC_COMM_WORLD, has, ctx->failures, "MatView with pinning off does not say that host vectors are staged");
  PetscCall(VecDestroy(&x2));
  PetscCall(VecDestroy(&y2));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* Host vectors page-locked on their second use (-mat_bsrcustom_cuda_pin_vectors): 40000 entries
   (312 KiB) per rank, over the 64 KiB threshold; products on the same vectors, a duplicate, a
   placed and reset array, a replaced array, the option off, and every vector destroyed. */
static PetscErrorCode PinnedHostVectors(TestContext *ctx)
{
  const PetscInt nbl = 10000, bs = 4, min_entries = (64 * 1024) / (PetscInt)sizeof(PetscScalar);
  const PetscInt size = ctx->size;
  Mat            A, Ref;
  PinnedVectors  V;
  PetscBool      pin = PETSC_TRUE, has = PETSC_FALSE, skip;
  char           file[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, nbl, nbl * size, 5, PETSC_TRUE, PETSC_FALSE, 13u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, nbl, nbl * size, 5, PETSC_TRUE, PETSC_FALSE, 13u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(MatBSRCustomGetCUDAPinVectors(A, &pin));
  TEST_CHECK(PETSC_COMM_WORLD, pin, ctx->failures, "page-locking of host vectors is off by default");
  PetscCall(MatCreateVecs(Ref, &V.x, &V.y));
  PetscCall(VecDuplicate(V.y, &V.z));
  PetscCall(VecDuplicate(V.y, &V.w));
  PetscCall(VecSetRandom(V.x, NULL));
  PetscCall(VecSetRandom(V.w, NULL));
  PetscCall(PinnedFirstUses(ctx, A, Ref, &V, min_entries));
  PetscCall(PinnedDuplicates(ctx, A, Ref, &V));
  PetscCall(PinnedPlacedAndReplacedArrays(ctx, A, Ref, &V));
  PetscCall(PetscSNPrintf(file, sizeof(file), "gpu_backend_pin_view_np%d.txt", (int)size));
  PetscCall(ViewHas(A, file, "host vectors: page-locked on second use", &has));
  TEST_CHECK(PETSC_COMM_WORLD, has, ctx->failures, "MatView does not say that host vectors are page-locked on second use");
  PetscCall(PinnedOptionOff(ctx, A, Ref, &V, file));
  PetscCall(VecDestroy(&V.x));
  PetscCall(VecDestroy(&V.y));
  PetscCall(VecDestroy(&V.z));
  PetscCall(VecDestroy(&V.w));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* device binding: automatic (node-local rank mod visible GPUs), each device by hand, a bad device */
/* Products with the matrix bound to device d by MatBSRCustomSetCUDADevice. On a CUDA PETSc whose
   own device (auto_dev: where the automatic binding put the matrix) differs from d on some rank, the
   CUDA vectors of that rank live on PETSc's device: host vectors are compared (staged to d, as on
   PETSc 3.18), and on one rank a product on the CUDA vectors must be refused with
   PETSC_ERR_ARG_INCOMP, not run on another device's memory. (On several ranks the refusal is not
   provoked: a rank that errors inside a collective product would leave the others waiting.) */
static PetscErrorCode CompareOnDevice(Mat A, Mat Ref, PetscInt d, PetscInt auto_dev, const char *what, TestContext *ctx)
{
  Vec       xa, ya;
  VecType   type;
  PetscBool cuda;
  int       other = 0, anyother = 0;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(VecGetType(xa, &type));
  cuda  = (PetscBool)(strstr(type, "cuda") != NULL);
  other = cuda && d != auto_dev;
  PetscCallMPI(MPI_Allreduce(&other, &anyother, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  if (!anyother) {
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, what));
  } else {
    PetscCall(TestCompareProductsOn(A, Ref, 1e-13, PETSC_FALSE, &ctx->failures, what));
    if (ctx->size == 1) {
      PetscErrorCode ierr;
      PetscCall(VecSet(xa, 1.0));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MatMult(A, xa, ya);
      PetscCall(PetscPopErrorHandler());
      TEST_CHECK(PETSC_COMM_WORLD, ierr == PETSC_ERR_ARG_INCOMP, ctx->failures, "%s: a product on %s vectors of PETSc's device %" PetscInt_FMT " gave error %d, expected PETSC_ERR_ARG_INCOMP", what, type, auto_dev, (int)ierr);
    }
  }
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscFunctionReturn(0);
}

static PetscErrorCode DeviceBinding(TestContext *ctx)
{
  Mat            A, Ref;
  MPI_Comm       node;
  PetscMPIInt    local, rank = ctx->rank, size = ctx->size;
  PetscInt       ndev = MatBSRCustomCUDADeviceCount(), dev = -2, after = -2, auto_dev;
  PetscErrorCode ierr;
  int            bad = 0, anybad = 0;
  char           file[PETSC_MAX_PATH_LEN];
  PetscBool      skip;

  PetscFunctionBegin;
  PetscCall(TestSkipWithoutGPU(ctx, &skip));
  if (skip) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &local));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 4, 23, 23 * size, 5, PETSC_FALSE, PETSC_FALSE, 11u, &Ref));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 4, 23, 23 * size, 5, PETSC_FALSE, PETSC_FALSE, 11u, &A));
  PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscCall(MatBSRCustomGetCUDADevice(A, &dev));
  auto_dev = dev;
  bad      = dev != (PetscInt)local % ndev;
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  if (bad) PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] node-local rank %d, %" PetscInt_FMT " GPUs: bound to device %" PetscInt_FMT "\n", rank, local, ndev, dev));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  TEST_CHECK(PETSC_COMM_WORLD, !anybad, ctx->failures, "automatic binding is not node-local rank modulo visible GPUs");
  PetscCall(TestCompareProducts(A, Ref, 1e-13, &ctx->failures, "automatic device binding"));
  PetscCall(PetscSNPrintf(file, sizeof(file), "gpu_backend_view_np%d.txt", (int)size));
  {
    PetscViewer v;
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, file, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
  }
  if (size > 1) { /* every rank's line names its device, and the split path ran */
    char  line[512], want[64];
    FILE *fp;
    int   found = 0, split = 0;
    if (rank == 0) {
      PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &fp));
      while (fgets(line, sizeof(line), fp)) {
        for (PetscMPIInt r = 0; r < size; r++) {
          PetscCall(PetscSNPrintf(want, sizeof(want), "[%d] CUDA device ", (int)r));
          if (strstr(line, want)) found++;
        }
        /* the split path on host vectors (3.18) or on CUDA vectors (a CUDA PETSc) */
        if (strstr(line, "host-staged") || strstr(line, "ghost kernel after")) split++;
      }
      PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    }
    TEST_CHECK(PETSC_COMM_WORLD, rank != 0 || (found == size && split == size), ctx->failures, "MatView: %d of %d ranks name their device, %d report the host-staged split path", found, (int)size, split);
  }
  for (PetscInt d = 0; d < ndev; d++) {
    char what[64];
    PetscCall(MatBSRCustomSetCUDADevice(A, d));
    PetscCall(MatBSRCustomGetCUDADevice(A, &dev));
    TEST_CHECK(PETSC_COMM_WORLD, dev == d, ctx->failures, "MatBSRCustomSetCUDADevice(%" PetscInt_FMT ") gave device %" PetscInt_FMT, d, dev);
    PetscCall(PetscSNPrintf(what, sizeof(what), "all ranks on device %" PetscInt_FMT, d));
    PetscCall(CompareOnDevice(A, Ref, d, auto_dev, what, ctx));
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatBSRCustomSetCUDADevice(A, ndev);
  PetscCall(PetscPopErrorHandler());
  PetscCall(MatBSRCustomGetCUDADevice(A, &after));
  TEST_CHECK(PETSC_COMM_WORLD, ierr == PETSC_ERR_ARG_OUTOFRANGE, ctx->failures, "device %" PetscInt_FMT " of %" PetscInt_FMT ": error %d, expected PETSC_ERR_ARG_OUTOFRANGE", ndev, ndev, (int)ierr);
  TEST_CHECK(PETSC_COMM_WORLD, after == ndev - 1, ctx->failures, "a refused device changed the setting (%" PetscInt_FMT ")", after);
  PetscCall(CompareOnDevice(A, Ref, after, auto_dev, "after a refused device", ctx));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"kernels_bs1", KernelsAllShapes, 1}, {"kernels_bs2", KernelsAllShapes, 2},         {"kernels_bs3", KernelsAllShapes, 3},          {"kernels_bs4", KernelsAllShapes, 4},   {"kernels_bs5", KernelsAllShapes, 5},
    {"kernels_bs6", KernelsAllShapes, 6}, {"kernels_bs7", KernelsAllShapes, 7},         {"kernels_bs8", KernelsAllShapes, 8},          {"kernels_bs11", KernelsAllShapes, 11}, {"kernels_bs16", KernelsAllShapes, 16},
    {"single_block", SingleBlock, 0},     {"reassembly_uploads", ReassemblyUploads, 0}, {"pinned_host_vectors", PinnedHostVectors, 0}, {"device_binding", DeviceBinding, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("gpu backend", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
