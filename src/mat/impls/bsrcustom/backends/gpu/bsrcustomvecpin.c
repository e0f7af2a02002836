/*
   Page-locked host vectors for the GPU backends (-mat_bsrcustom_cuda_pin_vectors).

   With host vectors each product moves x to the device and y back. From pageable memory that is a
   host copy into our pinned buffers before the DMA, and the copy is slower than the DMA; with the
   vector's own array page-locked (cudaHostRegister) the CUDA layer DMAs straight from and to it
   (bsrcuda.h: the host entry points check each array). Which vectors: VECSEQ and VECMPI whose
   array PETSc allocated (array_allocated), while that array is in place (a VecPlaceArray() array is
   the user's, its lifetime unknown: it is staged), of at least MATBSRCUSTOM_PIN_MIN_BYTES on this
   rank (smaller ones cost little to stage and may share pages with other allocations), on their
   second use by a product (registering costs about as much as several transfers; a vector used once
   is not worth it).

   The registration must end before PETSc frees the array. In PETSc 3.18 array_allocated of these
   types is freed only inside ops->destroy (VecDestroy_Seq/_MPI, reached from VecDestroy(), and from
   VecSetType() and VecMPISetGhost() when they rebuild a vector) and inside ops->replacearray
   (VecReplaceArray()); VecPlaceArray() and VecResetArray() move `array` only. VecDestroy() runs
   ops->destroy before the composed objects go, so the unregistering cannot wait for our container:
   once the array is pinned both ops are wrapped, and the wrappers unregister, put the original ops
   back and call them.

   -info reports each pinning, failure and unpinning on no object: they are decisions of one rank,
   and PetscInfo on an object of a larger communicator prints only on its first rank.

   State: a PetscContainer composed on the vector. VecDuplicate() copies composed objects to the
   duplicate (and VECMPI's copies the ops table, wrappers included), so the state names its owner;
   a state found on another vector is replaced by a fresh one, and wrappers copied to a duplicate
   find the original ops in the state that came with them.
*/
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h>

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include <petsc/private/vecimpl.h>
  #include "bsrcuda.h"

  #define MATBSRCUSTOM_PIN_STATE     "MatBSRCustomCUDAPinState"
  #define MATBSRCUSTOM_PIN_MIN_BYTES ((size_t)64 << 10)

/* The first fields of Vec_Seq and Vec_MPI (petsc/private/vecimpl.h). */
typedef struct {
  VECHEADER
} VecPinHeader;

typedef struct {
  PetscObjectId owner;  /* the vector this state describes (duplicates carry a copy of the reference) */
  PetscScalar  *pinned; /* the registered array (the owner's array_allocated), NULL when none */
  size_t        bytes;
  PetscInt      uses;             /* products that read or wrote the vector through host memory */
  PetscBool     failed;           /* cudaHostRegister refused: staged from then on */
  PetscErrorCode (*destroy)(Vec); /* the ops the wrappers replaced */
  PetscErrorCode (*replacearray)(Vec, const PetscScalar *);
} VecPinState;

