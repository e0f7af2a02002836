/*
   What algebraic multigrid (PCGAMG) asks of a matrix beyond products with vectors, answered through
   an AIJ copy of ours: sparse products of ours with AIJ matrices or with each other (MatMatMult,
   MatTransposeMatMult, MatPtAP, ...; the graph of the blocks is made from them, bsrcustomgraph.c).
   BAIJ answers neither, so GAMG refuses it; AIJ does, and the copy makes GAMG's hierarchy exactly
   AIJ's (same coarse operators), so its iteration counts are AIJ's. The copy is made at the
   first such request, kept with the matrix (composed as "BSRCustom_AIJTwin") and made again when the
   matrix's values changed (MatBSRCustomValuesState_Private(), which also sees the changes PETSc makes
   without a state increase); it costs the matrix's memory once more while it lives, and it carries
   none of the matrix's options (MAT_NEW_NONZERO_LOCATIONS false would forbid its own assembly).
   Products return AIJ matrices, as they do for AIJ. The factorizations asked for a zero-pivot shift
   factor the same copy (bsrcustomutils.c).
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

typedef struct {
  Mat              aij;
  PetscObjectState state;        /* of the matrix when the copy was made */
  PetscObjectState nonzerostate; /* the matrix's nonzero structure the copy has */
} AIJTwin;

static PetscErrorCode AIJTwinDestroy(void *arg)
{
  AIJTwin *t = (AIJTwin *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&t->aij));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

/* The AIJ copy of A, up to date with A's values and structure (borrowed: A keeps it). */
PETSC_INTERN PetscErrorCode MatBSRCustomAIJTwin_Private(Mat A, Mat *aij)
{
  PetscContainer   c;
  AIJTwin         *t;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomValuesState_Private(A, &state));
  PetscCall(PetscObjectQuery((PetscObject)A, "BSRCustom_AIJTwin", (PetscObject *)&c));
  if (!c) {
    PetscCall(PetscNew(&t));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, t));
    PetscCall(BSRCContainerSetDestroy(c, AIJTwinDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, "BSRCustom_AIJTwin", (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c)); /* A holds it */
  } else PetscCall(PetscContainerGetPointer(c, (void **)&t));
  if (t->aij && t->state != state && t->nonzerostate == A->nonzerostate) {
    /* new values, same structure: the same copy takes them, so that products holding it (PtAP keeps
       P's transpose, made from it) stay valid */
    PetscCall(MatConvert(A, MATAIJ, MAT_REUSE_MATRIX, &t->aij));
    t->state = state;
    PetscCall(PetscInfo(A, "AIJ copy given the new values\n"));
  } else if (!t->aij || t->state != state) {
    PetscCall(MatDestroy(&t->aij));
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &t->aij));
    t->state        = state;
    t->nonzerostate = A->nonzerostate;
    PetscCall(PetscInfo(A, "AIJ copy made for a sparse product or a shifted factorization (its memory kept while the matrix is unchanged)\n"));
  }
  *aij = t->aij;
  PetscFunctionReturn(0);
}

/*
   Sparse products of ours with AIJ or with ours, in any position: the same product of the operands'
   AIJ copies (an inner product D, kept in C's product data) whose result C copies; C is an AIJ matrix
   from then on. The inner product runs its numeric phase at once (the values are there), so that C
   starts as an assembled copy of its result.
*/
typedef struct {
  Mat              D;
  PetscObjectState a, b, c; /* the operands' states at D's last numeric phase */
} ProductViaAIJ;

static PetscErrorCode ProductViaAIJDestroy(void *arg)
{
  ProductViaAIJ *p = (ProductViaAIJ *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->D));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* What the inner product takes for an operand: the AIJ copy of ours, any other matrix as it is (NULL: NULL) */
static PetscErrorCode ProductOperand(Mat M, Mat *use)
{
  PetscBool ours;

  PetscFunctionBegin;
  *use = M;
  if (!M) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, &ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  if (ours) PetscCall(MatBSRCustomAIJTwin_Private(M, use));
  PetscFunctionReturn(0);
}

