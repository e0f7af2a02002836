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
typedef const char *BSRCErrorText;
#endif

#endif
