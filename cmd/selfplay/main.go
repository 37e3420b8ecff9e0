// Command selfplay plays the engine against itself and writes every position
// as a training row (SPEC §3), to one .parquet file or a directory of part
// files, optionally with the games as PGN; with -game dama it plays Italian
// draughts (rows in the draughts layout of docs/format.md, games as PDN);
// with -engine CMD it plays an outside UCI engine against itself instead.
// Its last line is
//
//	selfplay: G games, P positions, S s, R positions/s
//
// Every setting is a flag and a key of the JSON config file given with
// -config (configs/selfplay.json is the default job); flags override the file.
// The settings are declared once, in selfplay.Config and settings below.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/internal/cputime"
	"chessforge/internal/record"
	"chessforge/selfplay"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	set, opt, err := parseArgs(args, stdout, stderr)
	if err == nil {
		err = checkRecord(set.Record, set.What)
	}
	if err != nil {
		return configs.Exit(stderr, "selfplay", err)
	}
	cfg := set.Config

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-finished:
				// run's deferred stop, not a signal: this goroutine was
				// scheduled only after run had returned.
				return
			default:
			}
			stop() // a second signal ends the program at once
			fmt.Fprintln(stderr, "\nselfplay: stopping: no new games; closing the files (press again to quit at once)")
		case <-finished:
		}
	}()

	sum, err := selfplay.Run(ctx, cfg, opt)
	close(finished)
	if sum == nil {
		return configs.Exit(stderr, "selfplay", err)
	}
	report(stdout, &cfg, sum)
	if set.Record != "" {
		if rerr := appendRecord(set.Record, &cfg, args, sum, set.What, stderr); rerr != nil && err == nil && !sum.Interrupted {
			fmt.Fprintln(stdout, sum.Line())
			return 1 // appendRecord said why
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "selfplay: %v\nselfplay: stopped; the files finished before the error are valid (%d games of shard %v done); continue with -resume once it is fixed\n",
			err, sum.Done, sum.Shard)
		fmt.Fprintln(stdout, sum.Line())
		return 1
	case sum.Interrupted:
		fmt.Fprintf(stdout, "interrupted: %d of the shard's %d games done; run the same command with -resume to continue\n", sum.Done, sum.Total)
		fmt.Fprintln(stdout, sum.Line())
		return 130
	}
	fmt.Fprintln(stdout, sum.Line())
	return 0
}

// appendRecord appends the run's bench record to the history file path
// and says so on stderr, or says why it could not. A run that finished no
// game (a finished job resumed, say) has nothing to record, which is said
// but is no error.
func appendRecord(path string, cfg *selfplay.Config, args []string, sum *selfplay.Summary, what string, stderr io.Writer) error {
	if sum.Games == 0 {
		fmt.Fprintf(stderr, "selfplay: -record %s: no game finished in this run: nothing recorded\n", path)
		return nil
	}
	rec, err := selfplayRecord(cfg, args, sum, cputime.Used(), what)
	if err == nil {
		err = record.Append(path, rec)
	}
	if err != nil {
		err = fmt.Errorf("-record %s: %w", path, err)
		fmt.Fprintf(stderr, "selfplay: %v\n", err)
		return err
	}
	fmt.Fprintf(stderr, "selfplay: recorded %s in %s\n", rec.ID, path)
	return nil
}

