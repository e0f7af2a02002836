/* The overlap of the halo exchange with the local product of mpibsrcustom (-bench_overlap). */
#include "bench_overlap.h"
#include "bench_timing.h"

/* x's and y's arrays seen as vectors of the local block (host or device), for its products alone */
typedef struct {
  Vec                xl, yl;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscBool          dev;
} LocalViews;

static PetscErrorCode LocalViewsPlace(Vec x, Vec y, PetscInt bs, PetscInt ncol, PetscInt nloc, PetscBool dev, LocalViews *v)
{
  PetscFunctionBeginUser;
  v->dev = dev;
  if (dev) {
#if defined(BENCH_DEVICE_VECTORS)
    PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, bs, ncol, NULL, &v->xl));
    PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, bs, nloc, NULL, &v->yl));
    PetscCall(VecCUDAGetArrayRead(x, &v->xa));
    PetscCall(VecCUDAGetArray(y, &v->ya));
    PetscCall(VecCUDAPlaceArray(v->xl, v->xa));
    PetscCall(VecCUDAPlaceArray(v->yl, v->ya));
#endif
  } else {
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, ncol, NULL, &v->xl));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, nloc, NULL, &v->yl));
    PetscCall(VecGetArrayRead(x, &v->xa));
    PetscCall(VecGetArray(y, &v->ya));
    PetscCall(VecPlaceArray(v->xl, v->xa));
    PetscCall(VecPlaceArray(v->yl, v->ya));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LocalViewsReset(Vec x, Vec y, LocalViews *v)
{
  PetscFunctionBeginUser;
  if (v->dev) {
#if defined(BENCH_DEVICE_VECTORS)
    PetscCall(VecCUDAResetArray(v->xl));
    PetscCall(VecCUDAResetArray(v->yl));
    PetscCall(VecCUDARestoreArray(y, &v->ya));
    PetscCall(VecCUDARestoreArrayRead(x, &v->xa));
#endif
  } else {
    PetscCall(VecResetArray(v->xl));
    PetscCall(VecResetArray(v->yl));
    PetscCall(VecRestoreArray(y, &v->ya));
    PetscCall(VecRestoreArrayRead(x, &v->xa));
  }
  PetscCall(VecDestroy(&v->xl));
  PetscCall(VecDestroy(&v->yl));
  PetscFunctionReturn(0);
}

/* o's times from the medians tm (calls per trial rp) and the per-trial times tk of the nops operations */
static PetscErrorCode OverlapSummarise(const double tm[], const PetscInt rp[], const double tk[], PetscInt nops, PetscInt trials, PetscReal target, OverlapRow *o)
{
  PetscReal *ratio;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(trials, &ratio));
  o->t_exchange    = tm[0];
  o->t_local       = tm[1];
  o->t_ghost       = tm[2];
  o->t_full        = tm[3];
  o->t_compute     = tm[4];
  o->reps_exchange = rp[0];
  o->reps_local    = rp[1];
  o->reps_ghost    = rp[2];
  o->reps_full     = rp[3];
  /* the ghost product as MatMult runs it: after the local one, its values no longer in cache, so it
     can take longer than when timed alone */
  o->t_ghost_after = PetscMax(o->t_ghost, o->t_compute - o->t_local);
  o->bound         = PetscMax(o->t_exchange, o->t_local) + o->t_ghost_after;
  o->ratio         = o->t_full / o->bound;
  o->ratio_warm    = o->t_full / (PetscMax(o->t_exchange, o->t_local) + o->t_ghost);
  for (PetscInt k = 0; k < trials; k++) ratio[k] = tk[3 * trials + k] / (PetscMax(tk[k], tk[trials + k]) + PetscMax(tk[2 * trials + k], tk[4 * trials + k] - tk[trials + k]));
  PetscCall(Median(trials, ratio, &o->ratio_paired));
  if (nops == 6) {
    o->t_full_noprogress = tm[5];
    for (PetscInt k = 0; k < trials; k++) ratio[k] = tk[5 * trials + k] / tk[3 * trials + k];
    PetscCall(Median(trials, ratio, &o->noprogress_over_paired));
  }
  PetscCall(PetscFree(ratio));
  o->hidden_raw = o->t_exchange > 0.0 ? (o->t_exchange + o->t_local + o->t_ghost - o->t_full) / o->t_exchange : 0.0;
  o->hidden     = PetscMin(1.0, PetscMax(0.0, o->hidden_raw));
  o->pass       = (PetscBool)(o->ratio <= (double)target);
  PetscFunctionReturn(0);
}

