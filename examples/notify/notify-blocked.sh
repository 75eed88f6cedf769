#!/bin/sh
# notify-blocked.sh: a notification when an agent session has waited for
# you (a permission, a question, a login) for 30 s, saying what it waits
# for: "claude-code is waiting for you / Bash: rm -rf build". Not on every
# prompt: a wait you answer within 30 s stays quiet, and a session is
# notified at most once every 5 minutes. Run it once per desktop session,
# e.g. from your window manager's autostart.
#
# Settings (environment):
#   AGENTSTATUS_AFTER     how long a wait lasts before it is worth a
#                         notification (default 30s)
#   AGENTSTATUS_COOLDOWN  at most one notification per session this often
#                         (default 5m)
#   AGENTSTATUS_PUSH_URL, AGENTSTATUS_PUSH_AUTH, AGENTSTATUS_NO_DESKTOP:
#                         where it goes; see send.sh
#
# statusls watch counts the wait from when the agent says it began
# (waitingFor.since), else from when it saw the session blocked; a session
# that is answered, goes away or goes stale first cancels the notification.

AGENTSTATUS_SEND="$(cd "$(dirname "$0")" && pwd)/send.sh"
export AGENTSTATUS_SEND
exec statusls watch --on blocked --after "${AGENTSTATUS_AFTER:-30s}" --cooldown "${AGENTSTATUS_COOLDOWN:-5m}" \
	--exec 'exec sh "$AGENTSTATUS_SEND" blocked'
