/* gemm_report_roof.c - the gemm report's roofs (measured and datasheet),
 * axis ranges, plot-vars.gp (the series, roofs and ranges the gnuplot
 * templates in roofline/ read) and the roofline data files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_report.h"

static void add_roof(struct rpt *R, const struct f8b_ceilings *c, bool fp8)
{
	double peak = (fp8 ? c->fp8_flops_per_s : c->bf16_flops_per_s) / 1e12;
	double bw = c->hbm_bytes_per_s / 1e12;
	if (!f8b_rpt_finite_pos(peak) && !f8b_rpt_finite_pos(bw))
		return;
	if (!f8b_rpt_finite_pos(peak) && fp8)
		return; /* the bandwidth slope is drawn with the bf16 roof */
	struct rpt_roof *o = &R->roofs[R->nroofs++];
	snprintf(o->source, sizeof o->source, "%s", c->source);
	snprintf(o->dtype, sizeof o->dtype, "%s", fp8 ? "fp8" : "bf16");
	o->peak_tflops = f8b_rpt_finite_pos(peak) ? peak : NAN;
	o->bw_tbs = f8b_rpt_finite_pos(bw) ? bw : NAN;
	char p[32] = "?", b[32] = "?";
	if (f8b_rpt_finite_pos(peak))
		snprintf(p, sizeof p, "%.4g TFLOP/s", peak);
	if (f8b_rpt_finite_pos(bw))
		snprintf(b, sizeof b, "%.3g TB/s", bw);
	const char *at = fp8 ? c->fp8_at : c->bf16_at;
	snprintf(o->title, sizeof o->title, "%s roof, %s%s%s (%s, %s)", fp8 ? "fp8" : "bf16",
	         c->source, at[0] ? " at " : "", at, p, b);
}

/* Datasheet ceilings of the device named by the first file's provenance;
 * measured ones from --ceilings or the first file with a ceilings table. */
int f8b_grpt_ceilings(struct rpt *R, const char *ceil_path)
{
	struct f8b_device_info dev;
	memset(&dev, 0, sizeof dev);
	const struct f8b_provenance *pv = R->files[0].prov;
	const char *name = f8b_prov_get(pv, "device_name");
	const char *pci = f8b_prov_get(pv, "device_pci_id");
	snprintf(dev.name, sizeof dev.name, "%s", name ? name : "");
	dev.pci_device_id = pci ? (unsigned)strtoul(pci, NULL, 0) : 0;
	f8b_peaks_lookup(&dev, &R->peaks);
	f8b_ceilings_datasheet(&R->peaks, &R->ds);
	R->have_ds = R->peaks.known;

	R->meas_path = ceil_path;
	for (int f = 0; !R->meas_path && f < R->nfiles; f++)
		if (R->files[f].has_ceilings)
			R->meas_path = R->files[f].path;
	if (R->meas_path) {
		int rc = f8b_ceilings_read(R->meas_path, NULL, &R->meas);
		if (rc != F8B_OK)
			return rc;
		R->have_meas = true;
	}
	/* The ceilings for % of roofline: measured where known, the
	 * datasheet's for the rest. */
	R->pref = R->have_meas ? R->meas : R->ds;
	if (R->have_meas && R->have_ds) {
		if (!f8b_rpt_finite_pos(R->pref.hbm_bytes_per_s))
			R->pref.hbm_bytes_per_s = R->ds.hbm_bytes_per_s;
		if (!f8b_rpt_finite_pos(R->pref.bf16_flops_per_s))
			R->pref.bf16_flops_per_s = R->ds.bf16_flops_per_s;
		if (!f8b_rpt_finite_pos(R->pref.fp8_flops_per_s))
			R->pref.fp8_flops_per_s = R->ds.fp8_flops_per_s;
		if (!f8b_rpt_finite_pos(R->pref.launch_s))
			R->pref.launch_s = R->ds.launch_s;
	}
	if (R->have_meas) {
		snprintf(R->meas.source, sizeof R->meas.source, "measured");
		add_roof(R, &R->meas, false);
		add_roof(R, &R->meas, true);
	}
	if (R->have_ds) {
		snprintf(R->ds.source, sizeof R->ds.source, "datasheet");
		add_roof(R, &R->ds, false);
		add_roof(R, &R->ds, true);
	}
	return F8B_OK;
}

