/*
   PETSc-free sparse products of block matrices, the setup products of smoothed-aggregation
   multigrid (issue 37): C = A P (A times the prolongator) and the Galerkin product C = P^T A P.

   Blocks may be rectangular: a matrix of nbrows x nbcols blocks, each rbs x cbs, stored like
   PETSc's BAIJ: rowptr[nbrows+1], colidx[nblocks] strictly increasing within a row, and
   values[nblocks*rbs*cbs] with each block column-major: entry (i, j) of block k is
   values[k*rbs*cbs + j*rbs + i]. With rbs == cbs this is BAIJ's layout, so BAIJ's arrays are used
   in place (3D elasticity: A in 3x3 blocks, P in 3x6 blocks for the 6 rigid-body modes; the coarse
   levels in 6x6 blocks).

   A product is computed in two phases, as PETSc's MatProduct does:
     bsrk_ap_symbolic / bsrk_ptap_symbolic   once per pattern: C's block structure and the plan
                                             of the numeric phase, in an opaque bsrk_block_product;
     bsrk_block_product_numeric               any number of times: C's values from the operands'
                                             current values (the patterns given to the symbolic
                                             phase), written into the caller's array, which has
                                             C's structure (bsrk_block_product_result);
     bsrk_block_product_free.
   The results are the same bits for any thread count (every block of C is summed by one thread,
   in an order that does not depend on the threads).

   Index widths: block indices are bsrk_idx (PETSc's PetscInt); counts that can exceed them (the
   block products of the symbolic phase, scalar offsets nblocks*rbs*cbs) are 64-bit. A product whose
   block count does not fit in bsrk_idx is refused (BSRK_ERR_ARG; 32-bit PetscInt).
*/
#ifndef BSRK_BLOCKPRODUCTS_H
#define BSRK_BLOCKPRODUCTS_H

#include "bsrkernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block sparse matrix with rbs x cbs blocks (see above). values may be NULL for the symbolic
   phase. */
typedef struct {
  bsrk_idx        nbrows, nbcols; /* block rows and block columns */
  bsrk_idx        rbs, cbs;       /* rows and columns of every block, >= 1 */
  const bsrk_idx *rowptr;         /* [nbrows+1], non-decreasing from 0 */
  const bsrk_idx *colidx;         /* [rowptr[nbrows]], in [0, nbcols), strictly increasing within a row */
  const double   *values;         /* [rowptr[nbrows]*rbs*cbs], each block column-major */
} bsrk_rect_matrix;

/* The plan of one product (opaque): C's structure, the operands' shapes, the transposed structure
   of P (P^T A P) and the intermediate A P's structure and values. */
typedef struct bsrk_block_product bsrk_block_product;

typedef enum {
  BSRK_PRODUCT_AP   = 0, /* C = A P */
  BSRK_PRODUCT_PTAP = 1  /* C = P^T A P */
} bsrk_product_kind;

/* C = A P: A has rbs_A x cbs_A blocks, P has cbs_A x cbs_P blocks and A's nbcols block rows; C has
   A's nbrows x P's nbcols blocks of rbs_A x cbs_P. Checks both operands' structure (BSRK_ERR_ARG:
   NULL pointers, negative sizes, mismatched inner dimension or block size, a rowptr that is not
   non-decreasing from 0, colidx out of range or not strictly increasing in a row). nthreads >= 1
   OpenMP threads. On success *product is the plan (free with bsrk_block_product_free); on failure
   it is NULL. */
bsrk_status bsrk_ap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product **product);

/* C = P^T A P: A square (nbrows == nbcols) with square b x b blocks, P with A's nbrows block rows
   and b x c blocks; C has P's nbcols x nbcols blocks of c x c. Computed as A P (kept in the plan),
   then P^T (A P) through P's transposed structure, built here, so that each block row of C is summed
   by one thread. Same checks and contract as bsrk_ap_symbolic. */
bsrk_status bsrk_ptap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product **product);

/* C's shape and structure: C->rowptr and C->colidx point into the plan (valid until it is freed),
   C->values is NULL. */
bsrk_status bsrk_block_product_result(const bsrk_block_product *product, bsrk_rect_matrix *C);

/* Which product the plan computes. */
bsrk_product_kind bsrk_block_product_kind(const bsrk_block_product *product);

/* Floating-point operations of one numeric phase (2 per multiply-add), for the caller's logging. */
double bsrk_block_product_flops(const bsrk_block_product *product);

