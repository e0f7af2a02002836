/*
   Y += a X with X's nonzeros a subset of Y's (SUBSET_NONZERO_PATTERN), merged row by row. GAMG smooths
   every prolongator with MatAYPX(A P, -w, P0, SUBSET_NONZERO_PATTERN), and for that pattern SeqBAIJ,
   MPIBAIJ, SeqAIJ and MPIAIJ all take MatGetRow and MatSetValues entry by entry (MatAXPY_Basic). Here
   each of Y's sequential parts (the matrix itself, or an MPI matrix's local and ghost blocks) takes
   X's matching part: both keep each row's columns in increasing global order (the ghost blocks'
   compressed columns follow it), so one walk finds X's entries in Y's row, blocks of bs x bs values for
   ours, scalars for AIJ. For ours it serves seqbsrcustom and mpibsrcustom; for AIJ the MATSEQAIJ and
   MATMPIAIJ(CUSPARSE) matrices ours makes where blocks are rectangular (a MATSEQAIJCUSPARSE keeps
   its own, which runs on the GPU). Where X is not of Y's kind and layout, or a row of X has an entry Y
   lacks (found on every rank before anything changes), *done is false and the caller runs the type's
   own MatAXPY. It works on sequential parts, so it sits with the seq type, below the MPI one.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/* one sequential part of Y and the matching part of X; a map gives a local column's global one (NULL: itself) */
typedef struct {
  Mat             y, x;
  const PetscInt *ymap, *xmap;
} Part;

/* an assembled mpibsrcustom matrix's local and ghost blocks and the ghosts' global block columns,
   through the method the MPI type composes (this file sits below that type); *found false where it has
   none yet */
static PetscErrorCode MPIBlocks(Mat A, Mat *local, Mat *ghost, const PetscInt **ghost_cols, PetscBool *found)
{
  PetscErrorCode (*get)(Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *) = NULL;

  PetscFunctionBegin;
  *local = *ghost = NULL;
  *ghost_cols     = NULL;
  if (A->assembled) PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatBSRCustomGetLocalAndGhost_C", &get));
  if (get) PetscCall((*get)(A, local, ghost, NULL, ghost_cols, NULL, NULL));
  *found = (PetscBool)(*local && *ghost);
  PetscFunctionReturn(0);
}

/* Y's and X's parts where X is of Y's kind and layout; *nparts 0 otherwise */
static PetscErrorCode FindParts(Mat Y, Mat X, PetscBool *blocks, PetscInt *nparts, Part parts[2])
{
  PetscBool y_seq_ours, y_mpi_ours, x_seq_baij, x_mpi_ours, y_seq_aij, y_mpi_aij, x_seq_aij, x_mpi_aij, same;

  PetscFunctionBegin;
  *nparts = 0;
  same    = (PetscBool)(X->rmap->rstart == Y->rmap->rstart && X->rmap->n == Y->rmap->n && X->cmap->rstart == Y->cmap->rstart && X->cmap->n == Y->cmap->n && X->cmap->N == Y->cmap->N && X->rmap->bs == Y->rmap->bs && X->cmap->bs == Y->cmap->bs);
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQBSRCUSTOM, &y_seq_ours));
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATMPIBSRCUSTOM, &y_mpi_ours));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &x_seq_baij, MATSEQBSRCUSTOM, MATSEQBAIJ, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATMPIBSRCUSTOM, &x_mpi_ours));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)Y, MATSEQAIJ, &y_seq_aij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)Y, MATMPIAIJ, &y_mpi_aij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJ, &x_seq_aij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATMPIAIJ, &x_mpi_aij));
  if (!same) PetscFunctionReturn(0);
  *blocks = (PetscBool)(y_seq_ours || y_mpi_ours);
  if ((y_seq_ours && x_seq_baij) || (y_seq_aij && x_seq_aij)) {
    parts[0] = (Part){Y, X, NULL, NULL};
    *nparts  = 1;
  } else if (y_mpi_ours && x_mpi_ours) {
    PetscBool fy, fx;

    PetscCall(MPIBlocks(Y, &parts[0].y, &parts[1].y, &parts[1].ymap, &fy));
    PetscCall(MPIBlocks(X, &parts[0].x, &parts[1].x, &parts[1].xmap, &fx));
    parts[0].ymap = parts[0].xmap = NULL;
    if (fy && fx) *nparts = 2; /* else not assembled */
  } else if (y_mpi_aij && x_mpi_aij) {
    const PetscInt *yg, *xg;

    PetscCall(MatMPIAIJGetSeqAIJ(Y, &parts[0].y, &parts[1].y, &yg));
    PetscCall(MatMPIAIJGetSeqAIJ(X, &parts[0].x, &parts[1].x, &xg));
    parts[0].ymap = parts[0].xmap = NULL;
    parts[1].ymap                 = yg;
    parts[1].xmap                 = xg;
    *nparts                       = 2;
  }
  PetscFunctionReturn(0);
}