// report prints what the run produced, before the summary line.
func report(w io.Writer, cfg *selfplay.Config, s *selfplay.Summary) {
	if s.First > 0 {
		fmt.Fprintf(w, "shard %v: %d of %d games done, the output holding those from game %d (-first-game)\n", s.Shard, s.Done, s.Total, s.First)
	} else {
		fmt.Fprintf(w, "shard %v: %d of %d games done\n", s.Shard, s.Done, s.Total)
	}
	if s.Games > 0 {
		fmt.Fprintf(w, "results (White): +%d =%d -%d\n", s.Wins, s.Draws, s.Losses)
		var terms []string
		for _, t := range datasets.Terminations() {
			if n := s.Terminations[t]; n > 0 {
				terms = append(terms, fmt.Sprintf("%s %d", t, n))
			}
		}
		fmt.Fprintf(w, "terminations: %s\n", strings.Join(terms, ", "))
		fmt.Fprintf(w, "unique positions: %d of %d (%.1f%%)\n", s.Unique, s.Positions, 100*s.UniqueShare())
		if secs := s.Elapsed.Seconds(); secs > 0 {
			fmt.Fprintf(w, "search: %d searches, %d nodes, %.0f searches/s, %.0f nodes/s, %.0f games/hour\n",
				s.Searches, s.Nodes, float64(s.Searches)/secs, float64(s.Nodes)/secs, float64(s.Games)/secs*3600)
		}
	}
	if s.Lost > 0 {
		fmt.Fprintf(w, "lost: %d games to engine faults, not saved (the log above says why)\n", s.Lost)
	}
	switch len(s.Files) {
	case 0:
		fmt.Fprintf(w, "output: none written yet (%s)\n", s.Out)
	case 1:
		fmt.Fprintf(w, "output: %s\n", s.Files[0])
	default:
		fmt.Fprintf(w, "output: %s (%d files of shard %v)\n", s.Out, len(s.Files), s.Shard)
	}
	if s.PGN != "" {
		fmt.Fprintf(w, "pgn: %s\n", s.PGN)
	}
}

// settings are the command's settings: the job's, and how this run goes.
type settings struct {
	selfplay.Config
	Resume bool   `json:"resume" usage:"continue the job from the files an interrupted run left"`
	First  int    `json:"first-game" usage:"the first of the shard's games (0-based) to play: the games before it are kept elsewhere (a stopped run's corpus file), so the job goes on from there on any machine; give it again with -resume"`
	Quiet  bool   `json:"quiet" usage:"no progress bar"`
	Record string `json:"record" usage:"append the run's record (docs/records.md, a bench record of subject selfplay) to this .jsonl file when it ends, complete or interrupted"`
	What   string `json:"what" usage:"the record's what: one line of at most 120 characters (default: the player, its limits, the games and the seed)"`
}

// parseArgs reads the flags over the config file over the defaults: the
// chess defaults, or, when the flags or the file choose another game
// (-game dama), that game's (selfplay.DefaultsFor), read again over them.
// Its errors are *configs.UsageError, or flag.ErrHelp once the usage is
// printed on stdout.
func parseArgs(args []string, stdout, stderr io.Writer) (settings, selfplay.Options, error) {
	s, opt, err := parseOver(selfplay.DefaultConfig(), args, stdout, stderr)
	if err == nil && s.Game != selfplay.DefaultConfig().Game {
		s, opt, err = parseOver(selfplay.DefaultsFor(s.Game), args, stdout, stderr)
	}
	if err != nil {
		return s, opt, err
	}
	return s, opt, configs.AsUsage(s.Config.Validate())
}

// parseOver reads the flags over the config file over def.
func parseOver(def selfplay.Config, args []string, stdout, stderr io.Writer) (settings, selfplay.Options, error) {
	s := settings{Config: def}
	var opt selfplay.Options
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: selfplay [-config FILE] [-games N] [-out PATH] [flags]\n\nPlays the engine (or, with -engine CMD, an outside UCI engine) against itself and writes a dataset (SPEC §3). Flags override the config file (e.g. configs/selfplay.json), whose keys are the flags' names.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	b, err := configs.Bind(fs, &s, "")
	if err != nil {
		return settings{Config: def}, opt, err
	}
	if err := configs.ParseFlags(fs, args); err != nil {
		return settings{Config: def}, opt, err
	}
	if fs.NArg() > 0 {
		return settings{Config: def}, opt, configs.Usagef("unexpected argument %q (settings are flags: -games N ...)", fs.Arg(0))
	}
	if err := b.Apply(); err != nil {
		return settings{Config: def}, opt, err
	}
	opt.Resume = s.Resume
	opt.FirstGame = s.First
	opt.Log = stderr
	if !s.Quiet {
		opt.Progress = stderr
	}
	return s, opt, nil
}
