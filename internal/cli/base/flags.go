package base

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Value is a flag's value, as flag.Value: declared here so that no command
// links package flag, whose initialisation builds its command line's flag
// set in every process (statuspub's hooks included).
type Value interface {
	String() string
	Set(string) error
}

// Flag is one flag of a [FlagSet].
type Flag struct {
	Name  string // the long name, without dashes
	Short string // a one-letter shorthand, or ""
	// Arg names the value in help ("DIR"); "" for a boolean flag.
	Arg   string
	Usage string // one line for help; more lines are indented
	Value Value
	// Optional: the flag may stand alone (--json) or take a value
	// (--json session,state); Optional decides whether the next argument
	// is its value.
	Optional func(next string) bool
	// NoValue is the value of a flag that takes an Optional value and
	// stands alone.
	NoValue string
	// Complete lists the values to offer in shell completion; nil offers
	// none (the shell completes file names instead).
	Complete func() []string
	group    string
	set      bool
}

// IsBool reports whether the flag takes no value.
func (f *Flag) IsBool() bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// takes reports whether the flag, written without "=", takes next as its
// value.
func (f *Flag) takes(next string) bool {
	return !f.IsBool() && (f.Optional == nil || f.Optional(next))
}

// FlagSet is the flags of one command, in declaration order.
type FlagSet struct {
	flags []*Flag
	byKey map[string]*Flag // long names and shorthands
	group string
	// StopAtArg ends the flags at the first argument that is not one (for
	// commands that run another command: run -- CMD).
	StopAtArg bool
}

func newFlagSet() *FlagSet { return &FlagSet{byKey: map[string]*Flag{}} }

// Group starts a new group of flags under heading in help.
func (fs *FlagSet) Group(heading string) { fs.group = heading }

// Var adds a flag with any value.
func (fs *FlagSet) Var(v Value, name, arg, usage string) *Flag {
	f := &Flag{Name: name, Arg: arg, Usage: usage, Value: v, group: fs.group}
	if _, dup := fs.byKey[name]; dup {
		panic("base: flag --" + name + " declared twice")
	}
	fs.flags = append(fs.flags, f)
	fs.byKey[name] = f
	return f
}

// Shorthand gives f a one-letter alias: -r for --raw-output.
func (fs *FlagSet) Shorthand(f *Flag, short string) *Flag {
	f.Short = short
	fs.byKey[short] = f
	return f
}

// Lookup returns the flag named name (long or shorthand), or nil.
func (fs *FlagSet) Lookup(name string) *Flag { return fs.byKey[name] }

// Changed reports whether the command line set the flag named name.
func (fs *FlagSet) Changed(name string) bool {
	f := fs.byKey[name]
	return f != nil && f.set
}

// String adds a string flag.
func (fs *FlagSet) String(p *string, name, def, arg, usage string) *Flag {
	return fs.Var(newValue(p, def, func(v string) (string, error) { return v, nil }), name, arg, usage)
}

// Bool adds a boolean flag.
func (fs *FlagSet) Bool(p *bool, name string, def bool, usage string) *Flag {
	return fs.Var(newValue(p, def, parseBool), name, "", usage)
}

// Int adds an integer flag.
func (fs *FlagSet) Int(p *int, name string, def int, arg, usage string) *Flag {
	return fs.Var(newValue(p, def, parseInt), name, arg, usage)
}

// Duration adds a duration flag; a value without a unit is refused with a
// hint to add one.
func (fs *FlagSet) Duration(p *time.Duration, name string, def time.Duration, arg, usage string) *Flag {
	return fs.Var(newValue(p, def, ParseDuration), name, arg, usage)
}

// Func adds a flag that calls set with each value.
func (fs *FlagSet) Func(name, arg, usage string, set func(string) error) *Flag {
	return fs.Var(newValue(new(string), "", func(v string) (string, error) { return v, set(v) }), name, arg, usage)
}

// value is a flag's value of type T, stored at p and read by parse.
type value[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func newValue[T any](p *T, def T, parse func(string) (T, error)) *value[T] {
	*p = def
	return &value[T]{p, parse}
}

func (v *value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

func (v *value[T]) String() string { return fmt.Sprint(*v.p) }

// IsBoolFlag reports whether the flag stands alone: a boolean.
func (v *value[T]) IsBoolFlag() bool {
	_, ok := any(v.p).(*bool)
	return ok
}

func parseBool(v string) (bool, error) {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return false, errors.New("not true or false")
	}
	return x, nil
}

func parseInt(v string) (int, error) {
	x, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%q is out of range", v)
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number", v)
	}
	return x, nil
}

// ParseDuration parses a Go duration (300ms, 10s, 1h30m). A bare number
// gets an error that says to add a unit.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		return 0, fmt.Errorf("%q has no unit; add a unit, e.g. %ss", s, s)
	}
	return 0, fmt.Errorf("%q is not a duration (e.g. 500ms, 10s, 5m, 1h30m)", s)
}

// parse sets the flags from args and returns the other arguments. Flags
// may come anywhere; "--" ends them; with StopAtArg the first other
// argument does.
func (fs *FlagSet) parse(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if fs.StopAtArg {
				return append(rest, args[i:]...), nil
			}
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.byKey[name]
		if f == nil {
			// -rc: a group of one-letter boolean shorthands.
			if !strings.HasPrefix(a, "--") && len(name) > 1 && !hasValue && fs.shortGroup(name, true) {
				continue
			}
			return nil, fs.unknown(name)
		}
		f.set = true
		switch {
		case hasValue:
		case i+1 < len(args) && f.takes(args[i+1]):
			i++
			value = args[i]
		case f.IsBool():
			value = "true"
		case f.Optional != nil:
			value = f.NoValue
		default:
			return nil, fmt.Errorf("--%s needs a value (--%s %s)", f.Name, f.Name, f.Arg)
		}
		if err := f.Value.Set(value); err != nil {
			return nil, fmt.Errorf("--%s: %v", f.Name, err)
		}
	}
	return rest, nil
}

// shortGroup reports whether group is a run of one-letter boolean flags
// (-rc) and, when set, sets them.
func (fs *FlagSet) shortGroup(group string, set bool) bool {
	for _, r := range group {
		if f := fs.byKey[string(r)]; f == nil || f.Short != string(r) || !f.IsBool() {
			return false
		}
	}
	for _, r := range group {
		if f := fs.byKey[string(r)]; set {
			f.set = true
			f.Value.Set("true")
		}
	}
	return true
}

// unknown is the error for the flag name that fs lacks, with the one
// probably meant.
func (fs *FlagSet) unknown(name string) error {
	var names []string
	for _, f := range fs.flags {
		names = append(names, f.Name)
	}
	shown := "--" + name
	if len(name) == 1 {
		shown = "-" + name
	}
	msg := "unknown flag " + shown
	if s := Suggest(name, names); s != "" {
		msg += "; did you mean --" + s + "?"
	}
	return errors.New(msg)
}
