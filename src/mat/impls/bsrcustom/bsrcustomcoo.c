/*
   The block map of a coordinate (COO) list, shared by seqbsrcustom and mpibsrcustom: from scalar
   coordinates, the blocks they make (block row i/bs, block column j/bs) as a block CSR, and for every
   stored value of those blocks the coordinates that land there (jmap/perm), with no search; then, from
   that, what MatSetValuesCOO runs: (coordinate, stored value) pairs grouped by the thread that owns the
   value, in the order given.

   The coordinates are first grouped by block row (a counting sort, O(n)); in each block row the
   distinct block columns are found with a marker array over the columns, sorted (a row has few), and
   the row's coordinates grouped by stored value with a second counting sort over the row's values.
   No sort of all n coordinates, as an unblocked COO map must do.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/* part p's ja and jmap hold room for `blocks` blocks (grown by doubling) */
static PetscErrorCode MatBSRCustomCOOPartReserve(MatBSRCustomCOOPart *part, PetscInt bs2, PetscInt *cap, PetscInt blocks)
{
  PetscInt *ja, *jmap;
  PetscInt  want = PetscMax(2 * (*cap), blocks);

  PetscFunctionBegin;
  if (blocks <= *cap) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(want, &ja));
  PetscCall(PetscMalloc1((PetscCount)want * bs2 + 1, &jmap));
  if (*cap) {
    PetscCall(PetscArraycpy(ja, part->ja, *cap));
    PetscCall(PetscArraycpy(jmap, part->jmap, (PetscCount)(*cap) * bs2 + 1));
  }
  PetscCall(PetscFree(part->ja));
  PetscCall(PetscFree(part->jmap));
  part->ja   = ja;
  part->jmap = jmap;
  *cap       = want;
  PetscFunctionReturn(0);
}

/* the coordinates grouped by block row, in their order: order[start[r] .. start[r + 1]) are block row
   r's (those with a negative index left out, as PETSc documents); nin[p]: how many fall in part p (a
   block column below nsplit or not); maxrow: the most in one block row */
