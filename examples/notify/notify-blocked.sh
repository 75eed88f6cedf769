#!/bin/sh
# notify-blocked.sh: a desktop notification each time an agent session
# becomes blocked (waits for a permission or an answer). Run it once per
# desktop session, e.g. from your window manager's autostart.
#
# statusls watch runs the command once per transition into "blocked" (not
# again on heartbeats), through the shell, with the record in STATUS_AGENT,
# STATUS_SESSION, STATUS_STATE, STATUS_TITLE, STATUS_CWD and STATUS_PID.
# The variables are expanded inside double quotes only, so a title is passed
# to notify-send as it is and never run as a command.

cmd='notify-send --app-name=agentstatus --urgency=critical "${STATUS_AGENT:-agent} is waiting for you" "${STATUS_TITLE:-${STATUS_CWD:-$STATUS_SESSION}}"'

exec statusls watch --on blocked --exec "$cmd"
