/* The benchmark matrices: their patterns and values (the same on any number of ranks), assembly as BAIJ, what a type is and runs on, random vectors. */
#include "bench_matrices.h"

/* Block columns of block row ib, ascending; returns their number. */
static PetscInt RowPattern(const MatrixSpec *spec, PetscInt ib, PetscInt cols[])
{
  PetscInt nc = 0;

  if (spec->band > 0) { /* thesis band */
    PetscInt start = ib - spec->band / 2, c;

    if (start < 0) start = 0;
    if (start > spec->nbrows - spec->band) start = spec->nbrows - spec->band;
    for (c = 0; c < spec->band; c++) cols[nc++] = start + c;
  } else { /* 27-point stencil, lexicographic (k, j, i) order gives ascending columns */
    const PetscInt n = spec->n, i = ib % n, j = (ib / n) % n, k = ib / (n * n);
    PetscInt       di, dj, dk;

    for (dk = -1; dk <= 1; dk++) {
      if (k + dk < 0 || k + dk >= n) continue;
      for (dj = -1; dj <= 1; dj++) {
        if (j + dj < 0 || j + dj >= n) continue;
        for (di = -1; di <= 1; di++) {
          if (i + di < 0 || i + di >= n) continue;
          cols[nc++] = ((k + dk) * n + (j + dj)) * n + (i + di);
        }
      }
    }
  }
  return nc;
}

/* Values of block row ib in the row-oriented layout of MatSetValuesBlocked: bs rows of nc*bs entries. */
static void RowValues(const MatrixSpec *spec, PetscInt seed, PetscInt ib, PetscInt nc, PetscScalar v[])
{
  const PetscInt bs = spec->bs, ld = nc * bs;
  PetscInt       r, c;

  for (r = 0; r < bs; r++) {
    const PetscInt64 row = (PetscInt64)ib * bs + r;
    uint64_t         s   = RowSeed(seed, spec->band > 0 ? 1 : 2, row);

    if (spec->band > 0) { /* positive entries, row sum 1 */
      double sum = 0.0;
      for (c = 0; c < ld; c++) {
        v[r * ld + c] = 0.5 + Uniform(&s);
        sum += PetscRealPart(v[r * ld + c]);
      }
      for (c = 0; c < ld; c++) v[r * ld + c] /= sum;
    } else {
      for (c = 0; c < ld; c++) v[r * ld + c] = 2.0 * Uniform(&s) - 1.0;
    }
  }
}

