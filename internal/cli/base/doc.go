// Package base is the command-line plumbing shared by statusls, statuspub
// and statusconform: the process environment ([Env]), named exit codes,
// GNU-style flag parsing with flags anywhere ([FlagSet]), subcommand
// dispatch ([Program], [Command]), usage errors with "did you mean",
// per-subcommand help with examples, --version from the build info, shell
// completion for bash, zsh and fish, and man pages generated from the same
// definitions.
//
// For most uses, describe the command as a [Program] whose [Command]s
// declare their flags in Setup, and call [Program.Run].
//
// # Adding a subcommand
//
// Append a [Command] to the program's Commands:
//
//	{
//		Name:     "frob",
//		Summary:  "frobnicate the sessions",
//		Usage:    "frob [flags]",
//		Examples: "statusls frob --dir /tmp/x",
//		Setup: func(fs *base.FlagSet) base.Runner {
//			var level int
//			fs.Int(&level, "level", 1, "N", "how hard")
//			return func(args []string) int { return frob(level, args) }
//		},
//	}
//
// Setup declares the flags into variables of its own and returns the
// function that runs once they are parsed; help, completion and man pages
// call Setup too and never run the result. A flag is one line in Setup
// ([FlagSet.String], [FlagSet.Bool], [FlagSet.Int], [FlagSet.Duration],
// [FlagSet.Var]); [Flag.Complete] adds value completion. A command whose
// failures must never stop the program that runs it (an agent's hook) sets
// Hook: then every failure, usage errors included, exits 0 with one line on
// stderr, or 1 with --strict, and never 2.
//
// # Conventions
//
// Flags are --long (a single dash is accepted for long names too, and
// for the one-letter shorthands), may come before or after the subcommand
// and its arguments, take their value as --name VALUE or --name=VALUE, and
// "--" ends them. Messages name flags as --name. Errors are one line,
// "prog: [subcommand: ]message", optionally followed by "prog: hint: ...".
package base
