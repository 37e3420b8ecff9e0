// Command tune fits the evaluation's weights to labelled positions (Texel
// tuning) and regenerates engine/eval/weights_gen.go, so that the next build
// of the engine plays with them.
//
//	tune -data out.parquet                 # self-play dataset: file, directory or glob
//	tune -data texel.epd -out /tmp/w.go    # `FEN [1.0]` or `FEN c9 "1-0";` lines
//
// It reads and resolves the positions (by default each to the quiet leaf of
// its quiescence search), fits the sigmoid scale K, minimises the mean
// squared error with L-BFGS and an analytic gradient on all cores, stops
// when the validation error stops improving, writes a report (errors.csv,
// curves.png, changes.txt) and the weights file. Its last line is
//
//	tune: N positions, K=k, train MSE a -> b, validation MSE c -> d
//
// The algorithm is tuner.Run; this command reads its settings (declared
// once, in tuner.Options) from the flags over a -config file and prints
// the peak memory and the summary line.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"chessforge/configs"
	"chessforge/tuner"
)

func main() {
	os.Exit(configs.Exit(os.Stderr, "tune", run(os.Args[1:], os.Stdout, os.Stderr)))
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
		fmt.Fprintf(fs.Output(), "usage: tune -data PATH [-config FILE] [flags]\n\nFits the evaluation's weights to labelled positions and regenerates engine/eval/weights_gen.go.\nFlags override the config file, whose keys are the flags' names.\n\n")
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
	if !s.DryRun && s.Out != "" {
		// The weights file is written last, after all the work: its
		// directory is checked first.
		if err := configs.OutputFile(s.Out); err != nil {
			return fmt.Errorf("-out %w", err)
		}
	}
	s.Log, s.Warn = stdout, stderr
	if !s.Quiet {
		s.Progress = stderr
	}
	sum, err := tuner.Run(s.Options)
	if err != nil {
		return err
	}
	if hwm := peakRSS(); hwm > 0 {
		fmt.Fprintf(stdout, "tune: peak memory %.0f MB (%.0f MB per million positions)\n", hwm/1e6, hwm/1e6/(float64(sum.Positions)/1e6))
	}
	fmt.Fprintln(stdout, sum.Line())
	return nil
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
