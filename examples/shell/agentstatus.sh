# agentstatus.sh: a prompt segment with the agents' summary, e.g.
# "[1 blocked · 2 working] ", empty when no agent runs.
#
# bash or zsh: source it from ~/.bashrc or ~/.zshrc, after your prompt is set:
#   . /path/to/agentstatus.sh
# It puts the segment in front of PS1 (bash) or PROMPT (zsh); or call
# agentstatus_segment from your own prompt instead.

agentstatus_segment() {
	# statusls prints nothing when there is no session, and sanitizes every
	# field, so nothing in a status file can reach the terminal as an escape
	# sequence.
	_agentstatus=$(statusls --summary 2>/dev/null) || _agentstatus=
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
