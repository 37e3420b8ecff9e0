// Command match plays two UCI engines against each other and measures the
// difference in strength: W/D/L, the Elo difference with its 95% interval,
// the likelihood of superiority, the pentanomial counts of game pairs and,
// with -sprt, a sequential test that stops as soon as it is decided.
//
// Usage:
//
//	match [-a CMD] [-b CMD] [-a-opt Name=Value]... [-b-opt Name=Value]...
//	      [-games N] [-tc nodes=N|depth=N|movetime=MS|clock=SECONDS+INC]
//	      [-openings FILE.epd|FILE.pgn [-book-plies N] | -random-plies N]
//	      [-pgn FILE] [-concurrency K] [-seed S]
//	      [-sprt elo0=0,elo1=5,alpha=0.05,beta=0.05] [-resign SCORE,MOVES]
//	      [-draw SCORE,MOVES,MINPLY] [-timeout-margin D]
//
// Every opening is played twice, colours swapped. An engine that crashes,
// stops answering or plays an illegal move loses the game and is restarted.
// The last line of output is
//
//	match: A vs B: +W =D -L, Elo E ± C
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"chessforge/cmd/match/internal/book"
	"chessforge/cmd/match/internal/stats"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "match:", err)
		os.Exit(1)
	}
}

// run parses the command line, plays the match and prints the report.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		aCmd         = fs.String("a", "bin/engine", "engine A's command line (words split on spaces; quotes group)")
		bCmd         = fs.String("b", "bin/engine", "engine B's command line")
		aName        = fs.String("a-name", "", "engine A's name in the PGN and summary (default: its UCI id name)")
		bName        = fs.String("b-name", "", "engine B's name")
		games        = fs.Int("games", 100, "number of games (each opening is played twice, colours swapped)")
		tcFlag       = fs.String("tc", "nodes=20000", "time control for both: nodes=N, depth=N, movetime=MS or clock=SECONDS+INC")
		aTC          = fs.String("a-tc", "", "time control for engine A only (overrides -tc)")
		bTC          = fs.String("b-tc", "", "time control for engine B only (overrides -tc)")
		openings     = fs.String("openings", "", "opening book: EPD (one FEN per line) or PGN (mainlines); default: 44 built-in lines, then the same lines with two random plies added")
		bookPlies    = fs.Int("book-plies", 0, "play at most this many plies of each book line (0: all)")
		randomPlies  = fs.Int("random-plies", 0, "without -openings: start each pair from this many random plies instead of the built-in lines")
		pgnPath      = fs.String("pgn", "", "write the games to this PGN file")
		concurrency  = fs.Int("concurrency", runtime.NumCPU(), "games played at once (each engine searches with one thread unless told otherwise)")
		seed         = fs.Uint64("seed", 1, "seed for the order of the openings (and random openings)")
		sprtFlag     = fs.String("sprt", "", "sequential test, e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05")
		resignFlag   = fs.String("resign", "", "adjudicate a loss: SCORE,MOVES (both engines see a side SCORE cp behind for MOVES moves each)")
		drawFlag     = fs.String("draw", "", "adjudicate a draw: SCORE,MOVES,MINPLY (both engines within ±SCORE cp for MOVES moves each, from ply MINPLY)")
		margin       = fs.Duration("timeout-margin", 500*time.Millisecond, "allowed beyond a clock or movetime budget before a loss on time")
		moveTimeout  = fs.Duration("move-timeout", 60*time.Second, "budget for one node- or depth-limited search before the engine counts as hung")
		event        = fs.String("event", "", "PGN Event tag (default: chessforge match with the time control)")
		quiet        = fs.Bool("quiet", false, "no progress bar")
		aOpts, bOpts optionList
	)
	fs.Var(&aOpts, "a-opt", "UCI option for engine A, Name=Value (repeatable)")
	fs.Var(&bOpts, "b-opt", "UCI option for engine B, Name=Value (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *games <= 0 {
		return fmt.Errorf("-games %d: must be positive", *games)
	}
	if *concurrency <= 0 {
		return fmt.Errorf("-concurrency %d: must be positive", *concurrency)
	}

	cfg := &matchConfig{
		games:       *games,
		seed:        *seed,
		concurrency: *concurrency,
		rules: rules{
			margin:       *margin,
			moveTimeout:  *moveTimeout,
			readyTimeout: 30 * time.Second,
		},
		date: time.Now().UTC().Format("2006.01.02"),
	}
	for side, f := range []struct {
		cmd, name, tc *string
		opts          optionList
	}{{aCmd, aName, aTC, aOpts}, {bCmd, bName, bTC, bOpts}} {
		argv, err := splitCommand(*f.cmd)
		if err != nil {
			return fmt.Errorf("-%c: %w", "ab"[side], err)
		}
		tcs := *tcFlag
		if *f.tc != "" {
			tcs = *f.tc
		}
		tc, err := parseTC(tcs)
		if err != nil {
			return err
		}
		cfg.players[side] = &player{argv: argv, opts: f.opts, name: *f.name, tc: tc}
	}
	if *sprtFlag != "" {
		t, err := parseSPRT(*sprtFlag)
		if err != nil {
			return err
		}
		cfg.sprt = &t
	}
	var err error
	if *resignFlag != "" {
		if cfg.rules.resign, err = parseResign(*resignFlag); err != nil {
			return err
		}
	}
	if *drawFlag != "" {
		if cfg.rules.draw, err = parseDraw(*drawFlag); err != nil {
			return err
		}
	}
	switch {
	case *openings != "":
		if cfg.openings, err = book.Load(*openings); err != nil {
			return err
		}
	case *randomPlies > 0:
		cfg.openings = book.Random((*games+1)/2, *randomPlies, *seed)
	default:
		// Past the built-in lines, each is played again with two random
		// plies added, so that no pair repeats another.
		cfg.openings = book.Extend(book.Builtin(), (*games+1)/2, 2, *seed)
	}
	if *bookPlies < 0 {
		return fmt.Errorf("-book-plies %d: must not be negative", *bookPlies)
	}
	if *bookPlies > 0 {
		for i := range cfg.openings {
			o := &cfg.openings[i]
			o.Moves = o.Moves[:min(len(o.Moves), *bookPlies)]
		}
	}
	if pairs := (*games + 1) / 2; pairs > len(cfg.openings) {
		fmt.Fprintf(stderr, "match: note: %d game pairs from %d openings: openings repeat, and engines that search deterministically (nodes or depth limits) repeat their games\n", pairs, len(cfg.openings))
	}
	cfg.event = *event
	if cfg.event == "" {
		tc := cfg.players[0].tc.String()
		if cfg.players[1].tc != cfg.players[0].tc {
			tc += " vs " + cfg.players[1].tc.String()
		}
		cfg.event = "chessforge match, " + tc
	}
	cfg.site, _ = os.Hostname()
	if cfg.site == "" {
		cfg.site = "?"
	}
	if !*quiet {
		cfg.progress = stderr
	}

	var pgnFile *os.File
	if *pgnPath != "" {
		pgnFile, err = os.CreateTemp(filepath.Dir(*pgnPath), "."+filepath.Base(*pgnPath)+".*.tmp")
		if err != nil {
			return err
		}
		defer os.Remove(pgnFile.Name()) // after a successful rename this fails harmlessly
		cfg.pgn = pgnFile
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	s, err := runMatch(ctx, cfg)
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		if pgnFile != nil {
			pgnFile.Close()
		}
		return err
	}
	if pgnFile != nil {
		if err := pgnFile.Close(); err != nil {
			return err
		}
		if err := os.Rename(pgnFile.Name(), *pgnPath); err != nil {
			return err
		}
	}
	report(stdout, s, cfg, time.Since(start), interrupted)
	return nil
}