/*
  How much of the halo exchange MatMult_MPIBSRCustom hides: (a) the exchange alone (VecScatterBegin/End
  of the matrix's own halo scatter into its own ghost vector), (b) the local product alone (MatMult of
  the local block on sequential Vecs wrapping x's and y's local arrays), (c) the ghost product alone
  (MatMultAdd of the ghost block into y's local part), (d) the whole MatMult, on copies of x and y (so
  that x's and y's arrays can stay lent to the sequential Vecs). The four are timed in interleaved
  trials (see TimeOps()); besides the ratio of the medians, the median over trials of the per-trial
  ratio T_full / bound is kept, which cancels drifts of the machine between trials.
*/
PetscErrorCode Overlap(Mat A, Vec x, Vec y, const Result *r, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, PetscReal target, OverlapRow *o)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  Mat        local, ghost;
  PetscInt   nghost, bs, nloc, ncol, ng[2], rp[6];
  VecScatter halo;
  Vec        gx, x2, y2, gxd = NULL;
  PetscBool  dev;
  LocalViews v;
  Op         ops[6];
  double     tm[6], *tk;
  Mat        noprog = NULL;
  PetscInt   nops   = 5;
  PetscBool  progress;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(PetscStrncpy(o->matrix, r->matrix, sizeof(o->matrix)));
  PetscCall(PetscStrncpy(o->type, r->type, sizeof(o->type)));
  PetscCall(MatBSRCustomGetLocalAndGhost(A, &local, &ghost, &nghost, NULL, &halo, &gx));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(VecGetLocalSize(y, &nloc));
  PetscCall(VecGetLocalSize(x, &ncol));
  ng[0] = -nghost;
  ng[1] = nghost;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ng, 2, MPIU_INT, MPI_MAX, comm));
  o->nghost_min = -ng[0];
  o->nghost_max = ng[1];

  PetscCall(VecDuplicate(x, &x2));
  PetscCall(VecDuplicate(y, &y2));
  PetscCall(VecCopy(x, x2));
  PetscCall(IsDeviceVec(x, &dev));
  if (dev) { /* CUDA vectors: the blocks' products on device arrays, the exchange into a device ghost vector */
#if defined(BENCH_DEVICE_VECTORS)
    PetscInt ng;
    PetscCall(VecGetLocalSize(gx, &ng));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, ng, &gxd));
    gx = gxd;
#endif
  }
  PetscCall(LocalViewsPlace(x, y, bs, ncol, nloc, dev, &v));
  /* gx holds x's ghost values before the ghost product is first timed */
  PetscCall(VecScatterBegin(halo, x, gx, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(halo, x, gx, INSERT_VALUES, SCATTER_FORWARD));

  ops[0] = (Op){OP_SCATTER, NULL, x, NULL, gx, halo, NULL};         /* (a) the exchange alone */
  ops[1] = (Op){OP_MULT, local, v.xl, NULL, v.yl, NULL, NULL};      /* (b) the local product alone */
  ops[2] = (Op){OP_MULTADD, ghost, gx, v.yl, v.yl, NULL, NULL};     /* (c) the ghost product alone */
  ops[3] = (Op){OP_MULT, A, x2, NULL, y2, NULL, NULL};              /* (d) the whole, overlapped MatMult */
  ops[4] = (Op){OP_LOCALGHOST, local, v.xl, gx, v.yl, NULL, ghost}; /* (e) (b) then (c), no exchange */
  /* (f) cpu backend: MatMult of a copy without MPI progress during the local product, interleaved with
     (d), so that the two meet the same state of the machine */
  PetscCall(MatBSRCustomGetMPIProgress(A, &progress));
  if (!dev && progress) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &noprog));
    PetscCall(MatBSRCustomSetMPIProgress(noprog, PETSC_FALSE));
    ops[nops++] = (Op){OP_MULT, noprog, x2, NULL, y2, NULL, NULL};
  }
  PetscCall(PetscMalloc1(6 * trials, &tk));
  PetscCall(TimeOps(comm, nops, ops, warmup, reps, trials, budget, tm, rp, tk));
  PetscCall(MatDestroy(&noprog));

  PetscCall(LocalViewsReset(x, y, &v));
  PetscCall(VecDestroy(&gxd));
  PetscCall(VecDestroy(&x2));
  PetscCall(VecDestroy(&y2));
  PetscCall(OverlapSummarise(tm, rp, tk, nops, trials, target, o));
  PetscCall(PetscFree(tk));
  PetscFunctionReturn(0);
}

PetscErrorCode PrintOverlap(const OverlapRow *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %6" PetscInt_FMT "-%-6" PetscInt_FMT " %9.4f %9.3f %9.4f %9.3f %9.3f %9.3f %8.3f %8.3f %8.3f %7.2f %8.2f", o->matrix, o->type, o->nghost_min, o->nghost_max, 1e3 * o->t_exchange, 1e3 * o->t_local, 1e3 * o->t_ghost, 1e3 * o->t_compute, 1e3 * o->t_full, 1e3 * o->bound, o->ratio, o->ratio_paired, o->ratio_warm, o->hidden, o->hidden_raw));
  if (o->t_full_noprogress > 0.0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %9.3f %8.3f\n", 1e3 * o->t_full_noprogress, o->noprogress_over_paired));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %9s %8s\n", "-", "-"));
  PetscFunctionReturn(0);
}
