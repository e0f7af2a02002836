/*
   The AIJ matrices a GPU backend makes where blocks are rectangular (GAMG's prolongators, its A P) are
   MATSEQAIJCUSPARSE / MATMPIAIJCUSPARSE on a CUDA-enabled PETSc. Their products take the device array
   of every vector they are given: a host vector (VECSEQ, VECMPI: a program's own, or a KSP's work
   vector duplicated from it, which the finest level of PCMG restricts) has none, and the product
   reads memory that is not the vector's and answers wrongly, without an error. Ours accept host
   vectors (the GPU backends stage them), so these matrices must too: their products check their
   vectors and, where one is not a CUDA vector, run on the host (the matrix bound to the CPU for that
   product, PETSc's own AIJ code on the host arrays), else on the device as before.

   Binding and unbinding resets a matrix's product operations (aijcusparse sets its own or SeqAIJ's),
   so MatBindToCPU is watched too: after an unbinding the checks are put back over the new operations.
   MatDuplicate's copy gets them as well. The device path of MatMultTransposeAdd runs in place (z = y
   first): seqaijcusparse's adds z's old values too where z is not y.
*/
#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>

#if defined(BSRC_HAVE_PETSC_CUDA)

  #define HOST_VECTORS_KEY "MatBSRCustomAIJHostVectors"

/* the operations that were in place when the checks were put over them */
typedef struct {
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*bindtocpu)(Mat, PetscBool);
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscBool told; /* -info said once that host vectors took the host path */
} Saved;