/* D's numeric phase on the operands' current values, unless they did not change since the last one */
static PetscErrorCode ProductViaAIJUpdate(Mat_Product *product, ProductViaAIJ *p, PetscBool *updated)
{
  PetscObjectState a, b, c = 0;
  Mat              opA, opB, opC;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomValuesState_Private(product->A, &a));
  PetscCall(MatBSRCustomValuesState_Private(product->B, &b));
  if (product->C) PetscCall(MatBSRCustomValuesState_Private(product->C, &c));
  *updated = (PetscBool)(a != p->a || b != p->b || c != p->c);
  if (!*updated) PetscFunctionReturn(0);
  PetscCall(ProductOperand(product->A, &opA));
  PetscCall(ProductOperand(product->B, &opB));
  PetscCall(ProductOperand(product->C, &opC));
  PetscCall(MatProductReplaceMats(opA, opB, opC, p->D));
  PetscCall(MatProductNumeric(p->D));
  p->a = a;
  p->b = b;
  p->c = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_BSRCustom_AIJ(Mat C)
{
  ProductViaAIJ *p       = (ProductViaAIJ *)C->product->data;
  PetscBool      updated = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ProductViaAIJUpdate(C->product, p, &updated));
  if (updated) PetscCall(MatCopy(p->D, C, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_BSRCustom_AIJ(Mat C)
{
  Mat_Product   *product = C->product;
  ProductViaAIJ *p;
  Mat            opA, opB, opC, E;
  PetscBool      updated;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  PetscCall(ProductOperand(product->A, &opA));
  PetscCall(ProductOperand(product->B, &opB));
  PetscCall(ProductOperand(product->C, &opC));
  PetscCall(MatProductCreate(opA, opB, opC, &p->D));
  PetscCall(MatProductSetType(p->D, product->type));
  PetscCall(MatProductSetFill(p->D, product->fill));
  PetscCall(MatProductSetFromOptions(p->D));
  PetscCall(MatProductSymbolic(p->D));
  p->a = p->b = p->c = (PetscObjectState)-1;
  PetscCall(ProductViaAIJUpdate(product, p, &updated));
  /* C becomes a copy of D's result, its own product data kept aside meanwhile */
  PetscCall(MatDuplicate(p->D, MAT_COPY_VALUES, &E));
  C->product = NULL;
  PetscCall(MatHeaderReplace(C, &E));
  C->product              = product;
  product->data           = p;
  product->destroy        = ProductViaAIJDestroy;
  C->ops->productsymbolic = MatProductSymbolic_BSRCustom_AIJ;
  C->ops->productnumeric  = MatProductNumeric_BSRCustom_AIJ;
  PetscCall(PetscInfo(C, "MatProduct %s of %s with %s computed on AIJ copies of the bsrcustom operands; the result is %s\n", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, ((PetscObject)C)->type_name));
  PetscFunctionReturn(0);
}

/* composed as MatProductSetFromOptions_<X>_<Y>_C with X, Y ours or AIJ (one at least ours): every
   product type that AIJ offers */
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_BSRCustom_AIJ(Mat C)
{
  PetscFunctionBegin;
  C->ops->productsymbolic = MatProductSymbolic_BSRCustom_AIJ;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomComposeAIJProducts_Private(Mat A, const char ours[], PetscBool install)
{
  const char *other[] = {MATSEQAIJ, MATMPIAIJ, "seqaijcusparse", "mpiaijcusparse", MATSEQBSRCUSTOM, MATMPIBSRCUSTOM};
  char        name[128];

  PetscFunctionBegin;
  /* ours first (PETSc asks A), then ours second (PETSc asks B when A has no answer) */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(other); i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", ours, other[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? MatProductSetFromOptions_BSRCustom_AIJ : NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", other[i], ours));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? MatProductSetFromOptions_BSRCustom_AIJ : NULL));
  }
  PetscFunctionReturn(0);
}
