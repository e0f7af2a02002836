/*
   What the backends hold to run one seqbsrcustom block's own values (a seqbsrcustom, or an MPI
   matrix's local or ghost block): one object a block, owned by the backends. The block points to it
   and keeps only what belongs to the matrix (settings, the structure and value states); each part
   here is read and written by its backend alone. It is made at the block's convert and given back at
   its detach (bsrcustomheld.c); a GPU backend bound to the CPU runs on the cpu part and keeps the GPU
   part, so that unbinding uploads nothing that is still current.
*/
#ifndef BSRCUSTOMHELD_H
#define BSRCUSTOMHELD_H

#include <../src/mat/impls/bsrcustom/backends/bsrcustombackend.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>

/* the cpu backend's (seqbsrcustomcpu.c): the task partition, cut for `wanted` tasks and the block rows
   of the block's row generation `rows`; its carry space; the thread team and what it measured; whether
   the values' pages were made huge pages; the SpMM workspace, kept for the next product */
typedef struct {
  PetscBool      built;
  bsrk_partition tasks;
  PetscInt       wanted, rows;
  void          *workspace;
  size_t         workspace_bytes;
  bsrk_team      team;
  PetscBool      huge_granted;
  void          *spmm_workspace;
  size_t         spmm_workspace_bytes;
} MatBSRCustomCPUHeld;

/* the GPU backends' (seqbsrcustomgpu.c, seqbsrcustomgpucoo.c): the device copy and what it holds */
typedef struct {
  void            *matrix;       /* a bsrc_cuda_matrix; NULL: none */
  PetscInt         device;       /* the device it lives on */
  PetscInt         structure;    /* the block's structure generation it was uploaded for, -1: none */
  PetscObjectState values_state; /* the block's object state when its values were uploaded */
  PetscBool        coo_fresh;    /* MatSetValuesCOO filled it, and its closing assembly may not have run (seqbsrcustomgpucoo.c) */
  PetscInt         spmms;        /* block SpMMs run on it (MatProduct AB with a dense matrix), for MatView */
} MatBSRCustomGPUHeld;

struct _MatBSRCustomHeld {
  MatBSRCustomCPUHeld cpu;
  MatBSRCustomGPUHeld gpu;
};

/* an MPI matrix's, beyond its blocks' (mpibsrcustomgpu.c): for products on CUDA vectors, the ghost
   vector on the device, and the staged halo where MPI reads host memory only; made on first use, for
   the ghost columns of the matrix's halo */
struct _MatBSRCustomMPIHeld {
  Vec                    ghost_dev;
  MatBSRCustomStagedHalo staged;
};

#endif
