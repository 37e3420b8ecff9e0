package match

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"chessforge/engine/pgn"
	"chessforge/selfplay/match/uciclient"
)

// EngineSettings are one engine's settings on the command line.
type EngineSettings struct {
	Command string             // command line, words split on spaces; quotes group
	Name    string             // name in the PGN and the summary; "" for its UCI id name
	TC      string             // time control for this engine only; "" for the match's
	Options []uciclient.Option // UCI options to set
}

// Settings describe a match as bin/match's command line gives it; Config
// turns them into the Config that Run plays, and Play does both.
type Settings struct {
	Engines       [2]EngineSettings // 0 = A, 1 = B
	Games         int               // games to play (each opening twice, colours swapped)
	TC            string            // time control for both engines
	Openings      string            // opening book, EPD or PGN; "" for the built-in lines
	BookPlies     int               // plies of each book line to play (0: all)
	RandomPlies   int               // without a book: random plies instead of the built-in lines
	PGN           string            // file to write the games to; "" for none
	Concurrency   int               // games played at once
	Seed          uint64            // seed for the order of the openings and random openings
	SPRT          string            // sequential test, "elo0=0,elo1=5,alpha=0.05,beta=0.05"; "" for none
	Resign        string            // loss adjudication, "SCORE,MOVES"; "" for none
	Draw          string            // draw adjudication, "SCORE,MOVES,MINPLY"; "" for none
	TimeoutMargin time.Duration     // allowed beyond a clock or movetime budget
	MoveTimeout   time.Duration     // budget for a node- or depth-limited search
	Event         string            // PGN Event tag; "" for one naming the time control
	Quiet         bool              // no progress bar
}

