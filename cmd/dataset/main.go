// Command dataset inspects, checks and converts the project's training
// datasets (SPEC §3): a .parquet file, a directory of them or a glob, of
// chess or of Italian draughts (each file's metadata names its game; a
// dataset holds one game, and the Stockfish formats are chess only).
//
//	dataset info PATH                        files, rows, games, schema, metadata, bytes per position
//	dataset stats [FILTERS] PATH             results, game lengths, score histogram, terminations
//	dataset head [-n N] [-board K] PATH      the first rows as FEN, move, score, result; a board picture
//	dataset verify [-show K] PATH            re-derive planes and policy; last line "verify: N rows, M mismatches"
//	dataset split PATH [-val F] [-seed S] -out DIR      train/validation by game: DIR/train.parquet, DIR/val.parquet
//	dataset merge PATH... -out FILE [-dedup]            shards into one file, optionally without games' already-seen openings
//	dataset export -format epd PATH -out FILE [FILTERS]           "FEN [1.0]" lines
//	dataset export -format npy PATH -out DIR [-shard-rows N] [FILTERS]   NumPy shards and manifest.json
//	dataset export -format plain|binpack PATH -out FILE  Stockfish's training data (.plain text, .binpack)
//	dataset import [-format plain|binpack] FILE -out DATASET   a Stockfish .plain or .binpack file as a dataset
//	dataset import [-format pgn] FILE.pgn -out DATASET         played games' scored moves as rows
//
// FILTERS are the read-time filters every reader of the project shares
// (chessforge/datasets.Filter): -min-ply N, -max-score N, -skip-in-check,
// -skip-captures, -disagree-score N. stats counts and export writes the
// rows they keep; verify always checks every row, as games must be whole.
// The plain and binpack exports keep whole games too (binpack chains them;
// nnue-pytorch and bullet apply their own skip rules when loading), so they
// refuse filters. Every command also takes -config FILE, a JSON object
// whose keys are its flags' names; flags on the command line override it.
//
// verify replays each game from its rows (the first row's FEN, then each
// row's move) and checks every row's FEN, planes, policy and move columns;
// a game's rows must be contiguous, in ply order and in one file, and a
// break is a mismatch naming the game and the plies ("game 123: ply 89
// follows ply 86");
// a game written from a later ply has no record of its opening, so its
// repetition plane is checked as a lower bound where the positions that
// could repeat lie before its first row (for draughts also its quiet-ply
// plane, which the PDN FEN does not carry), and a draughts game's end is
// checked against the rules (see package chessforge/datasets/verify).
// merge -dedup drops the leading rows of each game whose positions came
// earlier (shared openings), positions compared by their FEN without the
// move counters, so every game stays whole (package chessforge/datasets/reshard).
// The NumPy export's layout is described in package chessforge/datasets/export
// and datasets/python/README.md; the Stockfish formats, what they carry and
// what an import rebuilds, in package chessforge/datasets/stockfish; the
// import of PGN games (cutechess-cli's, fastchess's and bin/match's score
// comments; a malformed game skipped, named on stderr with the reason) in
// package chessforge/datasets/pgnimport.
//
// Flags may come before or after the paths. Long work shows a progress bar
// on standard error (-quiet hides it). Every file is written under a
// temporary name and renamed when complete (a NumPy export as a whole
// directory, which replaces the earlier one only then), so a failed run
// leaves the earlier output as it was. An output may not be an input
// (configs.NotAnInput: by identity, links included; a file of an input
// directory is an input), and while a command writes an output it holds
// the lock OUT.lock beside it (package chessforge/internal/outlock): a
// second writer is refused at once.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"chessforge/configs"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is a subcommand: it parses its flags from args and writes its
// report to out, progress to errw.
type command struct {
	name, usage string
	run         func(args []string, out, errw io.Writer) error
}

