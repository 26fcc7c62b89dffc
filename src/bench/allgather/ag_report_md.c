/* ag_report_md.c - the allgather report's CSV files (the projection and
 * its check against the measured rows) and its sections of report.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/allgather/ag_report.h"

static void csv_key(FILE *f, const struct f8b_allgather_row *r)
{
	f8b_rpt_csv_str(f, r->mode);
	fprintf(f, ",%lld,%lld,%d,%d,%s,%lld,%d,", (long long)r->d_out, (long long)r->d_in,
	        (int)r->layers, (int)r->prefetch, r->rs_dtype, (long long)r->tokens_per_rank,
	        (int)r->ranks);
}

int f8b_arpt_write_csv(struct arpt *A)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(A->ctx.dir, &o, "ag-validation.csv"));
	/* check: replay (the row's own collectives, as measured alone) or
	 * ranks (predicted from the case on from_ranks ranks, collectives
	 * modelled from the node's measured all-gather). */
	fprintf(o.f, "mode,d_out,d_in,layers,prefetch,rs_dtype,tokens_per_rank,ranks,measured_s,"
	             "predicted_s,ratio,within_15pct,check,from_ranks,variant,gemm_impl\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < A->n; i++) {
			const struct f8b_allgather_row *r = A->rows[i];
			const struct arpt_proj *p = &A->proj[i];
			if (!p->ok || (pass == 1 && !p->from_ranks))
				continue;
			double pred = pass ? p->cross : p->at_measured, q = pred / r->time_median_s;
			char v[192];
			f8b_arpt_variant(r, v, sizeof v);
			csv_key(o.f, r);
			fprintf(o.f, "%.9g,%.9g,%.4f,%d,%s,%d,", r->time_median_s, pred, q,
			        q >= 0.85 && q <= 1.15, pass ? "ranks" : "replay",
			        pass ? p->from_ranks : (int)r->ranks);
			f8b_rpt_csv_str(o.f, v);
			fprintf(o.f, ",%s\n", f8b_gemm_impl_name(f8b_ag_row_impl(r)));
		}
	F8B_TRY(f8b_rpt_close(&o, F8B_OK));
	F8B_TRY(f8b_rpt_open(A->ctx.dir, &o, "ag-projection.csv"));
	fprintf(o.f, "mode,d_out,d_in,layers,prefetch,rs_dtype,tokens_per_rank,measured_ranks,"
	             "ranks,predicted_step_s,exposed_pct,speedup_vs_bf16,net_bw_gbps,net_lat_us,"
	             "intra_busbw_gbps,intra_alpha_us,gpus_per_node,predicted_step_lower_s,"
	             "gemm_impl\n");
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		if (!A->proj[i].ok)
			continue;
		size_t bi = f8b_arpt_bf16_of(A, r);
		for (int k = 0; k < ARPT_NR; k++) {
			csv_key(o.f, r);
			double sp = bi < A->n && A->proj[bi].ok
			                ? A->proj[bi].step[k] / A->proj[i].step[k]
			                : NAN;
			fprintf(o.f, "%d,%.9g,%.3f,", f8b_arpt_ranks[k], A->proj[i].step[k],
			        A->proj[i].exposed_pct[k]);
			f8b_rpt_csv_num(o.f, sp);
			fprintf(o.f, ",%g,%g,%g,%g,%d,%.9g,%s\n", A->net.inter.busbw / 1e9,
			        A->net.inter.alpha_s * 1e6, A->intra.busbw / 1e9,
			        A->intra.alpha_s * 1e6, A->net.gpus_per_node, A->proj[i].step_lo[k],
			        f8b_gemm_impl_name(f8b_ag_row_impl(r)));
		}
	}
	return f8b_rpt_close(&o, F8B_OK);
}

static void setting_title(FILE *md, const struct f8b_allgather_row *r)
{
	bool opt = *r->optimizer && strcmp(r->optimizer, "none");
	fprintf(
	    md,
	    "\n### %d x [%lld x %lld], %d rank%s on %d node%s, prefetch %d, dW in %s%s%s%s%s\n\n",
	    (int)r->layers, (long long)r->d_out, (long long)r->d_in, (int)r->ranks,
	    r->ranks > 1 ? "s" : "", (int)r->nodes, r->nodes > 1 ? "s" : "", (int)r->prefetch,
	    r->rs_dtype, opt ? ", AdamW " : "", opt ? r->optimizer : "",
	    opt ? " on the shards, update " : "", opt ? r->update : "");
	fprintf(md, "%s on %s, %s (%s).\n\n", r->gpu, r->backend, r->library, r->transport);
}

