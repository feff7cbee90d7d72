/* ioriot entry point: everything else lives in the library. */
#include "ioriot/cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
