// Command spsa tunes the engine's search parameters by SPSA from game
// pairs between the engine with the parameters nudged one way and the
// engine with them nudged the other (package chessforge/tuner/spsa):
//
//	spsa -params LMRBase,LMRDivisor,RFPMargin -pairs 4000 -tc nodes=10000 -concurrency 2 -state spsa.json
//
// Every game starts the engine (-engine) with -param NAME=VALUE for each
// parameter tuned. After every batch of pairs the values, the pairs played
// and the score go to the state file (-state), written whole each time; an
// interrupt (Ctrl-C) stops at the last batch finished, and the same command
// with -resume continues the run from its state file, playing exactly the
// games an uninterrupted run would. The output is a line for each
// parameter, the engine flags of the tuned values, the -params list that
// starts a further run from them, and last
//
//	spsa: P of N pairs, +W =D -L for θ+c: NAME=VALUE (from START) ...
//
// The tuned values are a candidate: a match against the defaults decides
// (bin/match -a 'bin/engine -param NAME=VALUE ...' -b bin/engine -sprt ...).
//
// With -record FILE (docs/history/tuning.jsonl for a run worth keeping) the
// run, finished or interrupted, is appended to FILE as a tune record of
// the results history (docs/records.md): the values found, the pairs
// played, the score, the plan's settings.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/internal/record"
	"chessforge/tuner/spsa"
)

func main() {
	os.Exit(configs.Exit(os.Stderr, "spsa", run(os.Args[1:], os.Stdout, os.Stderr)))
}

const about = `Tunes the engine's search parameters by SPSA (simultaneous perturbation
stochastic approximation) from game pairs, writing the run's state to -state
after every batch; -resume continues an interrupted run. -record appends
the run to a results history file. The last line is
"spsa: P of N pairs, +W =D -L for θ+c: NAME=VALUE (from START) ...".`

// run is the command, with its arguments and outputs as parameters. A
// mistake in the command line is a *configs.UsageError; -h prints the usage
// on stdout and returns flag.ErrHelp.
func run(args []string, stdout, stderr io.Writer) error {
	s := spsa.DefaultSettings()
	if err := configs.ParseCommand("spsa", about, "", &s, args, stdout); err != nil {
		return err
	}
	if s.State == "" {
		return configs.Usagef("-state: name the run's state file")
	}
	if s.Concurrency <= 0 {
		return configs.Usagef("-concurrency %d: must be positive", s.Concurrency)
	}
	if err := configs.NotAnInput(s.State, s.Openings); err != nil {
		return fmt.Errorf("-state %w", err)
	}
	if s.Record != "" {
		if err := configs.NotAnInput(s.Record, s.State, s.Openings); err != nil {
			return fmt.Errorf("-record %w", err)
		}
	}
	if err := stage.CheckRecordFile(s.Record); err != nil {
		return fmt.Errorf("-%w", err)
	}
	var st *spsa.State
	var err error
	if s.Resume {
		if st, err = spsa.LoadState(s.State, s.Plan); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return configs.Usagef("-resume: %v", err)
			}
			return err
		}
	} else {
		if _, err := os.Stat(s.State); err == nil {
			return configs.Usagef("-state %s: the file exists; -resume continues its run (or remove it to start again)", s.State)
		}
		if err := configs.OutputFile(s.State); err != nil {
			return fmt.Errorf("-state %w", err)
		}
		if st, err = spsa.NewState(s.Plan); err != nil {
			return configs.AsUsage(err)
		}
		if err := st.Save(s.State); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := spsa.NewRunner(s)
	if !s.Quiet {
		r.Progress = stderr
	}
	err = r.Run(ctx, st)
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return err
	}
	values := st.Values()
	for i, name := range st.Names {
		fmt.Fprintf(stdout, "%-24s %6d -> %6d  (θ %.2f)\n", name, st.Start[i], values[i], st.Theta[i])
	}
	fmt.Fprintf(stdout, "engine flags: %s\n", strings.Join(st.Flags(), " "))
	fmt.Fprintf(stdout, "next run from here: -params %s\n", st.NextParams())
	if st.Forfeits > 0 {
		fmt.Fprintf(stdout, "forfeits: %d games lost by a crash, a hang, an illegal move or on time\n", st.Forfeits)
	}
	if interrupted {
		fmt.Fprintf(stdout, "interrupted: %d of %d pairs played; run the same command with -resume to continue\n", st.Played, st.Plan.Pairs)
	}
	fmt.Fprintln(stdout, st.Summary())
	if s.Record == "" {
		return nil
	}
	rec := st.Record(time.Now())
	if err := record.Append(s.Record, rec); err != nil {
		return fmt.Errorf("-record: %w", err)
	}
	fmt.Fprintf(stderr, "spsa: recorded %s in %s\n", rec.ID, s.Record)
	return nil
}