static PetscErrorCode VecPinStateFree(void *arg)
{
  void *ctx = BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecPinGetState(Vec v, VecPinState **st)
{
  PetscContainer c = NULL;

  PetscFunctionBegin;
  *st = NULL;
  PetscCall(PetscObjectQuery((PetscObject)v, MATBSRCUSTOM_PIN_STATE, (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)st));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDestroy_BSRCustomPinned(Vec);
static PetscErrorCode VecReplaceArray_BSRCustomPinned(Vec, const PetscScalar *);

/* Ends v's registration if the state is v's own, and puts back the ops the wrappers replaced. An
   unregistration failure is only reported: the caller (a destroy) must go on. */
static PetscErrorCode VecPinRelease(Vec v, VecPinState *st, const char *why)
{
  PetscFunctionBegin;
  if (st->owner == ((PetscObject)v)->id && st->pinned) {
    if (bsrc_cuda_host_unregister(st->pinned) != BSRC_CUDA_OK) PetscCall(PetscInfo(NULL, "Could not unregister the page-locked array of a vector of %" PetscInt_FMT " local entries (%s): %s\n", v->map->n, why, bsrc_cuda_last_error(NULL)));
    else PetscCall(PetscInfo(NULL, "Unpinned the array of a vector of %" PetscInt_FMT " local entries (%.1f MiB): %s\n", v->map->n, st->bytes / 1048576.0, why));
    st->pinned = NULL;
    st->bytes  = 0;
  }
  v->ops->destroy      = st->destroy;
  v->ops->replacearray = st->replacearray;
  PetscFunctionReturn(0);
}

/* The state that came with the wrappers: v's own, or (VecDuplicate of a VECMPI) its parent's. */
static PetscErrorCode VecPinWrapperState(Vec v, VecPinState **st)
{
  PetscFunctionBegin;
  PetscCall(VecPinGetState(v, st));
  PetscCheck(*st, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bsrcustom: a vector with wrapped operations lost its page-locking state (" MATBSRCUSTOM_PIN_STATE ")");
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDestroy_BSRCustomPinned(Vec v)
{
  VecPinState *st;

  PetscFunctionBegin;
  PetscCall(VecPinWrapperState(v, &st));
  PetscCall(VecPinRelease(v, st, "VecDestroy"));
  PetscCall((*v->ops->destroy)(v));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecReplaceArray_BSRCustomPinned(Vec v, const PetscScalar *a)
{
  VecPinState *st;

  PetscFunctionBegin;
  PetscCall(VecPinWrapperState(v, &st));
  PetscCall(VecPinRelease(v, st, "VecReplaceArray"));
  if (st->owner == ((PetscObject)v)->id) st->uses = 0; /* the new array earns its page-locking as a new vector would */
  PetscCall((*v->ops->replacearray)(v, a));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinVec_Private(PetscBool pin, Vec v)
{
  VecPinHeader    *h;
  VecPinState     *st;
  PetscBool        standard = PETSC_FALSE;
  const size_t     bytes    = (size_t)v->map->n * sizeof(PetscScalar);
  bsrc_cuda_status s;

  PetscFunctionBegin;
  if (!pin || !v->petscnative || bytes < MATBSRCUSTOM_PIN_MIN_BYTES) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &standard, VECSEQ, VECMPI, ""));
  if (!standard) PetscFunctionReturn(0);
  PetscCall(VecPinGetState(v, &st));
  if (st && st->owner != ((PetscObject)v)->id) {
    /* the state of the vector v was duplicated from: v's own ops must not stay wrapped by it */
    if (v->ops->destroy == VecDestroy_BSRCustomPinned) v->ops->destroy = st->destroy;
    if (v->ops->replacearray == VecReplaceArray_BSRCustomPinned) v->ops->replacearray = st->replacearray;
    st = NULL;
  }
  if (!st) {
    PetscContainer c;
    PetscCall(PetscNew(&st));
    st->owner = ((PetscObject)v)->id;
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, st));
    PetscCall(BSRCContainerSetDestroy(c, VecPinStateFree));
    PetscCall(PetscObjectCompose((PetscObject)v, MATBSRCUSTOM_PIN_STATE, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c)); /* v holds it now (replacing a duplicated one) */
  }
  if (st->pinned || st->failed) PetscFunctionReturn(0);
  if (++st->uses < 2) PetscFunctionReturn(0);
  h = (VecPinHeader *)v->data;
  if (!h->array_allocated || h->array != h->array_allocated || h->unplacedarray) PetscFunctionReturn(0); /* a placed array: staged */
  if (!v->ops->destroy || !v->ops->replacearray) PetscFunctionReturn(0);                                 /* nothing to wrap: no way to unregister in time */
  s = bsrc_cuda_host_register(h->array_allocated, bytes);
  if (s != BSRC_CUDA_OK) {
    st->failed = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "Could not page-lock a vector of %" PetscInt_FMT " local entries (%.1f MiB); it is staged through pinned buffers from now on: %s\n", v->map->n, bytes / 1048576.0, bsrc_cuda_last_error(NULL)));
    PetscFunctionReturn(0);
  }
  st->pinned           = h->array_allocated;
  st->bytes            = bytes;
  st->destroy          = v->ops->destroy;
  st->replacearray     = v->ops->replacearray;
  v->ops->destroy      = VecDestroy_BSRCustomPinned;
  v->ops->replacearray = VecReplaceArray_BSRCustomPinned;
  PetscCall(PetscInfo(NULL, "Pinned the array of a vector of %" PetscInt_FMT " local entries (%.1f MiB) on its second use: its transfers skip the pinned buffers\n", v->map->n, bytes / 1048576.0));
  PetscFunctionReturn(0);
}

PETSC_EXTERN PetscErrorCode MatBSRCustomCUDAVecPinned_Private(Vec v, PetscBool *pinned)
{
  VecPinState *st;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscAssertPointer(pinned, 2);
  PetscCall(VecPinGetState(v, &st));
  *pinned = (PetscBool)(st && st->owner == ((PetscObject)v)->id && st->pinned);
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAViewHostVectors_Private(PetscBool pin, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: host vectors: %s\n", pin ? "page-locked on second use (-mat_bsrcustom_cuda_pin_vectors), those under 64 KiB or with a placed array staged through pinned buffers" : "staged through pinned buffers"));
  PetscFunctionReturn(0);
}

#else /* no CUDA in this build: nothing is page-locked */

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinVec_Private(PetscBool pin, Vec v)
{
  PetscFunctionBegin;
  (void)pin, (void)v;
  PetscFunctionReturn(0);
}

PETSC_EXTERN PetscErrorCode MatBSRCustomCUDAVecPinned_Private(Vec v, PetscBool *pinned)
{
  PetscFunctionBegin;
  (void)v;
  *pinned = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAViewHostVectors_Private(PetscBool pin, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)pin, (void)viewer;
  PetscFunctionReturn(0);
}
#endif

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinProductVecs_Private(PetscBool pin, Vec x, PetscScalar beta, Vec in, Vec out)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomCUDAPinVec_Private(pin, x));
  PetscCall(MatBSRCustomCUDAPinVec_Private(pin, out));
  if (beta != (PetscScalar)0.0 && in != out) PetscCall(MatBSRCustomCUDAPinVec_Private(pin, in));
  PetscFunctionReturn(0);
}
