/* common.c - dtype table, error messages, checked arithmetic, clock. */
#define _POSIX_C_SOURCE 200809L
#include "core/common.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const struct {
	const char *name;
	size_t size;
	float max;
} dtypes[F8B_DTYPE_COUNT] = {
    [F8B_F32] = {"f32", 4, FLT_MAX},
    [F8B_BF16] = {"bf16", 2, 3.38953139e38f}, /* 0x7F7F */
    [F8B_E4M3] = {"e4m3", 1, 448.0f},
    [F8B_E5M2] = {"e5m2", 1, 57344.0f},
};

size_t f8b_dtype_size(enum f8b_dtype t)
{
	return (unsigned)t < F8B_DTYPE_COUNT ? dtypes[t].size : 0;
}

const char *f8b_dtype_name(enum f8b_dtype t)
{
	return (unsigned)t < F8B_DTYPE_COUNT ? dtypes[t].name : "?";
}

float f8b_dtype_max(enum f8b_dtype t)
{
	return (unsigned)t < F8B_DTYPE_COUNT ? dtypes[t].max : 0.0f;
}

bool f8b_dtype_is_fp8(enum f8b_dtype t)
{
	return t == F8B_E4M3 || t == F8B_E5M2;
}

int f8b_dtype_parse(const char *s, enum f8b_dtype *out)
{
	static const struct {
		const char *alias;
		enum f8b_dtype t;
	} aliases[] = {
	    {"f32", F8B_F32},          {"fp32", F8B_F32},           {"float32", F8B_F32},
	    {"bf16", F8B_BF16},        {"bfloat16", F8B_BF16},      {"e4m3", F8B_E4M3},
	    {"e4m3fn", F8B_E4M3},      {"float8_e4m3fn", F8B_E4M3}, {"e5m2", F8B_E5M2},
	    {"float8_e5m2", F8B_E5M2},
	};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcasecmp(s, aliases[i].alias) == 0) {
			*out = aliases[i].t;
			return F8B_OK;
		}
	}
	return F8B_ERR(F8B_EINVAL, "unknown dtype '%s' (accepted: e4m3, e5m2, bf16, f32)", s);
}

static _Thread_local char err_msg[1024];
static char err_ctx[160];

void f8b_set_error_context(const char *host, int rank)
{
	snprintf(err_ctx, sizeof err_ctx, "%s:rank %d: ", host ? host : "?", rank);
}

int f8b_errorf(int status, const char *file, int line, const char *fmt, ...)
{
	char body[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	/* Errors about the user's input and files read best without source
	 * locations; device, MPI and internal failures carry host, rank and
	 * file:line for whoever has to debug them. */
	if (status == F8B_EINVAL || status == F8B_EIO || status == F8B_EUNSUPPORTED)
		snprintf(err_msg, sizeof err_msg, "%s", body);
	else
		snprintf(err_msg, sizeof err_msg, "%s%s (%s:%d)", err_ctx, body, file, line);
	return status;
}

const char *f8b_last_error(void)
{
	return err_msg;
}

void f8b_clear_error(void)
{
	err_msg[0] = '\0';
}

const char *f8b_status_name(int status)
{
	switch (status) {
	case F8B_OK: return "ok";
	case F8B_EINVAL: return "invalid input";
	case F8B_ENOMEM: return "out of memory";
	case F8B_EIO: return "I/O error";
	case F8B_EUNSUPPORTED: return "unsupported";
	case F8B_EDEVICE: return "device error";
	case F8B_EMPI: return "MPI error";
	case F8B_EINTERRUPTED: return "interrupted";
	default: return "internal error";
	}
}

bool f8b_mul_overflows(int64_t a, int64_t b, int64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

double f8b_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *f8b_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int f8b_parse_positive(const char *opt, const char *arg, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0 && v <= max))
		return F8B_ERR(F8B_EINVAL, "--%s '%s': expected a number in (0, %g]", opt, arg,
		               max);
	*out = v;
	return F8B_OK;
}

int f8b_parse_timeout(const char *arg, double *out)
{
	if (f8b_parse_positive("timeout", arg, 86400, out) != F8B_OK)
		return F8B_ERR(F8B_EINVAL, "--timeout '%s': expected seconds in (0, 86400]", arg);
	return F8B_OK;
}

void f8b_setstr(char *dst, size_t n, const char *s)
{
	memset(dst, 0, n);
	snprintf(dst, n, "%s", s);
}