static void measured_tables(const struct arpt *A, FILE *md)
{
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		if (i == 0 || !f8b_arpt_same_setting(A->rows[i - 1], r)) {
			setting_title(md, r);
			fprintf(
			    md,
			    "| tokens/rank | mode | step (ms) | x bf16 | exposed comm | overlap "
			    "eff. | all-gather busbw alone / in step (GB/s) | wait per gather (us) "
			    "| GEMM TFLOP/s kept | exact checks | SQNR min (dB) | peak mem (GiB) | "
			    "status |\n");
			fprintf(md,
			        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
			        "| --- | --- |\n");
		}
		fprintf(md, "| %lld | %s%s | ", (long long)r->tokens_per_rank, r->mode,
		        f8b_ag_impl_tag(r));
		f8b_rpt_md_num(md, "%.3f", 1e3 * r->time_median_s);
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.3f", r->speedup_vs_bf16);
		fputs(" | ", md);
		if (isfinite(r->exposed_pct)) {
			char ex[64];
			f8b_ag_exposed_str(r, ex, sizeof ex);
			fputs(ex, md);
		} else {
			f8b_rpt_md_num(md, "%.1f%%", r->exposed_pct);
		}
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.2f", r->overlap_efficiency);
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.1f", r->ag_busbw_gbps);
		fputs(" / ", md);
		f8b_rpt_md_num(md, "%.1f", r->ag_overlap_busbw_gbps);
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.1f", 1e6 * r->ag_wait_s);
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.1f%%", r->gemm_kept_pct);
		fprintf(md, " | %d | ", (int)r->checks);
		f8b_rpt_md_num(md, "%.1f", r->sqnr_min_db);
		fputs(" | ", md);
		f8b_rpt_md_num(md, "%.2f", (double)r->peak_mem_bytes / (1 << 30));
		fprintf(md, " | %s |\n", r->status);
	}
}

static void projection_tables(const struct arpt *A, FILE *md)
{
	fprintf(md, "\n## allgather: the step past one node (projection)\n\n"
	            "An alpha-beta model of ring collectives replays the step's two queues with "
	            "the compute measured here (doc/allgather.md, \"Projection\"). The network "
	            "it assumed:\n\n");
	fprintf(md, "- within a node (up to %d GPUs): busbw %.1f GB/s, alpha %.1f us, from %s\n",
	        A->net.gpus_per_node, A->intra.busbw / 1e9, A->intra.alpha_s * 1e6, A->intra_src);
	fprintf(md,
	        "- between nodes, per GPU: %.1f GB/s, alpha %.1f us (`--net-bw`, "
	        "`--net-lat`)\n\n",
	        A->net.inter.busbw / 1e9, A->net.inter.alpha_s * 1e6);
	fprintf(md, "### Against every measured rank count\n\n"
	            "The step replayed at the row's own rank count with its collectives as "
	            "measured alone (bytes-scaled) and its compute-only time: what the overlap "
	            "model predicts, against the step measured.\n\n"
	            "| ranks | mode | tokens/rank | measured (ms) | predicted (ms) | predicted / "
	            "measured |\n| --- | --- | --- | --- | --- | --- |\n");
	int n = 0, in = 0;
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		if (!A->proj[i].ok)
			continue;
		double q = A->proj[i].at_measured / r->time_median_s;
		n++;
		in += q >= 0.85 && q <= 1.15;
		fprintf(md, "| %d | %s%s | %lld | %.3f | %.3f | %.3f%s |\n", (int)r->ranks, r->mode,
		        f8b_ag_impl_tag(r), (long long)r->tokens_per_rank, 1e3 * r->time_median_s,
		        1e3 * A->proj[i].at_measured, q,
		        q >= 0.85 && q <= 1.15 ? "" : " (outside 15%)");
	}
	fprintf(md, "\n%d of %d rows within 15%%.\n\n", in, n);
	/* Across rank counts: each row predicted from the case on fewer ranks. */
	int nx = 0, inx = 0;
	for (size_t i = 0; i < A->n; i++)
		nx += A->proj[i].ok && A->proj[i].from_ranks;
	if (nx) {
		fprintf(md,
		        "### Across rank counts\n\n"
		        "Each row's step predicted from the same case measured on fewer ranks "
		        "(its compute-only time and overlap slowdown), with its collectives "
		        "modelled from the node's measured all-gather of the row's variant "
		        "(`--ceilings`), against the step measured.\n\n"
		        "| from ranks | ranks | collectives | mode | tokens/rank | measured (ms) | "
		        "predicted (ms) | predicted / measured |\n| --- | --- | --- | --- | --- | "
		        "--- | --- | --- |\n");
		for (size_t i = 0; i < A->n; i++) {
			const struct f8b_allgather_row *r = A->rows[i];
			const struct arpt_proj *p = &A->proj[i];
			if (!p->ok || !p->from_ranks)
				continue;
			double q = p->cross / r->time_median_s;
			char v[192];
			f8b_arpt_variant(r, v, sizeof v);
			inx += q >= 0.85 && q <= 1.15;
			fprintf(md, "| %d | %d | %s | %s%s | %lld | %.3f | %.3f | %.3f%s |\n",
			        p->from_ranks, (int)r->ranks, v, r->mode, f8b_ag_impl_tag(r),
			        (long long)r->tokens_per_rank, 1e3 * r->time_median_s,
			        1e3 * p->cross, q, q >= 0.85 && q <= 1.15 ? "" : " (outside 15%)");
		}
		fprintf(md, "\n%d of %d rows within 15%%.\n\n", inx, nx);
	}
	fprintf(md, "### Projected fp8 speedup over bf16\n\n"
	            "Collectives on a ring, `(R-1)` latency steps each: an upper bound on the "
	            "step past a node, where NCCL runs trees and PAT; the last column gives the "
	            "step at 1024 GPUs with `ceil(log2 R)` steps instead, the lower bound "
	            "(doc/allgather.md, \"Projection\").\n\n");
	fprintf(md, "| weight | tokens/rank | mode |");
	static const int show[] = {0, 3, 6, 7}; /* 8, 64, 512, 1024 ranks */
	for (int k = 0; k < 4; k++)
		fprintf(md, " %d GPUs |", f8b_arpt_ranks[show[k]]);
	fprintf(md, " exposed at 1024 | step at 1024, ring / log bound (ms) |\n"
	            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < A->n; i++) {
		const struct f8b_allgather_row *r = A->rows[i];
		size_t bi = f8b_arpt_bf16_of(A, r);
		if (!A->proj[i].ok || !strcmp(r->mode, "bf16") || bi == A->n || !A->proj[bi].ok)
			continue;
		fprintf(md, "| %dx[%lldx%lld] | %lld | %s%s |", (int)r->layers, (long long)r->d_out,
		        (long long)r->d_in, (long long)r->tokens_per_rank, r->mode,
		        f8b_ag_impl_tag(r));
		for (int k = 0; k < 4; k++)
			fprintf(md, " %.3f |",
			        A->proj[bi].step[show[k]] / A->proj[i].step[show[k]]);
		fprintf(md, " %.1f%% | %.2f / %.2f |\n", A->proj[i].exposed_pct[ARPT_NR - 1],
		        1e3 * A->proj[i].step[ARPT_NR - 1], 1e3 * A->proj[i].step_lo[ARPT_NR - 1]);
	}
	fprintf(md, "\nAll rank counts: [ag-projection.csv](ag-projection.csv); the check: "
	            "[ag-validation.csv](ag-validation.csv).\n");
}