/* Round down / up to 1, 2 or 5 times a power of ten: log axes that end on
 * a labelled value without a nearly empty decade. */
static double nice_down(double v)
{
	double d = pow(10, floor(log10(v)));
	return v >= 5 * d ? 5 * d : v >= 2 * d ? 2 * d : d;
}

static double nice_up(double v)
{
	double d = pow(10, floor(log10(v)));
	return v <= d ? d : v <= 2 * d ? 2 * d : v <= 5 * d ? 5 * d : 10 * d;
}

/* Log-log ranges: 1-2-5 steps around every point, each roof's ridge
 * (peak / bandwidth) with room to its left for the bandwidth slope, and
 * the highest roof. */
void f8b_grpt_ranges(struct rpt *R)
{
	double ai_lo = INFINITY, ai_hi = 0, tf_lo = INFINITY, tf_hi = 0;
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		if (!f8b_rpt_finite_pos(p->ai) || !f8b_rpt_finite_pos(p->r->tflops))
			continue;
		ai_lo = fmin(ai_lo, p->ai);
		ai_hi = fmax(ai_hi, p->ai);
		tf_lo = fmin(tf_lo, p->r->tflops);
		tf_hi = fmax(tf_hi, p->r->tflops);
	}
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *o = &R->roofs[i];
		if (f8b_rpt_finite_pos(o->peak_tflops) && f8b_rpt_finite_pos(o->bw_tbs)) {
			double ridge = o->peak_tflops / o->bw_tbs;
			ai_lo = fmin(ai_lo, ridge / 8);
			ai_hi = fmax(ai_hi, ridge * 4);
		}
		if (f8b_rpt_finite_pos(o->peak_tflops))
			tf_hi = fmax(tf_hi, o->peak_tflops);
	}
	if (!(ai_hi > 0)) { /* nothing plottable: any sane frame */
		ai_lo = 1;
		ai_hi = 1000;
		tf_lo = 1;
		tf_hi = 1000;
	}
	R->xmin = nice_down(ai_lo / 1.5);
	R->xmax = nice_up(ai_hi * 1.5);
	R->ymin = nice_down(tf_lo / 2);
	R->ymax = nice_up(tf_hi * 1.5);
}

/* GPU and date for titles, from every file's provenance. */

const char *f8b_grpt_fast_name(int fast)
{
	return fast < 0 ? "" : fast ? "on" : "off";
}

/* x of a series on the SQNR chart: slot s->slot, fp8 dtype pairs side
 * by side within it. */
double f8b_grpt_sqnr_x(const struct rpt *R, int s)
{
	const struct rpt_series *S = &R->series[s];
	if (S->pair_idx < 0 || R->npairs < 2)
		return S->slot;
	double w = 0.5 / R->npairs; /* the pairs share half a slot */
	return S->slot + (S->pair_idx - (R->npairs - 1) / 2.0) * w;
}

