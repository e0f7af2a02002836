/* Helpers shared by seqbsrcustom and mpibsrcustom (see bsrcustomimpl.h). */
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#if defined(__linux__)
  #include <errno.h>
  #include <stdint.h>
  #include <string.h>
  #include <sys/mman.h>
  #if !defined(MADV_COLLAPSE)
    #define MADV_COLLAPSE 25 /* Linux 6.1; older headers lack the name, older kernels answer EINVAL */
  #endif
#endif

/*
   Huge pages for an array the CPU kernel streams: MADV_COLLAPSE moves the pages at once (synchronous;
   with MADV_HUGEPAGE alone only khugepaged would, in the background, over minutes), and marks the
   range so that it stays huge. Fewer TLB misses, and hardware prefetching that does not stop at every
   4 KiB page; the gain is small and varies with the machine (MatBSRCustomSetHugePages()).
*/
PETSC_INTERN PetscErrorCode MatBSRCustomAdviseHugePages_Private(Mat A, const void *p, size_t bytes, PetscBool *granted)
{
  PetscFunctionBegin;
  *granted = PETSC_FALSE;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  {
    const uintptr_t page = (uintptr_t)2 << 20;
    const uintptr_t b = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + bytes) & ~(page - 1);
    int             rc, err                                        = 0;
    const char     *how = "MADV_COLLAPSE";

    if (!p || e <= b) {
      PetscCall(PetscInfo(A, "Values not on huge pages: %zu bytes hold no whole 2 MiB page\n", bytes));
      PetscFunctionReturn(0);
    }
    rc = madvise((void *)b, (size_t)(e - b), MADV_COLLAPSE);
    if (rc != 0) {
      err = errno;
      how = "MADV_HUGEPAGE";
      rc  = madvise((void *)b, (size_t)(e - b), MADV_HUGEPAGE);
    }
    *granted = (PetscBool)(rc == 0);
    if (rc == 0) PetscCall(PetscInfo(A, "Values on huge pages: %s over %.1f MiB\n", how, (double)(e - b) / 1048576.0));
    else PetscCall(PetscInfo(A, "Values not on huge pages: madvise refused (MADV_COLLAPSE: %s; MADV_HUGEPAGE: %s)\n", strerror(err), strerror(errno)));
  }
#else
  (void)p;
  (void)bytes;
  PetscCall(PetscInfo(A, "Values not on huge pages: not a Linux build\n"));
#endif
  PetscFunctionReturn(0);
}

/*
   Finite-difference coloring: PETSc's BAIJ path colors block columns, while a DMDA hands non-"baij"
   types a coloring of scalar columns. Such a coloring becomes a block coloring in which two block
   columns share a color when all their components do: valid whenever the scalar coloring is valid for
   the block pattern, and for a DMDA exactly the node coloring the DMDA gives BAIJ, so the Jacobian
   matches BAIJ's. A color names a set of columns across all ranks, so the block colors are numbered
   from the tuples of every rank (gathered, sorted, deduplicated), never from one rank's alone.
*/

/* Sorts n tuples of bs colors (tuple j at colors[perm0[j] * bs], colors below ncolors) into
   lexicographic order: an LSD radix sort, each pass stable. perm holds the order on return. */
static PetscErrorCode MatBSRCustomSortColorTuples(PetscInt n, PetscInt bs, const PetscInt colors[], PetscInt ncolors, PetscInt perm[])
{
  PetscInt *next, *count;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &next, ncolors + 1, &count));
  for (PetscInt j = 0; j < n; j++) perm[j] = j;
  for (PetscInt k = bs - 1; k >= 0; k--) {
    PetscCall(PetscArrayzero(count, ncolors + 1));
    for (PetscInt j = 0; j < n; j++) count[colors[j * bs + k] + 1]++;
    for (PetscInt c = 0; c < ncolors; c++) count[c + 1] += count[c];
    for (PetscInt j = 0; j < n; j++) next[count[colors[perm[j] * bs + k]]++] = perm[j];
    PetscCall(PetscArraycpy(perm, next, n));
  }
  PetscCall(PetscFree2(next, count));
  PetscFunctionReturn(0);
}

