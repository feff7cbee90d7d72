/*
 * optable: the command line's one table of options.  A row holds all that
 * is known of an option: its long and short names, its argument, the help
 * text, the modes it goes with and how its value is taken.  The parser
 * (options.c) and --help (usage.c) are both read off it.
 */
#ifndef IORIOT_CLI_OPTABLE_H
#define IORIOT_CLI_OPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/cli.h"

/* How a row's value is taken into struct cli_opts. */
enum cli_opt_type {
	CLI_HELP_ONLY,	/* no option: a line of --help (name NULL) */
	CLI_STRING,	/* the argument, as a const char * at .field */
	CLI_FLAG,	/* true into the bool at .field */
	CLI_LONG,	/* a whole number from .min to .max, long at .field */
	CLI_REAL,	/* a number from .min to .max, double at .field */
	CLI_MODE,	/* selects .mode; its argument, if any, at .field */
	CLI_CUSTOM,	/* .take does it */
};

/* --help's sections, in this order. */
enum cli_section { CLI_SEC_OPTIONS, CLI_SEC_MODES };

/* The modes an option goes with: a bit per enum cli_mode. */
#define CLI_IN(mode) (1u << (mode))

struct cli_option {
	const char *name;	/* the long form, without "--" */
	char letter;		/* the short form, or 0 */
	const char *arg;	/* the argument's name in --help; NULL: none */
	const char *usage;	/* --help's left column, if not "-l, --name ARG" */
	enum cli_section section;
	enum cli_opt_type type;
	size_t field;		/* offsetof(struct cli_opts, ...) */
	double min, max;	/* CLI_LONG, CLI_REAL: the range */
	const char *expects;	/* CLI_REAL: the value, for the error */
	enum cli_mode mode;	/* CLI_MODE */
	uint32_t modes;		/* CLI_IN() of the modes it goes with; 0: all */
	bool help_names_modes;	/* its help says what it does in each mode:
				 * --help adds no "modes:" before it */
	/* CLI_CUSTOM: take @arg (NULL for a flag) into @o; 0, or -EINVAL
	 * after saying why on stderr. */
	int (*take)(struct cli_opts *o, char *arg);
	const char *help;	/* one paragraph; --help wraps it */
};

/* At most this many rows (the parser's tables are of this size). */
#define CLI_OPTIONS_MAX 96

extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* The option as messages name it, "-x" or "--name", into @buf of @size
 * bytes.  Returns @buf. */
const char *cli_option_flag(const struct cli_option *row, char *buf,
			    size_t size);

/*
 * Take the value of option @row, given with @arg (NULL if it takes
 * none), into @o.  Returns 0, or -EINVAL after saying why on stderr.
 */
int cli_option_take(const struct cli_option *row, struct cli_opts *o,
		    char *arg);

/* Select @mode, named @flag in the message if another was given.  0, or
 * -EINVAL after saying why on stderr. */
int cli_set_mode(struct cli_opts *o, enum cli_mode mode, const char *flag);

/*
 * The modes of @modes as a user names them, into @buf of @size bytes:
 * "-c FILE -r FILE (generate), -r or -R", or @brief "generate, -r, -R".
 * Returns @buf.
 */
const char *cli_modes_text(uint32_t modes, bool brief, char *buf,
			   size_t size);

#endif
