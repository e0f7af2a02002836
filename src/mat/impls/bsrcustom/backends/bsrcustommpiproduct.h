/*
   One product of an MPI matrix A on its backend, as PETSc's MPIAIJ runs MatMult:

       halo begin -> the local block's product (may return before it is done) -> halo end
         -> the ghost block's product added

   The MPI type fills the operands (A's blocks and their views, its settings, its halo, the vectors)
   and calls the four steps of its backend's table; the backend decides where the vectors live, once,
   and fills the rest. The transpose products use the same record for that decision (mpi_place).
*/
#ifndef BSRCUSTOMMPIPRODUCT_H
#define BSRCUSTOMMPIPRODUCT_H

#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

struct _MatBSRCustomMPIProduct {
  /* the MPI type's: A, its local and ghost blocks with their BSR views (MatMult only), A's settings and
     what A's backends hold, the halo (x's ghost entries into the host ghost vector ghost_x, for the
     nghost ghost block columns ghost_cols), out = Ad x + beta in + Ao ghost(x) (beta 0 or 1) */
  Mat                         A, Ad, Ao;
  bsrk_matrix                 M, G;
  const MatBSRCustomSettings *set;
  MatBSRCustomMPIHeld        *held;
  VecScatter                  halo;
  Vec                         ghost_x;
  PetscInt                    nghost;
  const PetscInt             *ghost_cols;
  Vec                         x, in, out;
  PetscScalar                 beta;
  /* the backend's: where the vectors live, the ghost vector used (ghost_x, or one on the device), the
     halo it runs (staged: ours through page-locked host buffers, on `stream`), the work between the
     local product's tasks (hook, between), the path taken (-info, MatView). They start as host
     vectors, ghost = ghost_x, nothing between tasks, PetscSF's halo (MatMPIBSRCustomProductInit_Private). */
  PetscBool           on_device, staged;
  Vec                 ghost;
  void               *stream;
  bsrk_between        hook;
  const bsrk_between *between;
  const char         *path;
};

/* the halo by PetscSF (the VecScatter): x's ghost entries into p->ghost (bsrcustommpiproduct.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomMPIScatterBegin_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatBSRCustomMPIScatterEnd_Private(MatBSRCustomMPIProduct *p);

#endif
