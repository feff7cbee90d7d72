/*
 * usage: --help, printed from the option table (optable.c): each row's
 * left column and its help wrapped beside it, then the examples; and the
 * modes named as the usage errors name them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ioriot/cli.h"
#include "optable.h"

#define HELP_WIDTH 79	/* the last column --help writes into */
#define HELP_INDENT 27	/* where the help of each option starts */

static const char help_head[] =
"Usage: ioriot MODE [OPTIONS]\n"
"Capture the file I/O of a Linux host and replay it elsewhere.\n";

static const char help_tail[] =
"\n"
"Examples:\n"
"  sudo ioriot -c io.capture                           # capture\n"
"  sudo ioriot -c io.capture.zst                       # capture, compressed\n"
"  zstdcat io.capture.zst | less                       # read it as text\n"
"  ioriot -c io.capture -r io.replay -n test -u paul   # generate\n"
"  sudo ioriot -R io.replay -S stats.txt               # init + replay\n"
"  ioriot --compare none.json bfq.json                 # compare two runs\n"
"  sudo ioriot -R io.replay -S h1.json --start-at 2026-11-25T10:00:00Z\n"
"  ioriot --merge h1.json h2.json -o fleet.json        # a fleet as one run\n"
"  ioriot --report runs.html none.json none.csv bfq.json bfq.csv\n"
"  ioriot --analyze io.capture --top 10                # what was captured\n"
"\n"
"The reference for every option: man ioriot (in the source tree:\n"
"man ./docs/ioriot.8); the user guide: docs/guide.md.\n";

/* @row's left column, "  -l, --name ARG", into @buf of @size bytes. */
static void left_column(const struct cli_option *row, char *buf, size_t size)
{
	if (row->usage)
		snprintf(buf, size, "%s%s", strncmp(row->usage, "--", 2) ?
			 "  " : "      ", row->usage);
	else if (row->letter)
		snprintf(buf, size, "  -%c, --%s%s%s", row->letter, row->name,
			 row->arg ? " " : "", row->arg ? row->arg : "");
	else
		snprintf(buf, size, "      --%s%s%s", row->name,
			 row->arg ? " " : "", row->arg ? row->arg : "");
}

/* @text wrapped at spaces into lines that end by HELP_WIDTH, each after
 * HELP_INDENT spaces but the first, which follows what is printed; after
 * @modes ("-r, -R: "), if not NULL. */
static void print_wrapped(const char *modes, const char *text)
{
	char buf[1024];

	if (modes) {
		snprintf(buf, sizeof(buf), "%s: %s", modes, text);
		text = buf;
	}
	const size_t room = HELP_WIDTH - HELP_INDENT;
	bool first = true;

	while (*text) {
		size_t len = strlen(text), cut = len;

		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (!cut)	/* a word longer than the room */
				cut = strcspn(text, " ");
		}
		printf("%*s%.*s\n", first ? 0 : HELP_INDENT, "", (int)cut,
		       text);
		first = false;
		text += cut;
		while (*text == ' ')
			text++;
	}
}

void cli_usage(void)
{
	static const char *const headings[] = {
		[CLI_SEC_MODES] = "Modes", [CLI_SEC_OPTIONS] = "Options",
	};
	int section = -1;

	fputs(help_head, stdout);
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *row = &cli_options[i];
		char left[128], modes[256];
		int len;

		if ((int)row->section != section) {
			section = (int)row->section;
			printf("\n%s:\n", headings[section]);
		}
		left_column(row, left, sizeof(left));
		len = (int)strlen(left);
		if (len < HELP_INDENT)
			printf("%-*s", HELP_INDENT, left);
		else
			printf("%s\n%*s", left, HELP_INDENT, "");
		print_wrapped(row->modes && !row->help_names_modes ?
			      cli_modes_text(row->modes, true, modes,
					     sizeof(modes)) : NULL, row->help);
	}
	fputs(help_tail, stdout);
}

const char *cli_modes_text(uint32_t modes, bool brief, char *buf,
			   size_t size)
{
	/* In the order users meet them. */
	static const struct {
		enum cli_mode mode;
		const char *text, *brief;
	} names[] = {
		{ MODE_CAPTURE, "-c (capture)", "-c" },
		{ MODE_GENERATE, "-c FILE -r FILE (generate)", "generate" },
		{ MODE_INIT, "-i", "-i" },
		{ MODE_REPLAY, "-r", "-r" },
		{ MODE_INIT_REPLAY, "-R", "-R" },
		{ MODE_DEVICES, "--devices", "--devices" },
		{ MODE_ANALYZE, "--analyze", "--analyze" },
		{ MODE_COMPARE, "--compare", "--compare" },
		{ MODE_REPORT, "--report", "--report" },
		{ MODE_MERGE, "--merge", "--merge" },
		{ MODE_PURGE, "-P", "-P" },
		{ MODE_TRASH, "-T", "-T" },
		{ MODE_DROP_CACHES, "-d", "-d" },
	};
	size_t n = 0, total = 0, used = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		total += (modes & CLI_IN(names[i].mode)) != 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(modes & CLI_IN(names[i].mode)))
			continue;
		n++;
		used += (size_t)snprintf(buf + used, used < size ?
					 size - used : 0, "%s%s",
					 n == 1 ? "" : n == total && !brief ?
					 " or " : ", ", brief ? names[i].brief :
					 names[i].text);
		if (used >= size)
			break;
	}
	return buf;
}
