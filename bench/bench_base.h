/* The MatMult benchmark's parts (bench_matmult.c and the files it calls): the headers they all take
   and the lengths of its lists. */
#ifndef BENCH_BASE_H
#define BENCH_BASE_H

#if defined(__linux__) && !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity, environ */
#endif
#include <petscmat.h>
#include <petscksp.h>
#include <petscmatbsrcustom.h>
#include <stdint.h>
#if defined(PETSC_HAVE_CUDA) && PETSC_VERSION_GE(3, 21, 0)
  #include <petscdevice.h>
  #define BENCH_DEVICE_VECTORS 1 /* CUDA vectors: products are queued on PETSc's stream */
#endif
#include <time.h>
#if defined(__linux__)
  #include <sched.h>
  #include <signal.h>
  #include <spawn.h>
  #include <sys/types.h>
  #include <sys/wait.h>
  #include <unistd.h>
#endif
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define MAX_LIST    16
#define MAX_THREADS 1024

#endif