// report prints the match's figures, ending with the summary line of SPEC §4.
func report(w io.Writer, s *summary, cfg *matchConfig, elapsed time.Duration, interrupted bool) {
	t := s.tri
	n := t.Games()
	fmt.Fprintf(w, "Engines:     A = %s (%s), B = %s (%s)\n", s.names[0], cfg.players[0].tc, s.names[1], cfg.players[1].tc)
	fmt.Fprintf(w, "Games:       %d of %d in %v (%d openings, concurrency %d, %d CPUs)\n",
		n, cfg.games, elapsed.Round(time.Second), len(cfg.openings), cfg.concurrency, runtime.NumCPU())
	if interrupted {
		fmt.Fprintln(w, "Interrupted: the figures cover the games finished so far")
	}
	if n > 0 {
		fmt.Fprintf(w, "Score of A:  +%d =%d -%d, %.1f%% (%.1f/%d)\n",
			t.W, t.D, t.L, 100*(float64(t.W)+float64(t.D)/2)/float64(n), float64(t.W)+float64(t.D)/2, n)
	}
	tri := t.Elo()
	fmt.Fprintf(w, "Elo (games): %s ± %s [%s, %s], LOS %.1f%%\n",
		formatElo(tri.Elo), formatMargin(tri.Margin()), formatElo(tri.Lo), formatElo(tri.Hi), 100*t.LOS())
	p := s.penta
	fmt.Fprintf(w, "Pairs:       %d, pentanomial [0, 1/2, 1, 3/2, 2 points] = %v\n", p.Pairs(), [5]int(p))
	if p.Pairs() > 0 {
		pe := p.Elo()
		fmt.Fprintf(w, "Elo (pairs): %s ± %s [%s, %s]\n", formatElo(pe.Elo), formatMargin(pe.Margin()), formatElo(pe.Lo), formatElo(pe.Hi))
	}
	if cfg.sprt != nil {
		lo, hi := cfg.sprt.Bounds()
		verdict := "undecided"
		switch s.decision {
		case stats.AcceptH1:
			verdict = fmt.Sprintf("H1 accepted: A is stronger by about %g Elo or more", cfg.sprt.Elo1)
		case stats.AcceptH0:
			verdict = fmt.Sprintf("H0 accepted: A gains no more than about %g Elo", cfg.sprt.Elo0)
		}
		fmt.Fprintf(w, "SPRT:        elo0=%g elo1=%g alpha=%g beta=%g: LLR %.3f, bounds (%.3f, %.3f): %s\n",
			cfg.sprt.Elo0, cfg.sprt.Elo1, cfg.sprt.Alpha, cfg.sprt.Beta, s.llr, lo, hi, verdict)
	}
	for side := range 2 {
		if len(s.faults[side]) > 0 {
			kinds := make([]string, 0, len(s.faults[side]))
			for k, n := range s.faults[side] {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			}
			slices.Sort(kinds)
			fmt.Fprintf(w, "Forfeits %c:  %s\n", "AB"[side], strings.Join(kinds, ", "))
		}
	}
	e := s.estimate()
	fmt.Fprintf(w, "match: %s vs %s: +%d =%d -%d, Elo %s ± %s\n",
		s.names[0], s.names[1], t.W, t.D, t.L, formatElo(e.Elo), formatMargin(e.Margin()))
}
