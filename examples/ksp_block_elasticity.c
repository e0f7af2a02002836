static const char help[] = "3D linear elasticity (Q1 hexahedra, 3 dof per node) solved with KSP on a block matrix.\n\
The matrix comes from DMCreateMatrix on a DMDA (dof 3, box stencil of width 1), so its type is chosen with\n\
-dm_mat_type <baij|aij|bsrcustom|...> (default baij). The body is the box [0,Lx]x[0,Ly]x[0,Lz], clamped on\n\
the face x = 0 and loaded by a uniform body force; the clamped unknowns are eliminated symmetrically,\n\
so the operator is symmetric positive definite (default solver: CG + point-block Jacobi, rtol 1e-8).\n\
The matrix is assembled row by row: every rank sets the block row of each node it owns (the sum of the\n\
element stiffness blocks of the elements around it) with one MatSetValuesBlocked call, so no entries\n\
go to rows of other ranks and assembly needs no communication (element-wise assembly with ADD_VALUES was\n\
most of the run time at 10^7 nodes); its time is printed as \"Timing: assembly [<type>] <s> s\".\n\
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
  -compare_alternate <0>     : with -compare_type, after both solves, this many rounds of -compare_mults\n\
  -compare_mults <20>          back-to-back MatMults (ended by a VecNorm) on ours, then on the other\n\
                               matrix, alternately; prints the median time per call of each and their ratio\n\
                               (alternation and medians keep other work on the machine from deciding it)\n\
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
  PetscBool resetup;
  PetscInt  alternate;       /* rounds of alternated MatMult timing, 0: none */
  PetscInt  alternate_mults; /* MatMults a matrix runs in a round */
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
  PetscLogDouble     setup;    /* KSPSetUp (the preconditioner's setup), max over ranks */
  /* -resetup: the same solver set up again for new values of the same pattern, and solved again */
  PetscBool          again;
  PetscInt           its2;
  KSPConvergedReason reason2;
  PetscReal          relres2, umax2;
  PetscLogDouble     setup2;
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
  user->resetup                  = PETSC_FALSE;
  user->alternate                = 0;
  user->alternate_mults          = 20;
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
  PetscCall(PetscOptionsBool("-resetup", "After the solve, set the solver up again for 2A + sI (new values, same pattern; s a thousandth of A's largest diagonal entry) and solve again; A is restored after", "KSPSetOperators", user->resetup, &user->resetup, NULL));
  PetscCall(PetscOptionsInt("-mult_reps", "Back-to-back MatMults timed after each solve", "ksp_block_elasticity.c", user->mult_reps, &user->mult_reps, NULL));
  PetscCall(PetscOptionsInt("-compare_alternate", "Rounds of MatMult timing alternated between ours and the -compare_type matrix (medians printed)", "ksp_block_elasticity.c", user->alternate, &user->alternate, NULL));
  PetscCall(PetscOptionsInt("-compare_mults", "MatMults a matrix runs in each round of -compare_alternate", "ksp_block_elasticity.c", user->alternate_mults, &user->alternate_mults, NULL));
  PetscOptionsEnd();
  if (user->compare && !user->compare_type[0]) user->compare = PETSC_FALSE;
  PetscCheck(user->nx >= 2 && user->ny >= 2 && user->nz >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need at least 2 nodes per direction, got %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, user->nx, user->ny, user->nz);
  PetscCheck(user->Lx > 0 && user->Ly > 0 && user->Lz > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Extents must be positive");
  PetscCheck(user->alternate >= 0 && user->alternate_mults >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-compare_alternate must be >= 0 and -compare_mults >= 1, got %" PetscInt_FMT " and %" PetscInt_FMT, user->alternate, user->alternate_mults);
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

/*
  The block row of a node, before the clamped unknowns are eliminated: the sum, over the (up to 8) elements
  that contain the node, of the element stiffness' 3x3 blocks coupling the node to each of the element's
  corners. Per direction a node is interior (case 0: an element on either side), the first node (case 1:
  only the element above it) or the last (case 2: only the element below it), so there are 27 kinds of
  node; tmpl[cx + 3 cy + 9 cz] holds the row of that kind as 27 neighbour blocks, neighbour (dx, dy, dz) in
  slot (dx + 1) + 3 (dy + 1) + 9 (dz + 1), each 3x3 row-major (a neighbour outside the grid keeps a zero
  block). The elements are visited in the order of an element loop (z slowest, x fastest), so every entry
  is the same sum, added in the same order, as element-by-element assembly with ADD_VALUES on one rank.
*/
static void RowTemplates(const PetscScalar Ke[24 * 24], PetscScalar tmpl[27][27 * 9])
{
  for (PetscInt kind = 0; kind < 27; kind++) {
    const PetscInt cs[3] = {kind % 3, (kind / 3) % 3, kind / 9};
    PetscScalar   *T     = tmpl[kind];

    for (PetscInt t = 0; t < 27 * 9; t++) T[t] = 0.0;
    /* element e = ox + 2 oy + 4 oz has its lowest corner at (i - 1 + ox, j - 1 + oy, k - 1 + oz) */
    for (PetscInt e = 0; e < 8; e++) {
      const PetscInt o[3] = {e & 1, (e >> 1) & 1, (e >> 2) & 1};
      const PetscInt a    = (1 - o[0]) + 2 * (1 - o[1]) + 4 * (1 - o[2]); /* the node's local index in it */
      PetscBool      have = PETSC_TRUE;

      for (PetscInt d = 0; d < 3; d++)
        if ((o[d] == 0 && cs[d] == 1) || (o[d] == 1 && cs[d] == 2)) have = PETSC_FALSE;
      if (!have) continue;
      for (PetscInt c = 0; c < 8; c++) { /* corner c of the element is the neighbour d = (c's bit) + o - 1 */
        const PetscInt slot = ((c & 1) + o[0]) + 3 * (((c >> 1) & 1) + o[1]) + 9 * (((c >> 2) & 1) + o[2]);

        for (PetscInt r = 0; r < 3; r++)
          for (PetscInt s = 0; s < 3; s++) T[9 * slot + 3 * r + s] += Ke[(3 * a + r) * 24 + 3 * c + s];
      }
    }
  }
}

/*
  Assemble the clamped (x = 0) elasticity operator and the body-force load, row by row: each rank loops over
  the nodes it owns and sets each one's whole block row (its neighbours in the grid, the box stencil, columns
  in increasing natural order, i fastest) with one MatSetValuesBlocked(INSERT_VALUES) call. The global block
  indices come straight from the DM's local-to-global map (local index of the node in the ghosted box, plus a
  fixed offset per neighbour): at 60^3 and 100^3 nodes on one rank that made the assembly about 1.2x faster
  than MatSetValuesBlockedStencil, which converts every column stencil on each call. Element-by-element
  assembly makes 8 x 8 block ADD_VALUES calls per element, adds each interior block 8 times, and sends the
  entries of rows owned by other ranks through the stash at MatAssemblyBegin/End; here each block is set
  once and no rank sets a row it does not own, so assembly needs no communication (which matters at 10^7
  nodes, where element-wise assembly took most of a GPU solve's run time).
  The clamped unknowns are eliminated symmetrically (prescribed value 0): a block whose row node or column
  node is clamped is zero, except the clamped node's diagonal block, dscale * I. All the stencil's blocks are
  set, zero ones included, so the nonzero structure is the full box stencil's.
  The load: int N_a f dV = f hx hy hz / 8 from each element that contains the node, 0 at clamped nodes.
*/
static PetscErrorCode Assemble(DM da, const AppCtx *user, Mat A, Vec b)
{
  PetscInt               M, N, P, xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm, i, j, k, r, row, cols[27];
  PetscReal              hx, hy, hz, dscale = 0.0;
  PetscScalar            Ke[24 * 24], Dblk[9], zero[9], fe[3], vals[3 * 27 * 3];
  const PetscScalar     *src[27];
  const PetscInt        *gidx;
  ISLocalToGlobalMapping ltog;
  PetscScalar        ****barr;
  PetscScalar(*tmpl)[27 * 9];

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
  for (r = 0; r < 9; r++) Dblk[r] = zero[r] = 0.0;
  Dblk[0] = Dblk[4] = Dblk[8] = dscale;
  for (r = 0; r < 3; r++) fe[r] = user->f[r] * hx * hy * hz / 8.0; /* int N_a f dV for a trilinear brick */
  PetscCall(PetscMalloc1(27, &tmpl));
  RowTemplates(Ke, tmpl);

  /* the owned nodes, and the ghosted box around them that holds all their neighbours (stencil width 1) */
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx)); /* ghosted node -> global block row */
  PetscCall(DMDAVecGetArrayDOF(da, b, &barr));
  for (k = zs; k < zs + zm; k++) {
    const PetscInt cz = k == 0 ? 1 : (k == P - 1 ? 2 : 0), nez = (k > 0) + (k < P - 1);

    for (j = ys; j < ys + ym; j++) {
      const PetscInt cy = j == 0 ? 1 : (j == N - 1 ? 2 : 0), ney = (j > 0) + (j < N - 1);

      for (i = xs; i < xs + xm; i++) {
        const PetscInt     cx = i == 0 ? 1 : (i == M - 1 ? 2 : 0), nex = (i > 0) + (i < M - 1);
        const PetscScalar *T       = tmpl[cx + 3 * cy + 9 * cz];
        const PetscBool    clamped = (PetscBool)(i == 0);
        const PetscInt     lrow    = ((k - gzs) * gym + (j - gys)) * gxm + (i - gxs);
        PetscInt           n       = 0, dx, dy, dz, c, s;

        row = gidx[lrow];
        for (dz = -1; dz <= 1; dz++) {
          if (k + dz < 0 || k + dz > P - 1) continue;
          for (dy = -1; dy <= 1; dy++) {
            if (j + dy < 0 || j + dy > N - 1) continue;
            for (dx = -1; dx <= 1; dx++) {
              if (i + dx < 0 || i + dx > M - 1) continue;
              cols[n] = gidx[lrow + dx + gxm * (dy + gym * dz)];
              if (clamped) src[n] = (dx == 0 && dy == 0 && dz == 0) ? Dblk : zero;
              else if (i + dx == 0) src[n] = zero; /* column of a clamped node */
              else src[n] = T + 9 * ((dx + 1) + 3 * (dy + 1) + 9 * (dz + 1));
              n++;
            }
          }
        }
        /* one block row, n block columns: the values are 3 rows of 3 n, row-major */
        for (c = 0; c < n; c++)
          for (r = 0; r < 3; r++)
            for (s = 0; s < 3; s++) vals[r * 3 * n + 3 * c + s] = src[c][3 * r + s];
        PetscCall(MatSetValuesBlocked(A, 1, &row, n, cols, vals, INSERT_VALUES));
        for (r = 0; r < 3; r++) barr[k][j][i][r] = clamped ? 0.0 : (PetscScalar)(nex * ney * nez) * fe[r];
      }
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(da, b, &barr));
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(PetscFree(tmpl));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Assemble(), timed: the seconds from its start to the end of MatAssemblyEnd, the maximum over the ranks. */
static PetscErrorCode AssembleTimed(DM da, const AppCtx *user, Mat A, Vec b, PetscLogDouble *seconds)
{
  PetscLogDouble t0, t1, tloc;
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(Assemble(da, user, A, b));
  PetscCall(PetscTime(&t1));
  tloc = t1 - t0;
  PetscCall(MPIU_Allreduce(&tloc, seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
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

/* ||b - A x|| / ||b||, computed explicitly, and max |x| */
static PetscErrorCode TrueResidual(Mat A, Vec b, Vec x, PetscReal *relres, PetscReal *umax)
{
  Vec       r;
  PetscReal bnorm, rnorm;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b)); /* r = b - A x */
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  *relres = bnorm > 0.0 ? rnorm / bnorm : rnorm;
  PetscCall(VecNorm(x, NORM_INFINITY, umax));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* KSPSetUp timed: the maximum over the ranks */
static PetscErrorCode SetUpTimed(KSP ksp, PetscLogDouble *seconds)
{
  PetscLogDouble t0, t1, tloc;
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t1));
  tloc = t1 - t0;
  PetscCall(MPIU_Allreduce(&tloc, seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* -resetup: A <- 2A + sI (new values, the same nonzero pattern), the solver set up again and solved
   again (what a time step or a Newton step does); A is then restored, to rounding */
static PetscErrorCode SolveAgain(KSP ksp, Mat A, Vec b, Vec x, SolveResult *res)
{
  Vec       d;
  PetscReal s;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &d, NULL));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(VecMax(d, NULL, &s));
  PetscCall(VecDestroy(&d));
  s *= 1e-3;
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatShift(A, s));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(SetUpTimed(ksp, &res->setup2));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &res->its2));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason2));
  PetscCall(TrueResidual(A, b, x, &res->relres2, &res->umax2));
  PetscCall(MatShift(A, -s));
  PetscCall(MatScale(A, 0.5));
  res->again = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Seconds per call of `mults` back-to-back y = A x, ended by a VecNorm (which waits for a GPU), max over ranks. */
