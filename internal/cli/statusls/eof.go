package statusls

import "io"

// stdinEOF returns a channel that is closed when standard input ends (with
// --until-eof), or nil, which never is. A watch or wait run over ssh by
// statusls --host learns so that its reader went away: sshd closes its
// input then, while its output may stay quiet for hours.
func stdinEOF(env *cmdEnv, on bool) <-chan struct{} {
	if !on {
		return nil
	}
	c := make(chan struct{})
	go func() {
		io.Copy(io.Discard, env.Stdin)
		close(c)
	}()
	return c
}
