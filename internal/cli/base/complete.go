package base

import (
	"fmt"
	"sort"
	"strings"
)

// Shell completion works as in cobra: the script a shell loads calls the
// program back as "PROG __complete WORD... CURRENT", and the program
// prints the candidates for CURRENT, one per line.

func (p *Program) completionCmd(args []string) int {
	operands := operands(args)
	if len(operands) != 1 {
		return p.UsageErrorf(nil, "completion: name one shell: bash, zsh or fish")
	}
	script, ok := scripts[operands[0]]
	if !ok {
		msg := fmt.Sprintf("completion: unknown shell %q (bash, zsh or fish)", operands[0])
		if s := Suggest(operands[0], []string{"bash", "zsh", "fish"}); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return p.UsageErrorf(nil, "%s", msg)
	}
	fmt.Fprint(p.Env.Stdout, strings.ReplaceAll(script, "PROG", p.Name))
	return ExitOK
}

// scripts are the completion scripts by shell.
var scripts = map[string]string{
	"bash": `# bash completion for PROG; load with: source <(PROG completion bash)
_PROG_complete() {
	local IFS=$'\n'
	COMPREPLY=($(PROG __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _PROG_complete PROG
`,
	"zsh": `#compdef PROG
# zsh completion for PROG; load with: source <(PROG completion zsh)
_PROG() {
	local -a candidates
	candidates=("${(@f)$(PROG __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	compadd -a candidates
}
compdef _PROG PROG
`,
	"fish": `# fish completion for PROG; load with: PROG completion fish | source
complete -c PROG -f -a '(PROG __complete (commandline -opc)[2..-1] (commandline -ct))'
`,
}

// complete prints the candidates for the last of words.
func (p *Program) complete(words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	name, rest, _ := p.findCommand(before)
	c := p.Default
	if name != "" {
		c = p.Lookup(name)
	}
	var cands []string
	add := func(s ...string) {
		for _, x := range s {
			if strings.HasPrefix(x, cur) {
				cands = append(cands, x)
			}
		}
	}
	if name == "help" {
		add(p.names()...)
	} else if name == "completion" {
		add("bash", "zsh", "fish")
	} else if c != nil {
		fs, _ := p.flagsOf(c)
		// Parse what is there, leniently, so that a completer sees the
		// flags given so far (--dir for --session).
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if len(a) < 2 || a[0] != '-' || a == "--" {
				continue
			}
			n, v, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := fs.Lookup(n)
			if f == nil || f.IsBool() {
				continue
			}
			if !has && i+1 < len(rest) {
				i++
				v = rest[i]
			}
			f.Value.Set(v)
		}
		var prev *Flag
		if len(rest) > 0 {
			if a := rest[len(rest)-1]; strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
				prev = fs.Lookup(strings.TrimLeft(a, "-"))
			}
		}
		switch {
		case prev != nil && !prev.IsBool() && prev.Optional == nil:
			if prev.Complete != nil {
				add(prev.Complete()...)
			}
		case strings.HasPrefix(cur, "--") && strings.Contains(cur, "="):
			n, _, _ := strings.Cut(cur[2:], "=")
			if f := fs.Lookup(n); f != nil && f.Complete != nil {
				for _, v := range f.Complete() {
					add("--" + n + "=" + v)
				}
			}
		case strings.HasPrefix(cur, "-"):
			for _, f := range fs.flags {
				add("--" + f.Name)
			}
		default:
			if name == "" {
				add(p.names()...)
			}
		}
	}
	sort.Strings(cands)
	for _, x := range cands {
		fmt.Fprintln(p.Env.Stdout, x)
	}
	return ExitOK
}
