static const char help[] = "COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of bsrcustom against MATAIJ's:\n"
                           "the element-by-element list of Q1 elasticity (24 x 24 entries a hexahedron, 3 unknowns a node).\n"
                           "  -n <nodes per direction> (30)  -reps <timed MatSetValuesCOO calls and preallocations> (5)\n"
                           "  -types <aij,bsrcustom,...> (aij,bsrcustom): the first is the reference of the ratios\n"
                           "  -device_values: MatSetValuesCOO given the values in CUDA device memory (a PETSc with CUDA), each call timed to\n"
                           "   the device's completion\n";

/* Each rank gives the elements of a contiguous range (a z-slab, as a partitioned mesh would) and owns
   a contiguous range of nodes, so only the coordinates at the slabs' faces lie in other ranks' rows.
   Times are the median over -reps runs, the slowest rank's, the types taking turns in each; the matrices' products are checked against
   the first type's before any figure is printed. */

#include <petscmat.h>
#include <petscmatbsrcustom.h>
#include <stdlib.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h>
#endif

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double Median(int n, double t[])
{
  qsort(t, (size_t)n, sizeof(double), CompareDouble);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* this rank's elements' coordinates and values (a stand-in stiffness: symmetric, diagonally dominant) */
static PetscErrorCode ElementList(MPI_Comm comm, PetscInt n, PetscCount *ncoo, PetscInt **ci, PetscInt **cj, PetscScalar **cv)
{
  const PetscInt ne = n - 1, nel = ne * ne * ne;
  PetscMPIInt    rank, size;
  PetscInt       estart, eend;
  PetscCount     k = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  estart = (PetscInt)(((PetscInt64)nel * rank) / size);
  eend   = (PetscInt)(((PetscInt64)nel * (rank + 1)) / size);
  *ncoo  = (PetscCount)(eend - estart) * 24 * 24;
  PetscCall(PetscMalloc3(*ncoo, ci, *ncoo, cj, *ncoo, cv));
  for (PetscInt e = estart; e < eend; e++) {
    const PetscInt ex = e % ne, ey = (e / ne) % ne, ez = e / (ne * ne);
    PetscInt       dof[24];
    for (PetscInt a = 0; a < 8; a++) {
      const PetscInt node = (ex + (a & 1)) + n * ((ey + ((a >> 1) & 1)) + n * (ez + ((a >> 2) & 1)));
      for (PetscInt c = 0; c < 3; c++) dof[3 * a + c] = 3 * node + c;
    }
    for (PetscInt a = 0; a < 24; a++) {
      for (PetscInt b = 0; b < 24; b++, k++) {
        (*ci)[k] = dof[a];
        (*cj)[k] = dof[b];
        (*cv)[k] = a == b ? 24.0 : -1.0 / (1.0 + (PetscReal)((a + b) % 7));
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateMatrix(MPI_Comm comm, const char *type, PetscInt n, Mat *A)
{
  PetscInt nodes = PETSC_DECIDE, N = n * n * n;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(comm, &nodes, &N));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, 3 * nodes, 3 * nodes, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSetType(*A, type));
  PetscFunctionReturn(0);
}

/* the values in device memory (a VECSEQCUDA holding a copy of cv) */
static PetscErrorCode DeviceValues(PetscCount ncoo, const PetscScalar cv[], Vec *vdev, const PetscScalar **dv)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscScalar *h;
  PetscInt     n;
  PetscCall(PetscIntCast(ncoo, &n));
  PetscCall(VecCreate(PETSC_COMM_SELF, vdev));
  PetscCall(VecSetSizes(*vdev, n, n));
  PetscCall(VecSetType(*vdev, VECSEQCUDA));
  PetscCall(VecGetArrayWrite(*vdev, &h));
  PetscCall(PetscArraycpy(h, cv, ncoo));
  PetscCall(VecRestoreArrayWrite(*vdev, &h));
  PetscCall(VecCUDAGetArrayRead(*vdev, dv));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-device_values needs a PETSc configured with CUDA");
#endif
  PetscFunctionReturn(0);
}

/* the device's work done (device values: MatSetValuesCOO may return before it is) */
static PetscErrorCode DeviceWait(PetscBool device)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (device) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscFunctionReturn(0);
}

/* the slowest rank's time of what ran since t0 */
static PetscErrorCode Elapsed(MPI_Comm comm, double t0, double *t)
{
  double mine = MPI_Wtime() - t0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&mine, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  PetscInt           n = 30, reps = 5, ntypes = 8;
  char              *types[8];
  PetscBool          set, device = PETSC_FALSE;
  PetscCount         ncoo;
  Vec                vdev = NULL;
  const PetscScalar *vals;
  PetscInt          *ci, *cj, *wi, *wj;
  PetscScalar       *cv;
  double             prealloc[8], values[8], assembly[8], *t[8];
  Mat                A[8] = {NULL};
  Vec                x, yref = NULL, y;
  PetscMPIInt        size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, &set));
  if (!set) {
    PetscCall(PetscStrallocpy(MATAIJ, &types[0]));
    PetscCall(PetscStrallocpy(MATBSRCUSTOM, &types[1]));
    ntypes = 2;
  }
  PetscCheck(n >= 2 && reps >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2 and -reps at least 1");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device_values", &device, NULL));
  PetscCall(ElementList(comm, n, &ncoo, &ci, &cj, &cv));
  vals = cv;
  if (device) PetscCall(DeviceValues(ncoo, cv, &vdev, &vals));
  PetscCall(PetscMalloc2(ncoo, &wi, ncoo, &wj));
  for (PetscInt k = 0; k < ntypes; k++) PetscCall(PetscMalloc1(reps, &t[k]));
  PetscCall(PetscPrintf(comm, "COO assembly, Q1 elasticity: %" PetscInt_FMT "^3 nodes, %" PetscInt_FMT " unknowns, %" PetscInt_FMT " elements, 576 coordinates each, %d ranks, median of %" PetscInt_FMT ", values in %s memory\n", n, 3 * n * n * n, (n - 1) * (n - 1) * (n - 1), size, reps, device ? "device" : "host"));
  /* the types take turns in every repetition, so that the machine's other work falls on all alike */
  for (PetscInt r = 0; r < reps; r++) { /* preallocations of fresh matrices (the indices copied first: PETSc may change them) */
    for (PetscInt k = 0; k < ntypes; k++) {
      double t0;
      PetscCall(MatDestroy(&A[k]));
      PetscCall(CreateMatrix(comm, types[k], n, &A[k]));
      PetscCall(PetscArraycpy(wi, ci, ncoo));
      PetscCall(PetscArraycpy(wj, cj, ncoo));
      PetscCallMPI(MPI_Barrier(comm));
      t0 = MPI_Wtime();
      PetscCall(MatSetPreallocationCOO(A[k], ncoo, wi, wj));
      PetscCall(Elapsed(comm, t0, &t[k][r]));
    }
  }
  for (PetscInt k = 0; k < ntypes; k++) {
    prealloc[k] = Median((int)reps, t[k]);
    PetscCall(MatSetValuesCOO(A[k], vals, INSERT_VALUES)); /* first touch, untimed */
    PetscCall(DeviceWait(device));
  }
  for (PetscInt r = 0; r < reps; r++) {
    for (PetscInt k = 0; k < ntypes; k++) {
      double t0;
      PetscCallMPI(MPI_Barrier(comm));
      t0 = MPI_Wtime();
      PetscCall(MatSetValuesCOO(A[k], vals, INSERT_VALUES));
      PetscCall(DeviceWait(device));
      PetscCall(Elapsed(comm, t0, &t[k][r]));
    }
  }
  for (PetscInt k = 0; k < ntypes; k++) values[k] = Median((int)reps, t[k]);
  /* what MatSetValuesCOO's closing assembly (PETSc's, after the type's own) costs alone */
  for (PetscInt r = 0; r < reps; r++) {
    for (PetscInt k = 0; k < ntypes; k++) {
      double t0;
      PetscCallMPI(MPI_Barrier(comm));
      t0 = MPI_Wtime();
      PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
      PetscCall(Elapsed(comm, t0, &t[k][r]));
    }
  }
  for (PetscInt k = 0; k < ntypes; k++) {
    assembly[k] = Median((int)reps, t[k]);
    /* the product must be the first type's before a figure counts */
    if (k == 0) {
      PetscCall(MatCreateVecs(A[k], &x, &yref));
      PetscCall(VecSetRandom(x, NULL));
      PetscCall(MatMult(A[k], x, yref));
    } else {
      PetscReal d, rn;
      PetscCall(VecDuplicate(yref, &y));
      PetscCall(MatMult(A[k], x, y));
      PetscCall(VecAXPY(y, -1.0, yref));
      PetscCall(VecNorm(y, NORM_INFINITY, &d));
      PetscCall(VecNorm(yref, NORM_INFINITY, &rn));
      PetscCall(VecDestroy(&y));
      PetscCheck(d <= 1e-12 * rn, comm, PETSC_ERR_PLIB, "%s's product differs from %s's by %g (relative)", types[k], types[0], (double)(d / rn));
    }
    PetscCall(MatDestroy(&A[k]));
    PetscCall(PetscPrintf(comm, "  %-12s MatSetPreallocationCOO %9.4f s  MatSetValuesCOO %9.4f s  (of which an assembly alone takes %.4f s)\n", types[k], prealloc[k], values[k], assembly[k]));
  }
  for (PetscInt k = 1; k < ntypes; k++) PetscCall(PetscPrintf(comm, "  %s / %s: MatSetPreallocationCOO %.2fx, MatSetValuesCOO %.2fx\n", types[k], types[0], prealloc[k] / prealloc[0], values[k] / values[0]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yref));
#if defined(PETSC_HAVE_CUDA)
  if (vdev) PetscCall(VecCUDARestoreArrayRead(vdev, &vals));
#endif
  PetscCall(VecDestroy(&vdev));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscCall(PetscFree2(wi, wj));
  for (PetscInt k = 0; k < ntypes; k++) {
    PetscCall(PetscFree(t[k]));
    PetscCall(PetscFree(types[k]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