/* Fills C_values (C's structure: rowptr[nbrows]*rbs*cbs doubles, every one written) from A's and P's
   current values, on nthreads >= 1 OpenMP threads. A and P have the shapes, block sizes and block
   counts the plan was made for (else BSRK_ERR_ARG); their patterns are the ones given to the
   symbolic phase: a pattern whose product has a block outside C's structure, or a P whose blocks
   moved, gives BSRK_ERR_ARG (C_values then undefined), never a write outside C_values. */
bsrk_status bsrk_block_product_numeric(bsrk_block_product *product, const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, double *C_values);

/* A's blocks where they already are, for an A whose blocks live in two arrays (an MPI matrix's local
   and ghost blocks): A's block k (its structure's order) is block from[k] of first (from[k] >= 0, <
   nfirst) or block -1 - from[k] of second (< nsecond), rbs x cbs doubles each, column-major. */
typedef struct {
  const double   *first, *second;
  bsrk_idx        nfirst, nsecond;
  const bsrk_idx *from; /* [A's blocks] */
} bsrk_block_source;

/* bsrk_block_product_numeric with A's values read through A_blocks (A->values is ignored); a from[k]
   outside its array gives BSRK_ERR_ARG before anything is written. */
bsrk_status bsrk_block_product_numeric_from(bsrk_block_product *product, const bsrk_rect_matrix *A, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *P, int nthreads, double *C_values);

/* A's nblocks blocks of bsize doubles, read through A_blocks, copied in A's order into out (for a
   consumer that reads them from one array, as the GPU's numeric phase does); a source outside its
   array gives BSRK_ERR_ARG before anything is written. */
bsrk_status bsrk_block_source_gather(const bsrk_block_source *A_blocks, int64_t nblocks, int64_t bsize, double *out);

/* Bytes the plan holds (for P^T A P mostly A P's values: its blocks times b x c doubles), for the
   caller's memory accounting. */
size_t bsrk_block_product_bytes(const bsrk_block_product *product);

/* The plan as arrays, for a numeric phase that runs elsewhere (the CUDA layer's,
   cuda/bsrcuda_blockproduct.h): the operands' shapes, A P's structure, and for P^T A P P's transposed
   structure (row j of P^T lists P's blocks (pt_row[e], j), P's block index pt_block[e], e in
   [pt_rowptr[j], pt_rowptr[j+1])) and C's structure. The pointers point into the plan. */
typedef struct {
  bsrk_product_kind kind;
  bsrk_rect_matrix  A, P; /* shapes only: rowptr, colidx and values NULL */
  int64_t           A_nblocks, P_nblocks;
  bsrk_rect_matrix  ap;                            /* A P's structure (values NULL): the result of BSRK_PRODUCT_AP */
  const bsrk_idx   *pt_rowptr, *pt_row, *pt_block; /* BSRK_PRODUCT_PTAP, else NULL */
  bsrk_rect_matrix  c;                             /* the result's structure (values NULL): ap for BSRK_PRODUCT_AP */
} bsrk_block_product_layout;
bsrk_status bsrk_block_product_get_layout(const bsrk_block_product *product, bsrk_block_product_layout *layout);

/* What a caller keeps with the plan and gives back with it (a copy of the plan on a GPU): release(data)
   runs when the plan is freed, or when something else is attached in its place. */
bsrk_status bsrk_block_product_attach(bsrk_block_product *product, void *data, void (*release)(void *));
void       *bsrk_block_product_attached(const bsrk_block_product *product); /* NULL: nothing */

void bsrk_block_product_free(bsrk_block_product *product);

/* The scalar CSR view of M (rbs x cbs blocks; bsrk_rect_csr.cpp): the rows of a block row share its
   pattern, each block column expanded to cbs columns. bsrk_rect_csr_structure fills row_start
   [nbrows*rbs+1] and cols [rowptr[nbrows]*rbs*cbs]; bsrk_rect_csr_values fills values (the same
   length) from M->values, zeros where M->values is NULL. nthreads >= 1 OpenMP threads; BSRK_ERR_ARG on
   NULL or inconsistent arguments. */
bsrk_status bsrk_rect_csr_structure(const bsrk_rect_matrix *M, int nthreads, bsrk_idx *row_start, bsrk_idx *cols);
bsrk_status bsrk_rect_csr_values(const bsrk_rect_matrix *M, int nthreads, double *values);

#ifdef __cplusplus
}
#endif
#endif
