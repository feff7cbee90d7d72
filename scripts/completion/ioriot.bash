# Bash completion for ioriot, ioriot-sweep and ioriot-plot.  Installed as
# /usr/share/bash-completion/completions/ioriot (the other two names are
# links to it), where bash-completion loads it on first use; or source it.
#
# The options come from the command's own --help at completion time, so
# they never fall behind the program: the words starting with - in the
# first 26 columns (before the descriptions) of the lines that begin with
# an option.  Words after other options complete as file names.

# -g: bash-completion sources this file inside a function.
declare -gA _ioriot_opts_cache

# The options of command $1, a line each, into _ioriot_opts (cached per
# command).  Plain POSIX awk: mawk knows no {m,n}.
_ioriot_options()
{
	local key
	key=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9' '_')
	if [[ -z ${_ioriot_opts_cache[$key]+set} ]]; then
		_ioriot_opts_cache[$key]=$(LC_ALL=C "$1" --help 2>/dev/null |
			LC_ALL=C awk '
			match($0, /^ +-/) && RLENGTH <= 9 {
				n = split(substr($0, 1, 26), w, /[][ ,]+/)
				for (i = 1; i <= n; i++)
					if (w[i] ~ /^--?[A-Za-z0-9][-A-Za-z0-9]*$/)
						print w[i]
			}' | LC_ALL=C sort -u)
	fi
	_ioriot_opts=${_ioriot_opts_cache[$key]}
}

_ioriot()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	local cmd=${COMP_WORDS[0]} _ioriot_opts

	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	case "$prev" in
	--output-format)
		mapfile -t COMPREPLY < <(compgen -W 'text json' -- "$cur")
		return ;;
	--folded-weight)
		mapfile -t COMPREPLY < <(compgen -W 'ops bytes time' -- "$cur")
		return ;;
	-u | --user)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		return ;;
	-x | --pid)
		mapfile -t COMPREPLY < <(cd /proc 2>/dev/null &&
			compgen -W "$(printf '%s\n' [0-9]*)" -- "$cur")
		return ;;
	--include | --exclude | --only-path | -w | --wd | --cgroup)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	esac
	if [[ $cur == -* ]]; then
		_ioriot_options "$cmd"
		mapfile -t COMPREPLY < <(compgen -W "$_ioriot_opts" -- "$cur")
	fi
	# Nothing here: -o default completes file names.
}

complete -o default -F _ioriot ioriot ioriot-sweep ioriot-plot
