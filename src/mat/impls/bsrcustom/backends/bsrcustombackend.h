/*
   The seam between the matrix types and where their products run. A matrix (seqbsrcustom, an MPI
   matrix's local and ghost blocks, mpibsrcustom) holds a pointer to one table of backend operations,
   chosen in one place (bsrcustombackend.c) whenever its settings or its CPU binding change:

       seq/, mpi/ (the PETSc types)  --call-->  MatBSRCustomBackendOps  <--implement--  cpu/ (over kernels/)
                                                                                          gpu/ (over cuda/)

   The types never test which backend is active: they call the table. The implementations read the
   types' contexts (seqbsrcustomimpl.h, mpibsrcustomimpl.h) and call only down (kernels/, cuda/, the
   GPU glue of gpu/, the log events).
*/
#ifndef BSRCUSTOMBACKEND_H
#define BSRCUSTOMBACKEND_H

#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include "bsrkernels.h"
#include "bsrk_blockproducts.h"

/* a device matrix kept for a seqbsrcustom (its own copy is in its context; this one holds a kept
   matrix's), and what it holds */
typedef struct {
  void    *gpu;       /* a bsrc_cuda_matrix; NULL: none */
  PetscInt device;    /* the device it lives on */
  PetscInt structure; /* the caller's structure id it holds, -1: none */
  PetscInt values;    /* the caller's values id it holds */
  PetscInt products;  /* products run on it (MatView, tests) */
} MatSeqBSRCustomDeviceMatrix;

/* A matrix a seqbsrcustom keeps beside its own values (its transposed copy): the host BSR view, its
   ids, and what each backend keeps to run it (cpu: a task partition, a team and carry space for
   A's thread and chunk settings; GPU: a device matrix). */
typedef struct {
  bsrk_matrix                 M;                  /* the host copy's BSR view */
  PetscInt                    structure, values;  /* ids of M's structure and values, changed with them */
  PetscInt                    nonzero_block_rows; /* of M, for the flop count */
  const char                 *what;               /* names it in messages */
  bsrk_partition              tasks;              /* cpu: built for tasks_wanted; -1: none */
  PetscInt                    tasks_wanted, tasks_structure;
  void                       *workspace;
  size_t                      workspace_bytes;
  bsrk_team                   team;
  MatSeqBSRCustomDeviceMatrix dev; /* GPU */
} MatSeqBSRCustomKept;

struct _MatBSRCustomCOOScatter; /* bsrcustomimpl.h */
struct _MatBSRCustomSettings;   /* bsrcustomimpl.h */

/* one product of an MPI matrix (bsrcustommpiproduct.h) */
typedef struct _MatBSRCustomMPIProduct MatBSRCustomMPIProduct;

/* what the backends hold to run a block's own values (bsrcustomheld.h, theirs alone): made empty for a
   new block, given back with it (after the backend's release) */
typedef struct _MatBSRCustomHeld MatBSRCustomHeld;
PETSC_INTERN PetscErrorCode      MatBSRCustomHeldCreate_Private(MatBSRCustomHeld **held);
PETSC_INTERN PetscErrorCode      MatBSRCustomHeldDestroy_Private(MatBSRCustomHeld **held);
/* what the backends hold for an MPI matrix's products beyond its blocks' (bsrcustomheld.h): made empty
   with the matrix, emptied when its ghost columns change, given back with it */
typedef struct _MatBSRCustomMPIHeld    MatBSRCustomMPIHeld;
PETSC_INTERN PetscErrorCode            MatBSRCustomMPIHeldCreate_Private(MatBSRCustomMPIHeld **held);
PETSC_INTERN PetscErrorCode            MatBSRCustomMPIHeldReset_Private(MatBSRCustomMPIHeld *held);
PETSC_INTERN PetscErrorCode            MatBSRCustomMPIHeldDestroy_Private(MatBSRCustomMPIHeld **held);
typedef struct _MatBSRCustomBackendOps MatBSRCustomBackendOps;
struct _MatBSRCustomBackendOps {
  const char *name; /* in MatView and -info */
  /* the AIJ types a matrix of ours becomes when its blocks are rectangular (GAMG's prolongators: BAIJ
     holds square blocks only), one rank and several: where this backend's products run */
  const char *aij_seq_type, *aij_mpi_type;
  /* a matrix of one of those types was made by ours: what it needs to serve where this backend's
     products run (GPU: its products also accept host vectors) */
  PetscErrorCode (*aij_made)(Mat M);

