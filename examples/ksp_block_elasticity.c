static const char help[] = "3D linear elasticity (Q1 hexahedra, 3 dof per node) solved with KSP on a block matrix.\n\
The matrix comes from DMCreateMatrix on a DMDA (dof 3, box stencil of width 1), so its type is chosen with\n\
-dm_mat_type <baij|aij|bsrcustom|...> (default baij). The body is the box [0,Lx]x[0,Ly]x[0,Lz], clamped on\n\
the face x = 0 and loaded by a uniform body force; the clamped unknowns are eliminated symmetrically,\n\
so the operator is symmetric positive definite (default solver: CG + point-block Jacobi, rtol 1e-8).\n\
Options:\n\
  -nx <20> -ny <20> -nz <20> : nodes per direction (overridden by -da_grid_x/y/z)\n\
  -Lx <1> -Ly <1> -Lz <1>    : extent of the body\n\
  -E <1> -nu <0.3>           : Young's modulus and Poisson ratio\n\
  -fx <0> -fy <0> -fz <-1>   : body force per unit volume\n\
  -compare_type <type>       : also solve with the matrix converted (MatConvert) to <type>, same KSP setup,\n\
                               and print a side-by-side comparison\n\
  -compare_assemble          : build that matrix with DMCreateMatrix (type <type>) and the same assembly\n\
                               instead of MatConvert (identical values; PETSc's own kernel choice for <type>)\n\
  -mult_reps <0>             : after each solve, time this many back-to-back MatMults ended by a VecNorm\n\
                               (which waits for a GPU to finish): the product's cost where it is queued\n\
                               asynchronously and the MatMult event only times the launch\n\
Lines that begin with \"Timing:\" hold the only run-to-run varying numbers.\n\n";

#include <petscdmda.h>
#include <petscksp.h>

typedef struct {
  PetscInt  nx, ny, nz;
  PetscReal Lx, Ly, Lz;
  PetscReal E, nu;
  PetscReal f[3];
  char      compare_type[256];
  PetscBool compare;
  PetscBool compare_assemble;
  PetscInt  mult_reps;
} AppCtx;

typedef struct {
  char               mattype[256];
  PetscInt           its;
  KSPConvergedReason reason;
  PetscReal          relres;  /* ||b - A x|| / ||b||, computed explicitly */
  PetscReal          umax;    /* max-norm of the displacement */
  PetscInt           mmcount; /* MatMult calls inside KSPSolve */
  PetscLogDouble     mmtime;  /* their total time (max over ranks) */
  PetscLogDouble     solvetime;
  PetscLogDouble     looptime; /* seconds per MatMult in the -mult_reps loop, 0 without */
} SolveResult;