static PetscErrorCode MatBSRCustomCOOGroupRows(PetscCount n, const PetscInt rows[], const PetscInt cols[], PetscInt bs, PetscInt mb, PetscInt nsplit, PetscCount **start_out, PetscInt **order_out, PetscCount nin[2], PetscCount *maxrow)
{
  PetscCount *start;
  PetscInt   *order;

  PetscFunctionBegin;
  nin[0] = nin[1] = 0;
  *maxrow         = 0;
  PetscCall(PetscCalloc1(mb + 2, &start));
  for (PetscCount e = 0; e < n; e++) {
    if (rows[e] < 0 || cols[e] < 0) continue;
    start[rows[e] / bs + 2]++;
    nin[cols[e] / bs >= nsplit]++;
  }
  for (PetscInt r = 0; r < mb; r++) *maxrow = PetscMax(*maxrow, start[r + 2]);
  for (PetscInt r = 2; r < mb + 2; r++) start[r] += start[r - 1];
  PetscCall(PetscMalloc1(nin[0] + nin[1], &order));
  for (PetscCount e = 0; e < n; e++) {
    if (rows[e] < 0 || cols[e] < 0) continue;
    order[start[rows[e] / bs + 1]++] = (PetscInt)e;
  }
  *start_out = start;
  *order_out = order;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOBuild_Private(PetscCount n, const PetscInt rows[], const PetscInt cols[], PetscInt bs, PetscInt mb, PetscInt nkeys, PetscInt nsplit, MatBSRCustomCOOPart part[2])
{
  const PetscInt bs2   = bs * bs;
  PetscCount    *start = NULL, nin[2], maxrow, base[2] = {0, 0}, *cnt;
  PetscInt      *order = NULL, *tmp, *mark, *slot, *keys, cap[2] = {0, 0}, maxkeys;

  PetscFunctionBegin;
  PetscCheck(n <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscCount_FMT " COO coordinates on one rank: at most %" PetscInt_FMT " (PetscInt) are supported; configure PETSc --with-64-bit-indices for more", n, (PetscInt)PETSC_MAX_INT);
  for (int p = 0; p < 2; p++) {
    PetscCall(PetscMemzero(&part[p], sizeof(part[p])));
    PetscCall(PetscCalloc1(mb + 1, &part[p].ia));
  }
  PetscCall(MatBSRCustomCOOGroupRows(n, rows, cols, bs, mb, nsplit, &start, &order, nin, &maxrow));
  /* part 0's perm is written over order: its entries for a row never lie beyond that row's range */
  part[0].perm = order;
  PetscCall(PetscMalloc1(nin[1], &part[1].perm));

  maxkeys = (PetscInt)PetscMin((PetscCount)nkeys, maxrow);
  PetscCall(PetscMalloc3(nkeys, &mark, nkeys, &slot, maxkeys, &keys));
  PetscCall(PetscMalloc2((PetscCount)maxkeys * bs2 + 1, &cnt, maxrow, &tmp));
  for (PetscInt k = 0; k < nkeys; k++) mark[k] = -1;
  for (int p = 0; p < 2; p++) {
    PetscCall(MatBSRCustomCOOPartReserve(&part[p], bs2, &cap[p], 16));
    part[p].jmap[0] = 0;
  }
  for (PetscInt r = 0; r < mb; r++) {
    const PetscCount s = start[r], t = start[r + 1];
    PetscInt         nk = 0, nd = 0, nv0;
    PetscCount       n0;

    for (PetscCount q = s; q < t; q++) {
      const PetscInt key = cols[order[q]] / bs;
      if (mark[key] != r) {
        mark[key]  = r;
        keys[nk++] = key;
      }
    }
    PetscCall(PetscSortInt(nk, keys));
    while (nd < nk && keys[nd] < nsplit) nd++;
    for (PetscInt k = 0; k < nk; k++) slot[keys[k]] = k;
    part[0].ia[r + 1] = part[0].ia[r] + nd;
    part[1].ia[r + 1] = part[1].ia[r] + (nk - nd);
    PetscCall(MatBSRCustomCOOPartReserve(&part[0], bs2, &cap[0], part[0].ia[r + 1]));
    PetscCall(MatBSRCustomCOOPartReserve(&part[1], bs2, &cap[1], part[1].ia[r + 1]));
    for (PetscInt k = 0; k < nd; k++) part[0].ja[part[0].ia[r] + k] = keys[k];
    for (PetscInt k = nd; k < nk; k++) part[1].ja[part[1].ia[r] + k - nd] = keys[k] - nsplit;

    /* the row's values lp = slot * bs2 + c * bs + i (column-major blocks), counted, then their starts */
    PetscCall(PetscArrayzero(cnt, (PetscCount)nk * bs2 + 1));
    for (PetscCount q = s; q < t; q++) {
      const PetscInt   e  = order[q];
      const PetscCount lp = (PetscCount)slot[cols[e] / bs] * bs2 + (cols[e] % bs) * bs + rows[e] % bs;
      tmp[q - s]          = e;
      cnt[lp + 1]++;
    }
    for (PetscCount lp = 0; lp < (PetscCount)nk * bs2; lp++) cnt[lp + 1] += cnt[lp];
    nv0 = nd * bs2;
    n0  = cnt[nv0];
    for (PetscCount lp = 0; lp < nv0; lp++) part[0].jmap[(PetscCount)part[0].ia[r] * bs2 + lp + 1] = (PetscInt)(base[0] + cnt[lp + 1]);
    for (PetscCount lp = nv0; lp < (PetscCount)nk * bs2; lp++) part[1].jmap[(PetscCount)part[1].ia[r] * bs2 + (lp - nv0) + 1] = (PetscInt)(base[1] + cnt[lp + 1] - n0);
    /* place, in the order given (duplicates are summed in that order) */
    for (PetscCount q = 0; q < t - s; q++) {
      const PetscInt   e  = tmp[q];
      const PetscCount lp = (PetscCount)slot[cols[e] / bs] * bs2 + (cols[e] % bs) * bs + rows[e] % bs;
      const PetscCount at = cnt[lp]++;
      if (lp < nv0) part[0].perm[base[0] + at] = e;
      else part[1].perm[base[1] + at - n0] = e;
    }
    base[0] += n0;
    base[1] += (t - s) - n0;
  }
  for (int p = 0; p < 2; p++) part[p].nvals = (PetscCount)part[p].ia[mb] * bs2;
  PetscCall(PetscFree3(mark, slot, keys));
  PetscCall(PetscFree2(cnt, tmp));
  PetscCall(PetscFree(start));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOPartFreeStructure_Private(MatBSRCustomCOOPart *part)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(part->ia));
  PetscCall(PetscFree(part->ja));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOPartFree_Private(MatBSRCustomCOOPart *part)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomCOOPartFreeStructure_Private(part));
  PetscCall(PetscFree(part->jmap));
  PetscCall(PetscFree(part->perm));
  part->nvals = 0;
  PetscFunctionReturn(0);
}