  /* --- a seqbsrcustom matrix A (also an MPI matrix's block); M: its BSR view after the type's
     bookkeeping (MatSeqBSRCustomPrepare_Private) --- */
  /* A's MatCreateVecs type and A->boundtocpu follow where its products run */
  PetscErrorCode (*vectors_follow)(Mat A);
  /* A is assembled or about to run a product on M: what the backend makes ahead of its products (cpu:
     the task partition, cut again where A's block rows or the thread and chunk settings changed, and
     the values' pages; the GPU backends upload at the product) */
  PetscErrorCode (*ready)(Mat A, const bsrk_matrix *M);
  /* out = alpha*M*x + beta*in (in unread when beta == 0); between: the calling thread's work between
     its tasks (cpu; may be NULL) */
  PetscErrorCode (*apply)(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
  /* the same on a kept matrix of A's */
  PetscErrorCode (*kept_apply)(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
  /* MatView (ascii_info): the line of A's transpose products, run on the kept transposed copy k (NULL:
     none built yet) or by BAIJ (baij), with how often k was built and refreshed */
  PetscErrorCode (*transpose_view)(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer);
  const char *transpose_path; /* -info: how transpose products on the kept copy run */
  /* C = A B, B and C dense, one pass over A for all columns */
  PetscErrorCode (*spmm)(Mat A, const bsrk_matrix *M, Mat B, Mat C);
  /* MatView (ascii_info): the backend's lines */
  PetscErrorCode (*view)(Mat A, PetscViewer viewer);
  /* GAMG's block products with A (seq/seqbsrcustomgalerkin.c): the plan of C = A P or P^T A P from the
     operands' structures, and C's values (C's structure, every one written) from their values; M: A's
     own BSR view where RA is it (the same arrays: what A keeps for its products may serve), else NULL;
     A_blocks: where RA's blocks are when they are not in RA->values (an MPI product's local and ghost
     blocks), else NULL */
  PetscErrorCode (*block_product_plan)(Mat A, bsrk_product_kind kind, const bsrk_rect_matrix *RA, const bsrk_rect_matrix *RP, bsrk_block_product **plan);
  PetscErrorCode (*block_product_numeric)(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values);
  /* gives back what this backend holds for A's own values (k NULL) or for its kept matrix k, e.g. when
     A's backend changes */
  PetscErrorCode (*release)(Mat A, MatSeqBSRCustomKept *k);
  /* MatSetValuesCOO with the values in device memory (bsrcustomimpl.h's COO scatter sc, its part
     `part` being A's values, M A's view; v: the nv values given, r: the nr an MPI rank received, host): A's device
     copy's values from them there, and a (A's host values) a copy. NULL where the backend has no device
     copy: the values then go through the host. coo_device_follow: A's state has increased for those
     values, which its device copy already holds. */
  PetscErrorCode (*coo_device_values)(Mat A, const bsrk_matrix *M, const struct _MatBSRCustomCOOScatter *sc, PetscInt part, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], InsertMode mode, PetscScalar a[]);
  PetscErrorCode (*coo_device_follow)(Mat A);

  /* --- an MPI matrix A (bsrcustommpiproduct.h: p, one product's operands and the backend's choices) --- */
  /* where p's vectors live (p->on_device), its ghost vector (p->ghost) and the work of the local
     product's calling thread between its tasks (p->between, cpu: MPI progress), decided once a product */
  PetscErrorCode (*mpi_place)(MatBSRCustomMPIProduct *p);
  /* out = Ad x + beta in + Ao ghost(x), as MPIAIJ's MatMult: the halo begun (after mpi_place; host
     vectors of a GPU product are page-locked on their second use), the local block's product (which
     may return before it is done), the halo ended, the ghost block's product added; p->path: how it ran */
  PetscErrorCode (*mpi_halo_begin)(MatBSRCustomMPIProduct *p);
  PetscErrorCode (*mpi_local_mult)(MatBSRCustomMPIProduct *p);
  PetscErrorCode (*mpi_halo_end)(MatBSRCustomMPIProduct *p);
  PetscErrorCode (*mpi_ghost_multadd)(MatBSRCustomMPIProduct *p);
  /* Y = Ad X (k columns) begun while B's ghost rows move, ended with them: Y += Ao Xg */
  PetscErrorCode (*spmm_split_begin)(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy);
  PetscErrorCode (*spmm_split_end)(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy);
  /* -info and MatView: the path a transpose product took */
  const char *(*mpi_transpose_path)(PetscBool on_device, PetscBool baij);
  const char *mpi_transpose_text, *mpi_spmm_text;
  /* MatView (ascii_info) of an MPI matrix with settings set: the backend's lines, path: its last product's */
  PetscErrorCode (*mpi_view)(Mat A, const struct _MatBSRCustomSettings *set, const char *path, PetscViewer viewer);
};

/* the three backends, and the cpu one for a matrix bound to the CPU whose backend is a GPU one */
PETSC_INTERN const MatBSRCustomBackendOps MatBSRCustomBackendCPU, MatBSRCustomBackendBoundCPU, MatBSRCustomBackendCUDA, MatBSRCustomBackendCUSPARSE;

#endif
