/*
   Y += a X with X's nonzeros a subset of Y's (SUBSET_NONZERO_PATTERN), for the MPIAIJ matrices ours
   makes where blocks are rectangular (GAMG's prolongators and its A P, MATMPIAIJ or MATMPIAIJCUSPARSE).
   GAMG smooths a prolongator with MatAYPX(A P, -w, P0, SUBSET_NONZERO_PATTERN), and MPIAIJ's MatAXPY
   takes MatGetRow and MatSetValues entry by entry for that pattern. Here X's local and ghost blocks are
   merged into Y's row by row: the local blocks' columns are sorted, and the ghost blocks' compressed
   columns keep the global order. Where X is not an MPIAIJ of Y's layout, or a row of X has an entry Y
   lacks (found on every rank before anything changes), PETSc's own runs.
*/
#include "mpibsrcustomimpl.h"

static PetscErrorCode (*mpiaij_axpy)(Mat, PetscScalar, Mat, MatStructure); /* MPIAIJ's, shared by its GPU type */

/* for each entry of X's block (xi, xj; X's global column of local column j: map_x[j], NULL: j itself) its
   place in Y's (yi, yj, map_y) row; *ok false where one has none */
static void Places(PetscInt m, const PetscInt *xi, const PetscInt *xj, const PetscInt *map_x, const PetscInt *yi, const PetscInt *yj, const PetscInt *map_y, PetscInt *place, PetscBool *ok)
{
  for (PetscInt i = 0; *ok && i < m; i++) {
    PetscInt p = yi[i];

    for (PetscInt k = xi[i]; *ok && k < xi[i + 1]; k++) {
      const PetscInt col = map_x ? map_x[xj[k]] : xj[k];

      while (p < yi[i + 1] && (map_y ? map_y[yj[p]] : yj[p]) < col) p++;
      *ok      = (PetscBool)(p < yi[i + 1] && (map_y ? map_y[yj[p]] : yj[p]) == col);
      place[k] = p;
    }
  }
}

/* y[place[k]] += a x[k] over one block of Y and X */
static PetscErrorCode AddInto(Mat Yb, PetscScalar a, Mat Xb, const PetscInt *place, PetscInt nnz)
{
  PetscScalar       *y;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArray(Yb, &y));
  PetscCall(MatSeqAIJGetArrayRead(Xb, &x));
  for (PetscInt k = 0; k < nnz; k++) y[place[k]] += a * x[k];
  PetscCall(MatSeqAIJRestoreArrayRead(Xb, &x));
  PetscCall(MatSeqAIJRestoreArray(Yb, &y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatAXPY_MPIAIJ_Subset(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat             Yd, Yo, Xd, Xo;
  const PetscInt *yg, *xg, *ydi, *ydj, *yoi, *yoj, *xdi, *xdj, *xoi, *xoj;
  PetscInt        m, n, *place;
  PetscBool       aij, ok;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATMPIAIJ, &aij));
  ok = (PetscBool)(str == SUBSET_NONZERO_PATTERN && aij && X->rmap->rstart == Y->rmap->rstart && X->rmap->n == Y->rmap->n && X->cmap->rstart == Y->cmap->rstart && X->cmap->n == Y->cmap->n && X->cmap->N == Y->cmap->N);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  if (!ok) {
    PetscCall((*mpiaij_axpy)(Y, a, X, str));
    PetscFunctionReturn(0);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(Y, &Yd, &Yo, &yg));
  PetscCall(MatMPIAIJGetSeqAIJ(X, &Xd, &Xo, &xg));
  PetscCall(MatBSRCustomGetStructure_Private(Yd, PETSC_FALSE, &m, &ydi, &ydj));
  PetscCall(MatBSRCustomGetStructure_Private(Yo, PETSC_FALSE, &n, &yoi, &yoj));
  PetscCall(MatBSRCustomGetStructure_Private(Xd, PETSC_FALSE, &n, &xdi, &xdj));
  PetscCall(MatBSRCustomGetStructure_Private(Xo, PETSC_FALSE, &n, &xoi, &xoj));
  PetscCall(PetscMalloc1(xdi[m] + xoi[m] + 1, &place));
  Places(m, xdi, xdj, NULL, ydi, ydj, NULL, place, &ok);
  Places(m, xoi, xoj, xg, yoi, yoj, yg, place + xdi[m], &ok);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  if (ok) {
    PetscCall(AddInto(Yd, a, Xd, place, xdi[m]));
    PetscCall(AddInto(Yo, a, Xo, place + xdi[m], xoi[m]));
    PetscCall(PetscLogFlops(2.0 * (xdi[m] + xoi[m])));
    PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  }
  PetscCall(PetscFree(place));
  if (!ok) {
    PetscCall(PetscInfo(Y, "MatAXPY with SUBSET_NONZERO_PATTERN: X has entries Y lacks; MPIAIJ's MatAXPY runs\n"));
    PetscCall((*mpiaij_axpy)(Y, a, X, str));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomMPIAIJSubsetAXPY_Private(Mat M)
{
  PetscBool aij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATMPIAIJ, &aij));
  if (!aij || M->ops->axpy == MatAXPY_MPIAIJ_Subset) PetscFunctionReturn(0);
  if (!mpiaij_axpy) mpiaij_axpy = M->ops->axpy;
  if (M->ops->axpy != mpiaij_axpy) PetscFunctionReturn(0); /* a type with a MatAXPY of its own keeps it */
  M->ops->axpy = MatAXPY_MPIAIJ_Subset;
  PetscFunctionReturn(0);
}
