// Package stage runs the stages of the pipeline's recipes (make loop, make
// nnue): each stage's header and duration lines, its command as a
// subprocess, and a match played through package match, as the recipes'
// mains print them; and (network.go) the stages that turn self-play into a
// network, which make nnue and make loop's network cycle share.
package stage

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"chessforge/selfplay/match"
)

// Start prints a stage's first line, "== HH:MM:SS name: command line" (an
// argument with a space in single quotes, as a shell reads it), and returns
// the time it starts.
func Start(w io.Writer, name string, args []string) time.Time {
	start := time.Now()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if strings.ContainsAny(a, " \t") {
			quoted[i] = "'" + a + "'"
		}
	}
	fmt.Fprintf(w, "\n== %s %s: %s\n", start.Format("15:04:05"), name, strings.Join(quoted, " "))
	return start
}

// End prints a stage's last line, "== name: done in D".
func End(w io.Writer, name string, start time.Time) {
	fmt.Fprintf(w, "== %s: done in %v\n", name, time.Since(start).Round(time.Second))
}

// Skip prints the line of a stage that has nothing to do, and why.
func Skip(w io.Writer, name, why string) {
	fmt.Fprintf(w, "\n== %s %s: skipped, %s\n", time.Now().Format("15:04:05"), name, why)
}

// Run runs one stage's command, args[0] with the rest as its arguments,
// echoing its output: its progress (bars on a terminal, a line every few
// seconds in a log) goes to stderr. Its error wraps the command's
// (*exec.ExitError for a non-zero exit status).
func Run(name string, stdout, stderr io.Writer, args ...string) error {
	start := Start(stdout, name, args)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s failed: %w", name, err)
	}
	End(stdout, name, start)
	return nil
}

// PlayMatch plays a stage's match through package match, as bin/match
// would with args: it echoes the equivalent bin/match command line as the
// stage's header, prints the match's report (ending with its summary line)
// to stdout and its progress to stderr, and returns the result. When ctx
// ends the match (an interrupt), the result covers the games finished and
// is marked Interrupted.
func PlayMatch(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
	start := Start(stdout, name, append([]string{"bin/match"}, args...))
	settings, err := match.ParseArgs(args, stderr)
	if err != nil {
		return nil, fmt.Errorf("%s failed: %w", name, err)
	}
	r, err := match.Play(ctx, settings, stderr)
	if err != nil {
		return nil, fmt.Errorf("%s failed: %w", name, err)
	}
	r.Report(stdout)
	End(stdout, name, start)
	return r, nil
}
