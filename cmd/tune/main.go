// Command tune fits an evaluation's weights to labelled positions (Texel
// tuning) and regenerates its weights file — engine/eval/weights_gen.go for
// chess, engine/dama/eval/weights_gen.go for Italian draughts — so that the
// next build of the engine plays with them.
//
//	tune -data out.parquet                 # self-play dataset: file, directory or glob
//	tune -data texel.epd -out /tmp/w.go    # `FEN [1.0]` or `FEN c9 "1-0";` lines
//	tune -data dama.parquet                # a draughts dataset (chessforge.game = dama)
//	tune -game dama -data dama.txt         # `PDN-FEN [1.0]` lines
//
// The game is -game, or the dataset's chessforge.game metadata (chess for
// text files and datasets without it).
//
// It reads and resolves the positions (by default each to the quiet leaf of
// its quiescence search), fits the sigmoid scale K, minimises the mean
// squared error with L-BFGS and an analytic gradient on all cores, stops
// when the validation error stops improving, writes a report (errors.csv,
// curves.png, changes.txt) and the weights file. Its last line on stdout
// is
//
//	tune: N positions, K=k, train MSE a -> b, validation MSE c -> d
//
// -lambda auto (the default) fits to the search scores (λ=0) when every
// position carries one, as a self-play dataset's do, and to the game results
// (λ=1) otherwise; the log names the λ chosen. The weights kept are those of
// the iteration with the best validation error. When, rounded, their
// validation error is not below the starting one, tune writes no weights
// file, says so on stderr with both figures and exits with status 3, unless
// -allow-worse. -dry-run writes nothing: no weights, and no report unless
// -report is given.
//
// Exit status: 0 done, 1 an error (bad setting or data, a write that
// failed), 3 the weights were refused as not better.
//
// The algorithm is tuner.Run; this command reads its settings (declared
// once, in tuner.Options) from the flags over a -config file and prints
// the peak memory and the summary line.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"chessforge/configs"
	"chessforge/tuner"
)

func main() {
	os.Exit(exit(os.Stderr, run(os.Args[1:], os.Stdout, os.Stderr)))
}

// exit reports run's error err on stderr as every command does (usage
// errors exit 2, others 1; see configs.Exit) and returns the exit status:
// tuner.ExitNoGain for a refusal of the fitted weights.
func exit(stderr io.Writer, err error) int {
	code := configs.Exit(stderr, "tune", err)
	var ng *tuner.NoGainError
	if errors.As(err, &ng) {
		return tuner.ExitNoGain
	}
	return code
}

// settings are the command's settings: the run's (tuner.Options) and the
// command's own.
type settings struct {
	tuner.Options
	Quiet bool `json:"quiet" usage:"no progress bars"`
}

// run is the command, with its arguments and outputs as parameters. A
// mistake in the command line is a *configs.UsageError; -h prints the usage
// on stdout and returns flag.ErrHelp.
func run(args []string, stdout, stderr io.Writer) error {
	s := settings{Options: tuner.DefaultOptions()}
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tune -data PATH [-config FILE] [flags]\n\nFits an evaluation's weights to labelled positions and regenerates its weights file\n(engine/eval/weights_gen.go for chess, engine/dama/eval/weights_gen.go for -game dama).\nFlags override the config file, whose keys are the flags' names.\nExit status 3: the fitted weights' validation error is not below the starting one, so they\nwere not written (-allow-worse writes them).\n\n")
		fs.PrintDefaults()
	}
	b, err := configs.Bind(fs, &s, "")
	if err != nil {
		return err
	}
	if err := configs.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return configs.Usagef("unexpected arguments %q (settings are flags: -data PATH ...)", fs.Args())
	}
	if err := b.Apply(); err != nil {
		return err
	}
	if s.DryRun {
		given, err := reportGiven(fs, b.File())
		if err != nil {
			return err
		}
		if !given {
			s.Report = ""
		}
	}
	// Settings are checked before anything is read: the filters, then the
	// weights file (written last, after all the work, under a temporary
	// name renamed when complete; the game's file when -out is empty, which
	// needs the data's game): not the data, in a directory that exists.
	if err := s.Filter.Validate(); err != nil {
		return configs.AsUsage(err)
	}
	if !s.DryRun {
		if s.Out == "" {
			if _, err := s.ResolveGame(); err != nil {
				return err
			}
		}
		if err := configs.NotAnInput(s.Out, s.Data); err != nil {
			return fmt.Errorf("-out %w", err)
		}
		if err := configs.OutputFile(s.Out); err != nil {
			return fmt.Errorf("-out %w", err)
		}
	}
	s.Log, s.Warn = stdout, stderr
	if !s.Quiet {
		s.Progress = stderr
	}
	sum, err := tuner.Run(s.Options)
	if sum == nil {
		return err // failed before a result; a refusal comes with its summary
	}
	if hwm := peakRSS(); hwm > 0 {
		fmt.Fprintf(stdout, "tune: peak memory %.0f MB (%.0f MB per million positions)\n", hwm/1e6, hwm/1e6/(float64(sum.Positions)/1e6))
	}
	fmt.Fprintln(stdout, sum.Line())
	return err
}

// reportGiven reports whether -report was set on the command line or in
// the config file.
func reportGiven(fs *flag.FlagSet, file string) (bool, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "report" })
	if given || file == "" {
		return given, nil
	}
	// A value no sensible config file holds tells whether the file sets it.
	const unset = "\x00unset"
	probe := settings{Options: tuner.DefaultOptions()}
	probe.Report = unset
	if err := configs.Load(file, &probe); err != nil {
		return false, err
	}
	return probe.Report != unset, nil
}

// peakRSS returns the process's peak resident set in bytes (Linux's
// VmHWM), or 0 when unknown.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
