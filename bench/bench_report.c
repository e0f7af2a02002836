/* Reports: the table rows, the targets and the JSON file. */
#include "bench_report.h"

static const char *const RefNames[] = {"triad", "read"};

/* %triad and %read: percentages of the host references, "-" for a product on a GPU */
PetscErrorCode PrintRow(const Result *r, double triad, double read)
{
  const double gbs    = r->mult_bytes / r->mult_s / 1e9;
  char         pt[16] = "-", pr[16] = "-";

  PetscFunctionBeginUser;
  if (!r->device) {
    PetscCall(PetscSNPrintf(pt, sizeof(pt), "%.1f", 100.0 * gbs / triad));
    PetscCall(PetscSNPrintf(pr, sizeof(pr), "%.1f", 100.0 * gbs / read));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3" PetscInt_FMT " %9" PetscInt64_FMT " %4" PetscInt_FMT " %9.1f %9.3f %8.2f %6s %6s %9.3f %8.2f %7.3f %7.3f %9.1e\n", r->matrix, r->type, r->bs, r->nblocks, r->reps_mult, r->matrix_bytes / 1e6, 1e3 * r->mult_s, gbs, pt, pr, 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd, PetscMax(r->diff_mult, r->diff_multadd)));
  PetscFunctionReturn(0);
}

/* higher: the target is value >= threshold (else value <= threshold) */
PetscErrorCode AddTarget(Target tg[], PetscInt maxtg, PetscInt *ntg, const char matrix[], const char name[], const char what[], double value, double threshold, PetscBool higher)
{
  Target *t;

  PetscFunctionBeginUser;
  if (*ntg >= maxtg) PetscFunctionReturn(0);
  t = &tg[(*ntg)++];
  PetscCall(PetscStrncpy(t->matrix, matrix, sizeof(t->matrix)));
  PetscCall(PetscStrncpy(t->name, name, sizeof(t->name)));
  PetscCall(PetscStrncpy(t->what, what, sizeof(t->what)));
  t->value     = value;
  t->threshold = threshold;
  t->pass      = (PetscBool)(higher ? value >= threshold : value <= threshold);
  PetscFunctionReturn(0);
}

PetscErrorCode WriteJSON(const char file[], const Result res[], PetscInt nres, double triad, double read, const PairedRow pr[], PetscInt npr, int nthreads, PetscInt reps, PetscInt trials, PetscReal budget, const SweepRow sw[], PetscInt nsw, const OverlapRow ov[], PetscInt nov, const OneRankRow one[], PetscInt none, const LoadedRow ld[], PetscInt nld, const CopiesRow cp[], PetscInt ncp, const KSPRow kr[], PetscInt nkr, const Target tg[], PetscInt ntg)
{
  FILE       *fp;
  PetscMPIInt size;
  PetscInt    i;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "{\n  \"ranks\": %d,\n  \"omp_threads_per_rank\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"trials\": %" PetscInt_FMT ",\n  \"time_budget_s\": %.6g,\n", (int)size, nthreads, reps, trials, (double)budget));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"stream_triad_gbs\": %.6g,\n  \"stream_read_gbs\": %.6g,\n", triad, read));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  \"bytes_model\": \"values + column indices (per block for block types, per scalar for AIJ types) + row pointers + x + y (+ z for MatMultAdd)\",\n  \"results\": [\n"));
  for (i = 0; i < nres; i++) {
    const Result *r = &res[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"bs\": %" PetscInt_FMT ", \"nrows\": %" PetscInt_FMT ", \"nblocks\": %" PetscInt64_FMT ", \"matrix_mb\": %.6g,", r->matrix, r->type, r->bs, r->nrows, r->nblocks, r->matrix_bytes / 1e6));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_ms\": %.6g, \"matmult_gbs\": %.6g,", 1e3 * r->mult_s, r->mult_bytes / r->mult_s / 1e9));
    if (r->device) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_pct_triad\": null, \"matmult_pct_read\": null,")); /* the host references say nothing of a GPU */
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmult_pct_triad\": %.6g, \"matmult_pct_read\": %.6g,", 100.0 * r->mult_bytes / r->mult_s / 1e9 / triad, 100.0 * r->mult_bytes / r->mult_s / 1e9 / read));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"matmultadd_ms\": %.6g, \"matmultadd_gbs\": %.6g, \"ratio_matmult\": %.6g, \"ratio_matmultadd\": %.6g,", 1e3 * r->multadd_s, r->multadd_bytes / r->multadd_s / 1e9, r->ratio_mult, r->ratio_multadd));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"reldiff_matmult\": %.3e, \"reldiff_matmultadd\": %.3e, \"convert_s\": %.6g, \"reps_matmult\": %" PetscInt_FMT ", \"reps_matmultadd\": %" PetscInt_FMT "}%s\n", r->diff_mult, r->diff_multadd, r->convert_s, r->reps_mult, r->reps_multadd, i + 1 < nres ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"sweeps\": [\n"));
  for (i = 0; i < nsw; i++) {
    const SweepRow *w = &sw[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"sweep\": \"%s\", \"threads\": %" PetscInt_FMT ", \"chunks_per_thread\": %" PetscInt_FMT ", \"tasks\": %" PetscInt_FMT ", \"reps\": %" PetscInt_FMT ", \"matmult_ms\": %.6g, \"matmult_gbs\": %.6g, \"stream_triad_gbs\": %.6g, \"matmult_pct_triad\": %.6g, \"stream_read_gbs\": %.6g, \"matmult_pct_read\": %.6g}%s\n", w->matrix, w->sweep, w->threads, w->chunks, w->ntasks, w->reps, 1e3 * w->mult_s, w->gbs, w->triad, 100.0 * w->gbs / w->triad, w->read, 100.0 * w->gbs / w->read, i + 1 < nsw ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"paired_references\": [\n"));
  for (i = 0; i < npr; i++) {
    const PairedRow *q = &pr[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"reference\": \"%s\", \"pairs\": %" PetscInt_FMT ", \"pct_paired\": %.6g, \"pct_q1\": %.6g, \"pct_q3\": %.6g, \"reference_gbs_median\": %.6g, \"matmult_gbs_median\": %.6g}%s\n", q->matrix, q->type, q->threads,
                           RefNames[q->p.kind], q->p.pairs, q->p.pct_med, q->p.pct_q1, q->p.pct_q3, q->p.ref_med, q->p.mult_med, i + 1 < npr ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"overlap\": [\n"));
  for (i = 0; i < nov; i++) {
    const OverlapRow *o = &ov[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"nghost_min\": %" PetscInt_FMT ", \"nghost_max\": %" PetscInt_FMT ", \"t_exchange_ms\": %.6g, \"t_local_ms\": %.6g, \"t_ghost_ms\": %.6g, \"t_full_ms\": %.6g, \"t_local_then_ghost_ms\": %.6g,", o->matrix, o->type, o->nghost_min, o->nghost_max, 1e3 * o->t_exchange, 1e3 * o->t_local, 1e3 * o->t_ghost, 1e3 * o->t_full, 1e3 * o->t_compute));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"bound_ms\": %.6g, \"full_over_bound\": %.6g, \"full_over_bound_warm_ghost\": %.6g, \"full_over_bound_paired\": %.6g, \"hidden_fraction\": %.6g, \"hidden_fraction_unclamped\": %.6g, \"t_full_no_mpi_progress_ms\": %.6g, \"no_mpi_progress_over_full_paired\": %.6g, \"pass\": %s, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", 1e3 * o->bound, o->ratio, o->ratio_warm, o->ratio_paired, o->hidden, o->hidden_raw, 1e3 * o->t_full_noprogress, o->noprogress_over_paired, o->pass ? "true" : "false", o->reps_exchange, o->reps_local, o->reps_ghost, o->reps_full, i + 1 < nov ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"one_rank_vs_ranks\": [\n"));
  for (i = 0; i < none; i++) {
    const OneRankRow *o = &one[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"mpibaij_ranks\": %d, \"t_mpibaij_ms\": %.6g, \"t_seqbaij_ms\": %.6g, \"t_bsrcustom_ms\": %.6g,", o->matrix, o->type, o->threads, (int)size, 1e3 * o->t[0], 1e3 * o->t[1], 1e3 * o->t[2]));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"vs_ranks_paired\": %.6g, \"vs_ranks_q1\": %.6g, \"vs_ranks_q3\": %.6g, \"vs_one_rank_paired\": %.6g, \"reldiff\": %.3e, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", o->vs_ranks, o->vs_ranks_q1, o->vs_ranks_q3, o->vs_one, o->diff, o->reps[0], o->reps[1], o->reps[2], i + 1 < none ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"busy_cores\": [\n"));
  for (i = 0; i < nld; i++) {
    const LoadedRow *l = &ld[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"threads\": %" PetscInt_FMT ", \"busy_processes\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ", \"busy_seqbaij_ms\": %.6g, \"busy_bsrcustom_ms\": %.6g, \"busy_ratio_paired\": %.6g, \"busy_ratio_q1\": %.6g, \"busy_ratio_q3\": %.6g,", l->matrix, l->type, l->threads, l->busy, l->trials, l->t_baij, l->t_bsr, l->ratio, l->q1, l->q3));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"idle_fallback_ms\": %.6g, \"idle_without_ms\": %.6g, \"idle_ratio_paired\": %.6g, \"idle_ratio_q1\": %.6g, \"idle_ratio_q3\": %.6g, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", l->t_on, l->t_off, l->idle, l->idle_q1, l->idle_q3, l->reps[0], l->reps[1], l->reps[2], l->reps[3], i + 1 < nld ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"baij_copies\": [\n"));
  for (i = 0; i < ncp; i++) {
    const CopiesRow *c = &cp[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"baij_type\": \"%s\", \"bs\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ", \"assembled_ms\": %.6g, \"converted_ms\": %.6g, \"duplicated_converted_ms\": %.6g,", c->matrix, c->type, c->baij_type, c->bs, c->trials, c->t[0], c->t[1], c->t[2]));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"converted_over_assembled_paired\": %.6g, \"converted_q1\": %.6g, \"converted_q3\": %.6g, \"duplicated_converted_over_assembled_paired\": %.6g, \"duplicated_converted_q1\": %.6g, \"duplicated_converted_q3\": %.6g, \"reldiff\": %.3e, \"reps\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]}%s\n", c->ratio[0], c->q1[0], c->q3[0], c->ratio[1], c->q1[1], c->q3[1], c->diff, c->reps[0], c->reps[1], c->reps[2], i + 1 < ncp ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"ksp\": [\n"));
  for (i = 0; i < nkr; i++) {
    const KSPRow *k = &kr[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"type\": \"%s\", \"ksp_type\": \"%s\", \"pc_type\": \"%s\", \"restart\": %" PetscInt_FMT ", \"its\": %" PetscInt_FMT ", \"trials\": %" PetscInt_FMT ",", k->matrix, k->type, k->ksp_type, k->pc_type, k->restart, k->its, k->trials));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " \"solve_ms\": %.6g, \"ms_per_it\": %.6g, \"ratio\": %.6g, \"reldiff_solution\": %.3e, \"relative_residual\": %.6e}%s\n", 1e3 * k->solve_s, 1e3 * k->solve_s / (double)k->its, k->ratio, k->diff, k->relres, i + 1 < nkr ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ],\n  \"targets\": [\n"));
  for (i = 0; i < ntg; i++) {
    const Target *t = &tg[i];
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "    {\"matrix\": \"%s\", \"target\": \"%s\", \"description\": \"%s\", \"value\": %.6g, \"threshold\": %.6g, \"pass\": %s}%s\n", t->matrix, t->name, t->what, t->value, t->threshold, t->pass ? "true" : "false", i + 1 < ntg ? "," : ""));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "  ]\n}\n"));
  PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  PetscFunctionReturn(0);
}
