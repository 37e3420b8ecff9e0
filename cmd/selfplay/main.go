// Command selfplay plays the engine against itself and writes every position
// as a training row (SPEC §3), to one .parquet file or a directory of part
// files, optionally with the games as PGN. Its last line is
//
//	selfplay: G games, P positions, S s, R positions/s
//
// Every setting is a flag and a key of the JSON config file given with
// -config (configs/selfplay.json is the default job); flags override the file.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"chessforge/datasets"
	"chessforge/selfplay"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, opt, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop() // a second signal ends the program at once
			fmt.Fprintln(stderr, "\nselfplay: stopping: no new games; closing the files (press again to quit at once)")
		case <-finished:
		}
	}()

	sum, err := selfplay.Run(ctx, cfg, opt)
	close(finished)
	if sum == nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	report(stdout, &cfg, sum)
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

// report prints what the run produced, before the summary line.
func report(w io.Writer, cfg *selfplay.Config, s *selfplay.Summary) {
	fmt.Fprintf(w, "shard %v: %d of %d games done\n", s.Shard, s.Done, s.Total)
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

// parseArgs reads the flags over the config file over the defaults.
func parseArgs(args []string, stderr io.Writer) (selfplay.Config, selfplay.Options, error) {
	def := selfplay.DefaultConfig()
	fc := def // the flags' values
	var opt selfplay.Options
	var configPath string
	var quiet bool
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: selfplay [-config FILE] [-games N] [-out PATH] [flags]\n\nPlays the engine against itself and writes a dataset (SPEC §3). Flags override the config file.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	fs.StringVar(&configPath, "config", "", "JSON config file whose keys are these flags' names (e.g. configs/selfplay.json)")
	fs.BoolVar(&opt.Resume, "resume", false, "continue the job from the files an interrupted run left")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")

	fs.IntVar(&fc.Games, "games", def.Games, "games in the whole job (all shards)")
	fs.Uint64Var(&fc.Seed, "seed", def.Seed, "seed: the same seed, config and engine give the same games")
	fs.Uint64Var(&fc.Nodes, "nodes", def.Nodes, "nodes per move (0: none)")
	fs.IntVar(&fc.Depth, "depth", def.Depth, "depth per move (0: none); with -nodes, whichever comes first")
	fs.IntVar(&fc.Hash, "hash", def.Hash, "transposition table per worker, MiB")
	fs.IntVar(&fc.RandomPlies, "random-plies", def.RandomPlies, "uniformly random plies at the start (not for generated endgames)")
	fs.IntVar(&fc.MultiPVPlies, "multipv-plies", def.MultiPVPlies, "plies after the random ones chosen at random among the top lines")
	fs.IntVar(&fc.MultiPV, "multipv", def.MultiPV, "lines searched on those plies")
	fs.IntVar(&fc.MultiPVMargin, "multipv-margin", def.MultiPVMargin, "a line is a candidate within this many centipawns of the best")
	fs.StringVar(&fc.Book, "book", def.Book, "opening book, EPD or PGN")
	fs.StringVar(&fc.Endgames, "endgames", def.Endgames, "start from random legal positions of these material signatures, e.g. KRPvKR,KQvKR")
	fs.Float64Var(&fc.EndgameShare, "endgame-share", def.EndgameShare, "share of games started from -endgames positions")
	fs.IntVar(&fc.ResignScore, "resign-score", def.ResignScore, "adjudicate a win when |score| >= this (0: never) ...")
	fs.IntVar(&fc.ResignPlies, "resign-plies", def.ResignPlies, "... for this many plies in a row")
	fs.IntVar(&fc.DrawPly, "draw-ply", def.DrawPly, "adjudicate a draw from this ply on when ...")
	fs.IntVar(&fc.DrawScore, "draw-score", def.DrawScore, "... |score| <= this ...")
	fs.IntVar(&fc.DrawPlies, "draw-plies", def.DrawPlies, "... for this many plies in a row (0: never)")
	fs.IntVar(&fc.MaxPlies, "max-plies", def.MaxPlies, "ply cap: the game is drawn at this many plies (0: none)")
	fs.IntVar(&fc.WriteMinPly, "write-min-ply", def.WriteMinPly, "record positions from this ply on")
	fs.IntVar(&fc.WriteMaxScore, "write-max-score", def.WriteMaxScore, "record only positions with |score| <= this (0: all)")
	fs.IntVar(&fc.Workers, "workers", def.Workers, "games played at once (0: one per core)")
	fs.StringVar(&fc.Out, "out", def.Out, "output: a .parquet file, or a directory of part files (sharded or large jobs always make a directory)")
	fs.IntVar(&fc.PartGames, "part-games", def.PartGames, "games per part file in an output directory")
	fs.StringVar(&fc.Shard, "shard", def.Shard, "K/N: play shard K of N (default: from JOB_COMPLETION_INDEX+SELFPLAY_SHARDS or SLURM_ARRAY_TASK_*)")
	fs.StringVar(&fc.PGN, "pgn", def.PGN, "also write the games as PGN to this file (sharded: the shard is added to the name)")
	if err := fs.Parse(args); err != nil {
		return def, opt, err
	}
	if fs.NArg() > 0 {
		return def, opt, fmt.Errorf("selfplay: unexpected argument %q (settings are flags: -games N ...)", fs.Arg(0))
	}
	if !quiet {
		opt.Progress = stderr
	}

	cfg := def
	if configPath != "" {
		var err error
		if cfg, err = selfplay.LoadConfig(configPath, def); err != nil {
			return def, opt, err
		}
	}
	// Flags set on the command line override the file: copy those keys of fc.
	var set []string
	fs.Visit(func(f *flag.Flag) { set = append(set, f.Name) })
	all := map[string]json.RawMessage{}
	data, _ := json.Marshal(fc)
	if err := json.Unmarshal(data, &all); err != nil {
		return def, opt, err
	}
	over := map[string]json.RawMessage{}
	for k, v := range all {
		if slices.Contains(set, k) {
			over[k] = v
		}
	}
	data, _ = json.Marshal(over)
	if err := json.Unmarshal(data, &cfg); err != nil {
		return def, opt, err
	}
	return cfg, opt, cfg.Validate()
}
