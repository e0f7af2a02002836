"""KSP solves through petsc4py with our matrix (type from the options) as operator and preconditioning
matrix, against the same solve on MATBAIJ (MATAIJ for PCGAMG, whose own tests compare with AIJ) in this
process: converged, the same iteration count, the same solution to rounding.

  mpiexec -n 2 python3 test_petsc4py_ksp.py -dll_append build/.../libpetscbsrcustom.so -mat_type bsrcustom
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clientcases import case, check, check_equal, check_ours, run, start  # noqa: E402

PETSc = start()
import numpy as np  # noqa: E402
from blockmatrices import BlockGrid  # noqa: E402
from collective_checks import rel_diff_vec  # noqa: E402

SOLUTION_TOL = 1e-8  # the kernels sum in another order; rtol 1e-10 solves agree far better than this


def near_null_space(A, bs):
    """The bs constant fields, one a component (what PCGAMG is given for a block operator)."""
    vecs = []
    r0, r1 = A.getOwnershipRange()
    for k in range(bs):
        v = A.createVecLeft()
        v.setArray((np.arange(r0, r1) % bs == k).astype(float))
        vecs.append(v)
    return PETSc.NullSpace().create(vectors=vecs, comm=A.getComm())


def solve(A, ksp_type, pc_type, setup=None):
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOperators(A, A)
    ksp.setType(ksp_type)
    ksp.getPC().setType(pc_type)
    ksp.setTolerances(rtol=1e-10, atol=0.0, max_it=500)
    if setup:
        setup(ksp)
    x, b = A.createVecs()
    r0, r1 = b.getOwnershipRange()
    b.setArray(np.sin(0.7 * np.arange(r0, r1)) + 1.0)
    ksp.solve(b, x)
    return ksp.getConvergedReason(), ksp.getIterationNumber(), x


def compare(grid, ksp_type, pc_type, ref_type="baij", setup=None, nullspace=False):
    mats = []
    for mat_type in (None, ref_type):
        M = grid.create(mat_type)
        M.setPreallocationNNZ(grid.aij_nnz(M) if mat_type in (None, "aij") else (5, 4))
        grid.fill(M)
        if nullspace:
            M.setNearNullSpace(near_null_space(M, grid.bs))
        mats.append(M)
    check_ours(mats[0], "A")
    (reason, its, x), (ref_reason, ref_its, ref_x) = (solve(M, ksp_type, pc_type, setup) for M in mats)
    what = f"{ksp_type} + {pc_type}"
    check(ref_reason > 0, f"{what}: the {ref_type} reference did not converge ({ref_reason}; the case tests nothing)")
    check_equal(reason, ref_reason, f"{what}: converged reason")
    check_equal(its, ref_its, f"{what}: iterations")
    check(rel_diff_vec(x, ref_x) < SOLUTION_TOL, f"{what}: solution differs from {ref_type}'s by {rel_diff_vec(x, ref_x):.3g}")


@case
def cg_jacobi():
    compare(BlockGrid(10, 8, 3), "cg", "jacobi")


@case
def cg_bjacobi():
    compare(BlockGrid(10, 8, 3), "cg", "bjacobi")


@case
def gmres_bjacobi_nonsymmetric():
    compare(BlockGrid(10, 8, 2, symmetric=False), "gmres", "bjacobi")


@case
def cg_pbjacobi():
    compare(BlockGrid(9, 9, 4), "cg", "pbjacobi")


@case
def cg_gamg_near_null_space():
    def gamg(ksp):
        ksp.getPC().setGAMGType("agg")

    compare(BlockGrid(16, 12, 2), "cg", "gamg", ref_type="aij", setup=gamg, nullspace=True)


@case
def cg_hypre_boomeramg():
    def boomeramg(ksp):
        ksp.getPC().setHYPREType("boomeramg")

    compare(BlockGrid(12, 10, 2), "cg", "hypre", setup=boomeramg)


sys.exit(run())
