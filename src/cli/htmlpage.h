/*
 * htmlpage: the --report mode, between the command line and the HTML
 * report (htmlreport.h).  Private to src/cli.
 */
#ifndef IORIOT_CLI_HTMLPAGE_H
#define IORIOT_CLI_HTMLPAGE_H

#include "ioriot/cli.h"

/* --report OUT FILE...: every input read and checked, then the page
 * written to OUT.  Returns the exit status: 0, or 1 after printing what
 * went wrong. */
int cli_report(const struct cli_opts *o);

#endif
