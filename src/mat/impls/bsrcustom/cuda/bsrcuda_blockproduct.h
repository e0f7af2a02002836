/*
   PETSc-free CUDA numeric phase of the block sparse products of smoothed-aggregation multigrid
   (C = A P, C = P^T A P; kernels/bsrk_blockproducts.h): the kernel layer's symbolic phase plans the
   product on the host, once per pattern; this copy of the plan on one GPU computes C's values from A's
   and P's as often as they change.

   Each block row of C (of A P inside P^T A P, then of P^T (A P)) is summed by one warp, its entries
   owned by fixed lanes and added in the operands' order, so C is the same bits on every run. The
   warp finds a product's block of C by a binary search in C's row, which is sorted; a product that
   finds none (an operand's pattern is not the plan's) is reported, never written elsewhere.

   A comes either from a device matrix of bsrcuda.h that holds A's structure and values (a seqbsrcustom
   matrix's own device copy: nothing moves) or from the host (uploaded at each numeric phase, its
   structure once); P's values come from the host at each numeric phase (P is the small operand); C's
   values go back to the host.
*/
#ifndef BSRCUDA_BLOCKPRODUCT_H
#define BSRCUDA_BLOCKPRODUCT_H

#include "bsrcuda.h"
#include "bsrk_blockproducts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsrc_cuda_block_product bsrc_cuda_block_product; /* opaque */

/* The plan L (bsrk_block_product_get_layout) on device `device`, with P's structure (P: the shape of
   L->P, rowptr and colidx given; values unused) and, unless A's values will come from a device matrix
   (a_on_device), A's structure (A likewise). The arrays are copied; L's plan may go afterwards. */
bsrc_cuda_status bsrc_cuda_block_product_create(int device, const bsrk_block_product_layout *L, const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int a_on_device, bsrc_cuda_block_product **D);
void             bsrc_cuda_block_product_destroy(bsrc_cuda_block_product *D); /* NULL is fine */
/* The message of D's last failure (of create when D is NULL). */
const char *bsrc_cuda_block_product_last_error(const bsrc_cuda_block_product *D);
/* Device memory D holds, in bytes. */
size_t bsrc_cuda_block_product_device_bytes(const bsrc_cuda_block_product *D);

/* C_values (host, C's structure: L->c's blocks times rbs x cbs doubles, every one written) from A's
   values (A_dev: a device matrix with A's shape, block count and structure, for a D created with
   a_on_device; else A_values, host, in A's block order) and P's (P_values, host). Returns once
   C_values holds the result. BSRC_CUDA_ERR_ARG when a product left C's structure or a P block moved
   (the operands' patterns are not the plan's): C_values is then undefined. */
bsrc_cuda_status bsrc_cuda_block_product_numeric(bsrc_cuda_block_product *D, const bsrc_cuda_matrix *A_dev, const double *A_values, const double *P_values, double *C_values);

#ifdef __cplusplus
}
#endif

#endif
