/*
   PETSc-free CUDA part of COO assembly (MatSetValuesCOO with values in device memory): a device
   matrix's stored values gathered, on its device, from a coordinate list's values.

   The plan is made once per pattern from the host map (seq/seqbsrcustomcoo.c): for stored value q
   of the matrix (its block order, column-major blocks), the sources jmap[q] .. jmap[q + 1] - 1 of
   perm, in the order the caller gave them. One thread a stored value sums them in that order, so the
   device values are the host pass's bit for bit (the same additions, in the same order) and no
   atomics are needed.
*/
#ifndef BSRCUDA_COO_H
#define BSRCUDA_COO_H

#include "bsrcuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsrc_cuda_coo bsrc_cuda_coo; /* opaque */

/* The gather plan for M (structure set) on M's device: nvals must be M's stored values; jmap
   (nvals + 1 entries, jmap[0] == 0) and perm (jmap[nvals] entries: source positions, those < nv in
   the caller's array, the others in the received array at position - nv) are host arrays, copied.
   Errors leave their message in M (bsrc_cuda_last_error). */
bsrc_cuda_status bsrc_cuda_coo_create(bsrc_cuda_matrix *M, int64_t nvals, const bsrk_idx *jmap, const bsrk_idx *perm, bsrc_cuda_coo **C);
void             bsrc_cuda_coo_destroy(bsrc_cuda_coo *C); /* NULL is fine */
size_t           bsrc_cuda_coo_device_bytes(const bsrc_cuda_coo *C);

/* M's device values, each (insert ? 0 : itself) plus its sources in order: v (device or managed
   memory, nv values) and r (host memory, nr values: what an MPI rank received; NULL when nr is 0),
   r being copied up first. Ordered after the products queued on M, and M's later products see the
   new values. host_values (M's value count, host memory; NULL: none) then receives a copy of them.
   Returns when everything is done. */
bsrc_cuda_status bsrc_cuda_coo_set_values(bsrc_cuda_matrix *M, bsrc_cuda_coo *C, int insert, const double *v, bsrk_idx nv, const double *r, bsrk_idx nr, double *host_values);

/* 1 when p is device or managed memory as CUDA sees it, 0 for host memory (pageable or page-locked)
   and when no CUDA device or driver is there. Never an error. */
int bsrc_cuda_is_device_pointer(const void *p);

/* Copies n doubles from device memory src to host memory dst; returns when done. Errors leave their
   message in bsrc_cuda_last_error(NULL). */
bsrc_cuda_status bsrc_cuda_copy_to_host(double *dst, const double *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif
