/* test_roofline.c - the roofline model against hand-computed numbers:
 * GEMM and cast-kernel costs, intensity, predicted times, datasheet
 * ceilings and ceilings read back from a `f8bench ceilings` file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/roofline.h"
#include "results/schema.h"
#include "tap.h"

/* Relative closeness; exact integers in doubles compare exactly anyway. */
static int near(double got, double want)
{
	if (want == 0)
		return got == 0;
	return fabs(got - want) <= 1e-12 * fabs(want);
}

static int cost_is(const struct f8b_cost *c, double flops, double rd, double wr)
{
	return near(c->flops, flops) && near(c->bytes_read, rd) && near(c->bytes_written, wr);
}

static void show(const char *what, const struct f8b_cost *c)
{
	tap_diag("%s: flops %.17g read %.17g written %.17g", what, c->flops, c->bytes_read,
	         c->bytes_written);
}

static struct f8b_gemm_desc gemm(int64_t m, int64_t n, int64_t k, enum f8b_dtype a,
                                 enum f8b_dtype b, enum f8b_dtype out, enum f8b_granularity ag,
                                 enum f8b_granularity bg)
{
	struct f8b_gemm_desc d = {.m = m,
	                          .n = n,
	                          .k = k,
	                          .a_dtype = a,
	                          .b_dtype = b,
	                          .out_dtype = out,
	                          .a_gran = ag,
	                          .b_gran = bg};
	return d;
}

static void test_gemm_costs(void)
{
	struct f8b_cost c;
	struct f8b_gemm_desc d;

	/* bf16 4096^3: 2*4096^3 flops; A and B 4096*4096*2 B each; D bf16. */
	d = gemm(4096, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, F8B_GRAN_TENSORWISE,
	         F8B_GRAN_TENSORWISE);
	f8b_cost_gemm(&d, &c);
	show("bf16 4096^3", &c);
	tap_ok(cost_is(&c, 137438953472.0, 67108864.0, 33554432.0),
	       "gemm bf16 4096^3: 137438953472 flops, 64 MiB read, 32 MiB written");
	tap_ok(near(f8b_cost_bytes(&c), 100663296.0), "gemm bf16 4096^3: 96 MiB moved");
	tap_ok(near(f8b_cost_intensity(&c), 4096.0 / 3.0),
	       "gemm bf16 4096^3: intensity = 2N^3 / 6N^2 = N/3 = 1365.33 flop/B (got %.6f)",
	       f8b_cost_intensity(&c));

	/* bf16 scales are ignored even when a granularity is set. */
	d.a_gran = F8B_GRAN_BLOCK1X128;
	d.b_gran = F8B_GRAN_BLOCK128X128;
	f8b_cost_gemm(&d, &c);
	tap_ok(near(c.bytes_read, 67108864.0), "gemm bf16: granularity adds no scale bytes");

	/* fp8 tensorwise 4096^3, bf16 out: 16 MiB per operand + 2 scales. */
	d = gemm(4096, 4096, 4096, F8B_E4M3, F8B_E4M3, F8B_BF16, F8B_GRAN_TENSORWISE,
	         F8B_GRAN_TENSORWISE);
	f8b_cost_gemm(&d, &c);
	show("e4m3 tensorwise 4096^3", &c);
	tap_ok(cost_is(&c, 137438953472.0, 33554440.0, 33554432.0),
	       "gemm e4m3 tensorwise 4096^3: read 2*16 MiB + 2*4 B of scales");
	tap_ok(near(f8b_cost_intensity(&c), 137438953472.0 / 67108872.0),
	       "gemm e4m3 tensorwise: intensity 2048.0 flop/B (got %.6f)", f8b_cost_intensity(&c));

	/* fp8 axiswise M=4096 N=8192 K=1024 (e4m3 x e5m2): scales M + N. */
	d = gemm(4096, 8192, 1024, F8B_E4M3, F8B_E5M2, F8B_BF16, F8B_GRAN_AXISWISE,
	         F8B_GRAN_AXISWISE);
	f8b_cost_gemm(&d, &c);
	show("axiswise 4096x8192x1024", &c);
	/* 4096*1024 + 8192*1024 + 4*(4096 + 8192) = 12632064 */
	tap_ok(cost_is(&c, 2.0 * 4096 * 8192 * 1024, 12632064.0, 67108864.0),
	       "gemm axiswise 4096x8192x1024: read 12632064 B, written 64 MiB");

	/* f32 output doubles the written bytes. */
	d.out_dtype = F8B_F32;
	f8b_cost_gemm(&d, &c);
	tap_ok(near(c.bytes_written, 134217728.0), "gemm axiswise, f32 out: 128 MiB written");
	/* e4m3 out: 1 byte an element, plus d_scale read and amax_d written. */
	d.out_dtype = F8B_E4M3;
	f8b_cost_gemm(&d, &c);
	tap_ok(cost_is(&c, 2.0 * 4096 * 8192 * 1024, 12632068.0, 33554436.0),
	       "gemm axiswise, e4m3 out: 32 MiB + 4 B (amax_d) written, 4 B more read (d_scale)");

	/* Blockwise 4096^3: A 1x128 -> 4096*32 scales, B 128x128 -> 32*32. */
	d = gemm(4096, 4096, 4096, F8B_E4M3, F8B_E4M3, F8B_BF16, F8B_GRAN_BLOCK1X128,
	         F8B_GRAN_BLOCK128X128);
	f8b_cost_gemm(&d, &c);
	/* 2*16777216 + 4*(131072 + 1024) = 34082816 */
	tap_ok(cost_is(&c, 137438953472.0, 34082816.0, 33554432.0),
	       "gemm blockwise 4096^3: read 34082816 B (scales 131072 + 1024 floats)");

	/* Ragged blockwise M=256 N=300 K=640: A scales 256 x ceil(640/128)=5
	 * = 1280; B scales ceil(300/128)=3 rows x 5 cols padded to ld 8
	 * (16-byte rows) = 24 floats, not 15. */
	d = gemm(256, 300, 640, F8B_E4M3, F8B_E4M3, F8B_BF16, F8B_GRAN_BLOCK1X128,
	         F8B_GRAN_BLOCK128X128);
	f8b_cost_gemm(&d, &c);
	show("blockwise 256x300x640", &c);
	/* 256*640 + 300*640 + 4*(1280 + 24) = 163840 + 192000 + 5216 */
	tap_ok(cost_is(&c, 98304000.0, 361056.0, 153600.0),
	       "gemm blockwise 256x300x640: padded 128x128 scale count 24 -> read 361056 B");

	/* Mixed: fp8 A (tensorwise) with a bf16 B brings only A's scale. */
	d = gemm(128, 256, 512, F8B_E4M3, F8B_BF16, F8B_BF16, F8B_GRAN_TENSORWISE,
	         F8B_GRAN_BLOCK128X128);
	f8b_cost_gemm(&d, &c);
	/* 128*512*1 + 256*512*2 + 4 = 65536 + 262144 + 4 */
	tap_ok(near(c.bytes_read, 327684.0), "gemm fp8 A x bf16 B: only A's scale counted");
}

static void test_cast_costs(void)
{
	struct f8b_cost c;
	const double n = 1024.0 * 4096.0; /* 4194304 elements */

	f8b_cost_amax(F8B_BF16, F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, n, 2 * n, 4.0), "amax bf16 1024x4096 tensorwise: read 8 MiB, write 4 B");
	f8b_cost_amax(F8B_BF16, F8B_GRAN_AXISWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, n, 2 * n, 4096.0), "amax axiswise: writes 1024 amaxes (4096 B)");
	f8b_cost_amax(F8B_F32, F8B_GRAN_BLOCK128X128, 1024, 4096, &c);
	/* 8 x 32 blocks, ld 32: 256 floats */
	tap_ok(cost_is(&c, n, 4 * n, 1024.0), "amax f32 128x128: read 16 MiB, write 256 floats");

	f8b_cost_scales(F8B_GRAN_AXISWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, 2048.0, 4096.0, 8192.0),
	       "scales axiswise 1024 rows: read 1024 amaxes, write scale + scale_inv");
	f8b_cost_scales(F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, 2.0, 4.0, 8.0), "scales tensorwise: 4 B in, 8 B out");

	f8b_cost_cast(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	show("cast bf16->e4m3 1024x4096", &c);
	tap_ok(cost_is(&c, n, 2 * n + 4, n), "cast bf16->e4m3: read x + 1 scale, write q (4 MiB)");
	tap_ok(near(f8b_cost_intensity(&c), n / (3 * n + 4)),
	       "cast intensity ~1/3 flop/B (got %.6f)", f8b_cost_intensity(&c));

	/* f32 input, block1x128, ragged 256 x 1000: 256 * 8 scales. */
	f8b_cost_cast(F8B_F32, F8B_E5M2, F8B_GRAN_BLOCK1X128, 256, 1000, &c);
	tap_ok(cost_is(&c, 256000.0, 1024000.0 + 8192.0, 256000.0),
	       "cast f32->e5m2 256x1000 block1x128: read 1032192 B, write 256000 B");

	f8b_cost_cast_transpose(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, n, 2 * n + 4, 2 * n), "cast_transpose: writes q and q^T (8 MiB)");
	f8b_cost_cast_transpose(F8B_BF16, F8B_E4M3, F8B_GRAN_AXISWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, n, 2 * n + 4096, 2 * n), "cast_transpose axiswise: reads 1024 scales");

	f8b_cost_amax_cast_fused(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	show("fused amax+cast", &c);
	tap_ok(cost_is(&c, 2 * n + 2, 4 * n, n + 4),
	       "fused amax+cast: reads x twice (16 MiB), writes q + scale_inv");
	f8b_cost_amax_cast_fused(F8B_BF16, F8B_E4M3, F8B_GRAN_AXISWISE, 1024, 4096, &c);
	tap_ok(cost_is(&c, 2 * n + 2048, 4 * n, n + 4096),
	       "fused amax+cast axiswise: writes q + 1024 scale_inv");

	/* The fused kernel moves less than amax + scales + cast run apart. */
	struct f8b_cost a, s, k;
	f8b_cost_amax(F8B_BF16, F8B_GRAN_AXISWISE, 1024, 4096, &a);
	f8b_cost_scales(F8B_GRAN_AXISWISE, 1024, 4096, &s);
	f8b_cost_cast(F8B_BF16, F8B_E4M3, F8B_GRAN_AXISWISE, 1024, 4096, &k);
	tap_ok(f8b_cost_bytes(&c) < f8b_cost_bytes(&a) + f8b_cost_bytes(&s) + f8b_cost_bytes(&k),
	       "fused moves fewer bytes than the three kernels apart");

	f8b_cost_cast(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, 0, 4096, &c);
	tap_ok(cost_is(&c, 0, 0, 0) && isnan(f8b_cost_intensity(&c)),
	       "empty tensor: zero cost, intensity NaN");
}

/* Round ceilings so every expected time is exact decimal arithmetic. */
static struct f8b_ceilings round_ceilings(void)
{
	struct f8b_ceilings c = {.hbm_bytes_per_s = 1e12,
	                         .bf16_flops_per_s = 1e15,
	                         .fp8_flops_per_s = 2e15,
	                         .launch_s = 5e-6};
	snprintf(c.source, sizeof c.source, "test");
	return c;
}

static void test_roofline_time(void)
{
	struct f8b_ceilings ceil = round_ceilings();
	struct f8b_cost c;
	struct f8b_gemm_desc d;
	double t;

	/* Compute-bound: bf16 4096^3, 1.37438953472e-4 s of math against
	 * 1.00663296e-4 s of memory traffic. */
	d = gemm(4096, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, 0, 0);
	f8b_cost_gemm(&d, &c);
	t = f8b_roofline_time(&c, &ceil, F8B_BF16);
	tap_ok(near(t, 1.37438953472e-4 + 5e-6), "bf16 4096^3 compute-bound: %.12g s", t);

	/* The same cost as memory-only (F8B_F32): bytes / hbm + launch. */
	t = f8b_roofline_time(&c, &ceil, F8B_F32);
	tap_ok(near(t, 1.00663296e-4 + 5e-6), "F8B_F32 = memory roof only: %.12g s", t);

	/* Memory-bound: M=16 (a decode-like GEMM): 5.37e-7 s of math,
	 * (16*4096*2 + 4096*4096*2 + 16*4096*2) B = 33816576 B -> 3.38e-5 s. */
	d = gemm(16, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, 0, 0);
	f8b_cost_gemm(&d, &c);
	tap_ok(near(f8b_cost_bytes(&c), 33816576.0), "M=16 GEMM moves 33816576 B");
	t = f8b_roofline_time(&c, &ceil, F8B_BF16);
	tap_ok(near(t, 3.3816576e-5 + 5e-6), "bf16 16x4096x4096 memory-bound: %.12g s", t);

	/* fp8 tensorwise 4096^3 at 2e15: 6.8719476736e-5 s of math against
	 * 67108872 B -> 6.7108872e-5 s: compute-bound by a hair. */
	d = gemm(4096, 4096, 4096, F8B_E4M3, F8B_E4M3, F8B_BF16, F8B_GRAN_TENSORWISE,
	         F8B_GRAN_TENSORWISE);
	f8b_cost_gemm(&d, &c);
	t = f8b_roofline_time(&c, &ceil, F8B_E4M3);
	tap_ok(near(t, 6.8719476736e-5 + 5e-6), "e4m3 4096^3 at fp8 rate: %.12g s", t);
	tap_ok(near(f8b_roofline_time(&c, &ceil, F8B_E5M2), t), "e5m2 uses the same fp8 roof");
	/* The same flops at the bf16 rate take twice as long. */
	t = f8b_roofline_time(&c, &ceil, F8B_BF16);
	tap_ok(near(t, 1.37438953472e-4 + 5e-6), "fp8 GEMM timed at the bf16 roof: %.12g s", t);

	/* A cast is memory-bound: (8388612 + 4194304) B / 1e12. */
	f8b_cost_cast(F8B_BF16, F8B_E4M3, F8B_GRAN_TENSORWISE, 1024, 4096, &c);
	t = f8b_roofline_time(&c, &ceil, F8B_F32);
	tap_ok(near(t, 1.2582916e-5 + 5e-6), "cast 1024x4096 memory roof: %.12g s", t);

	/* pct_of_roofline */
	tap_ok(near(f8b_pct_of_roofline(1e-5, 2e-5), 50.0), "pct_of_roofline(1e-5, 2e-5) = 50");
	tap_ok(near(f8b_pct_of_roofline(3e-5, 3e-5), 100.0), "pct_of_roofline at the roof = 100");
	tap_ok(isnan(f8b_pct_of_roofline(NAN, 1e-5)), "pct_of_roofline: NaN predicted -> NaN");
	tap_ok(isnan(f8b_pct_of_roofline(1e-5, NAN)), "pct_of_roofline: NaN measured -> NaN");
	tap_ok(isnan(f8b_pct_of_roofline(1e-5, 0.0)), "pct_of_roofline: zero measured -> NaN");

	/* NaN handling: an unknown needed ceiling gives NaN. */
	d = gemm(4096, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, 0, 0);
	f8b_cost_gemm(&d, &c);
	struct f8b_ceilings x = ceil;
	x.hbm_bytes_per_s = NAN;
	tap_ok(isnan(f8b_roofline_time(&c, &x, F8B_BF16)) &&
	           isnan(f8b_roofline_time(&c, &x, F8B_F32)),
	       "NaN hbm -> NaN time (compute and memory-only)");
	x = ceil;
	x.hbm_bytes_per_s = 0;
	tap_ok(isnan(f8b_roofline_time(&c, &x, F8B_F32)), "zero hbm -> NaN time");
	x = ceil;
	x.bf16_flops_per_s = NAN;
	tap_ok(isnan(f8b_roofline_time(&c, &x, F8B_BF16)), "NaN bf16 peak -> NaN bf16 time");
	tap_ok(near(f8b_roofline_time(&c, &x, F8B_F32), 1.00663296e-4 + 5e-6),
	       "NaN bf16 peak does not matter for the memory-only roof");
	/* 4096^3 bf16 operands at the fp8 rate: 6.87e-5 s of math under
	 * 1.0066e-4 s of traffic, so the memory roof decides. */
	tap_ok(near(f8b_roofline_time(&c, &x, F8B_E4M3), 1.00663296e-4 + 5e-6),
	       "NaN bf16 peak does not matter for an fp8 roof");
	x = ceil;
	x.fp8_flops_per_s = 0; /* a GPU without fp8 (A100) */
	tap_ok(isnan(f8b_roofline_time(&c, &x, F8B_E4M3)), "fp8 rate 0 -> NaN fp8 time");
	x = ceil;
	x.launch_s = NAN;
	tap_ok(isnan(f8b_roofline_time(&c, &x, F8B_BF16)), "NaN launch -> NaN time");
	x = ceil;
	x.launch_s = 0;
	tap_ok(near(f8b_roofline_time(&c, &x, F8B_BF16), 1.37438953472e-4),
	       "launch 0 is allowed (pure roofline)");
	struct f8b_cost bad = {.flops = NAN, .bytes_read = 1, .bytes_written = 1};
	tap_ok(isnan(f8b_roofline_time(&bad, &ceil, F8B_BF16)), "NaN flops -> NaN time");
}

static void set_roofline_dir(void)
{
	/* make check exports srcdir; otherwise peaks.c finds the table
	 * through its compile-time F8B_SRCDIR (or an F8B_ROOFLINE we keep). */
	const char *src = getenv("srcdir");
	if (src) {
		char dir[1024];
		snprintf(dir, sizeof dir, "%s/roofline", src);
		setenv("F8B_ROOFLINE", dir, 1);
	}
}

static void test_datasheet(struct f8b_ceilings *h100)
{
	struct f8b_device_info dev = {.pci_device_id = 0x2330};
	struct f8b_peaks p;

	snprintf(dev.name, sizeof dev.name, "NVIDIA H100 80GB HBM3");
	f8b_peaks_lookup(&dev, &p);
	tap_ok(p.known, "datasheet: H100 SXM5 row found by pci id 0x2330 (%s)", p.how);
	f8b_ceilings_datasheet(&p, h100);
	tap_ok(near(h100->bf16_flops_per_s, 989.4e12), "H100 bf16 = 989.4e12 flop/s (got %.6g)",
	       h100->bf16_flops_per_s);
	tap_ok(near(h100->fp8_flops_per_s, 1978.9e12), "H100 fp8 = 1978.9e12 flop/s (got %.6g)",
	       h100->fp8_flops_per_s);
	tap_ok(near(h100->hbm_bytes_per_s, 3.35e12), "H100 hbm = 3.35e12 B/s (got %.6g)",
	       h100->hbm_bytes_per_s);
	tap_ok(h100->launch_s == F8B_DEFAULT_LAUNCH_S && near(h100->launch_s, 4e-6),
	       "datasheet launch = F8B_DEFAULT_LAUNCH_S = 4 us");
	tap_ok(strcmp(h100->source, "datasheet") == 0, "datasheet: source 'datasheet'");
	tap_ok(strstr(h100->detail, "H100 SXM5") && strstr(h100->detail, "0x2330"),
	       "datasheet detail names the row and the match: '%s'", h100->detail);

	/* The H100 ridge point: 989.4e12 / 3.35e12 = 295.3 flop/B, so the
	 * bf16 4096^3 GEMM (1365 flop/B) sits on the compute roof. */
	struct f8b_cost c;
	struct f8b_gemm_desc d = gemm(4096, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, 0, 0);
	f8b_cost_gemm(&d, &c);
	double t = f8b_roofline_time(&c, h100, F8B_BF16);
	tap_ok(near(t, 137438953472.0 / 989.4e12 + 4e-6),
	       "H100 bf16 4096^3 predicted %.6g s (139 us of math + 4 us)", t);

	/* A100: no fp8 -> fp8 ceiling 0 (not NaN: known to be absent). */
	dev.pci_device_id = 0x20b2;
	snprintf(dev.name, sizeof dev.name, "NVIDIA A100-SXM4-80GB");
	f8b_peaks_lookup(&dev, &p);
	struct f8b_ceilings a100;
	f8b_ceilings_datasheet(&p, &a100);
	tap_ok(p.known && a100.fp8_flops_per_s == 0 && near(a100.hbm_bytes_per_s, 2.039e12),
	       "A100 80GB: fp8 0, hbm 2.039e12 B/s");

	/* Unknown device: every rate NaN, still labelled datasheet. */
	struct f8b_device_info unk = {.pci_device_id = 0xbeef};
	snprintf(unk.name, sizeof unk.name, "Mystery Accelerator");
	f8b_peaks_lookup(&unk, &p);
	struct f8b_ceilings u;
	f8b_ceilings_datasheet(&p, &u);
	tap_ok(!p.known && isnan(u.hbm_bytes_per_s) && isnan(u.bf16_flops_per_s) &&
	           isnan(u.fp8_flops_per_s),
	       "unknown device: hbm, bf16, fp8 NaN");
	tap_ok(strcmp(u.source, "datasheet") == 0 && strstr(u.detail, "unknown"),
	       "unknown device: source datasheet, detail '%s'", u.detail);
	tap_ok(isnan(f8b_roofline_time(&c, &u, F8B_BF16)), "unknown device: predicted time NaN");
}

static struct f8b_ceilings_row row(const char *kind, const char *dtype, int64_t bytes, double value,
                                   const char *status)
{
	struct f8b_ceilings_row r;

	memset(&r, 0, sizeof r);
	snprintf(r.kind, sizeof r.kind, "%s", kind);
	snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
	snprintf(r.backend, sizeof r.backend, "cuda");
	snprintf(r.status, sizeof r.status, "%s", status);
	snprintf(r.unit, sizeof r.unit, "%s",
	         strcmp(kind, "gemm") == 0     ? "FLOP/s"
	         : strcmp(kind, "launch") == 0 ? "s"
	                                       : "B/s");
	snprintf(r.gpu, sizeof r.gpu, "NVIDIA H100 80GB HBM3");
	r.bytes = bytes;
	if (strcmp(kind, "gemm") == 0)
		r.m = r.k = r.n = 8192;
	r.value = value;
	r.datasheet_value = NAN;
	r.samples = 10;
	r.converged = 1;
	r.ranks = 1;
	return r;
}

static int write_file(const char *path, const struct f8b_table_schema *s, const void *rows,
                      size_t n)
{
	struct f8b_results *r = NULL;
	int rc = f8b_results_open(path, false, s, NULL, &r, NULL);
	if (rc != F8B_OK)
		return rc;
	if (n)
		rc = f8b_results_append(r, rows, n);
	int rc2 = f8b_results_close(r);
	return rc != F8B_OK ? rc : rc2;
}