/* -1, 0, 1 as tuple a sorts before, with, after tuple b */
static int MatBSRCustomCompareTuples(PetscInt bs, const PetscInt a[], const PetscInt b[])
{
  for (PetscInt k = 0; k < bs; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

PETSC_INTERN PetscErrorCode MatBSRCustomBlockColoring_Private(Mat A, ISColoring scalar, ISColoring *block)
{
  MPI_Comm               comm = PetscObjectComm((PetscObject)A);
  PetscInt               bs, n, ncolors, nb, nlocal, nall, nuniq;
  const ISColoringValue *colors;
  ISColoringValue       *bcolors;
  ISColoringType         ctype;
  PetscInt              *tuples, *perm, *local, *all, *allperm, *uniq;
  PetscMPIInt            size, mine, *counts, *displs;
  PetscBool              expand;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(ISColoringGetColors(scalar, &n, &ncolors, &colors));
  PetscCall(ISColoringGetType(scalar, &ctype));
  /* a global scalar coloring has one entry per local column; block and ghosted (IS_COLORING_LOCAL)
     colorings are passed on. Decided together: a rank without columns cannot tell the two apart. */
  expand = (PetscBool)(bs > 1 && ctype == IS_COLORING_GLOBAL && n == A->cmap->n);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &expand, 1, BSRC_MPI_BOOL, MPI_LAND, comm));
  if (!expand) {
    PetscCall(ISColoringReference(scalar));
    *block = scalar;
    PetscFunctionReturn(0);
  }
  nb = n / bs;
  /* this rank's distinct tuples, in order */
  PetscCall(PetscMalloc3(n, &tuples, nb, &perm, n, &local));
  for (PetscInt i = 0; i < n; i++) tuples[i] = (PetscInt)colors[i];
  PetscCall(MatBSRCustomSortColorTuples(nb, bs, tuples, ncolors, perm));
  nlocal = 0;
  for (PetscInt j = 0; j < nb; j++) {
    if (nlocal && !MatBSRCustomCompareTuples(bs, &tuples[perm[j] * bs], &local[(nlocal - 1) * bs])) continue;
    PetscCall(PetscArraycpy(&local[nlocal * bs], &tuples[perm[j] * bs], bs));
    nlocal++;
  }
  /* every rank's distinct tuples, sorted and deduplicated: the global block colors */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMPIIntCast(nlocal * bs, &mine));
  PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) PetscCall(PetscMPIIntCast((PetscInt)displs[r] + counts[r], &displs[r + 1]));
  nall = displs[size] / bs;
  PetscCall(PetscMalloc3(nall * bs + 1, &all, nall + 1, &allperm, nall * bs + 1, &uniq));
  PetscCallMPI(MPI_Allgatherv(local, mine, MPIU_INT, all, counts, displs, MPIU_INT, comm));
  PetscCall(MatBSRCustomSortColorTuples(nall, bs, all, ncolors, allperm));
  nuniq = 0;
  for (PetscInt j = 0; j < nall; j++) {
    if (nuniq && !MatBSRCustomCompareTuples(bs, &all[allperm[j] * bs], &uniq[(nuniq - 1) * bs])) continue;
    PetscCall(PetscArraycpy(&uniq[nuniq * bs], &all[allperm[j] * bs], bs));
    nuniq++;
  }
  PetscCheck(nuniq <= IS_COLORING_MAX, comm, PETSC_ERR_SUP, "The block coloring needs %" PetscInt_FMT " colors, more than ISColoringValue holds (%d)", nuniq, (int)IS_COLORING_MAX);
  /* each block column's color: the position of its tuple among the global ones (binary search) */
  PetscCall(PetscMalloc1(nb, &bcolors));
  for (PetscInt j = 0; j < nb; j++) {
    PetscInt lo = 0, hi = nuniq - 1;
    while (lo < hi) {
      PetscInt mid = (lo + hi) / 2;
      if (MatBSRCustomCompareTuples(bs, &uniq[mid * bs], &tuples[j * bs]) < 0) lo = mid + 1;
      else hi = mid;
    }
    bcolors[j] = (ISColoringValue)lo;
  }
  PetscCall(PetscFree3(all, allperm, uniq));
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree3(tuples, perm, local));
  PetscCall(ISColoringCreate(comm, nuniq, nb, bcolors, PETSC_OWN_POINTER, block));
  PetscCall(ISColoringSetType(*block, ctype));
  PetscCall(PetscInfo(A, "Block coloring of %" PetscInt_FMT " colors from a scalar coloring of %" PetscInt_FMT " colors\n", nuniq, ncolors));
  PetscFunctionReturn(0);
}