static PetscErrorCode ProcessOptions(AppCtx *user)
{
  PetscFunctionBeginUser;
  user->nx = user->ny = user->nz = 20;
  user->Lx = user->Ly = user->Lz = 1.0;
  user->E                        = 1.0;
  user->nu                       = 0.3;
  user->f[0]                     = 0.0;
  user->f[1]                     = 0.0;
  user->f[2]                     = -1.0;
  user->compare                  = PETSC_FALSE;
  user->compare_type[0]          = '\0';
  user->compare_assemble         = PETSC_FALSE;
  user->mult_reps                = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Block elasticity options", "KSP");
  PetscCall(PetscOptionsInt("-nx", "Nodes in x", "ksp_block_elasticity.c", user->nx, &user->nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "Nodes in y", "ksp_block_elasticity.c", user->ny, &user->ny, NULL));
  PetscCall(PetscOptionsInt("-nz", "Nodes in z", "ksp_block_elasticity.c", user->nz, &user->nz, NULL));
  PetscCall(PetscOptionsReal("-Lx", "Extent in x", "ksp_block_elasticity.c", user->Lx, &user->Lx, NULL));
  PetscCall(PetscOptionsReal("-Ly", "Extent in y", "ksp_block_elasticity.c", user->Ly, &user->Ly, NULL));
  PetscCall(PetscOptionsReal("-Lz", "Extent in z", "ksp_block_elasticity.c", user->Lz, &user->Lz, NULL));
  PetscCall(PetscOptionsReal("-E", "Young's modulus", "ksp_block_elasticity.c", user->E, &user->E, NULL));
  PetscCall(PetscOptionsReal("-nu", "Poisson ratio", "ksp_block_elasticity.c", user->nu, &user->nu, NULL));
  PetscCall(PetscOptionsReal("-fx", "Body force, x component", "ksp_block_elasticity.c", user->f[0], &user->f[0], NULL));
  PetscCall(PetscOptionsReal("-fy", "Body force, y component", "ksp_block_elasticity.c", user->f[1], &user->f[1], NULL));
  PetscCall(PetscOptionsReal("-fz", "Body force, z component", "ksp_block_elasticity.c", user->f[2], &user->f[2], NULL));
  PetscCall(PetscOptionsString("-compare_type", "Also solve with the matrix converted to this type", "MatConvert", user->compare_type, user->compare_type, sizeof(user->compare_type), &user->compare));
  PetscCall(PetscOptionsBool("-compare_assemble", "Build the comparison matrix by DMCreateMatrix + assembly instead of MatConvert", "DMCreateMatrix", user->compare_assemble, &user->compare_assemble, NULL));
  PetscCall(PetscOptionsInt("-mult_reps", "Back-to-back MatMults timed after each solve", "ksp_block_elasticity.c", user->mult_reps, &user->mult_reps, NULL));
  PetscOptionsEnd();
  if (user->compare && !user->compare_type[0]) user->compare = PETSC_FALSE;
  PetscCheck(user->nx >= 2 && user->ny >= 2 && user->nz >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need at least 2 nodes per direction, got %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, user->nx, user->ny, user->nz);
  PetscCheck(user->Lx > 0 && user->Ly > 0 && user->Lz > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Extents must be positive");
  PetscCheck(user->E > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Young's modulus must be positive, got %g", (double)user->E);
  PetscCheck(user->nu > -1.0 && user->nu < 0.5, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Poisson ratio must lie in (-1, 0.5), got %g", (double)user->nu);
  PetscFunctionReturn(0);
}

/*
  Element stiffness of a trilinear brick of size hx x hy x hz, isotropic material, 2x2x2 Gauss rule.
  Local node a = ii + 2*jj + 4*kk (ii, jj, kk in {0,1}); unknown 3*a + c; Ke is 24 x 24, row-major,
  which is the layout MatSetValuesBlocked expects for 8 block rows x 8 block columns with bs = 3.
*/
static PetscErrorCode ElementStiffness(PetscReal hx, PetscReal hy, PetscReal hz, PetscReal E, PetscReal nu, PetscScalar Ke[24 * 24])
{
  const PetscReal lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  const PetscReal mu     = E / (2.0 * (1.0 + nu));
  const PetscReal gp     = 1.0 / PetscSqrtReal(3.0);
  const PetscReal detJ   = hx * hy * hz / 8.0; /* weights are all 1 */
  PetscReal       D[6][6], B[6][24], DB[6][24];
  PetscInt        q, a, r, s, t;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(Ke, 24 * 24));
  for (r = 0; r < 6; r++)
    for (s = 0; s < 6; s++) D[r][s] = 0.0;
  for (r = 0; r < 3; r++) {
    for (s = 0; s < 3; s++) D[r][s] = lambda;
    D[r][r]         = lambda + 2.0 * mu;
    D[r + 3][r + 3] = mu;
  }
  for (q = 0; q < 8; q++) {
    const PetscReal xi = (q & 1 ? 1 : -1) * gp, eta = (q & 2 ? 1 : -1) * gp, zeta = (q & 4 ? 1 : -1) * gp;

    for (r = 0; r < 6; r++)
      for (s = 0; s < 24; s++) B[r][s] = 0.0;
    for (a = 0; a < 8; a++) {
      const PetscReal sa = (a & 1) ? 1.0 : -1.0, ta = (a & 2) ? 1.0 : -1.0, ua = (a & 4) ? 1.0 : -1.0;
      /* N_a = (1 + sa xi)(1 + ta eta)(1 + ua zeta)/8, mapped with dx = hx/2 dxi etc. */
      const PetscReal Nx = sa * (1.0 + ta * eta) * (1.0 + ua * zeta) / 8.0 * (2.0 / hx);
      const PetscReal Ny = ta * (1.0 + sa * xi) * (1.0 + ua * zeta) / 8.0 * (2.0 / hy);
      const PetscReal Nz = ua * (1.0 + sa * xi) * (1.0 + ta * eta) / 8.0 * (2.0 / hz);

      B[0][3 * a + 0] = Nx; /* e_xx */
      B[1][3 * a + 1] = Ny; /* e_yy */
      B[2][3 * a + 2] = Nz; /* e_zz */
      B[3][3 * a + 0] = Ny; /* g_xy */
      B[3][3 * a + 1] = Nx;
      B[4][3 * a + 1] = Nz; /* g_yz */
      B[4][3 * a + 2] = Ny;
      B[5][3 * a + 0] = Nz; /* g_xz */
      B[5][3 * a + 2] = Nx;
    }
    for (r = 0; r < 6; r++)
      for (s = 0; s < 24; s++) {
        PetscReal v = 0.0;
        for (t = 0; t < 6; t++) v += D[r][t] * B[t][s];
        DB[r][s] = v;
      }
    for (r = 0; r < 24; r++)
      for (s = 0; s < 24; s++) {
        PetscReal v = 0.0;
        for (t = 0; t < 6; t++) v += B[t][r] * DB[t][s];
        Ke[r * 24 + s] += v * detJ;
      }
  }
  PetscFunctionReturn(0);
}

/* Self-check: Ke must be symmetric and annihilate the six rigid-body modes. */
static PetscErrorCode CheckElementStiffness(const PetscScalar Ke[24 * 24], PetscReal hx, PetscReal hy, PetscReal hz)
{
  PetscReal kmax = 0.0, err = 0.0, mode[24];
  PetscInt  r, s, m, a;

  PetscFunctionBeginUser;
  for (r = 0; r < 24 * 24; r++) kmax = PetscMax(kmax, PetscAbsScalar(Ke[r]));
  for (r = 0; r < 24; r++)
    for (s = 0; s < 24; s++) err = PetscMax(err, PetscAbsScalar(Ke[r * 24 + s] - Ke[s * 24 + r]));
  for (m = 0; m < 6; m++) {
    for (a = 0; a < 8; a++) {
      const PetscReal x = (a & 1) * hx, y = ((a >> 1) & 1) * hy, z = ((a >> 2) & 1) * hz;
      PetscReal       u[3] = {0.0, 0.0, 0.0};

      if (m < 3) u[m] = 1.0;                /* translations */
      else if (m == 3) u[0] = -y, u[1] = x; /* rotation about z */
      else if (m == 4) u[1] = -z, u[2] = y; /* rotation about x */
      else u[0] = z, u[2] = -x;             /* rotation about y */
      for (r = 0; r < 3; r++) mode[3 * a + r] = u[r];
    }
    for (r = 0; r < 24; r++) {
      PetscReal v = 0.0;
      for (s = 0; s < 24; s++) v += PetscRealPart(Ke[r * 24 + s]) * mode[s];
      err = PetscMax(err, PetscAbsReal(v) / PetscMax(1.0, PetscMax(hx, PetscMax(hy, hz))));
    }
  }
  PetscCheck(err <= 1e-12 * kmax, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element stiffness failed its self-check: error %g, max entry %g", (double)err, (double)kmax);
  PetscFunctionReturn(0);
}

/* Assemble the clamped (x = 0) elasticity operator and the body-force load. */
static PetscErrorCode Assemble(DM da, const AppCtx *user, Mat A, Vec b)
{
  PetscInt        M, N, P, xs, ys, zs, xm, ym, zm, ei, ej, ek, a, r, s;
  PetscReal       hx, hy, hz, dscale = 0.0;
  PetscScalar     Ke[24 * 24], Kl[24 * 24], Dblk[9], fe[3];
  PetscBool       fixed[8];
  MatStencil      nodes[8], row;
  Vec             bl;
  PetscScalar ****barr;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  hx = user->Lx / (PetscReal)(M - 1);
  hy = user->Ly / (PetscReal)(N - 1);
  hz = user->Lz / (PetscReal)(P - 1);
  PetscCall(ElementStiffness(hx, hy, hz, user->E, user->nu, Ke));
  PetscCall(CheckElementStiffness(Ke, hx, hy, hz));
  /* Diagonal used for the eliminated (clamped) unknowns: about the size of an interior diagonal entry. */
  for (r = 0; r < 24; r++) dscale += PetscRealPart(Ke[r * 24 + r]);
  dscale = 8.0 * dscale / 24.0;
  for (r = 0; r < 9; r++) Dblk[r] = 0.0;
  Dblk[0] = Dblk[4] = Dblk[8] = dscale;
  for (r = 0; r < 3; r++) fe[r] = user->f[r] * hx * hy * hz / 8.0; /* int N_a f dV for a trilinear brick */

  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMGetLocalVector(da, &bl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(DMDAVecGetArrayDOF(da, bl, &barr));
  /* Each element is assembled by the rank that owns its lowest corner node. */
  for (ek = zs; ek < PetscMin(zs + zm, P - 1); ek++) {
    for (ej = ys; ej < PetscMin(ys + ym, N - 1); ej++) {
      for (ei = xs; ei < PetscMin(xs + xm, M - 1); ei++) {
        PetscBool anyfixed = PETSC_FALSE;

        for (a = 0; a < 8; a++) {
          nodes[a].i = ei + (a & 1);
          nodes[a].j = ej + ((a >> 1) & 1);
          nodes[a].k = ek + ((a >> 2) & 1);
          nodes[a].c = 0;
          fixed[a]   = (PetscBool)(nodes[a].i == 0);
          anyfixed   = (PetscBool)(anyfixed || fixed[a]);
        }
        if (anyfixed) {
          /* Symmetric elimination of the clamped unknowns (prescribed value 0): drop their rows and columns. */
          for (r = 0; r < 24; r++)
            for (s = 0; s < 24; s++) Kl[r * 24 + s] = (fixed[r / 3] || fixed[s / 3]) ? 0.0 : Ke[r * 24 + s];
          PetscCall(MatSetValuesBlockedStencil(A, 8, nodes, 8, nodes, Kl, ADD_VALUES));
        } else {
          PetscCall(MatSetValuesBlockedStencil(A, 8, nodes, 8, nodes, Ke, ADD_VALUES));
        }
        for (a = 0; a < 8; a++) {
          if (fixed[a]) continue;
          for (r = 0; r < 3; r++) barr[nodes[a].k][nodes[a].j][nodes[a].i][r] += fe[r];
        }
      }
    }
  }
  /* Clamped nodes owned here: a diagonal block dscale * I; their load stays 0. */
  if (xs == 0) {
    PetscInt j, k;
    for (k = zs; k < zs + zm; k++) {
      for (j = ys; j < ys + ym; j++) {
        row.i = 0;
        row.j = j;
        row.k = k;
        row.c = 0;
        PetscCall(MatSetValuesBlockedStencil(A, 1, &row, 1, &row, Dblk, ADD_VALUES));
      }
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(da, bl, &barr));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobalBegin(da, bl, ADD_VALUES, b));
  PetscCall(DMLocalToGlobalEnd(da, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(da, &bl));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Create a KSP with the program's defaults (CG, PBJacobi, rtol 1e-8), then let the options override them. */
static PetscErrorCode CreateSolver(Mat A, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCPBJACOBI));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

/* Solve A x = b in its own log stage and collect iterations, true residual and MatMult timing. */
static PetscErrorCode SolveAndMeasure(Mat A, Vec b, Vec x, const char stagename[], PetscInt reps, SolveResult *res)
{
  KSP                ksp;
  Vec                r;
  PetscLogStage      stage;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscReal          bnorm, rnorm;
  PetscLogDouble     t0, t1, tloc;
  MatType            type;
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrncpy(res->mattype, type, sizeof(res->mattype)));
  PetscCall(CreateSolver(A, &ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(PetscLogStageRegister(stagename, &stage));
  PetscCall(PetscLogEventGetId("MatMult", &ev));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, &info));
  res->mmcount = info.count;
  tloc         = info.time;
  PetscCall(MPIU_Allreduce(&tloc, &res->mmtime, 1, MPI_DOUBLE, MPI_MAX, comm));
  tloc = t1 - t0;
  PetscCall(MPIU_Allreduce(&tloc, &res->solvetime, 1, MPI_DOUBLE, MPI_MAX, comm));

  PetscCall(VecDuplicate(b, &r));
  res->looptime = 0.0;
  if (reps > 0) {
    PetscReal n;
    PetscCall(MatMult(A, x, r));
    PetscCall(VecNorm(r, NORM_2, &n));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    for (PetscInt i = 0; i < reps; i++) PetscCall(MatMult(A, x, r));
    PetscCall(VecNorm(r, NORM_2, &n)); /* a reduction: it waits for the products on a GPU */
    PetscCall(PetscTime(&t1));
    tloc = (t1 - t0) / reps;
    PetscCall(MPIU_Allreduce(&tloc, &res->looptime, 1, MPI_DOUBLE, MPI_MAX, comm));
  }
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b)); /* r = b - A x */
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  res->relres = bnorm > 0.0 ? rnorm / bnorm : rnorm;
  PetscCall(VecNorm(x, NORM_INFINITY, &res->umax));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReportSolve(MPI_Comm comm, const SolveResult *res)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Solve [%s]: iterations %" PetscInt_FMT ", reason %s, true residual ||b-Ax||/||b|| = %.3e, max |u| = %.6e\n", res->mattype, res->its, KSPConvergedReasons[res->reason], (double)res->relres, (double)res->umax));
  PetscCall(
    PetscPrintf(comm, "Timing: [%s] MatMult count %" PetscInt_FMT ", total %.6f s, avg %.3f us/call; KSPSolve %.6f s\n", res->mattype, res->mmcount, (double)res->mmtime, res->mmcount ? (double)(1e6 * res->mmtime / res->mmcount) : 0.0, (double)res->solvetime));
  if (res->looptime > 0.0) PetscCall(PetscPrintf(comm, "Timing: [%s] MatMult loop %.3f us/call\n", res->mattype, 1e6 * (double)res->looptime));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  AppCtx       user;
  DM           da;
  Mat          A, B = NULL;
  Vec          b, x, x2, coords;
  KSP          ksp;
  PC           pc;
  KSPType      ksptype;
  PCType       pctype;
  PetscReal    rtol;
  MatType      type;
  MatInfo      info;
  MatNullSpace nsp;
  PetscInt     M, N, P, m, n, bs;
  SolveResult  ours, other;
  MPI_Comm     comm;
  PetscMPIInt  size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin()); /* the MatMult event statistics are read back below */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(ProcessOptions(&user));

  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, user.nx, user.ny, user.nz, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 3, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATBAIJ)); /* default to a block format; -dm_mat_type overrides */
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "u_x"));
  PetscCall(DMDASetFieldName(da, 1, "u_y"));
  PetscCall(DMDASetFieldName(da, 2, "u_z"));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(M >= 2 && N >= 2 && P >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "Need at least 2 nodes per direction");
  PetscCall(DMDASetUniformCoordinates(da, 0.0, user.Lx, 0.0, user.Ly, 0.0, user.Lz));

  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(Assemble(da, &user, A, b));
  /* Rigid-body near null space: unused by the default solver, helps -pc_type gamg. */
  PetscCall(DMGetCoordinates(da, &coords));
  PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
  PetscCall(MatSetNearNullSpace(A, nsp));

  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(comm, "3D linear elasticity, Q1 hexahedra: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " nodes, body [0,%.6g]x[0,%.6g]x[0,%.6g], E = %.6g, nu = %.6g, clamped at x = 0, body force (%.6g, %.6g, %.6g)\n", M, N, P,
                        (double)user.Lx, (double)user.Ly, (double)user.Lz, (double)user.E, (double)user.nu, (double)user.f[0], (double)user.f[1], (double)user.f[2]));
  PetscCall(PetscPrintf(comm, "Matrix: type %s, size %" PetscInt_FMT " x %" PetscInt_FMT ", block size %" PetscInt_FMT ", nonzeros %.0f, nonzero blocks %.0f, ranks %d\n", type, m, n, bs, (double)info.nz_used, (double)(info.nz_used / (bs * bs)), (int)size));

  /* Report the solver the options select (the same setup is used for every solve). */
  PetscCall(CreateSolver(A, &ksp));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(PetscPrintf(comm, "Solver: KSP %s, PC %s, rtol %.6g\n", ksptype, pctype, (double)rtol));
  PetscCall(KSPDestroy(&ksp));

  PetscCall(SolveAndMeasure(A, b, x, "Solve ours", user.mult_reps, &ours));
  PetscCall(ReportSolve(comm, &ours));

  if (user.compare) {
    PetscReal dx, xn;

    if (user.compare_assemble) {
      MatType dmtype;
      Vec     b2;

      PetscCall(DMGetMatType(da, &dmtype));
      PetscCall(PetscStrncpy(other.mattype, dmtype, sizeof(other.mattype))); /* keep it: DMSetMatType frees dmtype */
      PetscCall(DMSetMatType(da, user.compare_type));
      PetscCall(DMCreateMatrix(da, &B));
      PetscCall(DMSetMatType(da, other.mattype));
      PetscCall(VecDuplicate(b, &b2));
      PetscCall(Assemble(da, &user, B, b2));
      PetscCall(VecDestroy(&b2));
    } else PetscCall(MatConvert(A, user.compare_type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetNearNullSpace(B, nsp));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(SolveAndMeasure(B, b, x2, "Solve compare", user.mult_reps, &other));
    PetscCall(ReportSolve(comm, &other));
    PetscCall(VecNorm(x2, NORM_INFINITY, &xn));
    PetscCall(VecAXPY(x2, -1.0, x));
    PetscCall(VecNorm(x2, NORM_INFINITY, &dx));
    PetscCall(PetscPrintf(comm, "Comparison          %20s %20s\n", "ours", "compare"));
    PetscCall(PetscPrintf(comm, "  matrix type       %20s %20s\n", ours.mattype, other.mattype));
    PetscCall(PetscPrintf(comm, "  built by          %20s %20s\n", "DMCreateMatrix", user.compare_assemble ? "DMCreateMatrix" : "MatConvert"));
    PetscCall(PetscPrintf(comm, "  iterations        %20" PetscInt_FMT " %20" PetscInt_FMT "\n", ours.its, other.its));
    PetscCall(PetscPrintf(comm, "  reason            %20s %20s\n", KSPConvergedReasons[ours.reason], KSPConvergedReasons[other.reason]));
    PetscCall(PetscPrintf(comm, "  ||b-Ax||/||b||    %20.3e %20.3e\n", (double)ours.relres, (double)other.relres));
    PetscCall(PetscPrintf(comm, "  max|x1-x2|/|x2|   %20.3e\n", (double)(xn > 0.0 ? dx / xn : dx)));
    PetscCall(PetscPrintf(comm, "Timing: MatMult calls    %20" PetscInt_FMT " %20" PetscInt_FMT "\n", ours.mmcount, other.mmcount));
    PetscCall(PetscPrintf(comm, "Timing: MatMult us/call  %20.3f %20.3f\n", ours.mmcount ? 1e6 * ours.mmtime / ours.mmcount : 0.0, other.mmcount ? 1e6 * other.mmtime / other.mmcount : 0.0));
    PetscCall(PetscPrintf(comm, "Timing: KSPSolve s       %20.6f %20.6f\n", ours.solvetime, other.solvetime));
    if (ours.looptime > 0.0) PetscCall(PetscPrintf(comm, "Timing: MatMult loop us  %20.3f %20.3f\n", 1e6 * ours.looptime, 1e6 * other.looptime));
    if (ours.mmcount && other.mmcount && ours.mmtime > 0.0) PetscCall(PetscPrintf(comm, "Timing: MatMult time per call, compare/ours = %.3f\n", (other.mmtime / other.mmcount) / (ours.mmtime / ours.mmcount)));
    PetscCall(VecDestroy(&x2));
    PetscCall(MatDestroy(&B));
  }

  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
