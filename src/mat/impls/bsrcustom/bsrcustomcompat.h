/*
   Every difference between the PETSc versions the plugin builds against (3.18 to the current
   release) is bridged here, in PETSc's own PETSC_VERSION_LT style, and nowhere else. Public PETSc
   headers only, so that the tests can include it too.
*/
#ifndef BSRCUSTOMCOMPAT_H
#define BSRCUSTOMCOMPAT_H

#include <petscversion.h>
#include <petscmat.h>

/* MatSetFromOptions' argument: a struct passed by pointer until 3.22, a pointer type since 3.23 */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *BSRCOptionItems;
#else
typedef PetscOptionItems BSRCOptionItems;
#endif

/* one pointer check for every pointer type since 3.20 */
#if PETSC_VERSION_LT(3, 20, 0)
  #define PetscAssertPointer(p, arg) PetscValidPointer(p, arg)
#endif

/* the MPI datatype of PetscBool: MPIU_BOOL until 3.23, MPI_C_BOOL since 3.24 */
#if PETSC_VERSION_LT(3, 24, 0)
  #define BSRC_MPI_BOOL MPIU_BOOL
#else
  #define BSRC_MPI_BOOL MPI_C_BOOL
#endif

/* PetscBool: an enum, which can hold values other than PETSC_TRUE and PETSC_FALSE, until 3.23; C's
   bool since 3.24 */
#if PETSC_VERSION_LT(3, 24, 0)
  #define BSRC_PETSCBOOL_IS_ENUM 1
#else
  #define BSRC_PETSCBOOL_IS_ENUM 0
#endif

/* PetscErrorMessage()'s specific message: char * until 3.23, const char * since 3.24 */
#if PETSC_VERSION_LT(3, 24, 0)
typedef char *BSRCErrorText;
#else
typedef const char      *BSRCErrorText;
#endif

/* Destroy callbacks of contexts (PetscContainer, MatProduct data): given the context until 3.22, a
   pointer to it since 3.23 (PetscCtxDestroyFn). Ours take `void *arg` and read the context with
   BSRC_CTX_OF(arg). */
#if PETSC_VERSION_LT(3, 23, 0)
  #define BSRC_CTX_OF(arg)               (arg)
  #define BSRCContainerSetDestroy(c, fn) PetscContainerSetUserDestroy(c, fn)
#else
  #define BSRC_CTX_OF(arg)               (*(void **)(arg))
  #define BSRCContainerSetDestroy(c, fn) PetscContainerSetCtxDestroy(c, fn)
#endif

/* MatCreateGraph() and its operation: an index of the components that measure strength since 3.21 */
#if PETSC_VERSION_LT(3, 21, 0)
  #define BSRC_CREATEGRAPH_PARAMS                                          Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *graph
  #define BSRC_CREATEGRAPH_ARGS(M)                                         M, sym, scale, filter, graph
  #define BSRC_CREATEGRAPH_NUM_IDX                                         0 /* the index, or none where PETSc has none, in a BSRC_CREATEGRAPH_PARAMS function */
  #define BSRC_CREATEGRAPH_INDEX                                           NULL
  #define BSRCMatCreateGraph(M, sym, scale, filter, num_idx, index, graph) MatCreateGraph(M, sym, scale, filter, graph)
#else
  #define BSRC_CREATEGRAPH_PARAMS                                          Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph
  #define BSRC_CREATEGRAPH_ARGS(M)                                         M, sym, scale, filter, num_idx, index, graph
  #define BSRC_CREATEGRAPH_NUM_IDX                                         num_idx
  #define BSRC_CREATEGRAPH_INDEX                                           index
  #define BSRCMatCreateGraph(M, sym, scale, filter, num_idx, index, graph) MatCreateGraph(M, sym, scale, filter, num_idx, index, graph)
#endif
#define BSRC_CREATEGRAPH_HAS_INDEX PETSC_VERSION_GE(3, 21, 0)

/* PCGAMG's prolongator operation (petsc/private/pcgamgimpl.h): given the graph too in older releases
   (3.18), not in newer ones (3.25); the build reads which from that header
   (BSRCUSTOM_GAMG_PROLONGATOR_GRAPH). In a BSRC_GAMG_PROLONGATOR_PARAMS function, BSRC_GAMG_PROLONGATOR_ARGS(M)
   passes the same arguments with M for the operator. */
#if defined(BSRCUSTOM_GAMG_PROLONGATOR_GRAPH)
  #define BSRC_GAMG_PROLONGATOR_PARAMS  PC pc, Mat A, Mat G, PetscCoarsenData *agg_lists, Mat *P
  #define BSRC_GAMG_PROLONGATOR_ARGS(M) pc, M, G, agg_lists, P
#else
  #define BSRC_GAMG_PROLONGATOR_PARAMS  PC pc, Mat A, PetscCoarsenData *agg_lists, Mat *P
  #define BSRC_GAMG_PROLONGATOR_ARGS(M) pc, M, agg_lists, P
#endif

/* PETSc's own device support. A PETSc configured with a GPU has Mat::boundtocpu and MatBindToCPU's
   operation (PETSC_HAVE_DEVICE); one configured with CUDA, 3.21 or later, also has CUDA vectors and
   device contexts whose stream (PetscDeviceContextGetStreamHandle) our products join. Debian's 3.18
   has neither: there vectors live on the host and the GPU backends stage them. */
#if defined(PETSC_HAVE_DEVICE)
  #define BSRC_HAVE_DEVICE_BINDING 1
#endif
#if defined(PETSC_HAVE_CUDA) && PETSC_VERSION_GE(3, 21, 0)
  #define BSRC_HAVE_PETSC_CUDA 1
#endif

#endif