/* PETSc picks the BAIJ path of MatFDColoringCreate/SetUp by base type name (a "seqbaij"/"mpibaij"
   prefix), which ours lack; without it our BAIJ data would be read as AIJ. So the base routine runs
   under the base type's name, with a block coloring. */
PETSC_INTERN PetscErrorCode MatBSRCustomFDColoringCall_Private(Mat A, MatType base, MatType ours, PetscErrorCode (*fn)(Mat, ISColoring, MatFDColoring), ISColoring iscoloring, MatFDColoring c)
{
  ISColoring block;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomBlockColoring_Private(A, iscoloring, &block));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, base));
  PetscCall((*fn)(A, block, c));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, ours));
  PetscCall(ISColoringDestroy(&block));
  PetscFunctionReturn(0);
}

/* The FD coloring's work vectors w1 and w2 (F(x) and F(x + dx)) come from MatCreateVecs, which gives
   CUDA vectors for a GPU backend on a CUDA PETSc; PETSc binds them to the CPU at once, because its
   coloring code reads them entry by entry on the host. On several ranks PETSc 3.25.4's AIJ-path
   coloring (block size 1) then builds a wrong Jacobian from them: DMDA programs with -snes_fd_color
   stop in the line search after the first Newton step, with MATAIJCUSPARSE as with ours, while BAIJ,
   whose MatCreateVecs gives host vectors, converges. So ours get host vectors of the same layout, as
   BAIJ's do; the function value already stored in w1 (MatFDColoringSetF) is kept. */
