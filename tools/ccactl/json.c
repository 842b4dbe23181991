// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: text/JSON printer (json.h).  The JSON side is a small streaming
 * writer: it tracks the open containers so commas, keys and (with -p)
 * indentation come out right.
 */
#include <stdarg.h>
#include <stdio.h>

#include "json.h"

#define MAX_DEPTH 32

static struct {
	FILE *f;
	bool json, pretty;
	bool started;			/* something was written (JSON) */
	int depth;			/* open containers */
	bool is_object[MAX_DEPTH + 1];	/* per level: object, not array */
	bool has_items[MAX_DEPTH + 1];	/* per level: written into */
} out = { .f = NULL };

void print_begin(FILE *f, bool json, bool pretty)
{
	out.f = f;
	out.json = json;
	out.pretty = pretty;
	out.started = false;
	out.depth = 0;
}

void print_end(void)
{
	if (out.json && out.started)
		fputc('\n', out.f);
	fflush(out.f);
	out.started = false;
}

bool print_is_json(void)
{
	return out.json;
}

static void newline_indent(void)
{
	int i;

	fputc('\n', out.f);
	for (i = 0; i < out.depth; i++)
		fputs("  ", out.f);
}

static void write_json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out.f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
		case '\\':
			fputc('\\', out.f);
			fputc(*p, out.f);
			break;
		case '\n':
			fputs("\\n", out.f);
			break;
		case '\t':
			fputs("\\t", out.f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out.f, "\\u%04x", *p);
			else
				fputc(*p, out.f);
		}
	}
	fputc('"', out.f);
}

/* Everything that precedes a value: comma, indentation, "key":. */
static void begin_value(const char *key)
{
	out.started = true;
	if (out.depth == 0)
		return;
	if (out.has_items[out.depth])
		fputc(',', out.f);
	out.has_items[out.depth] = true;
	if (out.pretty)
		newline_indent();
	if (out.is_object[out.depth]) {
		write_json_string(key ? key : "");
		fputs(out.pretty ? ": " : ":", out.f);
	}
}

static void open_container(const char *key, bool object)
{
	if (!out.json)
		return;
	begin_value(key);
	fputc(object ? '{' : '[', out.f);
	if (out.depth < MAX_DEPTH)
		out.depth++;
	out.is_object[out.depth] = object;
	out.has_items[out.depth] = false;
}

static void close_container(bool object)
{
	bool had_items;

	if (!out.json || out.depth == 0)
		return;
	had_items = out.has_items[out.depth];
	out.depth--;
	if (had_items && out.pretty)
		newline_indent();
	fputc(object ? '}' : ']', out.f);
}

void open_json_object(const char *key)
{
	open_container(key, true);
}

void close_json_object(void)
{
	close_container(true);
}

void open_json_array(const char *key)
{
	open_container(key, false);
}

void close_json_array(void)
{
	close_container(false);
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (out.json) {
		if (t & PRINT_JSON) {
			begin_value(key);
			if (value)
				write_json_string(value);
			else
				fputs("null", out.f);
		}
	} else if (t & PRINT_TEXT) {
		fprintf(out.f, fmt ? fmt : "%s", value ? value : "");
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned long long value)
{
	if (out.json) {
		if (t & PRINT_JSON) {
			begin_value(key);
			fprintf(out.f, "%llu", value);
		}
	} else if (t & PRINT_TEXT) {
		fprintf(out.f, fmt ? fmt : "%llu", value);
	}
}

void print_int(enum output_type t, const char *key, const char *fmt,
	       long long value)
{
	if (out.json) {
		if (t & PRINT_JSON) {
			begin_value(key);
			fprintf(out.f, "%lld", value);
		}
	} else if (t & PRINT_TEXT) {
		fprintf(out.f, fmt ? fmt : "%lld", value);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value)
{
	const char *s = value ? "true" : "false";

	if (out.json) {
		if (t & PRINT_JSON) {
			begin_value(key);
			fputs(s, out.f);
		}
	} else if (t & PRINT_TEXT) {
		fprintf(out.f, fmt ? fmt : "%s", s);
	}
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (out.json)
		return;
	va_start(ap, fmt);
	vfprintf(out.f, fmt, ap);
	va_end(ap);
}
