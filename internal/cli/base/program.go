package base

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Runner runs a command once its flags are parsed, with the arguments
// that are not flags. It returns the exit status.
type Runner func(args []string) int

// Command is one subcommand, or a program's default command.
type Command struct {
	Name    string
	Summary string // one line, for the command list
	// Usage is the synopsis after the program's name, one per line:
	// "watch [flags]".
	Usage string
	// Description is the help text between the synopsis and the flags.
	Description string
	// Examples are shell lines, with # comments, shown under "Examples:".
	Examples string
	// Setup declares the flags and returns what runs with them.
	Setup func(fs *FlagSet) Runner
	// Hook marks a command run by an agent as a hook: it never exits 2.
	// Every failure is one line on stderr and exit 0, or 1 with --strict.
	Hook   bool
	Hidden bool
}

// Program is a command with subcommands.
type Program struct {
	Name    string // "statusls"
	Summary string // the first line of help
	// Default runs when no subcommand is named (statusls lists); nil
	// means that a subcommand is required.
	Default  *Command
	Commands []*Command
	// Footer ends the program's help (exit statuses, environment).
	Footer string
	Env    *Env

	args    []string // the command line being run
	running *Command // the command whose runner runs, if any
}

// Lookup returns the subcommand named name, or nil.
func (p *Program) Lookup(name string) *Command {
	for _, c := range p.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// visible returns the commands that help, man pages and completion show.
func (p *Program) visible() []*Command {
	return slices.DeleteFunc(slices.Clone(p.Commands), func(c *Command) bool { return c.Hidden })
}

func (p *Program) names() []string {
	var names []string
	for _, c := range p.visible() {
		names = append(names, c.Name)
	}
	return append(names, "help", "completion")
}

// flagsOf returns a fresh flag set of c with the flags every command
// takes, and the runner.
func (p *Program) flagsOf(c *Command) (*FlagSet, Runner) {
	fs := newFlagSet()
	var run Runner
	if c != nil && c.Setup != nil {
		run = c.Setup(fs)
	}
	fs.Group("")
	if fs.Lookup("help") == nil {
		fs.Shorthand(fs.Bool(new(bool), "help", false, "show this help"), "h")
	}
	if fs.Lookup("version") == nil {
		fs.Bool(new(bool), "version", false, "print the version and exit")
	}
	return fs, run
}

// Run runs the program with args (without the program name) and returns
// the exit status.
func (p *Program) Run(args []string) int {
	p.Env.Fill()
	p.args = args
	name, rest, err := p.findCommand(args)
	if err != nil {
		return p.UsageErrorf(p.hookIn(args), "%v", err)
	}
	switch name {
	case "help":
		return p.helpCmd(rest)
	case "completion":
		return p.completionCmd(rest)
	case "__complete":
		return p.complete(rest)
	case "__man":
		return p.manCmd(rest)
	}
	c := p.Default
	if name != "" {
		c = p.Lookup(name)
	}
	if c == nil {
		if hasFlag(rest, "version") {
			return p.version()
		}
		if len(rest) == 0 {
			p.help(nil, p.Env.Stderr)
			return ExitUsage
		}
		if hasFlag(rest, "help") || hasFlag(rest, "h") {
			p.help(nil, p.Env.Stdout)
			return ExitOK
		}
		return p.UsageErrorf(p.hookIn(args), "no command given")
	}
	fs, run := p.flagsOf(c)
	operands, err := fs.parse(rest)
	if err != nil {
		return p.UsageErrorf(c, "%v", err)
	}
	if fs.Changed("help") {
		if c == p.Default {
			c = nil // the program's help, which includes the default command's
		}
		p.help(c, p.Env.Stdout)
		return ExitOK
	}
	if fs.Changed("version") {
		return p.version()
	}
	if run == nil {
		p.help(c, p.Env.Stdout)
		return ExitOK
	}
	p.running = c
	code := p.runCommand(c, run, operands)
	if !c.Hook && code == ExitUsage && p.hookIn(p.args) != nil {
		// A hook's name is on the command line, though another command
		// ran: it may be the agent running a hook.
		return hookStatus(p.args)
	}
	if c.Hook && code != ExitOK {
		// A hook never exits 2 (or anything but 0 and 1): the agent
		// reads 2 as "block".
		if f := fs.Lookup("strict"); f != nil && f.Value.String() == "true" {
			return ExitError
		}
		return ExitOK
	}
	return code
}

// runCommand runs c. A hook's panic is recovered: Go exits 2 on a panic,
// which the agent reads as "block", and prints a stack trace that it may
// show the model (SPEC.md H9). The hook reports one line instead, and
// exits as for any other failure.
func (p *Program) runCommand(c *Command, run Runner, operands []string) (code int) {
	if c.Hook {
		defer func() {
			if r := recover(); r != nil {
				// %v of an error is its Error().
				fmt.Fprintf(p.Env.Stderr, "%sinternal error: %s\n", p.prefix(c), Message(fmt.Errorf("%v", r)))
				code = ExitError
			}
		}()
	}
	return run(operands)
}

// hookIn returns the hook command that args name anywhere, or nil: when
// the command line is too broken to tell which command it is, one that
// may be a hook's must not exit 2 either.
func (p *Program) hookIn(args []string) *Command {
	for _, a := range beforeDashes(args) {
		if c := p.Lookup(a); c != nil && c.Hook {
			return c
		}
	}
	return nil
}

// findCommand finds the subcommand among args, wherever it is, and
// returns it with the other arguments. Flags before it are those of any
// command: a flag that takes a value in one takes it in all.
func (p *Program) findCommand(args []string) (string, []string, error) {
	named := slices.ContainsFunc(beforeDashes(args), func(a string) bool {
		return p.Lookup(a) != nil || a == "help" || a == "completion" || a == "__complete" || a == "__man" ||
			!strings.HasPrefix(a, "-") && Suggest(a, p.names()) != ""
	})
	if !named && p.Default != nil {
		// No argument names a command (the common case of a status bar
		// calling statusls many times a second): the default command's
		// own parsing will say what is wrong, if anything.
		return "", args, nil
	}
	all := newFlagSet()
	for _, c := range append([]*Command{p.Default}, p.Commands...) {
		if c == nil || c.Setup == nil {
			continue
		}
		fs, _ := p.flagsOf(c)
		for k, f := range fs.byKey {
			if all.byKey[k] == nil || !f.IsBool() {
				all.byKey[k] = f
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := all.byKey[name]
			if f == nil && (strings.HasPrefix(a, "--") || !all.shortGroup(name, false)) {
				// No command has it: say so now, rather than take
				// its value for a subcommand. Suggestions come from
				// every command's flags, in name order.
				all.flags = slices.SortedFunc(maps.Values(all.byKey), func(a, b *Flag) int { return strings.Compare(a.Name, b.Name) })
				all.flags = slices.CompactFunc(all.flags, func(a, b *Flag) bool { return a.Name == b.Name })
				return "", args, all.unknown(name)
			}
			if f != nil && !hasValue && i+1 < len(args) && f.takes(args[i+1]) {
				i++
			}
			continue
		}
		switch {
		case a == "help", a == "completion", a == "__complete", a == "__man":
		case p.Lookup(a) != nil:
		case p.Default != nil && p.Default.Hook:
			return "", args, nil
		default:
			msg := fmt.Sprintf("unknown command %q", a)
			switch s := Suggest(a, p.names()); {
			case s != "":
				msg += "; did you mean " + s + "?"
			case p.Default != nil:
				msg = fmt.Sprintf("unexpected argument %q", a)
			}
			return "", args, errors.New(msg)
		}
		if a == "__complete" || a == "__man" {
			// Everything after them is theirs.
			return a, args[i+1:], nil
		}
		return a, slices.Concat(args[:i], args[i+1:]), nil
	}
	return "", args, nil
}

// beforeDashes returns args up to "--", which ends flags and commands.
func beforeDashes(args []string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i]
	}
	return args
}

