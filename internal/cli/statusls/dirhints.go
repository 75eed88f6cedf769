package statusls

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/statusfile"
)

// dirError reports a status directory that cannot be listed.
func dirError(env *cmdEnv, err error) int {
	var pe *perm.Error
	if errors.As(err, &pe) {
		info := inspectDir(pe.Path)
		fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(pe)))
		fmt.Fprintf(env.Stderr, "statusls: hint: %s\n", statusfile.SanitizeText(safeHint(pe, info)))
		return base.ExitError
	}
	fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
	fmt.Fprintln(env.Stderr, "statusls: hint: run 'statusls doctor' to check the setup")
	return base.ExitError
}

// refusalHint says what to do about a refused directory.
func refusalHint(pe *perm.Error) string {
	switch {
	case errors.Is(pe.Err, perm.ErrSymlink):
		return "readers do not follow a symbolic link at the status directory (SPEC.md R2); point --dir or $STATUS_DIR at the real directory"
	case errors.Is(pe.Err, perm.ErrWritable), errors.Is(pe.Err, perm.ErrAccessible):
		return "others could forge sessions there (SPEC.md R2, P4); run 'chmod 700 " + shquote.Quote(pe.Path) + "'"
	case errors.Is(pe.Err, perm.ErrNotOwned):
		return "the directory belongs to another account, whose files could be forged (SPEC.md R2); use your own with --dir or --config-home"
	case errors.Is(pe.Err, perm.ErrNotDir):
		return "the status directory is not a directory; check --dir, $STATUS_DIR and $GENTLE_PI_CONFIG_HOME with 'statusls doctor'"
	}
	return "run 'statusls doctor' to check the setup"
}

// quotePath shows a path (or name) safely: as it is when it is printable,
// else Go-quoted with control, invisible and bidi characters escaped.
func quotePath(s string) string {
	q := strconv.QuoteToGraphic(s)
	if q[1:len(q)-1] == s && !strings.ContainsAny(s, ` "'\`) {
		return s
	}
	return q
}
