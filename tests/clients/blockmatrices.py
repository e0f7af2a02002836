"""The matrices of the client tests, defined by global indices alone (so that any type on any number of
ranks holds the same matrix): a block operator on a 2D grid of nodes (bs unknowns a node, one block row
a node, 5-point coupling) and rectangular AIJ matrices shaped as an aggregation prolongator and its
restriction. Filled through petsc4py as a user would: blocked or scalar, own rows or anyone's rows.
"""
import numpy as np
from petsc4py import PETSc


class BlockGrid:
    """nx x ny nodes, bs unknowns each. Diagonally dominant with a positive diagonal: symmetric -> SPD."""

    def __init__(self, nx, ny, bs, symmetric=True):
        self.nx, self.ny, self.bs, self.symmetric = nx, ny, bs, symmetric
        self.nodes = nx * ny
        self.size = self.nodes * bs

    def neighbours(self, p):
        """The block columns of block row p, ascending (p itself among them)."""
        i, j = p % self.nx, p // self.nx
        q = [p]
        if j > 0: q.append(p - self.nx)
        if i > 0: q.append(p - 1)
        if i < self.nx - 1: q.append(p + 1)
        if j < self.ny - 1: q.append(p + self.nx)
        return sorted(q)

    def block(self, p, q):
        bs = self.bs
        r, c = np.meshgrid(np.arange(bs), np.arange(bs), indexing="ij")
        if p == q:
            coupling = 0.1 * ((r + c + p) % 3)  # symmetric in (r, c)
            return 8.0 * bs * np.eye(bs) + coupling
        lo, hi = min(p, q), max(p, q)
        upper = -1.0 - 0.05 * ((r + 2 * c + lo + 3 * hi) % 5)  # block (lo, hi); (hi, lo) is its transpose
        b = upper if p < q else upper.T
        if not self.symmetric:
            b = b + (0.2 if p < q else -0.3) * (1 + (r + c) % 2)
        return b

    def split(self, comm):
        """This rank's block rows [p0, p1), as PETSc splits them; given to MatSetSizes, so that the counts
        of a preallocation can be computed before the matrix's layout is set up."""
        size, rank = comm.getSize(), comm.getRank()
        per, extra = divmod(self.nodes, size)
        p0 = rank * per + min(rank, extra)
        return p0, p0 + per + (1 if rank < extra else 0)

    def create(self, mat_type=None, comm=None):
        """An empty matrix of the grid's sizes: of mat_type, or of the options' -mat_type (MatSetFromOptions)."""
        comm = comm or PETSc.COMM_WORLD
        p0, p1 = self.split(comm)
        n = (p1 - p0) * self.bs
        A = PETSc.Mat().create(comm=comm)
        A.setSizes(((n, self.size), (n, self.size)), self.bs)
        if mat_type:
            A.setType(mat_type)
        else:
            A.setFromOptions()
        return A

    def owned_block_rows(self, A):
        return range(*self.split(A.getComm()))

    def aij_nnz(self, A):
        """Scalar-row counts (d_nnz, o_nnz) of A's own rows: the AIJ convention."""
        p0, p1 = self.split(A.getComm())
        d, o = [], []
        for p in range(p0, p1):
            qs = self.neighbours(p)
            nd = sum(1 for q in qs if p0 <= q < p1)
            d += [nd * self.bs] * self.bs
            o += [(len(qs) - nd) * self.bs] * self.bs
        return np.array(d, dtype=PETSc.IntType), np.array(o, dtype=PETSc.IntType)

    def aij_csr(self, A):
        """Scalar CSR (i, j, v) of A's own rows, global columns ascending: the AIJ convention."""
        bs = self.bs
        ia, ja, va = [0], [], []
        for p in self.owned_block_rows(A):
            qs = self.neighbours(p)
            blocks = [self.block(p, q) for q in qs]
            for r in range(bs):
                for q, b in zip(qs, blocks):
                    ja += [q * bs + c for c in range(bs)]
                    va += list(b[r])
                ia.append(len(ja))
        return (np.array(ia, dtype=PETSc.IntType), np.array(ja, dtype=PETSc.IntType), np.array(va, dtype=PETSc.ScalarType))

    def fill(self, A, blocked=True, rows="own", assemble=True):
        """Writes the grid's values: blocked (setValuesBlocked) or scalar (setValues, one row at a time);
        rows "own": A's own block rows (INSERT); "round_robin": block rows p with p % size == rank, half
        of each block added twice (ADD: most go to other ranks through the stash)."""
        bs = self.bs
        comm = A.getComm()
        if rows == "own":
            mine, mode, parts = self.owned_block_rows(A), PETSc.InsertMode.INSERT_VALUES, (1.0,)
        else:
            mine, mode, parts = range(comm.getRank(), self.nodes, comm.getSize()), PETSc.InsertMode.ADD_VALUES, (0.5, 0.5)
        for p in mine:
            qs = self.neighbours(p)
            vals = np.hstack([self.block(p, q) for q in qs])  # bs x (bs * len(qs)), row-major
            for part in parts:
                if blocked:
                    A.setValuesBlocked([p], qs, part * vals, addv=mode)
                else:
                    cols = [q * bs + c for q in qs for c in range(bs)]
                    for r in range(bs):
                        A.setValues([p * bs + r], cols, part * vals[r], addv=mode)
        if assemble:
            A.assemble()
        return A


def aggregation_prolongator(grid, comm=None):
    """N x 2 ncoarse AIJ, rows split as the grid's: node p of aggregate p // 4 (of 4 consecutive nodes) has 2 or 3 nonzeros a row."""
    ncoarse = (grid.nodes + 3) // 4
    comm = comm or PETSc.COMM_WORLD
    p0, p1 = grid.split(comm)
    P = PETSc.Mat().createAIJ((((p1 - p0) * grid.bs, grid.size), (None, 2 * ncoarse)), nnz=(3, 3), comm=comm)
    r0, r1 = P.getOwnershipRange()
    for i in range(r0, r1):
        p = i // grid.bs
        a = p // 4
        cols = [2 * a, 2 * a + 1]
        vals = [1.0 + 0.1 * (i % 3), 0.5 - 0.05 * (i % 4)]
        if i % 2 and ncoarse > 1:
            cols.append(2 * ((a + 1) % ncoarse))
            vals.append(0.25)
        P.setValues([i], cols, vals)
    P.assemble()
    return P


def aggregation_restriction(grid, comm=None):
    """2 ncoarse x N AIJ written directly (not as a transpose), columns split as the grid's rows: row 2 a + k holds aggregate a's unknowns."""
    ncoarse = (grid.nodes + 3) // 4
    comm = comm or PETSc.COMM_WORLD
    p0, p1 = grid.split(comm)
    R = PETSc.Mat().createAIJ(((None, 2 * ncoarse), ((p1 - p0) * grid.bs, grid.size)), nnz=(8 * grid.bs, 8 * grid.bs), comm=comm)
    r0, r1 = R.getOwnershipRange()
    for row in range(r0, r1):
        a, k = row // 2, row % 2
        nodes = [p for p in range(4 * a, min(4 * a + 4, grid.nodes))]
        cols = [p * grid.bs + c for p in nodes for c in range(grid.bs)]
        vals = [1.0 / (1 + k + (j % 5)) for j in cols]
        R.setValues([row], cols, vals)
    R.assemble()
    return R