int f8b_grpt_write_plot_vars(const struct rpt *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->dir, &o, "plot-vars.gp"));
	FILE *f = o.f;
	fprintf(f, "# f8bench report: what the templates in roofline/ plot (written by f8bench).\n"
	           "# Data blocks (gnuplot index i-1) of roofline-points.dat, speedup.dat,\n"
	           "# sqnr.dat and sqnr-summary.dat are series i below.\n");
	fprintf(f, "gpu = ");
	f8b_rpt_gp_str(f, R->gpu);
	fprintf(f, "\ndate = ");
	f8b_rpt_gp_str(f, R->date);
	fprintf(f, "\nrl_xmin = %g\nrl_xmax = %g\nrl_ymin = %g\nrl_ymax = %g\n", R->xmin, R->xmax,
	        R->ymin, R->ymax);

	fprintf(f,
	        "\nns = %d\narray s_title[%d]\narray s_short[%d]\narray s_gran[%d]\n"
	        "array s_fast[%d]\narray s_pair[%d]\narray s_x[%d]\n",
	        R->nseries, R->nseries, R->nseries, R->nseries, R->nseries, R->nseries, R->nseries);
	for (int i = 0; i < R->nseries; i++) {
		const struct rpt_series *s = &R->series[i];
		fprintf(f, "s_title[%d] = ", i + 1);
		f8b_rpt_gp_str(f, s->title);
		fprintf(f, "; s_short[%d] = ", i + 1);
		f8b_rpt_gp_str(f, s->short_title);
		fprintf(f, "; s_gran[%d] = ", i + 1);
		f8b_rpt_gp_str(f, s->gran);
		/* s_fast: 1 on, 0 off, -1 bf16; s_pair: 1-based, 0 bf16 */
		fprintf(f, "; s_fast[%d] = %d; s_pair[%d] = %d; s_x[%d] = %g\n", i + 1, s->fast,
		        i + 1, s->pair_idx + 1, i + 1, f8b_grpt_sqnr_x(R, i));
	}

	fprintf(f,
	        "\nnpairs = %d\narray pair_name[%d]\narray pair_first[%d]\narray pair_last[%d]\n",
	        R->npairs, R->npairs ? R->npairs : 1, R->npairs ? R->npairs : 1,
	        R->npairs ? R->npairs : 1);
	for (int p = 0; p < R->npairs; p++) {
		int first = 0, last = -1;
		for (int i = 0; i < R->nseries; i++)
			if (R->series[i].pair_idx == p) {
				if (!first)
					first = i + 1;
				last = i + 1;
			}
		fprintf(f, "pair_name[%d] = ", p + 1);
		f8b_rpt_gp_str(f, R->pairs[p]);
		fprintf(f, "; pair_first[%d] = %d; pair_last[%d] = %d\n", p + 1, first, p + 1,
		        last);
	}

	fprintf(f, "\nnshapes = %d\narray shape_name[%d]\n", R->nshapes,
	        R->nshapes ? R->nshapes : 1);
	for (int i = 0; i < R->nshapes; i++) {
		fprintf(f, "shape_name[%d] = ", i + 1);
		f8b_rpt_gp_str(f, R->shapes[i].name);
		fputc('\n', f);
	}

	fprintf(f, "\nnslots = %d\narray slot_name[%d]\n", R->nslots, R->nslots ? R->nslots : 1);
	for (int slot = 1; slot <= R->nslots; slot++)
		for (int i = 0; i < R->nseries; i++) {
			const struct rpt_series *s = &R->series[i];
			if (s->slot != slot)
				continue;
			/* \n inside gnuplot's double quotes is its line break */
			if (s->fast < 0)
				fprintf(f, "slot_name[%d] = \"bf16\"\n", slot);
			else
				fprintf(f, "slot_name[%d] = \"%s\\nfast_accum %s\"\n", slot,
				        s->gran, f8b_grpt_fast_name(s->fast));
			break;
		}

	fprintf(f,
	        "\nnroofs = %d\narray r_title[%d]\narray r_source[%d]\narray r_dtype[%d]\n"
	        "array r_peak[%d]\n",
	        R->nroofs, R->nroofs ? R->nroofs : 1, R->nroofs ? R->nroofs : 1,
	        R->nroofs ? R->nroofs : 1, R->nroofs ? R->nroofs : 1);
	/* gnuplot parses the body of an empty "for [i=1:0]": give it values. */
	if (!R->nroofs)
		fprintf(f, "r_title[1] = \"\"; r_source[1] = \"\"; r_dtype[1] = \"\"; "
		           "r_peak[1] = NaN\n");
	for (int i = 0; i < R->nroofs; i++) {
		fprintf(f, "r_title[%d] = ", i + 1);
		f8b_rpt_gp_str(f, R->roofs[i].title);
		fprintf(f, "; r_source[%d] = ", i + 1);
		f8b_rpt_gp_str(f, R->roofs[i].source);
		fprintf(f, "; r_dtype[%d] = ", i + 1);
		f8b_rpt_gp_str(f, R->roofs[i].dtype);
		fprintf(f, "; r_peak[%d] = ", i + 1);
		f8b_rpt_gp_num(f, R->roofs[i].peak_tflops);
		fputc('\n', f);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

int f8b_grpt_write_roofline_data(const struct rpt *R)
{
	struct f8b_rpt_out o;
	F8B_TRY(f8b_rpt_open(R->dir, &o, "roofline-points.dat"));
	f8b_rpt_dat_header(o.f, "roofline points (status ok rows)",
	                   "arith_intensity_flop_per_byte achieved_tflops m k n");
	for (int s = 0; s < R->nseries; s++) {
		fprintf(o.f, "%s# series %d: %s\n", s ? "\n\n" : "", s + 1, R->series[s].title);
		for (size_t i = 0; i < R->npts; i++) {
			const struct rpt_point *p = &R->pts[i];
			if (p->series != s)
				continue;
			f8b_rpt_gp_num(o.f, p->ai);
			fputc(' ', o.f);
			f8b_rpt_gp_num(o.f, p->r->tflops);
			fprintf(o.f, " %lld %lld %lld\n", (long long)p->r->m, (long long)p->r->k,
			        (long long)p->r->n);
		}
	}
	int rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	/* A roof is min(peak, ai * bandwidth): straight in log-log on each
	 * side of the ridge, so three points draw it exactly. */
	F8B_TRY(f8b_rpt_open(R->dir, &o, "roofline-roofs.dat"));
	fprintf(o.f, "# f8bench report: roofs, one block (gnuplot index i-1) per roof i of "
	             "plot-vars.gp\n# arith_intensity_flop_per_byte attainable_tflops\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		double xs[3] = {R->xmin, NAN, R->xmax};
		if (f8b_rpt_finite_pos(r->peak_tflops) && f8b_rpt_finite_pos(r->bw_tbs))
			xs[1] = r->peak_tflops / r->bw_tbs;
		fprintf(o.f, "%s# roof %d: %s\n", i ? "\n\n" : "", i + 1, r->title);
		for (int j = 0; j < 3; j++) {
			if (isnan(xs[j]) || xs[j] < R->xmin || xs[j] > R->xmax)
				continue;
			double y = f8b_rpt_finite_pos(r->bw_tbs) ? xs[j] * r->bw_tbs : INFINITY;
			if (f8b_rpt_finite_pos(r->peak_tflops))
				y = fmin(y, r->peak_tflops);
			fprintf(o.f, "%.9g %.9g\n", xs[j], y);
		}
	}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(f8b_rpt_open(R->dir, &o, "roofline.csv"));
	fprintf(o.f, "file,label,m,k,n,scaling,a_gran,b_gran,fast_accum,a_dtype,b_dtype,"
	             "out_dtype,arith_intensity,tflops,roof_tflops,pct_of_roofline,roofline_source,"
	             "pct_peak\n");
	for (size_t i = 0; i < R->npts; i++) {
		const struct rpt_point *p = &R->pts[i];
		const struct f8b_gemm_row *r = p->r;
		f8b_rpt_csv_str(o.f, R->files[p->file].path);
		fputc(',', o.f);
		f8b_rpt_csv_str(o.f, r->label);
		fprintf(o.f, ",%lld,%lld,%lld,", (long long)r->m, (long long)r->k, (long long)r->n);
		fprintf(o.f, "%s,%s,%s,%d,%s,%s,%s,", r->scaling, r->a_gran, r->b_gran,
		        r->fast_accum, r->a_dtype, r->b_dtype, r->out_dtype);
		f8b_rpt_csv_num(o.f, p->ai);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, r->tflops);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, p->roof_tflops);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, p->pct_roof);
		fprintf(o.f, ",%s,", p->roof_src);
		f8b_rpt_csv_num(o.f, r->pct_peak);
		fputc('\n', o.f);
	}
	rc = f8b_rpt_close(&o, F8B_OK);
	if (rc != F8B_OK)
		return rc;

	F8B_TRY(f8b_rpt_open(R->dir, &o, "roofs.csv"));
	fprintf(o.f, "source,dtype,peak_tflops,hbm_tbs,ridge_flop_per_byte\n");
	for (int i = 0; i < R->nroofs; i++) {
		const struct rpt_roof *r = &R->roofs[i];
		fprintf(o.f, "%s,%s,", r->source, r->dtype);
		f8b_rpt_csv_num(o.f, r->peak_tflops);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, r->bw_tbs);
		fputc(',', o.f);
		f8b_rpt_csv_num(o.f, r->peak_tflops / r->bw_tbs);
		fputc('\n', o.f);
	}
	return f8b_rpt_close(&o, F8B_OK);
}

/* Values of series s at shape sh (NaN-free), into v; returns how many. */