/* for each entry of X's part its place in Y's row; *ok false where Y's row lacks one */
static PetscErrorCode Places(const Part *p, PetscBool blocks, PetscInt *place, PetscInt *nnz, PetscBool *ok)
{
  const PetscInt *yi, *yj, *xi, *xj;
  PetscInt        m, n;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(p->y, blocks, &m, &yi, &yj));
  PetscCall(MatBSRCustomGetStructure_Private(p->x, blocks, &n, &xi, &xj));
  *ok  = (PetscBool)(*ok && m == n);
  *nnz = *ok ? xi[m] : 0;
  for (PetscInt i = 0; *ok && i < m; i++) {
    PetscInt q = yi[i];

    for (PetscInt k = xi[i]; *ok && k < xi[i + 1]; k++) {
      const PetscInt col = p->xmap ? p->xmap[xj[k]] : xj[k];

      while (q < yi[i + 1] && (p->ymap ? p->ymap[yj[q]] : yj[q]) < col) q++;
      *ok      = (PetscBool)(q < yi[i + 1] && (p->ymap ? p->ymap[yj[q]] : yj[q]) == col);
      place[k] = q;
    }
  }
  PetscFunctionReturn(0);
}

/* y[place[k]] += a x[k], entries of `unit` values */
static PetscErrorCode AddPart(const Part *p, PetscBool blocks, PetscScalar a, const PetscInt *place, PetscInt nnz, PetscInt unit)
{
  PetscScalar       *y;
  const PetscScalar *x;

  PetscFunctionBegin;
  if (blocks) {
    PetscCall(MatSeqBAIJGetArray(p->y, &y));
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(p->x, &x));
  } else {
    PetscCall(MatSeqAIJGetArray(p->y, &y));
    PetscCall(MatSeqAIJGetArrayRead(p->x, &x));
  }
  for (PetscInt k = 0; k < nnz; k++)
    for (PetscInt u = 0; u < unit; u++) y[(size_t)place[k] * unit + u] += a * x[(size_t)k * unit + u];
  if (blocks) {
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(p->x, &x));
    PetscCall(MatSeqBAIJRestoreArray(p->y, &y));
  } else {
    PetscCall(MatSeqAIJRestoreArrayRead(p->x, &x));
    PetscCall(MatSeqAIJRestoreArray(p->y, &y));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSubsetAXPY_Private(Mat Y, PetscScalar a, Mat X, MatStructure str, PetscBool *done)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)Y);
  Part           parts[2];
  PetscBool      blocks = PETSC_FALSE, ok;
  PetscInt       nparts = 0, *place[2] = {NULL, NULL}, nnz[2] = {0, 0}, unit;
  PetscLogDouble flops = 0;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (str != SUBSET_NONZERO_PATTERN) PetscFunctionReturn(0);
  PetscCall(FindParts(Y, X, &blocks, &nparts, parts));
  ok = (PetscBool)(nparts > 0);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, BSRC_MPI_BOOL, MPI_LAND, comm));
  if (!ok) PetscFunctionReturn(0);
  unit = blocks ? Y->rmap->bs * Y->rmap->bs : 1;
  for (PetscInt p = 0; p < nparts; p++) {
    const PetscInt *xi, *xj;
    PetscInt        m;

    PetscCall(MatBSRCustomGetStructure_Private(parts[p].x, blocks, &m, &xi, &xj));
    PetscCall(PetscMalloc1(xi[m] + 1, &place[p]));
    PetscCall(Places(&parts[p], blocks, place[p], &nnz[p], &ok));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, BSRC_MPI_BOOL, MPI_LAND, comm));
  if (ok) {
    for (PetscInt p = 0; p < nparts; p++) {
      PetscCall(AddPart(&parts[p], blocks, a, place[p], nnz[p], unit));
      flops += 2.0 * nnz[p] * unit;
    }
    PetscCall(PetscLogFlops(flops));
    PetscCall(PetscObjectStateIncrease((PetscObject)Y));
    PetscCall(PetscInfo(Y, "MatAXPY with SUBSET_NONZERO_PATTERN: X's rows merged into Y's\n"));
  } else PetscCall(PetscInfo(Y, "MatAXPY with SUBSET_NONZERO_PATTERN: X has entries Y lacks; the type's own MatAXPY runs\n"));
  PetscCall(PetscFree(place[0]));
  PetscCall(PetscFree(place[1]));
  *done = ok;
  PetscFunctionReturn(0);
}

/* the AIJ matrices ours makes: MATSEQAIJ's and MATMPIAIJ's MatAXPY, kept to run where the merge does not apply */
static PetscErrorCode (*seqaij_axpy)(Mat, PetscScalar, Mat, MatStructure), (*mpiaij_axpy)(Mat, PetscScalar, Mat, MatStructure);

static PetscErrorCode MatAXPY_AIJ_Subset(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscBool done, mpi;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSubsetAXPY_Private(Y, a, X, str, &done));
  if (done) PetscFunctionReturn(0);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)Y, MATMPIAIJ, &mpi));
  PetscCall((*(mpi ? mpiaij_axpy : seqaij_axpy))(Y, a, X, str));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomAIJSubsetAXPY_Private(Mat M)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQAIJ, &seq)); /* not MATSEQAIJCUSPARSE: its own runs on the GPU */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATMPIAIJ, &mpi));
  if ((!seq && !mpi) || M->ops->axpy == MatAXPY_AIJ_Subset) PetscFunctionReturn(0);
  if (seq && !seqaij_axpy) seqaij_axpy = M->ops->axpy;
  if (mpi && !mpiaij_axpy) mpiaij_axpy = M->ops->axpy;
  if (M->ops->axpy != (seq ? seqaij_axpy : mpiaij_axpy)) PetscFunctionReturn(0); /* a type with a MatAXPY of its own keeps it */
  M->ops->axpy = MatAXPY_AIJ_Subset;
  PetscFunctionReturn(0);
}
