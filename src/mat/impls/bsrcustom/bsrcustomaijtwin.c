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
   AIJ forms (an inner product D, kept in C's product data) whose result C copies; C is an AIJ matrix
   from then on. D's operands stay the same objects while their structures do (the AIJ copy of ours
   takes new values in place), so D's numeric phase is simply run again: D's operands are never
   replaced, since PETSc's products may keep transformed operands from their symbolic phase. A B^T is
   A times an explicit B^T kept here and refreshed with B's values (MPIAIJ's A B^T keeps, as its B, a
   transpose made at its symbolic phase and never refreshes it). When an operand's structure changes,
   D is made anew and C takes its new structure in place, with a new nonzerostate.
*/
typedef struct {
  Mat              D;
  Mat              opA, opB, opC; /* D's operands as given (borrowed: AIJ copies of ours, others themselves) */
  Mat              Bt;            /* A B^T: opB's transpose, D = A Bt */
  PetscObjectState a, b, c;       /* the operands' value states at D's last numeric phase */
  PetscObjectState nzA, nzB, nzC; /* the operands' nonzero states when D was made */
} ProductViaAIJ;

static PetscErrorCode ProductViaAIJClear(ProductViaAIJ *p)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->D));
  PetscCall(MatDestroy(&p->Bt));
  p->opA = p->opB = p->opC = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode ProductViaAIJDestroy(void *arg)
{
  ProductViaAIJ *p = (ProductViaAIJ *)BSRC_CTX_OF(arg);

  PetscFunctionBegin;
  PetscCall(ProductViaAIJClear(p));
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

static PetscObjectState NonzeroState(Mat M)
{
  return M ? M->nonzerostate : 0;
}

static PetscErrorCode ValuesStates(Mat_Product *product, PetscObjectState *a, PetscObjectState *b, PetscObjectState *c)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomValuesState_Private(product->A, a));
  PetscCall(MatBSRCustomValuesState_Private(product->B, b));
  *c = 0;
  if (product->C) PetscCall(MatBSRCustomValuesState_Private(product->C, c));
  PetscFunctionReturn(0);
}

/* D made from the operands' current AIJ forms, symbolic and numeric phases */
static PetscErrorCode ProductViaAIJMake(Mat_Product *product, ProductViaAIJ *p)
{
  MatProductType type = product->type;
  Mat            second;
  PetscBool      dflt;

  PetscFunctionBegin;
  PetscCall(ProductViaAIJClear(p));
  PetscCall(ProductOperand(product->A, &p->opA));
  PetscCall(ProductOperand(product->B, &p->opB));
  PetscCall(ProductOperand(product->C, &p->opC));
  second = p->opB;
  if (type == MATPRODUCT_ABt) {
    PetscCall(MatTranspose(p->opB, MAT_INITIAL_MATRIX, &p->Bt));
    second = p->Bt;
    type   = MATPRODUCT_AB;
  }
  PetscCall(MatProductCreate(p->opA, second, p->opC, &p->D));
  PetscCall(MatProductSetType(p->D, type));
  PetscCall(PetscStrcmp(product->alg, MATPRODUCTALGORITHMDEFAULT, &dflt));
  if (!dflt && type == product->type) PetscCall(MatProductSetAlgorithm(p->D, product->alg));
  PetscCall(MatProductSetFill(p->D, product->fill));
  PetscCall(MatProductSetFromOptions(p->D));
  PetscCall(MatProductSymbolic(p->D));
  PetscCall(MatProductNumeric(p->D));
  p->nzA = NonzeroState(p->opA);
  p->nzB = NonzeroState(p->opB);
  p->nzC = NonzeroState(p->opC);
  PetscCall(ValuesStates(product, &p->a, &p->b, &p->c));
  PetscFunctionReturn(0);
}

/* D's values from the operands' current ones, unless none changed since D's last numeric phase;
   *remade: an operand's structure had changed, D was made anew */
