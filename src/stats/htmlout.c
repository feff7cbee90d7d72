/*
 * htmlout: the small pieces of the HTML report's text: escaping of every
 * string that comes from an input file, the formats of times, sizes and
 * counts, and the colours of runs.
 */
#include <math.h>
#include <stdio.h>

#include "html.h"
#include "ioriot/textsafe.h"

void html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		size_t n = text_printable_len(p);

		if (!n) {
			/* A control character, a parse error in HTML or a
			 * reordering of the text around it (a name ending in
			 * "txt.exe" shown as "exe.txt"), or a byte that is no
			 * UTF-8: '?' for each byte. */
			for (n = text_char_len(p); n; n--, p++)
				fputc('?', f);
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fwrite(p, 1, n, f);
		}
		p += n;
	}
}

/* @v scaled down by @step while it is @step or more, with its unit from
 * @units (@n of them). */
static void scaled(char *buf, size_t len, double v, double step,
		   const char *const *units, size_t n)
{
	size_t u = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	while (u + 1 < n && fabs(v) >= step) {
		v /= step;
		u++;
	}
	if (u == 0 || fabs(v) >= 100 || v == floor(v))
		snprintf(buf, len, "%.0f%s", v, units[u]);
	else
		snprintf(buf, len, "%.*f%s", fabs(v) >= 10 ? 1 : 2, v,
			 units[u]);
}

void fmt_ns(char *buf, size_t len, double ns)
{
	static const char *const units[] = { " ns", " µs", " ms", " s" };

	scaled(buf, len, ns, 1000, units, 4);
}

void fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {
		" B", " KiB", " MiB", " GiB", " TiB", " PiB",
	};

	scaled(buf, len, bytes, 1024, units, 6);
}

void fmt_count(char *buf, size_t len, double n)
{
	static const char *const units[] = { "", "k", "M", "G", "T" };

	scaled(buf, len, n, 1000, units, 5);
}

void fmt_plain(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f", fabs(v) >= 100 ? 0 :
			 fabs(v) >= 10 ? 1 : 2, v);
}

const char *html_colour(size_t i)
{
	/* Okabe and Ito's palette, told apart by colour-blind readers too. */
	static const char *const palette[] = {
		"#0072b2", "#d55e00", "#009e73", "#cc79a7",
		"#e69f00", "#56b4e9", "#7f7f00", "#000000",
	};

	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

double json_num(const json_t *obj, const char *key)
{
	double d;

	if (jv_number(json_object_get(obj, key), &d))
		return NAN;
	return d;
}

void html_text_cut(FILE *f, const char *s, size_t max)
{
	size_t chars = 0, i;

	for (i = 0; s && s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			chars++;
	if (chars <= max) {
		html_text(f, s);
		return;
	}
	/* Keep the end, which names the file: "…" and the last max-1
	 * characters, cut at a character's first byte. */
	for (chars = 0; i > 0 && chars < max - 1; i--)
		if (((unsigned char)s[i - 1] & 0xc0) != 0x80)
			chars++;
	fputs("…", f);
	html_text(f, s + i);
}