/* Marks each value's first pair (~d) and lists the nv values no pair reaches. A value belongs to one
   thread and a thread's pairs are in the order given, so the first in the array is the first added. */
static PetscErrorCode MatBSRCustomCOOScatterMarkFirst(MatBSRCustomCOOScatter *sc, PetscInt nv)
{
  const PetscInt npairs = sc->off[sc->nthreads];
  char          *seen;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nv, &seen));
  for (PetscInt j = 0; j < npairs; j++) {
    const PetscInt d = sc->dst[j];
    if (!seen[d]) {
      seen[d]    = 1;
      sc->dst[j] = ~d;
    }
  }
  sc->nzero = 0;
  for (PetscInt d = 0; d < nv; d++) sc->nzero += !seen[d];
  PetscCall(PetscMalloc1(sc->nzero, &sc->zero));
  for (PetscInt d = 0, k = 0; d < nv; d++)
    if (!seen[d]) sc->zero[k++] = d;
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(0);
}

/* The pairs' sources src (ascending in each thread) as runs of consecutive sources, cut at the threads'
   bounds and where the received values (nfirst on) begin */
static PetscErrorCode MatBSRCustomCOOScatterRuns(MatBSRCustomCOOScatter *sc, const PetscInt src[], PetscInt nfirst)
{
  PetscInt nruns = 0;

  PetscFunctionBegin;
  for (int pass = 0; pass < 2; pass++) {
    PetscInt k = 0;
    for (PetscInt t = 0; t < sc->nthreads; t++) {
      if (pass) sc->roff[t] = k;
      for (PetscInt j = sc->off[t]; j < sc->off[t + 1]; j++) {
        if (j > sc->off[t] && src[j] == src[j - 1] + 1 && src[j] != nfirst) continue;
        if (pass) {
          sc->run[k]     = j;
          sc->run_src[k] = src[j];
        }
        k++;
      }
    }
    if (!pass) {
      nruns = k;
      PetscCall(PetscMalloc3(sc->nthreads + 1, &sc->roff, nruns + 1, &sc->run, nruns, &sc->run_src));
    }
  }
  sc->roff[sc->nthreads] = nruns;
  sc->run[nruns]         = sc->off[sc->nthreads];
  PetscFunctionReturn(0);
}

/* dstof[e]: source e's destination value (-1: none); the threads' value ranges: equal shares of the
   coordinates, cut between values */