PETSC_INTERN PetscErrorCode MatBSRCustomFDColoringHostWork_Private(MatFDColoring c)
{
  Vec        *w[2] = {&c->w1, &c->w2};
  VecType     type;
  PetscBool   host;
  PetscLayout map;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    Vec v = *w[k], h;

    if (!v) continue;
    PetscCall(VecGetType(v, &type));
    PetscCall(PetscStrInList(type, VECSEQ "," VECMPI "," VECSTANDARD, ',', &host));
    if (host) continue;
    PetscCall(VecGetLayout(v, &map));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)v), &h));
    PetscCall(VecSetLayout(h, map));
    PetscCall(VecSetType(h, VECSTANDARD));
    if (k == 0) PetscCall(VecCopy(v, h));
    PetscCall(VecDestroy(w[k]));
    *w[k] = h;
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSetValuesAllowNull_Private(MatBSRCustomSetValuesFn base, Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode)
{
  PetscScalar *zeros;

  PetscFunctionBegin;
  if (v) {
    PetscCall((*base)(A, m, im, n, in, v, mode));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc1((size_t)PetscMax(m, 0) * PetscMax(n, 0) + 1, &zeros));
  PetscCall((*base)(A, m, im, n, in, zeros, mode));
  PetscCall(PetscFree(zeros));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomBlockCounts_Private(PetscInt mbs, PetscInt bs, const PetscInt nnz[], PetscInt cap, PetscInt **bnnz)
{
  PetscFunctionBegin;
  *bnnz = NULL;
  if (!nnz) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(mbs, bnnz));
  for (PetscInt i = 0; i < mbs; i++) {
    PetscInt  sum     = 0;
    PetscBool blocked = (PetscBool)(nnz[i * bs] % bs == 0);
    for (PetscInt r = 0; r < bs; r++) {
      sum += nnz[i * bs + r];
      blocked = (PetscBool)(blocked && nnz[i * bs + r] == nnz[i * bs]);
    }
    (*bnnz)[i] = PetscMin(blocked ? nnz[i * bs] / bs : sum, cap);
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscInt MatBSRCustomBlockCount_Private(PetscInt nz, PetscInt bs, PetscInt cap)
{
  if (nz == PETSC_DEFAULT || nz == PETSC_DECIDE) return nz;
  return PetscMin(nz % bs == 0 ? nz / bs : nz * bs, cap);
}

PETSC_INTERN PetscErrorCode MatBSRCustomValuesState_Private(Mat A, PetscObjectState *state)
{
  PetscErrorCode (*sync)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatBSRCustomSyncState_C", &sync));
  if (sync) PetscCall((*sync)(A));
  PetscCall(PetscObjectStateGet((PetscObject)A, state));
  PetscFunctionReturn(0);
}

/* M's CSR (block rows and block columns with blocks, else scalars), valid until M's structure changes:
   the arrays MatGetRowIJ gives without a symmetric or shifted copy are the matrix's own (SeqAIJ,
   SeqBAIJ), and the restore that follows may clear the pointers it is given, not the arrays */
PETSC_INTERN PetscErrorCode MatBSRCustomGetStructure_Private(Mat M, PetscBool blocks, PetscInt *n, const PetscInt **rowptr, const PetscInt **colidx)
{
  PetscBool       done;
  PetscInt        rn;
  const PetscInt *ri, *rj;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, blocks, n, rowptr, colidx, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s did not give its structure", ((PetscObject)M)->type_name);
  rn = *n;
  ri = *rowptr;
  rj = *colidx;
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, blocks, &rn, &ri, &rj, &done));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomHeaderReplaceKeepProduct_Private(Mat X, Mat *E)
{
  Mat_Product     *product = X->product;
  PetscObjectState was     = X->nonzerostate;

  PetscFunctionBegin;
  X->product = NULL; /* kept aside while X takes E's header */
  PetscCall(MatHeaderReplace(X, E));
  X->product = product;
  /* X keeps its references, so its holders (a PC, a KSP's operator) now see the new structure: they
     must see a new nonzerostate too, whatever count E's own assembly left */
  X->nonzerostate = PetscMax(was, X->nonzerostate) + 1;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCSRBlockCounts_Private(PetscInt m, PetscInt bs, const PetscInt i[], const PetscInt j[], PetscInt N, PetscInt cstart, PetscInt cend, PetscInt **dnnz, PetscInt **onnz)
{
  const PetscInt mbs  = m / bs;
  PetscInt       most = 0, *cols;

  PetscFunctionBegin;
  PetscCheck(i[0] == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "i[0] must be 0, it is %" PetscInt_FMT, i[0]);
  for (PetscInt r = 0; r < m; r++) PetscCheck(i[r + 1] >= i[r], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Local row %" PetscInt_FMT " has a negative number of columns %" PetscInt_FMT, r, i[r + 1] - i[r]);
  for (PetscInt b = 0; b < mbs; b++) most = PetscMax(most, i[(b + 1) * bs] - i[b * bs]);
  PetscCall(PetscMalloc1(most + 1, &cols));
  PetscCall(PetscCalloc1(mbs + 1, dnnz));
  if (onnz) PetscCall(PetscCalloc1(mbs + 1, onnz));
  for (PetscInt b = 0; b < mbs; b++) {
    PetscInt n = 0;
    for (PetscInt r = b * bs; r < (b + 1) * bs; r++)
      for (PetscInt k = i[r]; k < i[r + 1]; k++) {
        PetscCheck(j[k] >= 0 && j[k] < N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column %" PetscInt_FMT " of local row %" PetscInt_FMT " is outside the matrix's %" PetscInt_FMT " columns", j[k], r, N);
        cols[n++] = j[k] / bs;
      }
    PetscCall(PetscSortRemoveDupsInt(&n, cols));
    for (PetscInt k = 0; k < n; k++) {
      if (!onnz || (cols[k] >= cstart && cols[k] < cend)) (*dnnz)[b]++;
      else (*onnz)[b]++;
    }
  }
  PetscCall(PetscFree(cols));
  PetscFunctionReturn(0);
}