var commands = []command{
	{"info", "info PATH", runInfo},
	{"stats", "stats [-min-ply N] [-max-score N] [-skip-in-check] [-skip-captures] [-disagree-score N] PATH", runStats},
	{"head", "head [-n N] [-board K] PATH", runHead},
	{"verify", "verify [-show K] PATH", runVerify},
	{"split", "split PATH [-val F] [-seed S] -out DIR", runSplit},
	{"merge", "merge PATH... -out FILE [-dedup]", runMerge},
	{"export", "export -format epd|npy|plain|binpack PATH -out FILE|DIR [-shard-rows N] [-min-ply N] [-max-score N] [-skip-in-check] [-skip-captures] [-disagree-score N]", runExport},
	{"import", "import [-format plain|binpack|pgn] FILE -out DATASET", runImport},
}

// usagef returns a mistake in the command line (exit status 2).
func usagef(format string, args ...any) error { return configs.Usagef(format, args...) }

// helpRequest is flag.ErrHelp from a subcommand's flag set, carried to run,
// which prints the subcommand's usage and its flags.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return flag.ErrHelp.Error() }

// Unwrap makes errors.Is(err, flag.ErrHelp) hold.
func (h *helpRequest) Unwrap() error { return flag.ErrHelp }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dataset COMMAND [flags] PATH...")
	for _, c := range commands {
		fmt.Fprintf(w, "  dataset %s\n", c.usage)
	}
	fmt.Fprintln(w, "PATH is a .parquet file, a directory of them, or a glob; flags may follow the paths.")
	fmt.Fprintln(w, "'dataset COMMAND -h' (or 'dataset help COMMAND') describes a command's flags.")
}

// run is the command: exit status 0 when done or when the usage was asked
// for (printed on stdout), 1 when the work failed (or verify found
// mismatches), 2 for a mistake in the command line, said in one line on
// stderr.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return configs.ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		usage(stdout)
		return configs.ExitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		var help *helpRequest
		switch {
		case errors.As(err, &help):
			fmt.Fprintf(stdout, "usage: dataset %s\n\nflags:\n", c.usage)
			help.fs.SetOutput(stdout)
			help.fs.PrintDefaults()
			return configs.ExitOK
		case errors.Is(err, errMismatches):
			return configs.ExitError // the report says so
		}
		return configs.Exit(stderr, "dataset "+c.name, err)
	}
	return configs.Exit(stderr, "dataset", usagef("unknown command %q", args[0]))
}

// parse parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. Its errors are
// *configs.UsageError, or a *helpRequest for -h.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.Usage = func() {} // run prints the usage
	var pos []string
	for {
		if err := configs.ParseFlags(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs}
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseSettings parses args for a command whose flags are the settings
// struct set points to (see package chessforge/configs): it defines them
// and -config FILE on fs, parses args, calls check with the positional
// arguments, then applies the config file and the flags over set's values,
// and returns the positional arguments.
func parseSettings(fs *flag.FlagSet, set any, args []string, check func(pos []string) error) ([]string, error) {
	b, err := configs.Bind(fs, set, "")
	if err != nil {
		return nil, err
	}
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := check(pos); err != nil {
		return nil, err
	}
	if err := b.Apply(); err != nil {
		return nil, err
	}
	return pos, nil
}

// onePathSettings is parseSettings for a command taking exactly one
// dataset path, which it returns.
func onePathSettings(fs *flag.FlagSet, set any, args []string) (string, error) {
	pos, err := parseSettings(fs, set, args, onePath)
	if err != nil {
		return "", err
	}
	return pos[0], nil
}

// onePath checks that a command's positional arguments are one dataset
// path.
func onePath(pos []string) error {
	if len(pos) == 0 {
		return usagef("want a dataset PATH")
	}
	if len(pos) != 1 {
		return usagef("want one dataset PATH, got %d (%s)", len(pos), strings.Join(pos, " "))
	}
	return nil
}

// somePaths checks that a command's positional arguments are at least one
// dataset path.
func somePaths(pos []string) error {
	if len(pos) == 0 {
		return usagef("want at least one dataset PATH")
	}
	return nil
}