// hasFlag reports whether --name (or -name) is among args, before "--".
func hasFlag(args []string, name string) bool {
	return slices.Contains(beforeDashes(args), "--"+name) || slices.Contains(beforeDashes(args), "-"+name)
}

// Errorf reports a runtime error of command c (nil for the program) as
// one line, and returns [ExitError].
func (p *Program) Errorf(c *Command, format string, args ...any) int {
	fmt.Fprintf(p.Env.Stderr, "%s%s\n", p.prefix(c), fmt.Sprintf(format, args...))
	return ExitError
}

// UsageErrorf reports a usage error of command c, with a hint line
// (none for a hook), and returns [ExitUsage] (a hook's status for a hook,
// or when args name one: see hookIn).
func (p *Program) UsageErrorf(c *Command, format string, args ...any) int {
	c = p.orHook(c)
	fmt.Fprintf(p.Env.Stderr, "%s%s\n", p.prefix(c), fmt.Sprintf(format, args...))
	return p.usageEnd(c)
}

// ReportUsage reports a usage error found by the running command, whose
// message (format) names the command itself where it should, and returns
// [ExitUsage]. The hint points at the running command's help, not the
// program's; a hook returns its status instead (SPEC.md H9). Called
// before a command runs, the hint is the program's.
func (p *Program) ReportUsage(format string, args ...any) int {
	fmt.Fprintf(p.Env.Stderr, "%s: %s\n", p.Name, fmt.Sprintf(format, args...))
	return p.usageEnd(p.orHook(p.running))
}

// orHook is c, unless c is not a hook and args name one (see hookIn).
func (p *Program) orHook(c *Command) *Command {
	if c != nil && c.Hook {
		return c
	}
	return cmp.Or(p.hookIn(p.args), c)
}

