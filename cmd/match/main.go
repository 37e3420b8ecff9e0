// Command match plays two UCI engines against each other and measures the
// difference in strength: W/D/L, the Elo difference with its 95% interval,
// the likelihood of superiority, the pentanomial counts of game pairs and,
// with -sprt, a sequential test that stops as soon as it is decided. The
// match itself is package chessforge/selfplay/match. With -game dama it
// plays Italian draughts between engines speaking the text protocol of
// `bin/engine -game dama` (by default that engine, on both sides), each
// game adjudicated by the rules of engine/dama, and writes PDN.
//
// Usage:
//
//	match [-config FILE] [-game chess|dama] [-a CMD] [-b CMD] [-a-opt Name=Value]... [-b-opt Name=Value]...
//	      [-games N] [-tc nodes=N|depth=N|movetime=MS|clock=SECONDS+INC] [-a-tc TC] [-b-tc TC]
//	      [-openings FILE.epd|FILE.pgn [-book-plies N] | -random-plies N]
//	      [-pgn FILE [-resume]] [-concurrency K] [-seed S]
//	      [-sprt elo0=0,elo1=5,alpha=0.05,beta=0.05] [-resign SCORE,MOVES]
//	      [-draw SCORE,MOVES,MINPLY] [-max-plies N] [-timeout-margin D] [-move-timeout D]
//	      [-a-name NAME] [-b-name NAME] [-event TEXT] [-quiet] [-record FILE.jsonl [-what TEXT]]
//
// Flags override the config file that -config names: a JSON object whose
// keys are the flags' names and whose values are written as on the command
// line, with the repeatable -a-opt and -b-opt as a list:
//
//	{"b": "/usr/games/stockfish", "b-opt": ["UCI_LimitStrength=true", "UCI_Elo=2000"],
//	 "tc": "clock=10+0.1", "sprt": "elo0=0,elo1=10", "resign": "600,3", "timeout-margin": "2s"}
//
// For draughts:
//
//	match -game dama -a 'bin/engine -game dama' -b 'bin/engine -game dama' \
//	      -a-tc nodes=4000 -b-tc nodes=1000 -games 200 -pgn games.pdn
//
// Every opening is played twice, colours swapped. An engine that crashes,
// stops answering or plays an illegal move loses the game and is restarted.
// An interrupt (Ctrl-C) ends the match early and reports the games finished;
// -resume with the same command continues it from the games in its PGN.
// With -record FILE the match, however it ended, is appended to FILE as a
// record of the results history (docs/records.md), after the summary line.
// The last line of output is
//
//	match: A vs B: +W =D -L, Elo E ± C
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"chessforge/configs"
	"chessforge/internal/record"
	"chessforge/selfplay/match"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(configs.Exit(os.Stderr, "match", run(ctx, os.Args[1:], os.Stdout, os.Stderr)))
}

// run parses the command line, plays the match (until ctx ends it, as an
// interrupt does), prints the report and, with -record, appends the
// match's record. A mistake in the command line is a *configs.UsageError;
// -h prints the usage on stdout and returns flag.ErrHelp.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	settings, err := match.ParseArgs(args, stdout)
	if err != nil {
		return err
	}
	r, err := match.Play(ctx, settings, stderr)
	if err != nil {
		return err
	}
	r.Report(stdout)
	if settings.Record == "" {
		return nil
	}
	rec, err := r.Record(settings, settings.What)
	if err != nil {
		return fmt.Errorf("-record %s: %w", settings.Record, err)
	}
	if err := record.Append(settings.Record, rec); err != nil {
		return fmt.Errorf("-record: %w", err)
	}
	fmt.Fprintf(stderr, "match: recorded %s in %s\n", rec.ID, settings.Record)
	return nil
}
