/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: one printer for text and JSON output, in the spirit of iproute2's
 * json_print.  A command calls print_begin(), then describes its output
 * once: each print_*() call names a JSON key and a text format, and
 * prints whichever the mode asks for.  open/close_json_*() shape the JSON
 * document and do nothing in text mode.  Keys are ignored inside arrays.
 */
#ifndef CCACTL_JSON_H
#define CCACTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

enum output_type {
	PRINT_TEXT = 1,		/* only in text mode */
	PRINT_JSON = 2,		/* only in JSON mode */
	PRINT_ANY  = 3,		/* both */
};

void print_begin(FILE *f, bool json, bool pretty);
void print_end(void);	/* ends the JSON document with a newline */
bool print_is_json(void);

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

/* @fmt is the text-mode printf format for the value. */
void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value) __attribute__((format(printf, 3, 0)));
void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned long long value) __attribute__((format(printf, 3, 0)));
void print_int(enum output_type t, const char *key, const char *fmt,
	       long long value) __attribute__((format(printf, 3, 0)));
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value) __attribute__((format(printf, 3, 0)));

/* Text mode only: free-form text (labels, newlines). */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CCACTL_JSON_H */