static PetscErrorCode ProductViaAIJUpdate(Mat_Product *product, ProductViaAIJ *p, PetscBool *updated, PetscBool *remade)
{
  PetscObjectState a, b, c;
  Mat              opA, opB, opC;

  PetscFunctionBegin;
  *updated = *remade = PETSC_FALSE;
  PetscCall(ValuesStates(product, &a, &b, &c));
  if (a == p->a && b == p->b && c == p->c) PetscFunctionReturn(0);
  *updated = PETSC_TRUE;
  PetscCall(ProductOperand(product->A, &opA));
  PetscCall(ProductOperand(product->B, &opB));
  PetscCall(ProductOperand(product->C, &opC));
  if (opA != p->opA || opB != p->opB || opC != p->opC || NonzeroState(opA) != p->nzA || NonzeroState(opB) != p->nzB || NonzeroState(opC) != p->nzC) {
    PetscCall(PetscInfo(p->D, "An operand's nonzero structure changed since the product's symbolic phase: the product on AIJ copies is made anew\n"));
    PetscCall(ProductViaAIJMake(product, p));
    *remade = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (p->Bt && b != p->b) PetscCall(MatTranspose(p->opB, MAT_REUSE_MATRIX, &p->Bt));
  PetscCall(MatProductNumeric(p->D));
  p->a = a;
  p->b = b;
  p->c = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_BSRCustom_AIJ(Mat C);
static PetscErrorCode MatProductNumeric_BSRCustom_AIJ(Mat C);

/* C becomes a copy of D's result (its own product data kept aside meanwhile) */
static PetscErrorCode ProductViaAIJTakeResult(Mat C, ProductViaAIJ *p)
{
  Mat E;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(p->D, MAT_COPY_VALUES, &E));
  PetscCall(MatBSRCustomHeaderReplaceKeepProduct_Private(C, &E));
  C->ops->productsymbolic = MatProductSymbolic_BSRCustom_AIJ;
  C->ops->productnumeric  = MatProductNumeric_BSRCustom_AIJ;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_BSRCustom_AIJ(Mat C)
{
  ProductViaAIJ *p       = (ProductViaAIJ *)C->product->data;
  PetscBool      updated = PETSC_FALSE, remade = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ProductViaAIJUpdate(C->product, p, &updated, &remade));
  if (remade) PetscCall(ProductViaAIJTakeResult(C, p));
  else if (updated) PetscCall(MatCopy(p->D, C, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductSymbolic_BSRCustom_AIJ(Mat C)
{
  Mat_Product   *product = C->product;
  ProductViaAIJ *p;

  PetscFunctionBegin;
  if (product->data && product->destroy == ProductViaAIJDestroy) {
    p = (ProductViaAIJ *)product->data; /* a symbolic phase again: D made anew */
  } else {
    PetscCall(PetscNew(&p));
    product->data    = p;
    product->destroy = ProductViaAIJDestroy;
  }
  PetscCall(ProductViaAIJMake(product, p));
  PetscCall(ProductViaAIJTakeResult(C, p));
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

static const char *const AIJProductTypes[] = {MATSEQAIJ, MATMPIAIJ, "seqaijcusparse", "mpiaijcusparse", MATSEQBSRCUSTOM, MATMPIBSRCUSTOM};

/* A B C (PETSc looks it up by all three type names): on AIJ copies where every operand is ours or AIJ
   (PETSc's fallback would run A (B C) through operations ours does not have); others declined */
static PetscErrorCode MatProductSetFromOptions_BSRCustom_AnyType(Mat C)
{
  Mat_Product *product = C->product;
  Mat          op[3]   = {product->A, product->B, product->C};
  PetscBool    all     = PETSC_TRUE;

  PetscFunctionBegin;
  if (product->type != MATPRODUCT_ABC) PetscFunctionReturn(0);
  for (int k = 0; k < 3 && all; k++) {
    PetscBool known = PETSC_FALSE;
    for (size_t i = 0; op[k] && i < PETSC_STATIC_ARRAY_LENGTH(AIJProductTypes) && !known; i++) PetscCall(PetscObjectTypeCompare((PetscObject)op[k], AIJProductTypes[i], &known));
    all = (PetscBool)(op[k] && known);
  }
  if (all) C->ops->productsymbolic = MatProductSymbolic_BSRCustom_AIJ;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomComposeAIJProducts_Private(Mat A, const char ours[], PetscBool install)
{
  char name[128];

  PetscFunctionBegin;
  /* ours first (PETSc asks A), then ours second (PETSc asks B when A has no answer) */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(AIJProductTypes); i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", ours, AIJProductTypes[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? MatProductSetFromOptions_BSRCustom_AIJ : NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", AIJProductTypes[i], ours));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, install ? MatProductSetFromOptions_BSRCustom_AIJ : NULL));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", install ? MatProductSetFromOptions_BSRCustom_AnyType : NULL));
  PetscFunctionReturn(0);
}
