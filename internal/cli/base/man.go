package base

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// manCmd writes the man pages of the program into the directory args[0]:
// PROG.1 and PROG-COMMAND.1 for each visible command, from the same
// definitions as the help. Nothing installs them; see README.md.
func (p *Program) manCmd(args []string) int {
	if len(args) != 1 {
		return p.UsageErrorf(nil, "__man: name the output directory")
	}
	dir := args[0]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p.Errorf(nil, "%v", err)
	}
	pages := map[string]string{p.Name + ".1": p.Man(nil)}
	for _, c := range p.visible() {
		pages[p.Name+"-"+c.Name+".1"] = p.Man(c)
	}
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return p.Errorf(nil, "%v", err)
		}
	}
	return ExitOK
}

// Man is the man page (roff) of c, or of the program when c is nil.
func (p *Program) Man(c *Command) string {
	var b strings.Builder
	title, summary := p.Name, p.Summary
	cmd := p.Default
	if c != nil {
		title, summary, cmd = p.Name+"-"+c.Name, c.Summary, c
	}
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"agentstatus\" \"User Commands\"\n", strings.ToUpper(title))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n.SH SYNOPSIS\n", roff(title), roff(firstLine(summary)))
	if cmd != nil {
		for _, u := range strings.Split(cmd.Usage, "\n") {
			fmt.Fprintf(&b, ".B %s\n%s\n.br\n", p.Name, roff(u))
		}
	}
	if c == nil {
		fmt.Fprintf(&b, ".B %s\nCOMMAND [flags]\n", p.Name)
		b.WriteString(".SH COMMANDS\n")
		for _, sc := range p.visible() {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n.RB ( %s-%s (1))\n", roff(sc.Name), roff(sc.Summary), p.Name, sc.Name)
		}
	}
	if cmd != nil {
		b.WriteString(".SH DESCRIPTION\n")
		if cmd.Description != "" {
			b.WriteString(".nf\n" + roff(strings.TrimRight(cmd.Description, "\n")) + "\n.fi\n")
		} else {
			b.WriteString(roff(summary) + "\n")
		}
		fs, _ := p.flagsOf(cmd)
		b.WriteString(".SH OPTIONS\n")
		for _, f := range fs.flags {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(strings.TrimSpace(flagSynopsis(f))), roff(f.Usage))
		}
		if cmd.Examples != "" {
			b.WriteString(".SH EXAMPLES\n.nf\n" + roff(strings.TrimRight(cmd.Examples, "\n")) + "\n.fi\n")
		}
	}
	if c == nil && p.Footer != "" {
		b.WriteString(".SH NOTES\n.nf\n" + roff(strings.TrimRight(p.Footer, "\n")) + "\n.fi\n")
	}
	return b.String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// roff escapes text for a man page: backslashes, and lines that would
// start with a control character.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`, "\n.", "\n\\&.", "\n'", "\n\\&'").Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