static PetscErrorCode TimeMults(Mat A, Vec x, Vec y, PetscInt mults, PetscLogDouble *percall)
{
  PetscLogDouble t0, t1, tloc;
  PetscReal      n;
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  for (PetscInt i = 0; i < mults; i++) PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &n));
  PetscCall(PetscTime(&t1));
  tloc = (t1 - t0) / mults;
  PetscCall(MPIU_Allreduce(&tloc, percall, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

static PetscReal Median(PetscInt n, PetscReal v[])
{
  PetscCallAbort(PETSC_COMM_SELF, PetscSortReal(n, v));
  return n % 2 ? v[n / 2] : (PetscReal)0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Rounds of MatMult timing, A then B in each: the two see the same load on the machine, round by
   round; the medians of the times per call and of the rounds' ratios B/A are printed. */
static PetscErrorCode AlternateMults(Mat A, Mat B, Vec x, PetscInt rounds, PetscInt mults)
{
  PetscReal     *ta, *tb, *ratio, lo, hi;
  PetscLogDouble t;
  Vec            y;
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(rounds, &ta, rounds, &tb, rounds, &ratio));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(MatMult(A, x, y)); /* first products out of the rounds (device copies, lazy set-ups) */
  PetscCall(MatMult(B, x, y));
  for (PetscInt k = 0; k < rounds; k++) {
    PetscCall(TimeMults(A, x, y, mults, &t));
    ta[k] = (PetscReal)t;
    PetscCall(TimeMults(B, x, y, mults, &t));
    tb[k]    = (PetscReal)t;
    ratio[k] = ta[k] > 0 ? tb[k] / ta[k] : 0;
  }
  PetscCall(VecDestroy(&y));
  lo = hi = ratio[0];
  for (PetscInt k = 1; k < rounds; k++) {
    lo = PetscMin(lo, ratio[k]);
    hi = PetscMax(hi, ratio[k]);
  }
  PetscCall(PetscPrintf(comm, "Timing: MatMult alternated, %" PetscInt_FMT " rounds of %" PetscInt_FMT " calls each (ours, compare, ours, ...): median us/call %.3f %.3f\n", rounds, mults, (double)(1e6 * Median(rounds, ta)), (double)(1e6 * Median(rounds, tb))));
  PetscCall(PetscPrintf(comm, "Timing: MatMult alternated, median of the rounds' compare/ours = %.3f (rounds: %.3f to %.3f)\n", (double)Median(rounds, ratio), (double)lo, (double)hi));
  PetscCall(PetscFree3(ta, tb, ratio));
  PetscFunctionReturn(0);
}

/* Solve A x = b in its own log stage and collect iterations, true residual and MatMult timing. */
static PetscErrorCode SolveAndMeasure(Mat A, Vec b, Vec x, const char stagename[], PetscInt reps, PetscBool resetup, SolveResult *res)
{
  KSP                ksp;
  Vec                r;
  PetscLogStage      stage;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscLogDouble     t0, t1, tloc;
  MatType            type;
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrncpy(res->mattype, type, sizeof(res->mattype)));
  PetscCall(CreateSolver(A, &ksp));
  PetscCall(SetUpTimed(ksp, &res->setup));
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
  PetscCall(VecDestroy(&r));
  PetscCall(TrueResidual(A, b, x, &res->relres, &res->umax));
  res->again = PETSC_FALSE;
  if (resetup) {
    Vec x2;

    PetscCall(VecDuplicate(x, &x2));
    PetscCall(SolveAgain(ksp, A, b, x2, res));
    PetscCall(VecDestroy(&x2));
  }
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
  PetscCall(PetscPrintf(comm, "Timing: [%s] KSPSetUp %.6f s\n", res->mattype, (double)res->setup));
  if (res->again) {
    PetscCall(PetscPrintf(comm, "Solve again [%s] (2A + sI, the same pattern): iterations %" PetscInt_FMT ", reason %s, true residual ||b-Ax||/||b|| = %.3e, max |u| = %.6e\n", res->mattype, res->its2, KSPConvergedReasons[res->reason2], (double)res->relres2,
                          (double)res->umax2));
    PetscCall(PetscPrintf(comm, "Timing: [%s] KSPSetUp again %.6f s, %.3f of the first\n", res->mattype, (double)res->setup2, res->setup > 0.0 ? (double)(res->setup2 / res->setup) : 0.0));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  AppCtx         user;
  DM             da;
  Mat            A, B = NULL;
  Vec            b, x, x2, coords;
  KSP            ksp;
  PC             pc;
  KSPType        ksptype;
  PCType         pctype;
  PetscReal      rtol;
  MatType        type;
  MatInfo        info;
  MatNullSpace   nsp;
  PetscInt       M, N, P, m, n, bs;
  SolveResult    ours, other;
  MPI_Comm       comm;
  PetscMPIInt    size;
  PetscLogDouble tasm;

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
  PetscCall(AssembleTimed(da, &user, A, b, &tasm));
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
  PetscCall(PetscPrintf(comm, "Timing: assembly [%s] %.6f s\n", type, (double)tasm));

  /* Report the solver the options select (the same setup is used for every solve). */
  PetscCall(CreateSolver(A, &ksp));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(PetscPrintf(comm, "Solver: KSP %s, PC %s, rtol %.6g\n", ksptype, pctype, (double)rtol));
  PetscCall(KSPDestroy(&ksp));

  PetscCall(SolveAndMeasure(A, b, x, "Solve ours", user.mult_reps, user.resetup, &ours));
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
      PetscCall(AssembleTimed(da, &user, B, b2, &tasm));
      PetscCall(MatGetType(B, &type));
      PetscCall(PetscPrintf(comm, "Timing: assembly [%s] %.6f s\n", type, (double)tasm));
      PetscCall(VecDestroy(&b2));
    } else PetscCall(MatConvert(A, user.compare_type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetNearNullSpace(B, nsp));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(SolveAndMeasure(B, b, x2, "Solve compare", user.mult_reps, user.resetup, &other));
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
    if (user.alternate > 0) PetscCall(AlternateMults(A, B, x, user.alternate, user.alternate_mults));
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
