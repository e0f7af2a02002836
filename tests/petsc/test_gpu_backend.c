static const char help[] = "The GPU backends of bsrcustom against its CPU backend (and MATBAIJ), through PETSc:\n"
                           "every CUDA kernel and both cuSPARSE routines, block sizes 1-8, 11, 16, empty block rows, one long\n"
                           "block row, a single-block matrix, MatMult and MatMultAdd (in place and not), values changed and\n"
                           "reassembled, structure changed and reassembled, uploads only when something changed; on several ranks the\n"
                           "split product (local kernel before the halo exchange ends, ghost kernel into the same device y); device\n"
                           "binding: node-local rank modulo the visible GPUs, -mat_bsrcustom_cuda_device, MatView's rank -> device.\n"
                           "Exits with 77 (CTest: skipped) where this build or machine has no GPU.\n";

#include "testutils.h"

static PetscInt failures = 0, checks = 0;

int main(int argc, char **argv)
{
  const PetscInt bss[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16};
  PetscMPIInt    size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatBSRCustomRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_backend", "cuda")); /* what this test is about */
  TEST_RETURN_IF_GPU_MISSING();
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bsrcustom_backend"));

  /* every kernel and backend, every block size, three shapes */
  for (size_t ib = 0; ib < PETSC_STATIC_ARRAY_LENGTH(bss); ib++) {
    for (int shape = 0; shape < 3; shape++) {
      const PetscInt bs = bss[ib];
      Mat            A, Ref;
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, 29, 29 * size, 6, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 7u + (unsigned)bs, &Ref));
      PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, 29, 29 * size, 6, (PetscBool)(shape >= 1), (PetscBool)(shape == 2), 7u + (unsigned)bs, &A));
      for (int k = MAT_BSRCUSTOM_CUDA_KERNEL_AUTO; k <= MAT_BSRCUSTOM_CUDA_KERNEL_WARP_ROW + 2; k++) {
        char what[128];
        if (k <= MAT_BSRCUSTOM_CUDA_KERNEL_WARP_ROW) {
          PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
          PetscCall(MatBSRCustomSetCUDAKernel(A, (MatBSRCustomCUDAKernel)k));
          PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d kernel %s", bs, shape, MatBSRCustomCUDAKernels[k]));
        } else {
          MatBSRCustomCUSPARSEAlg alg = (MatBSRCustomCUSPARSEAlg)(k - MAT_BSRCUSTOM_CUDA_KERNEL_WARP_ROW - 1);
          PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUSPARSE));
          PetscCall(MatBSRCustomSetCUSPARSEAlg(A, alg));
          PetscCall(PetscSNPrintf(what, sizeof(what), "bs %" PetscInt_FMT " shape %d cusparse %s", bs, shape, MatBSRCustomCUSPARSEAlgs[alg]));
        }
        PetscCall(PetscInfo(A, "configuration: %s\n", what)); /* with -info <file>: the last one a crash reached */
        PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, what));
        checks++;
      }
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Ref));
    }
  }

  /* a single block; then value and structure changes with upload accounting */
  {
    Mat            A, Ref;
    PetscLogDouble u0, u1, u2, u3;
    PetscInt       rs, row, col;
    PetscScalar    v[9];
    MatBSRCustomCUDAKernel used;

    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 3, 1, size, 1, PETSC_FALSE, PETSC_FALSE, 3u, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 3, 1, size, 1, PETSC_FALSE, PETSC_FALSE, 3u, &A));
    PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "a single block per rank"));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));

    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 3, 40, 40 * size, 5, PETSC_TRUE, PETSC_FALSE, 5u, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 3, 40, 40 * size, 5, PETSC_TRUE, PETSC_FALSE, 5u, &A));
    PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "before changes"));
    PetscCall(MatBSRCustomGetCUDAKernel(A, NULL, &used));
    TEST_CHECK(PETSC_COMM_WORLD, used != MAT_BSRCUSTOM_CUDA_KERNEL_AUTO, failures, "auto did not resolve to a kernel");
    PetscCall(TestEventCount("BSRCustomUpload", &u0));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "unchanged"));
    PetscCall(TestEventCount("BSRCustomUpload", &u1));
    TEST_CHECK(PETSC_COMM_WORLD, u1 == u0, failures, "products of an unchanged matrix uploaded it again (%g -> %g)", u0, u1);
    /* values only */
    PetscCall(MatScale(A, -0.5));
    PetscCall(MatScale(Ref, -0.5));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "after MatScale"));
    PetscCall(MatGetOwnershipRange(A, &rs, NULL));
    { /* the first non-empty block row of this rank (every third one is empty) and its first block column */
      PetscInt           nc = 0;
      PetscBool          found = PETSC_FALSE;
      const PetscInt    *cols;
      const PetscScalar *vals;
      for (row = rs / 3; !found; row++) {
        PetscCall(MatGetRow(Ref, row * 3, &nc, &cols, &vals));
        if (nc > 0) {
          col   = cols[0] / 3;
          found = PETSC_TRUE;
        }
        PetscCall(MatRestoreRow(Ref, row * 3, &nc, &cols, &vals)); /* (sets nc to 0) */
      }
      row--;
    }
    for (int k = 0; k < 9; k++) v[k] = 1.0 + k;
    PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &col, v, ADD_VALUES));
    PetscCall(MatSetValuesBlocked(Ref, 1, &row, 1, &col, v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
    PetscCall(TestEventCount("BSRCustomUpload", &u2));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "after a value-only reassembly"));
    /* structure: a block in an empty block row (every third one is empty) */
    row = rs / 3 + 2 - (rs / 3) % 3;
    col = row;
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(Ref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &col, v, ADD_VALUES));
    PetscCall(MatSetValuesBlocked(Ref, 1, &row, 1, &col, v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Ref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Ref, MAT_FINAL_ASSEMBLY));
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "after a structural reassembly"));
    PetscCall(TestEventCount("BSRCustomUpload", &u3));
    TEST_CHECK(PETSC_COMM_WORLD, u3 > u2, failures, "a structural change was not uploaded (%g -> %g)", u2, u3);
    /* MatDuplicate and MatCopy carry the backend and their own device copies */
    {
      Mat B;
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
      PetscCall(TestCompareProducts(B, Ref, 1e-13, &failures, "MatDuplicate of a GPU matrix"));
      PetscCall(MatScale(B, 2.0));
      PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
      PetscCall(TestCompareProducts(B, Ref, 1e-13, &failures, "MatCopy into a GPU matrix"));
      PetscCall(MatDestroy(&B));
    }
    {
      PetscViewer viewer;
      PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &viewer));
      PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(A, viewer));
      PetscCall(PetscViewerPopFormat(viewer));
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }

  /* device binding: automatic (node-local rank mod visible GPUs), each device by hand, a bad device */
  {
    Mat            A, Ref;
    MPI_Comm       node;
    PetscMPIInt    local, rank;
    PetscInt       ndev = MatBSRCustomCUDADeviceCount(), dev = -2, after = -2;
    PetscErrorCode ierr;
    int            bad = 0, anybad = 0;
    char           file[PETSC_MAX_PATH_LEN];

    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Comm_rank(node, &local));
    PetscCallMPI(MPI_Comm_free(&node));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, 4, 23, 23 * size, 5, PETSC_FALSE, PETSC_FALSE, 11u, &Ref));
    PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 4, 23, 23 * size, 5, PETSC_FALSE, PETSC_FALSE, 11u, &A));
    PetscCall(MatBSRCustomSetBackend(A, MAT_BSRCUSTOM_BACKEND_CUDA));
    PetscCall(MatBSRCustomGetCUDADevice(A, &dev));
    bad = dev != (PetscInt)local % ndev;
    PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    if (bad) PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] node-local rank %d, %" PetscInt_FMT " GPUs: bound to device %" PetscInt_FMT "\n", rank, local, ndev, dev));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    TEST_CHECK(PETSC_COMM_WORLD, !anybad, failures, "automatic binding is not node-local rank modulo visible GPUs");
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "automatic device binding"));
    checks++;
    PetscCall(PetscSNPrintf(file, sizeof(file), "gpu_backend_view_np%d.txt", (int)size));
    {
      PetscViewer v;
      PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, file, &v));
      PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(A, v));
      PetscCall(PetscViewerPopFormat(v));
      PetscCall(PetscViewerDestroy(&v));
    }
    if (size > 1) { /* every rank's line names its device, and the split path ran */
      char   line[512], want[64];
      FILE  *fp;
      int    found = 0, split = 0;
      if (rank == 0) {
        PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &fp));
        while (fgets(line, sizeof(line), fp)) {
          for (PetscMPIInt r = 0; r < size; r++) {
            PetscCall(PetscSNPrintf(want, sizeof(want), "[%d] CUDA device ", (int)r));
            if (strstr(line, want)) found++;
          }
          if (strstr(line, "host-staged")) split++;
        }
        PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
      }
      TEST_CHECK(PETSC_COMM_WORLD, rank != 0 || (found == size && split == size), failures, "MatView: %d of %d ranks name their device, %d report the host-staged split path", found, (int)size, split);
    }
    for (PetscInt d = 0; d < ndev; d++) {
      char what[64];
      PetscCall(MatBSRCustomSetCUDADevice(A, d));
      PetscCall(MatBSRCustomGetCUDADevice(A, &dev));
      TEST_CHECK(PETSC_COMM_WORLD, dev == d, failures, "MatBSRCustomSetCUDADevice(%" PetscInt_FMT ") gave device %" PetscInt_FMT, d, dev);
      PetscCall(PetscSNPrintf(what, sizeof(what), "all ranks on device %" PetscInt_FMT, d));
      PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, what));
      checks++;
    }
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatBSRCustomSetCUDADevice(A, ndev);
    PetscCall(PetscPopErrorHandler());
    PetscCall(MatBSRCustomGetCUDADevice(A, &after));
    TEST_CHECK(PETSC_COMM_WORLD, ierr == PETSC_ERR_ARG_OUTOFRANGE, failures, "device %" PetscInt_FMT " of %" PetscInt_FMT ": error %d, expected PETSC_ERR_ARG_OUTOFRANGE", ndev, ndev, (int)ierr);
    TEST_CHECK(PETSC_COMM_WORLD, after == ndev - 1, failures, "a refused device changed the setting (%" PetscInt_FMT ")", after);
    PetscCall(TestCompareProducts(A, Ref, 1e-13, &failures, "after a refused device"));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Ref));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gpu backend: %" PetscInt_FMT " configurations, %" PetscInt_FMT " failures\n", checks, failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