PetscErrorCode SetupSpec(const char name[], PetscInt thesis_rows, PetscInt thesis_bs, PetscReal density, PetscInt sn, PetscInt sbs, MatrixSpec *spec)
{
  PetscBool   isthesis, isstencil;
  PetscMPIInt rank, size;
  PetscInt    q, rem;
  PetscInt   *cols;
  PetscInt    ib;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMemzero(spec, sizeof(*spec)));
  PetscCall(PetscStrncpy(spec->name, name, sizeof(spec->name)));
  PetscCall(PetscStrcmp(name, "thesis", &isthesis));
  PetscCall(PetscStrcmp(name, "stencil27", &isstencil));
  PetscCheck(isthesis || isstencil, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown matrix '%s' in -bench_matrices: use thesis or stencil27", name);
  if (isthesis) {
    PetscCheck(thesis_bs >= 1 && thesis_rows >= thesis_bs && thesis_rows % thesis_bs == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-thesis_rows %" PetscInt_FMT " must be a positive multiple of -thesis_bs %" PetscInt_FMT, thesis_rows, thesis_bs);
    PetscCheck(density > 0.0 && density <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-thesis_density must lie in (0, 1], got %g", (double)density);
    spec->bs     = thesis_bs;
    spec->nbrows = thesis_rows / thesis_bs;
    spec->band   = (PetscInt)(density * spec->nbrows + 0.5);
    spec->band   = PetscMax(1, PetscMin(spec->band, spec->nbrows));
  } else {
    PetscCheck(sn >= 2 && sbs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -stencil_n >= 2 and -stencil_bs >= 1");
    PetscCheck((PetscInt64)sn * sn * sn * sbs < PETSC_MAX_INT / 27, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stencil_n %" PetscInt_FMT " is too large for 32-bit PetscInt", sn);
    spec->bs     = sbs;
    spec->n      = sn;
    spec->nbrows = sn * sn * sn;
  }
  PetscCheck(spec->nbrows >= size, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Matrix %s has fewer block rows (%" PetscInt_FMT ") than ranks (%d)", name, spec->nbrows, (int)size);
  q            = spec->nbrows / size;
  rem          = spec->nbrows % size;
  spec->nlocal = q + (rank < rem ? 1 : 0);
  spec->rstart = rank * q + PetscMin(rank, rem);
  /* global block count */
  if (isthesis) spec->nblocks = (PetscInt64)spec->nbrows * spec->band;
  else {
    spec->nblocks = 0;
    PetscCall(PetscMalloc1(27, &cols));
    for (ib = 0; ib < spec->nbrows; ib++) spec->nblocks += RowPattern(spec, ib, cols);
    PetscCall(PetscFree(cols));
  }
  PetscFunctionReturn(0);
}

/* Assemble the block rows spec->rstart.. of the matrix as (SEQ|MPI)BAIJ on comm. */
PetscErrorCode AssembleBAIJOn(MPI_Comm comm, const MatrixSpec *spec, PetscInt seed, Mat *A)
{
  const PetscInt bs = spec->bs, rend = spec->rstart + spec->nlocal;
  PetscInt       maxc = spec->band > 0 ? spec->band : 27, ib, nc, c, *cols, *dnnz, *onnz;
  PetscScalar   *vals;
  MatInfo        info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(maxc, &cols, (size_t)maxc * bs * bs, &vals, spec->nlocal, &dnnz, spec->nlocal, &onnz));
  for (ib = spec->rstart; ib < rend; ib++) {
    nc                      = RowPattern(spec, ib, cols);
    dnnz[ib - spec->rstart] = 0;
    onnz[ib - spec->rstart] = 0;
    for (c = 0; c < nc; c++) {
      if (cols[c] >= spec->rstart && cols[c] < rend) dnnz[ib - spec->rstart]++;
      else onnz[ib - spec->rstart]++;
    }
  }
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, spec->nlocal * bs, spec->nlocal * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, MATBAIJ));
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnnz, onnz, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (ib = spec->rstart; ib < rend; ib++) {
    nc = RowPattern(spec, ib, cols);
    RowValues(spec, seed, ib, nc, vals);
    PetscCall(MatSetValuesBlocked(*A, 1, &ib, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree4(cols, vals, dnnz, onnz));
  PetscCall(MatGetInfo(*A, MAT_GLOBAL_SUM, &info));
  PetscCheck((PetscInt64)info.nz_used == spec->nblocks * bs * bs, comm, PETSC_ERR_PLIB, "Assembled %g nonzeros, expected %" PetscInt64_FMT, (double)info.nz_used, spec->nblocks * bs * bs);
  PetscFunctionReturn(0);
}

/* Assemble the matrix as (SEQ|MPI)BAIJ on PETSC_COMM_WORLD, each rank its block rows. */
PetscErrorCode AssembleBAIJ(const MatrixSpec *spec, PetscInt seed, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(AssembleBAIJOn(PETSC_COMM_WORLD, spec, seed, A));
  PetscFunctionReturn(0);
}

/* Memory traffic model: values + column indices + row pointers, plus x read and y written (and z read). */
PetscErrorCode TrafficModel(Mat A, const MatrixSpec *spec, Result *res)
{
  MatType      type;
  PetscBool    scalarcsr = PETSC_FALSE;
  const char  *p1, *p2;
  const double nrows = (double)spec->nbrows * spec->bs, nnz = (double)spec->nblocks * spec->bs * spec->bs;
  double       idx;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &type));
  /* CSR types (aij, aijcusparse, ...) store one column index per scalar; every other type is taken as BSR. */
  PetscCall(PetscStrstr(type, "aij", (char **)&p1));
  PetscCall(PetscStrstr(type, "baij", (char **)&p2));
  if (p1 && !p2) scalarcsr = PETSC_TRUE;
  if (scalarcsr) idx = nnz * sizeof(PetscInt) + (nrows + 1) * sizeof(PetscInt);
  else idx = (double)spec->nblocks * sizeof(PetscInt) + ((double)spec->nbrows + 1) * sizeof(PetscInt);
  res->matrix_bytes  = nnz * sizeof(PetscScalar) + idx;
  res->mult_bytes    = res->matrix_bytes + 2.0 * nrows * sizeof(PetscScalar);
  res->multadd_bytes = res->matrix_bytes + 3.0 * nrows * sizeof(PetscScalar);
  PetscFunctionReturn(0);
}

PetscErrorCode FillRandom(Vec x, PetscInt seed)
{
  PetscInt     lo, hi, i;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArray(x, &a));
  for (i = lo; i < hi; i++) {
    uint64_t s = RowSeed(seed, 3, i);
    a[i - lo]  = 2.0 * Uniform(&s) - 1.0;
  }
  PetscCall(VecRestoreArray(x, &a));
  PetscFunctionReturn(0);
}

/* Does the requested type name the BAIJ matrix we assembled? */
PetscErrorCode IsBaseType(Mat base, const char type[], PetscBool *same)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(type, MATBAIJ, same));
  if (!*same) PetscCall(PetscObjectTypeCompare((PetscObject)base, type, same));
  PetscFunctionReturn(0);
}

/* whether A's MatMult runs on a GPU: ours on a GPU backend, or a PETSc GPU type */
PetscErrorCode RunsOnDevice(Mat A, PetscBool *dev)
{
  const char *const gpu[] = {"cusparse", "hipsparse", "kokkos", "viennacl", "cuda", "hip"};
  MatType           type;

  PetscFunctionBeginUser;
  PetscCall(IsGPUBSRCustom(A, dev));
  PetscCall(MatGetType(A, &type));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(gpu) && !*dev; k++) {
    const char *p;
    PetscCall(PetscStrstr(type, gpu[k], (char **)&p));
    *dev = (PetscBool)(p != NULL);
  }
  PetscFunctionReturn(0);
}

/* whether A is a bsrcustom type whose products run on a GPU backend (gpu) or on the cpu backend */
static PetscErrorCode IsBSRCustomOn(Mat A, PetscBool gpu, PetscBool *on)
{
  MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, on, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  if (*on) PetscCall(MatBSRCustomGetBackend(A, &backend));
  *on = (PetscBool)(*on && (backend != MAT_BSRCUSTOM_BACKEND_CPU) == gpu);
  PetscFunctionReturn(0);
}

PetscErrorCode IsCPUBSRCustom(Mat A, PetscBool *cpu_bsr)
{
  PetscFunctionBeginUser;
  PetscCall(IsBSRCustomOn(A, PETSC_FALSE, cpu_bsr));
  PetscFunctionReturn(0);
}

PetscErrorCode IsGPUBSRCustom(Mat A, PetscBool *gpu_bsr)
{
  PetscFunctionBeginUser;
  PetscCall(IsBSRCustomOn(A, PETSC_TRUE, gpu_bsr));
  PetscFunctionReturn(0);
}