static PetscErrorCode SavedDestroy(void *arg)
{
  Saved *s = (Saved *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

static PetscErrorCode GetSaved(Mat M, Saved **s)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)M, HOST_VECTORS_KEY, (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host-vector checks of this %s lost their data", ((PetscObject)M)->type_name);
  PetscCall(PetscContainerGetPointer(c, (void **)s));
  PetscFunctionReturn(0);
}

/* whether every vector given (NULL ends the list) is a CUDA vector */
static PetscErrorCode AllCUDA(PetscBool *all, Vec a, Vec b, Vec c)
{
  Vec v[3] = {a, b, c};

  PetscFunctionBegin;
  *all = PETSC_TRUE;
  for (int i = 0; i < 3 && v[i] && *all; i++) PetscCall(PetscObjectTypeCompareAny((PetscObject)v[i], all, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode Install(Mat M);

/* M bound to the CPU for one product (unless it already is), then the device operations back */
static PetscErrorCode HostBegin(Mat M, Saved *s, PetscBool *was_bound)
{
  PetscFunctionBegin;
  if (!s->told) {
    PetscCall(PetscInfo(M, "A product of this %s (rectangular blocks, made by a GPU backend of bsrcustom) was given a host vector: it runs on the host\n", ((PetscObject)M)->type_name));
    s->told = PETSC_TRUE;
  }
  *was_bound = M->boundtocpu;
  PetscCall(MatBindToCPU(M, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode HostEnd(Mat M, PetscBool was_bound)
{
  PetscFunctionBegin;
  if (!was_bound) PetscCall(MatBindToCPU(M, PETSC_FALSE)); /* the watched bindtocpu puts the checks back */
  PetscFunctionReturn(0);
}

/* the product's operation while M is bound: the table's (SeqAIJ's, bound) where binding replaced the
   check, else the saved one (MPIAIJCUSPARSE's, whose blocks are bound) */
  #define BOUND_OP(M, s, op, check) ((M)->ops->op != (check) ? (M)->ops->op : (s)->op)

static PetscErrorCode Mult_Checked(Mat M, Vec x, Vec y);
static PetscErrorCode MultAdd_Checked(Mat M, Vec x, Vec y, Vec z);
static PetscErrorCode MultTranspose_Checked(Mat M, Vec x, Vec y);
static PetscErrorCode MultTransposeAdd_Checked(Mat M, Vec x, Vec y, Vec z);

static PetscErrorCode Mult_Checked(Mat M, Vec x, Vec y)
{
  Saved    *s;
  PetscBool cuda, was_bound;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  PetscCall(AllCUDA(&cuda, x, y, NULL));
  if (cuda) {
    PetscCall((*s->mult)(M, x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(HostBegin(M, s, &was_bound));
  PetscCall((*BOUND_OP(M, s, mult, Mult_Checked))(M, x, y));
  PetscCall(HostEnd(M, was_bound));
  PetscFunctionReturn(0);
}

static PetscErrorCode MultAdd_Checked(Mat M, Vec x, Vec y, Vec z)
{
  Saved    *s;
  PetscBool cuda, was_bound;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  PetscCall(AllCUDA(&cuda, x, y, z));
  if (cuda) {
    PetscCall((*s->multadd)(M, x, y, z));
    PetscFunctionReturn(0);
  }
  PetscCall(HostBegin(M, s, &was_bound));
  PetscCall((*BOUND_OP(M, s, multadd, MultAdd_Checked))(M, x, y, z));
  PetscCall(HostEnd(M, was_bound));
  PetscFunctionReturn(0);
}

static PetscErrorCode MultTranspose_Checked(Mat M, Vec x, Vec y)
{
  Saved    *s;
  PetscBool cuda, was_bound;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  PetscCall(AllCUDA(&cuda, x, y, NULL));
  if (cuda) {
    PetscCall((*s->multtranspose)(M, x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(HostBegin(M, s, &was_bound));
  PetscCall((*BOUND_OP(M, s, multtranspose, MultTranspose_Checked))(M, x, y));
  PetscCall(HostEnd(M, was_bound));
  PetscFunctionReturn(0);
}

static PetscErrorCode MultTransposeAdd_Checked(Mat M, Vec x, Vec y, Vec z)
{
  Saved    *s;
  PetscBool cuda, was_bound;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  PetscCall(AllCUDA(&cuda, x, y, z));
  if (cuda) {
    /* z = y + M^T x in place: with z != y, seqaijcusparse's transpose product (PETSc 3.25) adds into z's
       old values as well as y's, and MPIAIJ's calls it so */
    if (z != y) PetscCall(VecCopy(y, z));
    PetscCall((*s->multtransposeadd)(M, x, z, z));
    PetscFunctionReturn(0);
  }
  PetscCall(HostBegin(M, s, &was_bound));
  PetscCall((*BOUND_OP(M, s, multtransposeadd, MultTransposeAdd_Checked))(M, x, y, z));
  PetscCall(HostEnd(M, was_bound));
  PetscFunctionReturn(0);
}

static PetscErrorCode BindToCPU_Watched(Mat M, PetscBool flg)
{
  Saved *s;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  if (s->bindtocpu) PetscCall((*s->bindtocpu)(M, flg));
  if (!flg) PetscCall(Install(M)); /* the device operations are back: checked again */
  PetscFunctionReturn(0);
}

static PetscErrorCode Duplicate_Watched(Mat M, MatDuplicateOption op, Mat *D)
{
  Saved *s;

  PetscFunctionBegin;
  PetscCall(GetSaved(M, &s));
  PetscCall((*s->duplicate)(M, op, D));
  PetscCall(Install(*D));
  PetscFunctionReturn(0);
}

/* the checks over M's current operations (again after an unbinding: only what changed is saved anew) */
static PetscErrorCode Install(Mat M)
{
  PetscContainer c;
  Saved         *s;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)M, HOST_VECTORS_KEY, (PetscObject *)&c));
  if (!c) {
    PetscCall(PetscNew(&s));
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)M), &c));
    PetscCall(PetscContainerSetPointer(c, s));
    PetscCall(BSRCContainerSetDestroy(c, SavedDestroy));
    PetscCall(PetscObjectCompose((PetscObject)M, HOST_VECTORS_KEY, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  } else PetscCall(PetscContainerGetPointer(c, (void **)&s));
  #define SAVE_AND_CHECK(op, check) \
    do { \
      if (M->ops->op && M->ops->op != (check)) { \
        s->op      = M->ops->op; \
        M->ops->op = (check); \
      } \
    } while (0)
  SAVE_AND_CHECK(mult, Mult_Checked);
  SAVE_AND_CHECK(multadd, MultAdd_Checked);
  SAVE_AND_CHECK(multtranspose, MultTranspose_Checked);
  SAVE_AND_CHECK(multtransposeadd, MultTransposeAdd_Checked);
  SAVE_AND_CHECK(bindtocpu, BindToCPU_Watched);
  SAVE_AND_CHECK(duplicate, Duplicate_Watched);
  #undef SAVE_AND_CHECK
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomGPUAIJMade_Private(Mat M)
{
  PetscBool device;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, &device, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  if (device) PetscCall(Install(M));
  PetscFunctionReturn(0);
}

#else /* no CUDA in this PETSc: a GPU backend's AIJ matrices are MATSEQAIJ / MATMPIAIJ, host vectors are theirs */

PETSC_INTERN PetscErrorCode MatBSRCustomGPUAIJMade_Private(Mat M)
{
  PetscFunctionBegin;
  (void)M;
  PetscFunctionReturn(0);
}

#endif
