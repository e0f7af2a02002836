"""SLEPc eigensolvers through slepc4py on our matrix (type from the options) against the same solve on
MATBAIJ in this process: the converged eigenvalues equal to 1e-10 relative, their residuals small.
A standard symmetric problem with Krylov-Schur, and a generalized one A x = l B x (B a block mass-like
SPD matrix) with shift-and-invert, the inner KSP preonly + LU (PETSc's LU on one rank, MUMPS on more).

  mpiexec -n 2 python3 test_slepc4py_eps.py -dll_append build/.../libpetscbsrcustom.so -mat_type bsrcustom
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clientcases import case, check, check_close, check_equal, check_ours, run, start  # noqa: E402

PETSc = start(with_slepc=True)
from slepc4py import SLEPc  # noqa: E402
import numpy as np  # noqa: E402
from blockmatrices import BlockGrid  # noqa: E402

EIG_RTOL = 1e-10
NEV = 4


class MassGrid(BlockGrid):
    """The grid's pattern with mass-matrix-like values: SPD, 4 x the identity plus small couplings."""

    def block(self, p, q):
        bs = self.bs
        if p == q:
            return 4.0 * np.eye(bs) + 0.05 * (np.add.outer(np.arange(bs), np.arange(bs)) % 2)
        return 0.25 * np.eye(bs)


def matrices(grid, mat_type):
    M = grid.create(mat_type)
    M.setPreallocationNNZ(grid.aij_nnz(M) if mat_type is None else (5, 4))
    return grid.fill(M)


def solve(eps_setup, A, B=None):
    eps = SLEPc.EPS().create(comm=A.getComm())
    eps.setOperators(A, B)
    eps.setDimensions(nev=NEV)
    eps.setTolerances(tol=1e-13, max_it=1000)
    eps_setup(eps)
    eps.solve()
    n = eps.getConverged()
    values = [eps.getEigenvalue(i).real for i in range(n)]
    errors = [eps.computeError(i, SLEPc.EPS.ErrorType.RELATIVE) for i in range(n)]
    return values, errors


def compare(what, eps_setup, grid, mass=None):
    ours = [matrices(grid, None)] + ([matrices(mass, None)] if mass else [])
    refs = [matrices(grid, "baij")] + ([matrices(mass, "baij")] if mass else [])
    for M in ours:
        check_ours(M, what)
    values, errors = solve(eps_setup, *ours)
    ref_values, ref_errors = solve(eps_setup, *refs)
    check(len(ref_values) >= NEV, f"{what}: the BAIJ reference converged {len(ref_values)} eigenvalues, fewer than {NEV}")
    check_equal(len(values), len(ref_values), f"{what}: converged eigenvalues")
    for i, (v, r) in enumerate(zip(values, ref_values)):
        check_close(v, r, EIG_RTOL, f"{what}: eigenvalue {i}")
    for i, e in enumerate(errors):
        check(e < 1e-9, f"{what}: relative residual of eigenpair {i} is {e:.3g}")


@case
def krylov_schur_largest():
    def setup(eps):
        eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
        eps.setProblemType(SLEPc.EPS.ProblemType.HEP)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.LARGEST_REAL)

    compare("Krylov-Schur, largest", setup, BlockGrid(9, 7, 3))


@case
def krylov_schur_nonsymmetric():
    def setup(eps):
        eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
        eps.setProblemType(SLEPc.EPS.ProblemType.NHEP)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.LARGEST_MAGNITUDE)

    compare("Krylov-Schur, nonsymmetric", setup, BlockGrid(8, 6, 2, symmetric=False))


@case
def generalized_shift_invert_lu():
    def setup(eps):
        eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
        eps.setProblemType(SLEPc.EPS.ProblemType.GHEP)
        eps.setTarget(2.0)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
        st = eps.getST()
        st.setType(SLEPc.ST.Type.SINVERT)
        ksp = st.getKSP()
        ksp.setType("preonly")
        pc = ksp.getPC()
        pc.setType("lu")
        if PETSc.COMM_WORLD.getSize() > 1:
            pc.setFactorSolverType("mumps")

    compare("generalized, shift-and-invert + LU", setup, BlockGrid(8, 7, 3), MassGrid(8, 7, 3))


sys.exit(run())
