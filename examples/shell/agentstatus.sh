# agentstatus.sh: a prompt segment with the agents' summary, e.g.
# "[1 blocked · 2 working] ", empty when no agent runs.
#
# bash or zsh: source it from ~/.bashrc or ~/.zshrc, after your prompt is set:
#   . /path/to/agentstatus.sh
# It puts the segment in front of PS1 (bash) or PROMPT (zsh); or call
# agentstatus_segment from your own prompt instead.
#
# Several machines: set AGENTSTATUS_HOSTS (e.g. "devbox,gpu", or "all" for
# those of $STATUSLS_HOSTS or ~/.config/agentstatus/hosts) and the segment
# counts their agents too, through ssh with shared connections; a host that
# does not answer within 2 s is left out.

agentstatus_segment() {
	# statusls prints nothing when there is no session, and sanitizes every
	# field, so nothing in a status file can reach the terminal as an escape
	# sequence.
	case ${AGENTSTATUS_HOSTS-} in
	'') _agentstatus=$(statusls --summary 2>/dev/null) ;;
	all) _agentstatus=$(statusls --summary --local --all-hosts --host-timeout 2s 2>/dev/null) ;;
	*) _agentstatus=$(statusls --summary --local --host "$AGENTSTATUS_HOSTS" --host-timeout 2s 2>/dev/null) ;;
	esac
	# With --host, exit status 5 means some hosts were left out: the others
	# still count.
	_agentstatus_rc=$?
	[ "$_agentstatus_rc" -eq 0 ] || [ "$_agentstatus_rc" -eq 5 ] || _agentstatus=
	if [ -n "${ZSH_VERSION-}" ]; then
		# zsh expands % sequences in what a prompt substitution returns.
		_agentstatus=${_agentstatus//\%/%%}
	fi
	if [ -n "$_agentstatus" ]; then
		printf '[%s] ' "$_agentstatus"
	fi
}

if [ -n "${ZSH_VERSION-}" ]; then
	setopt PROMPT_SUBST
	case $PROMPT in
	*agentstatus_segment*) ;;
	*) PROMPT='$(agentstatus_segment)'"$PROMPT" ;;
	esac
elif [ -n "${BASH_VERSION-}" ]; then
	case $PS1 in
	*agentstatus_segment*) ;;
	*) PS1='$(agentstatus_segment)'"$PS1" ;;
	esac
fi
