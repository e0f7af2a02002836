"""Differences between a result of ours and its reference, agreed on by every rank (collective calls),
so that a case's checks come out the same on all ranks.
"""
from mpi4py import MPI
from petsc4py import PETSc


def rel_diff_vec(x, ref):
    """||x - ref||_inf / ||ref||_inf (collective)."""
    d = x.copy()
    d.axpy(-1.0, ref)
    scale = ref.norm(PETSc.NormType.INFINITY)
    return d.norm(PETSc.NormType.INFINITY) / (scale if scale > 0 else 1.0)


def _own_rows(M):
    """{(row, col): value} of M's own rows, read with MatGetRow (not through a conversion of ours)."""
    entries = {}
    r0, r1 = M.getOwnershipRange()
    for i in range(r0, r1):
        cols, vals = M.getRow(i)
        for c, v in zip(cols, vals):
            entries[(i, int(c))] = entries.get((i, int(c)), 0.0) + v
    return entries


def rel_diff_mat(M, ref):
    """max |M_ij - ref_ij| / max |ref_ij| over both matrices' entries (a structural zero is 0), or
    infinity where the global sizes or the row ownership differ (collective)."""
    comm = M.getComm().tompi4py()
    same_layout = M.getSize() == ref.getSize() and M.getOwnershipRange() == ref.getOwnershipRange()
    if not comm.allreduce(same_layout, op=MPI.LAND):
        return float("inf")
    a, b = _own_rows(M), _own_rows(ref)
    worst = max((abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in a.keys() | b.keys()), default=0.0)
    scale = max((abs(v) for v in b.values()), default=0.0)
    worst, scale = comm.allreduce(worst, op=MPI.MAX), comm.allreduce(scale, op=MPI.MAX)
    return worst / (scale if scale > 0 else 1.0)


def all_ranks(flag, comm):
    """Whether flag holds on every rank of comm (a petsc4py or mpi4py communicator)."""
    comm = comm.tompi4py() if hasattr(comm, "tompi4py") else comm
    return comm.allreduce(bool(flag), op=MPI.LAND)


def total(count, comm):
    comm = comm.tompi4py() if hasattr(comm, "tompi4py") else comm
    return comm.allreduce(count)
