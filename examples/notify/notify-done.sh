#!/bin/sh
# notify-done.sh: a notification when a long turn ends (2 minutes or
# more), saying how: "claude-code: done", "codex: cancelled", "claude-code:
# failed: server_error", "claude-code: rate limited". Short turns, the
# ones you watch happen, stay quiet. Run it beside notify-blocked.sh.
#
# Settings (environment):
#   AGENTSTATUS_WORKED    the shortest turn worth a notification (default 2m),
#                         from when statusls watch saw the session start
#                         working
#   AGENTSTATUS_COOLDOWN  at most one notification per session this often
#                         (default 5m)
#   AGENTSTATUS_PUSH_URL, AGENTSTATUS_PUSH_AUTH, AGENTSTATUS_NO_DESKTOP:
#                         where it goes; see send.sh

AGENTSTATUS_SEND="$(cd "$(dirname "$0")" && pwd)/send.sh"
export AGENTSTATUS_SEND
exec statusls watch --on idle --after-working "${AGENTSTATUS_WORKED:-2m}" --cooldown "${AGENTSTATUS_COOLDOWN:-5m}" \
	--exec 'exec sh "$AGENTSTATUS_SEND" done'
