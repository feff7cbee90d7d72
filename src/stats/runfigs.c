/*
 * runfigs: the whole-run figures of replay statistics (runfigs.h).  The
 * classes come from the runs themselves ("classes" in the JSON), in the
 * order of sys_class_name(), so a class only some runs have is kept.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ioriot/runfigs.h"
#include "ioriot/syscalls.h"

static const struct run_figure fixed[] = {
	{ "total_time_ns", "Total time (s)", 1e-9, true },
	{ "average_ioops_per_s", "Average ioops/s", 1, false },
	{ "start_lateness_ns/p99", "Start lateness p99 (us)", 1e-3, true },
};

/* The class latency percentiles compared. */
static const char *const class_pcts[] = { "p50", "p99" };

/* The member at '/'-separated @key of @doc, or NULL. */
static const json_t *member_at(const json_t *doc, const char *key)
{
	char part[RUNFIG_KEY_MAX];

	while (doc && *key) {
		size_t len = strcspn(key, "/");

		if (len >= sizeof(part))
			return NULL;
		memcpy(part, key, len);
		part[len] = '\0';
		doc = json_object_get(doc, part);
		key += len + (key[len] == '/');
	}
	return doc;
}

double run_figure_value(const json_t *doc, const struct run_figure *fig)
{
	double v;

	if (jv_number(member_at(doc, fig->key), &v))
		return NAN;
	return v;
}

/* Whether some run of @docs has @fig. */
static bool any_has(const json_t *const *docs, size_t n,
		    const struct run_figure *fig)
{
	for (size_t i = 0; i < n; i++)
		if (!isnan(run_figure_value(docs[i], fig)))
			return true;
	return false;
}

size_t run_figures(const json_t *const *docs, size_t n,
		   struct run_figure *figs)
{
	size_t k = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (any_has(docs, n, &fixed[i]))
			figs[k++] = fixed[i];
	for (int c = 0; c < CLS_COUNT; c++) {
		const char *cls = sys_class_name((enum sys_class)c);

		for (size_t p = 0; p < sizeof(class_pcts) / sizeof(*class_pcts);
		     p++) {
			struct run_figure f = { .scale = 1e-3,
						.lower_better = true };

			snprintf(f.key, sizeof(f.key), "classes/%s/latency_ns/%s",
				 cls, class_pcts[p]);
			snprintf(f.label, sizeof(f.label), "%s %s (us)", cls,
				 class_pcts[p]);
			if (k < RUNFIGS_MAX && any_has(docs, n, &f))
				figs[k++] = f;
		}
	}
	return k;
}