// ParseArgs reads bin/match's command line (see cmd/match) into Settings,
// with the defaults for the flags it does not give. Usage and flag errors
// go to stderr.
func ParseArgs(args []string, stderr io.Writer) (*Settings, error) {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := &Settings{}
	a, b := &s.Engines[0], &s.Engines[1]
	fs.StringVar(&a.Command, "a", "bin/engine", "engine A's command line (words split on spaces; quotes group)")
	fs.StringVar(&b.Command, "b", "bin/engine", "engine B's command line")
	fs.StringVar(&a.Name, "a-name", "", "engine A's name in the PGN and summary (default: its UCI id name)")
	fs.StringVar(&b.Name, "b-name", "", "engine B's name")
	fs.IntVar(&s.Games, "games", 100, "number of games (each opening is played twice, colours swapped)")
	fs.StringVar(&s.TC, "tc", "nodes=20000", "time control for both: nodes=N, depth=N, movetime=MS or clock=SECONDS+INC")
	fs.StringVar(&a.TC, "a-tc", "", "time control for engine A only (overrides -tc)")
	fs.StringVar(&b.TC, "b-tc", "", "time control for engine B only (overrides -tc)")
	fs.StringVar(&s.Openings, "openings", "", "opening book: EPD (one FEN per line) or PGN (mainlines); default: 44 built-in lines, then the same lines with two random plies added")
	fs.IntVar(&s.BookPlies, "book-plies", 0, "play at most this many plies of each book line (0: all)")
	fs.IntVar(&s.RandomPlies, "random-plies", 0, "without -openings: start each pair from this many random plies instead of the built-in lines")
	fs.StringVar(&s.PGN, "pgn", "", "write the games to this PGN file")
	fs.IntVar(&s.Concurrency, "concurrency", runtime.NumCPU(), "games played at once (each engine searches with one thread unless told otherwise)")
	fs.Uint64Var(&s.Seed, "seed", 1, "seed for the order of the openings (and random openings)")
	fs.StringVar(&s.SPRT, "sprt", "", "sequential test, e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05")
	fs.StringVar(&s.Resign, "resign", "", "adjudicate a loss: SCORE,MOVES (both engines see a side SCORE cp behind for MOVES moves each)")
	fs.StringVar(&s.Draw, "draw", "", "adjudicate a draw: SCORE,MOVES,MINPLY (both engines within ±SCORE cp for MOVES moves each, from ply MINPLY)")
	fs.DurationVar(&s.TimeoutMargin, "timeout-margin", 500*time.Millisecond, "allowed beyond a clock or movetime budget before a loss on time")
	fs.DurationVar(&s.MoveTimeout, "move-timeout", 60*time.Second, "budget for one node- or depth-limited search before the engine counts as hung")
	fs.StringVar(&s.Event, "event", "", "PGN Event tag (default: chessforge match with the time control)")
	fs.BoolVar(&s.Quiet, "quiet", false, "no progress bar")
	fs.Var((*optionList)(&a.Options), "a-opt", "UCI option for engine A, Name=Value (repeatable)")
	fs.Var((*optionList)(&b.Options), "b-opt", "UCI option for engine B, Name=Value (repeatable)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return s, nil
}

// Config checks the settings and makes the match they describe: the
// engines, the time controls, the openings (loaded, or built in), the
// adjudication rules and the PGN tags. The PGN file is Play's to write, so
// the Config has no PGN writer; its progress bar goes to stderr unless the
// settings are quiet, and so does a note when the openings must repeat.
func (s *Settings) Config(stderr io.Writer) (*Config, error) {
	if s.Games <= 0 {
		return nil, fmt.Errorf("-games %d: must be positive", s.Games)
	}
	if s.Concurrency <= 0 {
		return nil, fmt.Errorf("-concurrency %d: must be positive", s.Concurrency)
	}
	cfg := &Config{
		Games:        s.Games,
		Seed:         s.Seed,
		Concurrency:  s.Concurrency,
		Margin:       s.TimeoutMargin,
		MoveTimeout:  s.MoveTimeout,
		ReadyTimeout: 30 * time.Second,
		Date:         time.Now().UTC().Format("2006.01.02"),
	}
	for side, e := range s.Engines {
		argv, err := splitCommand(e.Command)
		if err != nil {
			return nil, fmt.Errorf("-%c: %w", "ab"[side], err)
		}
		tcs := s.TC
		if e.TC != "" {
			tcs = e.TC
		}
		tc, err := parseTC(tcs)
		if err != nil {
			return nil, err
		}
		cfg.Players[side] = Player{Command: argv, Options: e.Options, Name: e.Name, TC: tc}
	}
	var err error
	if s.SPRT != "" {
		t, err := parseSPRT(s.SPRT)
		if err != nil {
			return nil, err
		}
		cfg.SPRT = &t
	}
	if s.Resign != "" {
		if cfg.Resign, err = parseResign(s.Resign); err != nil {
			return nil, err
		}
	}
	if s.Draw != "" {
		if cfg.Draw, err = parseDraw(s.Draw); err != nil {
			return nil, err
		}
	}
	switch {
	case s.Openings != "":
		if cfg.Openings, err = pgn.LoadOpenings(s.Openings); err != nil {
			return nil, err
		}
	case s.RandomPlies > 0:
		cfg.Openings = RandomOpenings((s.Games+1)/2, s.RandomPlies, s.Seed)
	default:
		// Past the built-in lines, each is played again with two random
		// plies added, so that no pair repeats another.
		builtin, err := BuiltinOpenings()
		if err != nil {
			return nil, err
		}
		cfg.Openings = ExtendOpenings(builtin, (s.Games+1)/2, 2, s.Seed)
	}
	if s.BookPlies < 0 {
		return nil, fmt.Errorf("-book-plies %d: must not be negative", s.BookPlies)
	}
	if s.BookPlies > 0 {
		for i := range cfg.Openings {
			o := &cfg.Openings[i]
			o.Moves = o.Moves[:min(len(o.Moves), s.BookPlies)]
		}
	}
	if pairs := (s.Games + 1) / 2; pairs > len(cfg.Openings) {
		fmt.Fprintf(stderr, "match: note: %d game pairs from %d openings: openings repeat, and engines that search deterministically (nodes or depth limits) repeat their games\n", pairs, len(cfg.Openings))
	}
	cfg.Event = s.Event
	if cfg.Event == "" {
		tc := cfg.Players[0].TC.String()
		if cfg.Players[1].TC != cfg.Players[0].TC {
			tc += " vs " + cfg.Players[1].TC.String()
		}
		cfg.Event = "chessforge match, " + tc
	}
	cfg.Site, _ = os.Hostname()
	if cfg.Site == "" {
		cfg.Site = "?"
	}
	if !s.Quiet {
		cfg.Progress = stderr
	}
	return cfg, nil
}

// Play plays the match the settings describe, as bin/match does: it makes
// the Config, runs it, and writes the PGN file, when the settings name one,
// through a temporary file renamed into place at the end. When ctx is
// cancelled the games finished so far are kept and the result says it was
// interrupted; that is not an error. The caller prints the result
// (Result.Report).
func Play(ctx context.Context, s *Settings, stderr io.Writer) (*Result, error) {
	cfg, err := s.Config(stderr)
	if err != nil {
		return nil, err
	}
	var pgnFile *os.File
	if s.PGN != "" {
		pgnFile, err = os.CreateTemp(filepath.Dir(s.PGN), "."+filepath.Base(s.PGN)+".*.tmp")
		if err != nil {
			return nil, err
		}
		defer os.Remove(pgnFile.Name()) // after a successful rename this fails harmlessly
		cfg.PGN = pgnFile
	}
	r, err := Run(ctx, cfg)
	if err != nil && (r == nil || !r.Interrupted) {
		if pgnFile != nil {
			pgnFile.Close()
		}
		return nil, err
	}
	if pgnFile != nil {
		if err := pgnFile.Close(); err != nil {
			return nil, err
		}
		if err := os.Rename(pgnFile.Name(), s.PGN); err != nil {
			return nil, err
		}
	}
	return r, nil
}