int f8b_arpt_markdown(void *state, FILE *md, bool drawn)
{
	const struct arpt *A = state;
	fprintf(md, "\n## allgather: the emulated FSDP step\n\n"
	            "Each row is one step (forward and backward through the stack), the slowest "
	            "rank's; exposed communication is the step minus the same step without its "
	            "collectives; busbw as nccl-tests defines it (doc/allgather.md).\n");
	bool f8b = false;
	for (size_t i = 0; i < A->n; i++)
		f8b |= f8b_ag_row_impl(A->rows[i]) == F8B_GEMM_IMPL_F8B;
	if (f8b)
		fprintf(md, "\nA mode marked `[f8b]` ran its fp8 GEMMs on f8bench's own kernel "
		            "(`--gemm-impl f8b`); the others, and every bf16 GEMM, on cuBLASLt.\n");
	measured_tables(A, md);
	fputc('\n', md);
	if (A->nspeed) {
		f8b_rpt_md_plot(md, "ag_speedup", "fp8 speedup over bf16 and exposed communication",
		                drawn);
		fprintf(md, "[ag-speedup.dat](ag-speedup.dat)\n\n");
	}
	if (A->nbus || A->nnccl) {
		f8b_rpt_md_plot(md, "ag_busbw", "all-gather bus bandwidth", drawn);
		fprintf(md, "[ag-busbw.dat](ag-busbw.dat)\n\n");
	} else {
		fprintf(md,
		        "No row of two or more ranks and no NCCL all-gather in a ceilings file: "
		        "no bus bandwidth to plot.\n");
	}
	projection_tables(A, md);
	if (A->nproj) {
		fputc('\n', md);
		f8b_rpt_md_plot(md, "ag_projection", "projected fp8 speedup against GPUs", drawn);
		fprintf(md, "[ag-projection.dat](ag-projection.dat)\n");
	}
	int bad = 0;
	for (size_t i = 0; i < A->n; i++)
		if (strcmp(A->rows[i]->status, "ok")) {
			if (!bad++)
				fprintf(
				    md,
				    "\n### allgather rows that are not ok\n\n| mode | weight | "
				    "tokens/rank | ranks | status | message |\n| --- | --- | --- | "
				    "--- | --- | --- |\n");
			const struct f8b_allgather_row *r = A->rows[i];
			fprintf(md, "| %s%s | %lldx%lld | %lld | %d | %s | ", r->mode,
			        f8b_ag_impl_tag(r), (long long)r->d_out, (long long)r->d_in,
			        (long long)r->tokens_per_rank, (int)r->ranks, r->status);
			f8b_rpt_md_str(md, r->message);
			fprintf(md, " |\n");
		}
	return ferror(md) ? F8B_ERR(F8B_EIO, "writing report.md") : F8B_OK;
}