static PetscErrorCode MatBSRCustomCOOScatterShares(const MatBSRCustomCOOPart part[2], PetscInt nsrc, MatBSRCustomCOOScatter *sc, PetscInt **dstof_out)
{
  const PetscCount nv   = part[0].nvals + part[1].nvals;
  const PetscInt   ncoo = part[0].jmap[part[0].nvals] + part[1].jmap[part[1].nvals];
  PetscInt        *dstof;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nsrc, &dstof));
  for (PetscInt e = 0; e < nsrc; e++) dstof[e] = -1;
  for (int p = 0; p < 2; p++) {
    const PetscInt base = p ? sc->nvals[0] : 0;
    for (PetscCount q = 0; q < part[p].nvals; q++)
      for (PetscInt k = part[p].jmap[q]; k < part[p].jmap[q + 1]; k++) dstof[part[p].perm[k]] = base + (PetscInt)q;
  }
  PetscCall(PetscMalloc2(sc->nthreads + 1, &sc->vbound, sc->nthreads + 1, &sc->off));
  sc->vbound[0] = 0;
  for (PetscInt t = 1, q = 0; t < sc->nthreads; t++) {
    const PetscInt64 want = ((PetscInt64)ncoo * t) / sc->nthreads;
    while (q < nv && (q < part[0].nvals ? part[0].jmap[q] : part[0].jmap[part[0].nvals] + part[1].jmap[q - part[0].nvals]) < want) q++;
    sc->vbound[t] = q;
  }
  sc->vbound[sc->nthreads] = (PetscInt)nv;
  *dstof_out               = dstof;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOScatterBuild_Private(const MatBSRCustomCOOPart part[2], PetscInt nsrc, PetscInt nfirst, PetscInt nthreads, MatBSRCustomCOOScatter *sc)
{
  const PetscCount  nv   = part[0].nvals + part[1].nvals;
  const PetscInt    ncoo = part[0].jmap[part[0].nvals] + part[1].jmap[part[1].nvals];
  PetscInt         *dstof, *fill, *src;
  static PetscInt64 made = 0; /* scatters made in this process: their ids */

  PetscFunctionBegin;
  PetscCheck(nv <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscCount_FMT " stored values on one rank: at most %" PetscInt_FMT " (PetscInt) are supported by COO assembly", nv, (PetscInt)PETSC_MAX_INT);
  PetscCall(PetscMemzero(sc, sizeof(*sc)));
  sc->id       = ++made;
  sc->nthreads = PetscMax(1, nthreads);
  sc->nvals[0] = (PetscInt)part[0].nvals;
  sc->nvals[1] = (PetscInt)part[1].nvals;
  PetscCall(MatBSRCustomCOOScatterShares(part, nsrc, sc, &dstof));
  /* the pairs, by thread, in the order given */
  PetscCall(PetscCalloc1(sc->nthreads + 1, &fill));
  for (PetscInt e = 0; e < nsrc; e++) {
    PetscInt t = 0;
    if (dstof[e] < 0) continue;
    while (dstof[e] >= sc->vbound[t + 1]) t++;
    fill[t + 1]++;
  }
  sc->off[0] = 0;
  for (PetscInt t = 0; t < sc->nthreads; t++) sc->off[t + 1] = sc->off[t] + fill[t + 1];
  for (PetscInt t = 0; t < sc->nthreads; t++) fill[t] = sc->off[t];
  PetscCall(PetscMalloc1(ncoo, &src));
  PetscCall(PetscMalloc1(ncoo, &sc->dst));
  for (PetscInt e = 0; e < nsrc; e++) {
    PetscInt t = 0;
    if (dstof[e] < 0) continue;
    while (dstof[e] >= sc->vbound[t + 1]) t++;
    src[fill[t]]       = e;
    sc->dst[fill[t]++] = dstof[e];
  }
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(dstof));
  PetscCall(MatBSRCustomCOOScatterMarkFirst(sc, (PetscInt)nv));
  PetscCall(MatBSRCustomCOOScatterRuns(sc, src, nfirst));
  PetscCall(PetscFree(src));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCOOScatterFree_Private(MatBSRCustomCOOScatter *sc)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(sc->vbound, sc->off));
  PetscCall(PetscFree(sc->dst));
  PetscCall(PetscFree3(sc->roff, sc->run, sc->run_src));
  PetscCall(PetscFree(sc->zero));
  PetscFunctionReturn(0);
}

/* MatDuplicate: the copy M has A's structure, so the map composed on A as `name` (read-only, but for the
   MPI type's receive buffer, scratch of one call) serves M too, as PETSc's own MatDuplicate shares
   MATAIJ's. a_state: the structure A's map is for; *m_state: M's, set where M gets the map. */
PETSC_INTERN PetscErrorCode MatBSRCustomCOODuplicate_Private(Mat A, Mat M, const char name[], PetscObjectState a_state, PetscObjectState *m_state)
{
  PetscObject container;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, name, &container));
  if (container && A->nonzerostate == a_state) {
    PetscCall(PetscObjectCompose((PetscObject)M, name, container));
    *m_state = M->nonzerostate;
  }
  PetscFunctionReturn(0);
}

/* The coordinate (i, j) given at position k that lies outside the M x N matrix, found on this rank
   (*bad) or on another of comm (collective, so that every rank stops with an error). */
PETSC_INTERN PetscErrorCode MatBSRCustomCOOCheckRange_Private(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[])
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscInt    M = A->rmap->N, N = A->cmap->N;
  PetscCount  k;
  PetscMPIInt size;
  PetscBool   bad = PETSC_FALSE, any;

  PetscFunctionBegin;
  for (k = 0; k < n; k++) {
    if (coo_i[k] < 0 || coo_j[k] < 0) continue;
    if (coo_i[k] >= M || coo_j[k] >= N) {
      bad = PETSC_TRUE;
      break;
    }
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  any = bad;
  if (size > 1) PetscCall(MPIU_Allreduce(&bad, &any, 1, BSRC_MPI_BOOL, MPI_LOR, comm));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO coordinate %" PetscCount_FMT " (row %" PetscInt_FMT ", column %" PetscInt_FMT ") is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", k, coo_i[k], coo_j[k], M, N);
  PetscCheck(!any, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A COO coordinate given on another rank is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", M, N);
  PetscFunctionReturn(0);
}