static void test_ceilings_read(const char *dir, const struct f8b_ceilings *h100)
{
	const int64_t MiB = 1 << 20;
	char full[512], copies[512], gemmf[512], empty[512];
	struct f8b_ceilings c;
	int rc;

	snprintf(full, sizeof full, "%s/ceilings.h5", dir);
	snprintf(copies, sizeof copies, "%s/copies-only.h5", dir);
	snprintf(gemmf, sizeof gemmf, "%s/gemm.h5", dir);
	snprintf(empty, sizeof empty, "%s/empty.h5", dir);

	/* Copy sweep: the 1 MiB point is L2-resident (9 TB/s) and must not
	 * count; the three largest sizes are 256 MiB, 1 GiB (two runs) and
	 * 4 GiB: values 3.0, 3.1, 3.2, 2.9 TB/s -> median 3.05e12.  A failed
	 * 4 GiB row and a read-kind row are ignored. */
	struct f8b_ceilings_row rows[] = {
	    row("copy", "", 1 * MiB, 9.0e12, F8B_ROW_OK),
	    row("copy", "", 64 * MiB, 2.5e12, F8B_ROW_OK),
	    row("copy", "", 256 * MiB, 3.0e12, F8B_ROW_OK),
	    row("copy", "", 1024 * MiB, 3.1e12, F8B_ROW_OK),
	    row("copy", "", 1024 * MiB, 3.2e12, F8B_ROW_OK),
	    row("copy", "", 4096 * MiB, 2.9e12, F8B_ROW_OK),
	    row("copy", "", 4096 * MiB, 100e12, F8B_ROW_ERROR),
	    row("read", "", 8192 * MiB, 5.0e12, F8B_ROW_OK),
	    row("gemm", "bf16", 0, 6.5e14, F8B_ROW_OK),
	    row("gemm", "bf16", 0, 7.0e14, F8B_ROW_OK),
	    row("gemm", "e4m3", 0, 1.2e15, F8B_ROW_OK),
	    row("gemm", "e4m3", 0, 1.3e15, F8B_ROW_OK),
	    row("gemm", "e5m2", 0, 1.25e15, F8B_ROW_OK),
	    row("gemm", "e4m3", 0, 5.0e15, F8B_ROW_WRONG),
	    row("launch", "", 0, 5.5e-6, F8B_ROW_OK),
	};
	size_t nrows = sizeof rows / sizeof rows[0];
	rc = write_file(full, &f8b_ceilings_schema, rows, nrows);
	tap_ok(rc == F8B_OK, "wrote a ceilings file with %zu rows (%s)", nrows,
	       rc ? f8b_last_error() : "ok");

	rc = f8b_ceilings_read(full, h100, &c);
	tap_ok(rc == F8B_OK, "ceilings_read: full file (%s)", rc ? f8b_last_error() : "ok");
	tap_ok(near(c.hbm_bytes_per_s, 3.05e12),
	       "hbm = median over the 3 largest copy sizes = 3.05e12 (got %.6g)",
	       c.hbm_bytes_per_s);
	tap_ok(near(c.bf16_flops_per_s, 7.0e14), "bf16 = best bf16 gemm row 7.0e14 (got %.6g)",
	       c.bf16_flops_per_s);
	tap_ok(near(c.fp8_flops_per_s, 1.3e15),
	       "fp8 = best ok e4m3/e5m2 row 1.3e15, 'wrong' row ignored (got %.6g)",
	       c.fp8_flops_per_s);
	tap_ok(near(c.launch_s, 5.5e-6), "launch = the launch row 5.5 us (got %.6g)", c.launch_s);
	tap_ok(strcmp(c.source, "measured") == 0, "source 'measured'");
	tap_ok(strstr(c.detail, "ceilings.h5") && !strstr(c.detail, "not measured"),
	       "detail names the file, no fallback: '%s'", c.detail);

	/* Predicted time with measured ceilings: bf16 4096^3 at 7e14. */
	struct f8b_cost k;
	struct f8b_gemm_desc d = gemm(4096, 4096, 4096, F8B_BF16, F8B_BF16, F8B_BF16, 0, 0);
	f8b_cost_gemm(&d, &k);
	tap_ok(near(f8b_roofline_time(&k, &c, F8B_BF16), 137438953472.0 / 7e14 + 5.5e-6),
	       "measured ceilings drive the prediction");

	/* Only a copy sweep: gemm peaks and launch come from the datasheet. */
	struct f8b_ceilings_row only[] = {
	    row("copy", "", 512 * MiB, 3.0e12, F8B_ROW_OK),
	    row("copy", "", 2048 * MiB, 3.1e12, F8B_ROW_OK),
	};
	rc = write_file(copies, &f8b_ceilings_schema, only, 2);
	rc = rc ? rc : f8b_ceilings_read(copies, h100, &c);
	tap_ok(rc == F8B_OK, "ceilings_read: copy-only file (%s)", rc ? f8b_last_error() : "ok");
	tap_ok(near(c.hbm_bytes_per_s, 3.05e12), "two sizes only: median of both = 3.05e12");
	tap_ok(near(c.bf16_flops_per_s, 989.4e12) && near(c.fp8_flops_per_s, 1978.9e12) &&
	           near(c.launch_s, 4e-6),
	       "missing bf16, fp8, launch taken from the datasheet fallback");
	tap_ok(strcmp(c.source, "measured") == 0, "partly measured is still 'measured'");
	tap_ok(strstr(c.detail, "datasheet") && strstr(c.detail, "bf16") &&
	           strstr(c.detail, "fp8") && strstr(c.detail, "launch") &&
	           !strstr(c.detail, "hbm"),
	       "detail says which pieces came from where: '%s'", c.detail);

	rc = f8b_ceilings_read(copies, NULL, &c);
	tap_ok(rc == F8B_OK && near(c.hbm_bytes_per_s, 3.05e12) && isnan(c.bf16_flops_per_s) &&
	           isnan(c.fp8_flops_per_s) && isnan(c.launch_s),
	       "no fallback: missing pieces stay NaN");
	tap_ok(strstr(c.detail, "unknown") != NULL, "no fallback: detail says unknown: '%s'",
	       c.detail);

	/* An empty ceilings table: every number is the fallback's. */
	rc = write_file(empty, &f8b_ceilings_schema, NULL, 0);
	rc = rc ? rc : f8b_ceilings_read(empty, h100, &c);
	tap_ok(rc == F8B_OK && near(c.hbm_bytes_per_s, 3.35e12) &&
	           strcmp(c.source, "datasheet") == 0,
	       "empty table: all from the fallback, labelled '%s'", c.source);

	/* A results file of another benchmark: a clear EINVAL. */
	struct f8b_gemm_row g;
	memset(&g, 0, sizeof g);
	g.m = g.n = g.k = 16;
	snprintf(g.status, sizeof g.status, F8B_ROW_OK);
	rc = write_file(gemmf, &f8b_gemm_schema, &g, 1);
	tap_ok(rc == F8B_OK, "wrote a gemm results file (%s)", rc ? f8b_last_error() : "ok");
	f8b_clear_error();
	rc = f8b_ceilings_read(gemmf, h100, &c);
	tap_ok(rc == F8B_EINVAL, "file without a ceilings table -> F8B_EINVAL (got %s)",
	       f8b_status_name(rc));
	tap_ok(strstr(f8b_last_error(), gemmf) && strstr(f8b_last_error(), "f8bench ceilings"),
	       "message names the file and `f8bench ceilings`: %s", f8b_last_error());

	char missing[512];
	snprintf(missing, sizeof missing, "%s/no-such-file.h5", dir);
	rc = f8b_ceilings_read(missing, h100, &c);
	tap_ok(rc != F8B_OK && rc != F8B_EINVAL && strstr(f8b_last_error(), "no-such-file.h5"),
	       "missing file -> %s naming it", f8b_status_name(rc));

	unlink(full);
	unlink(copies);
	unlink(gemmf);
	unlink(empty);
}

int main(void)
{
	struct f8b_ceilings h100;
	char dir[] = "/tmp/f8b_roofline_XXXXXX";

	set_roofline_dir();
	test_gemm_costs();
	test_cast_costs();
	test_roofline_time();
	test_datasheet(&h100);
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp for the ceilings files");
		return tap_done();
	}
	test_ceilings_read(dir, &h100);
	rmdir(dir);
	return tap_done();
}
