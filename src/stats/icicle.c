/*
 * icicle: a flame graph drawn top down as inline SVG.  Stacks of frames
 * with a weight are merged into a tree (equal prefixes share nodes); each
 * node is a box as wide as its share of the whole, below its parent,
 * children heaviest first.  Names too long for their box are cut, and
 * every box has its full name and weight as a tooltip.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define W 1000			/* viewBox width */
#define ROW_H 22
#define MAX_DEPTH 32
#define CHAR_W 7.2		/* of the 12-unit font, about */

struct node {
	char *name;
	double w;
	struct node *kids;
	size_t nkids, cap;
};

struct icicle {
	struct node root;
	size_t depth;
};

struct icicle *icicle_new(void)
{
	return calloc(1, sizeof(struct icicle));
}

/* The child of @n named @name, added if missing; NULL when out of memory. */
static struct node *child(struct node *n, const char *name)
{
	struct node *k;

	for (size_t i = 0; i < n->nkids; i++)
		if (!strcmp(n->kids[i].name, name))
			return &n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;

		k = realloc(n->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	k = &n->kids[n->nkids];
	memset(k, 0, sizeof(*k));
	k->name = strdup(name);
	if (!k->name)
		return NULL;
	n->nkids++;
	return k;
}

int icicle_add(struct icicle *ic, const char *const *frames, size_t n,
	       double w)
{
	struct node *at = &ic->root;

	if (!(w > 0))
		return 0;
	if (n > MAX_DEPTH)
		n = MAX_DEPTH;
	at->w += w;
	for (size_t i = 0; i < n; i++) {
		at = child(at, frames[i]);
		if (!at)
			return -ENOMEM;
		at->w += w;
	}
	if (n > ic->depth)
		ic->depth = n;
	return 0;
}

static int by_weight(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return (x->w < y->w) - (x->w > y->w);
}

/* A warm colour for a box, from its name and depth, so that equal names
 * look alike across the graph. */
static void colour(char *buf, size_t len, const char *name, size_t depth)
{
	unsigned h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(buf, len, "hsl(%u,%u%%,%u%%)", 10 + h % 40, 60 + h / 40 % 25,
		 62 + (unsigned)(depth % 4) * 4);
}

static void draw(FILE *f, struct node *n, double x, double scale,
		 size_t depth, fmt_fn fmt, size_t *boxes)
{
	double w = n->w * scale;
	char fill[40], val[32];
	size_t chars;

	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_weight);
	if (w >= 0.5) {
		colour(fill, sizeof(fill), n->name, depth);
		fmt(val, sizeof(val), n->w);
		fputs("<g><title>", f);
		html_text(f, n->name);
		fprintf(f, " — %s</title><rect class=\"frame\" x=\"%.2f\" "
			"y=\"%zu\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
			val, x, depth * ROW_H, w, ROW_H - 1, fill);
		chars = (size_t)((w - 6) / CHAR_W);
		if (chars >= 3) {
			fprintf(f, "<text class=\"frame-label\" x=\"%.2f\" "
				"y=\"%zu\">", x + 3, depth * ROW_H + 15);
			html_text_cut(f, n->name, chars);
			fputs("</text>", f);
		}
		fputs("</g>\n", f);
		(*boxes)++;
	}
	for (size_t i = 0; i < n->nkids; i++) {
		draw(f, &n->kids[i], x, scale, depth + 1, fmt, boxes);
		x += n->kids[i].w * scale;
	}
}

int icicle_write(FILE *f, struct icicle *ic, const char *title, fmt_fn fmt)
{
	struct node *root = &ic->root;
	double x = 0, scale = W / (root->w > 0 ? root->w : 1);
	size_t boxes = 0;
	char *body = NULL;
	size_t len = 0;
	FILE *m;

	if (!(root->w > 0)) {
		fputs("<p class=\"empty\">", f);
		html_text(f, title);
		fputs(": no data</p>\n", f);
		return 0;
	}
	/* The boxes first, to count them for data-points. */
	m = open_memstream(&body, &len);
	if (!m)
		return -ENOMEM;
	if (root->nkids > 1)
		qsort(root->kids, root->nkids, sizeof(*root->kids), by_weight);
	for (size_t i = 0; i < root->nkids; i++) {
		draw(m, &root->kids[i], x, scale, 0, fmt, &boxes);
		x += root->kids[i].w * scale;
	}
	if (fclose(m)) {
		free(body);
		return -ENOMEM;
	}
	fprintf(f, "<svg class=\"chart icicle\" data-kind=\"icicle\" "
		"data-points=\"%zu\" viewBox=\"0 0 %d %zu\" role=\"img\" "
		"aria-label=\"", boxes, W, ic->depth * ROW_H);
	html_text(f, title);
	fputs("\">\n", f);
	fwrite(body, 1, len, f);
	fputs("</svg>\n", f);
	free(body);
	return ferror(f) ? -EIO : 0;
}

static void free_node(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		free_node(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

void icicle_free(struct icicle *ic)
{
	if (!ic)
		return;
	free_node(&ic->root);
	free(ic);
}