// usageEnd ends a usage error of c, whose message is out: a hook's status,
// else the hint at c's help and [ExitUsage].
func (p *Program) usageEnd(c *Command) int {
	if c != nil && c.Hook {
		return hookStatus(p.args)
	}
	help := p.Name // the program's help, which includes the default command's
	if c != nil && c != p.Default {
		help += " " + c.Name
	}
	fmt.Fprintf(p.Env.Stderr, "%s: hint: run '%s --help' for usage\n", p.Name, help)
	return ExitUsage
}

func (p *Program) prefix(c *Command) string {
	if c == nil || c == p.Default {
		return p.Name + ": "
	}
	return p.Name + ": " + c.Name + ": "
}

// hookStatus is a hook's exit status after a failure: 1 with --strict,
// else 0.
func hookStatus(args []string) int {
	if hasFlag(args, "strict") || hasFlag(args, "strict=true") {
		return ExitError
	}
	return ExitOK
}

func (p *Program) version() int {
	fmt.Fprintf(p.Env.Stdout, "%s %s\n", p.Name, Version())
	return ExitOK
}

// operands are the arguments of help and completion: flags are ignored.
func operands(args []string) []string {
	return slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "-") })
}

func (p *Program) helpCmd(args []string) int {
	operands := operands(args)
	if len(operands) == 0 {
		p.help(nil, p.Env.Stdout)
		return ExitOK
	}
	c := p.Lookup(operands[0])
	if c == nil {
		msg := fmt.Sprintf("help: unknown command %q", operands[0])
		if s := Suggest(operands[0], p.names()); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return p.UsageErrorf(nil, "%s", msg)
	}
	p.help(c, p.Env.Stdout)
	return ExitOK
}

// help writes the help of c, or of the program when c is nil.
func (p *Program) help(c *Command, w io.Writer) {
	var b strings.Builder
	if c == nil {
		b.WriteString(p.Summary + "\n\nUsage:\n")
		if p.Default != nil {
			for _, u := range strings.Split(p.Default.Usage, "\n") {
				fmt.Fprintf(&b, "  %s %s\n", p.Name, u)
			}
			fmt.Fprintf(&b, "  %s COMMAND [flags]\n", p.Name)
		} else {
			for _, sc := range p.visible() {
				fmt.Fprintf(&b, "  %s %s\n", p.Name, firstLine(sc.Usage))
			}
		}
		b.WriteString("\nCommands:\n")
		width := len("completion")
		for _, sc := range p.Commands {
			width = max(width, len(sc.Name))
		}
		for _, sc := range p.visible() {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, sc.Name, sc.Summary)
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, "help", "show the help of a command: "+p.Name+" help COMMAND")
		fmt.Fprintf(&b, "  %-*s  %s\n", width, "completion", "print a shell completion script: bash, zsh or fish")
		if p.Default != nil {
			p.commandBody(&b, p.Default)
		} else {
			b.WriteString("\nFlags:\n  -h, --help  show the help of a command\n  --version   print the version and exit\n")
		}
		fmt.Fprintf(&b, "\nRun '%s help COMMAND' or '%s COMMAND --help' for the help of one command.\n", p.Name, p.Name)
		if p.Footer != "" {
			b.WriteString("\n" + strings.TrimRight(p.Footer, "\n") + "\n")
		}
	} else {
		fmt.Fprintf(&b, "%s %s: %s\n\nUsage:\n", p.Name, c.Name, c.Summary)
		for _, u := range strings.Split(c.Usage, "\n") {
			fmt.Fprintf(&b, "  %s %s\n", p.Name, u)
		}
		p.commandBody(&b, c)
	}
	io.WriteString(w, b.String())
}

func (p *Program) commandBody(b *strings.Builder, c *Command) {
	if c.Description != "" {
		b.WriteString("\n" + strings.TrimRight(c.Description, "\n") + "\n")
	}
	fs, _ := p.flagsOf(c)
	group := "\x00"
	for _, f := range fs.flags {
		if f.group != group {
			group = f.group
			b.WriteString("\n" + cmp.Or(group, "Flags") + ":\n") // "Flags" for the ungrouped
		}
		left := "  " + flagSynopsis(f)
		if len(left) > 22 {
			b.WriteString(strings.TrimRight(left, " ") + "\n")
			left = ""
		}
		for _, l := range strings.Split(f.Usage, "\n") {
			fmt.Fprintf(b, "%-22s%s\n", left, l)
			left = "" // further lines are indented
		}
	}
	if c.Examples != "" {
		b.WriteString("\nExamples:\n")
		for _, l := range strings.Split(strings.TrimRight(c.Examples, "\n"), "\n") {
			if l != "" {
				l = "  " + l
			}
			b.WriteString(l + "\n")
		}
	}
}

func flagSynopsis(f *Flag) string {
	s := "--" + f.Name
	if f.Short != "" {
		s = "-" + f.Short + ", " + s
	}
	switch {
	case f.Optional != nil:
		s += " [" + f.Arg + "]"
	case f.Arg != "":
		s += " " + f.Arg
	}
	return s + "  "
}
