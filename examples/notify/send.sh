#!/bin/sh
# send.sh: the command notify-blocked.sh and notify-done.sh give statusls
# watch --exec. statusls runs it with the session's record in STATUS_*
# variables (sanitized: no control character, no newline), among them
# STATUS_WHY, the words of statusls's WHY column ("Bash: rm -rf build",
# "question: Which database?", "failed: server_error", "rate limited").
#
# $1 is what happened: "blocked" (the session waits for you) or "done" (a
# long turn ended). It sends
#   - a desktop notification with notify-send, unless AGENTSTATUS_NO_DESKTOP
#     is set and not empty;
#   - a push to your phone when AGENTSTATUS_PUSH_URL is set: the message as
#     the plain-text body of an HTTP POST, as ntfy (https://ntfy.sh/TOPIC)
#     and most push relays take it; AGENTSTATUS_PUSH_AUTH, when set, is sent
#     as the Authorization header ("Bearer tk_...").
#
# Every value is passed as one argument or on standard input, never
# through a shell again or as a curl option: a title such as "$(rm -rf ~)"
# or "@/etc/passwd" is sent as text.

agent=${STATUS_AGENT:-agent}
case $1 in
blocked)
	title="$agent is waiting for you"
	why=${STATUS_WHY:-waiting}
	urgency=critical
	;;
*)
	title="$agent: ${STATUS_WHY:-turn ended}"
	why=
	urgency=normal
	;;
esac
# The body: why, then the task, else where the session runs.
body=$why
about=${STATUS_TITLE:-${STATUS_CWD:-$STATUS_SESSION}}
if [ -n "$about" ]; then
	body=${body:+$body
}$about
fi

status=0
if [ -z "$AGENTSTATUS_NO_DESKTOP" ]; then
	notify-send --app-name=agentstatus --urgency="$urgency" -- "$title" "$body" || status=1
fi
if [ -n "$AGENTSTATUS_PUSH_URL" ]; then
	# The message on stdin (@-): curl reads a file for a value that starts
	# with @, and a title is not to pick which.
	printf '%s\n%s\n' "$title" "$body" |
		curl --fail --silent --show-error --max-time 10 \
			${AGENTSTATUS_PUSH_AUTH:+-H "Authorization: $AGENTSTATUS_PUSH_AUTH"} \
			-H 'Content-Type: text/plain; charset=utf-8' \
			--data-binary @- -- "$AGENTSTATUS_PUSH_URL" >/dev/null || status=1
fi
exit $status
