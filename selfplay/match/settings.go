package match

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/engine/pgn"
	"chessforge/selfplay/match/stats"
)

// Settings describe a match as bin/match's command line gives it; Config
// turns them into the Config that Run plays, and Play does both. Each
// setting is declared here once: its json name is both its flag and its key
// in a config file (see package chessforge/configs), its usage tag the
// flag's help, and DefaultSettings gives its default. In a config file a
// setting is written as on the command line, as a JSON string, number or
// boolean; the repeatable -a-opt and -b-opt are a JSON list of Name=Value
// strings (see bin/match -h).
type Settings struct {
	Game  string     `json:"game" usage:"the game: chess (UCI engines) or dama (Italian draughts: engines speaking bin/engine -game dama's text protocol; the default engine is then bin/engine -game dama)"`
	A     string     `json:"a" usage:"engine A's command line (words split on spaces; quotes group)"`
	B     string     `json:"b" usage:"engine B's command line"`
	AName string     `json:"a-name" usage:"engine A's name in the PGN and summary (default: its UCI id name; for dama, its command line)"`
	BName string     `json:"b-name" usage:"engine B's name"`
	AOpt  OptionList `json:"a-opt" usage:"UCI option for engine A, Name=Value (repeatable)"`
	BOpt  OptionList `json:"b-opt" usage:"UCI option for engine B, Name=Value (repeatable)"`

	Games int         `json:"games" usage:"number of games (each opening is played twice, colours swapped)"`
	TC    TimeControl `json:"tc" usage:"time control for both: nodes=N, depth=N, movetime=MS or clock=SECONDS+INC"`
	ATC   TimeControl `json:"a-tc" usage:"time control for engine A only (overrides -tc)"`
	BTC   TimeControl `json:"b-tc" usage:"time control for engine B only (overrides -tc)"`

	Openings    string `json:"openings" usage:"opening book: EPD (one FEN per line) or PGN (mainlines); default: 44 built-in lines, then the same lines with two random plies added. For dama: one opening a line, a PDN FEN and/or moves; default: random lines of 2 to 4 plies, each a different position"`
	BookPlies   int    `json:"book-plies" usage:"play at most this many plies of each book line (0: all)"`
	RandomPlies int    `json:"random-plies" usage:"without -openings: start each pair from this many random plies instead of the built-in lines (dama: instead of 2 to 4)"`
	MaxPlies    int    `json:"max-plies" usage:"adjudicate a draw when a game reaches this many plies"`
	PGN         string `json:"pgn" usage:"write the games to this PGN file (PDN for dama)"`
	Resume      bool   `json:"resume" usage:"continue the match whose games -pgn holds (or its .partial file, left by a run that was killed): they are checked to be this match's, counted and not played again (chess only)"`
	Concurrency int    `json:"concurrency" usage:"games played at once (each engine searches with one thread unless told otherwise)"`
	Seed        uint64 `json:"seed" usage:"seed for the order of the openings (and random openings)"`

	SPRT   SPRTSetting `json:"sprt" usage:"sequential test, e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05"`
	Resign ResignRule  `json:"resign" usage:"adjudicate a loss: SCORE,MOVES (both engines see a side SCORE cp behind for MOVES moves each)"`
	Draw   DrawRule    `json:"draw" usage:"adjudicate a draw: SCORE,MOVES,MINPLY (both engines within ±SCORE cp for MOVES moves each, from ply MINPLY)"`

	TimeoutMargin configs.Duration `json:"timeout-margin" usage:"allowed beyond a clock or movetime budget before a loss on time"`
	MoveTimeout   configs.Duration `json:"move-timeout" usage:"budget for one node- or depth-limited search before the engine counts as hung"`
	Event         string           `json:"event" usage:"PGN Event tag (default: chessforge match with the time control)"`
	Quiet         bool             `json:"quiet" usage:"no progress bar (nor, for dama, a line on stderr for each forfeit)"`

	Record string `json:"record" usage:"append the match's record (docs/records.md) to this .jsonl file when it ends: complete, stopped by -sprt or interrupted"`
	What   string `json:"what" usage:"the record's what: one line of at most 120 characters saying what the match measures (default: A vs B at TC)"`
}

// UsageNotes completes the -max-plies flag's help (see configs.UsageNoter)
// with its default for draughts, DefaultDamaMaxPlies.
func (Settings) UsageNotes() (map[string]string, error) {
	return map[string]string{"max-plies": fmt.Sprintf(" (0: no cap for chess, %d for dama)", DefaultDamaMaxPlies)}, nil
}

// DefaultSettings returns the defaults of every setting.
func DefaultSettings() Settings {
	return Settings{
		Game:          Chess,
		A:             "bin/engine",
		B:             "bin/engine",
		Games:         100,
		TC:            TimeControl{Kind: TCNodes, N: 20000},
		Concurrency:   runtime.GOMAXPROCS(0), // the CPUs this process may use (a container's limit too)
		Seed:          1,
		TimeoutMargin: configs.Duration(500 * time.Millisecond),
		MoveTimeout:   configs.Duration(60 * time.Second),
	}
}

// usageHead is the head of bin/match's usage message, before its flags.
const usageHead = `usage: match [-config FILE] [-game chess|dama] [-a CMD] [-b CMD] [-games N] [-tc TC] [flags]

Plays engine A against engine B, each opening twice with colours swapped,
and reports W/D/L and the Elo difference; the last line is
"match: A vs B: +W =D -L, Elo E ± C". With -game dama the engines play
Italian draughts through bin/engine -game dama's text protocol, the rules
of engine/dama adjudicate, and -pgn writes PDN.

Flags override the config file (-config FILE), a JSON object whose keys are
the flags' names and whose values are written as on the command line:
strings for commands, time controls, -sprt, -resign, -draw and durations,
JSON numbers and true/false for the others, and a list of Name=Value
strings for the repeatable -a-opt and -b-opt (a flag replaces the list):

	{"b": "/usr/games/stockfish", "b-opt": ["UCI_LimitStrength=true", "UCI_Elo=2000"],
	 "games": 200, "tc": "clock=10+0.1", "sprt": "elo0=0,elo1=10",
	 "resign": "600,3", "timeout-margin": "2s", "quiet": true}
`

// ParseArgs reads bin/match's command line (see cmd/match) into Settings:
// the flags set on it over the config file it names (-config) over the
// defaults. The usage, when asked for (-h), goes to w and the error is
// flag.ErrHelp; a mistake in the command line is a *configs.UsageError of
// one line, and nothing is printed.
func ParseArgs(args []string, w io.Writer) (*Settings, error) {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead, "\n")
		fs.PrintDefaults()
	}
	s := DefaultSettings()
	b, err := configs.Bind(fs, &s, "")
	if err != nil {
		return nil, err
	}
	if err := configs.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, configs.Usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := b.Apply(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Config checks the settings and makes the match they describe: the
// engines, the time controls, the openings (loaded, or built in), the
// adjudication rules and the PGN tags. The PGN file is Play's to write, so
// the Config has no PGN writer; its progress bar goes to stderr unless the
// settings are quiet, and so does a note when the openings must repeat.
// With -record or -what it checks first what the match's record will need
// (checkRecord), so that a long match does not end in a record that
// cannot be written.
func (s *Settings) Config(stderr io.Writer) (*Config, error) {
	if err := s.checkRecord(); err != nil {
		return nil, err
	}
	if s.Games <= 0 {
		return nil, configs.Usagef("-games %d: must be positive", s.Games)
	}
	if s.Concurrency <= 0 {
		return nil, configs.Usagef("-concurrency %d: must be positive", s.Concurrency)
	}
	switch s.Game {
	case "", Chess, Dama:
	default:
		return nil, configs.Usagef("-game %q: want %s or %s", s.Game, Chess, Dama)
	}
	if s.MaxPlies < 0 {
		return nil, configs.Usagef("-max-plies %d: must not be negative", s.MaxPlies)
	}
	if s.Resume && s.PGN == "" {
		return nil, configs.Usagef("-resume: needs -pgn, the file of the games to continue from")
	}
	if s.Resume && s.Game == Dama {
		return nil, configs.Usagef("-resume: only a chess match resumes from its games")
	}
	cfg := &Config{
		Game:         s.Game,
		MaxPlies:     s.MaxPlies,
		Games:        s.Games,
		Seed:         s.Seed,
		Concurrency:  s.Concurrency,
		Margin:       time.Duration(s.TimeoutMargin),
		MoveTimeout:  time.Duration(s.MoveTimeout),
		ReadyTimeout: 30 * time.Second,
		Date:         time.Now().UTC().Format("2006.01.02"),
	}
	engines := [2]struct {
		command, name string
		tc            TimeControl
		options       OptionList
	}{{s.A, s.AName, s.ATC, s.AOpt}, {s.B, s.BName, s.BTC, s.BOpt}}
	for side, e := range engines {
		if cfg.dama() && e.command == DefaultSettings().A {
			e.command += " -game " + Dama
		}
		argv, err := SplitCommand(e.command)
		if err != nil {
			return nil, configs.Usagef("-%c: %w", "ab"[side], err)
		}
		tc := e.tc
		if tc == (TimeControl{}) {
			tc = s.TC
		}
		if err := tc.Validate(); err != nil {
			return nil, configs.Usagef("engine %c: %w", "AB"[side], err)
		}
		if cfg.dama() && tc.Kind == TCClock {
			return nil, configs.Usagef("engine %c: time control %v: a draughts engine has no clock (want nodes=N, depth=N or movetime=MS)", "AB"[side], tc)
		}
		if cfg.dama() && len(e.options) > 0 {
			return nil, configs.Usagef("-%c-opt: a draughts engine's text protocol has no options", "ab"[side])
		}
		cfg.Players[side] = Player{Command: argv, Options: e.options, Name: e.name, TC: tc}
	}
	if s.SPRT != (SPRTSetting{}) {
		t := stats.SPRT(s.SPRT)
		if err := t.Validate(); err != nil {
			return nil, configs.Usagef("-sprt %v: %w", s.SPRT, err)
		}
		cfg.SPRT = &t
	}
	if s.Resign != (ResignRule{}) {
		if s.Resign.Score <= 0 || s.Resign.Moves <= 0 {
			return nil, configs.Usagef("-resign %v: score and moves must be positive", s.Resign)
		}
		r := s.Resign
		cfg.Resign = &r
	}
	if s.Draw != (DrawRule{}) {
		if s.Draw.Score < 0 || s.Draw.Moves <= 0 || s.Draw.MinPly < 0 {
			return nil, configs.Usagef("-draw %v: moves must be positive, score and ply not negative", s.Draw)
		}
		d := s.Draw
		cfg.Draw = &d
	}
	if err := s.openings(cfg); err != nil {
		return nil, err
	}
	if pairs := (s.Games + 1) / 2; pairs > cfg.openings() {
		fmt.Fprintf(stderr, "match: note: %d game pairs from %d openings: openings repeat, and engines that search deterministically (nodes or depth limits) repeat their games\n", pairs, cfg.openings())
	}
	cfg.Event = s.Event
	if cfg.Event == "" {
		tc := cfg.Players[0].TC.String()
		if cfg.Players[1].TC != cfg.Players[0].TC {
			tc += " vs " + cfg.Players[1].TC.String()
		}
		cfg.Event = "chessforge match, " + tc
		if cfg.dama() {
			cfg.Event = "chessforge draughts match, " + tc
		}
	}
	cfg.Site, _ = os.Hostname()
	if cfg.Site == "" {
		cfg.Site = "?"
	}
	if !s.Quiet {
		cfg.Progress = stderr
		if cfg.dama() {
			cfg.Log = stderr // a line for every forfeit
		}
	}
	return cfg, nil
}

// openings loads or makes the match's openings: those of the game's book
// (-openings), random ones (-random-plies), or the defaults, each cut to
// -book-plies.
func (s *Settings) openings(cfg *Config) error {
	if s.BookPlies < 0 {
		return configs.Usagef("-book-plies %d: must not be negative", s.BookPlies)
	}
	if cfg.dama() {
		if cfg.MaxPlies == 0 {
			cfg.MaxPlies = DefaultDamaMaxPlies
		}
		var err error
		switch {
		case s.Openings != "":
			if cfg.DamaOpenings, err = LoadDamaOpenings(s.Openings); err != nil {
				return err
			}
		case s.RandomPlies > 0:
			cfg.DamaOpenings = DamaRandomOpenings((s.Games+1)/2, s.RandomPlies, s.RandomPlies, s.Seed)
		default:
			cfg.DamaOpenings = DamaRandomOpenings((s.Games+1)/2, 2, 4, s.Seed)
		}
		if s.BookPlies > 0 {
			for i := range cfg.DamaOpenings {
				o := &cfg.DamaOpenings[i]
				o.Moves = o.Moves[:min(len(o.Moves), s.BookPlies)]
			}
		}
		return nil
	}
	var err error
	switch {
	case s.Openings != "":
		if cfg.Openings, err = pgn.LoadOpenings(s.Openings); err != nil {
			return err
		}
	case s.RandomPlies > 0:
		cfg.Openings = RandomOpenings((s.Games+1)/2, s.RandomPlies, s.Seed)
	default:
		// Past the built-in lines, each is played again with two random
		// plies added, so that no pair repeats another.
		builtin, err := BuiltinOpenings()
		if err != nil {
			return err
		}
		cfg.Openings = ExtendOpenings(builtin, (s.Games+1)/2, 2, s.Seed)
	}
	if s.BookPlies > 0 {
		for i := range cfg.Openings {
			o := &cfg.Openings[i]
			o.Moves = o.Moves[:min(len(o.Moves), s.BookPlies)]
		}
	}
	return nil
}

// Play plays the match the settings describe, as bin/match does: it makes
// the Config, runs it, and writes the PGN file, when the settings name one.
// The games go, each as soon as it and the games before it are finished, to
// a visible PATH.partial file beside it (so that a user may follow the
// match with tail -f), renamed to the PGN path at the end; a match that
// fails removes the partial file and leaves the PGN path untouched. When ctx
// is cancelled the games finished so far are kept and the result says it
// was interrupted; that is not an error. The caller prints the result
// (Result.Report).
//
// With Resume the earlier games come from the partial file when a run left
// one (it was killed), else from the PGN file when there is one; the
// partial file begins with them, byte for byte, and a run that fails leaves
// it for the next to resume from.
func Play(ctx context.Context, s *Settings, stderr io.Writer) (*Result, error) {
	cfg, err := s.Config(stderr)
	if err != nil {
		return nil, err
	}
	var pgnFile *os.File
	if s.PGN != "" {
		partial := PartialPGN(s.PGN)
		if s.Resume {
			pgnFile, cfg.Earlier, err = resumePGN(s.PGN, partial)
		} else {
			pgnFile, err = os.Create(partial)
		}
		if err != nil {
			return nil, fmt.Errorf("-pgn %s: %w", s.PGN, err)
		}
		if !s.Resume {
			defer os.Remove(partial) // after a successful rename this fails harmlessly
		}
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

// resumePGN opens the partial file of a resumed match for its new games and
// returns the games already played: those of the partial file, which it
// appends to, or else those of the PGN file, which it copies first.
func resumePGN(path, partial string) (*os.File, []pgn.Game, error) {
	src := partial
	data, err := os.ReadFile(partial)
	if errors.Is(err, os.ErrNotExist) {
		src = path
		data, err = os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			f, err := os.Create(partial)
			return f, nil, err // nothing to resume: a new match
		}
	}
	if err != nil {
		return nil, nil, err
	}
	games, err := pgn.ReadGames(bytes.NewReader(data), src)
	if err != nil {
		return nil, nil, fmt.Errorf("resuming: %w", err)
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n\n")) {
		return nil, nil, fmt.Errorf("resuming: %s does not end with a whole game (a blank line after its result)", src)
	}
	if src == partial {
		f, err := os.OpenFile(partial, os.O_WRONLY|os.O_APPEND, 0)
		return f, games, err
	}
	f, err := os.Create(partial)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, games, nil
}

// PartialPGN returns the file Play writes the games of a match to while it
// is played, renamed to path when it ends: path with ".partial" added.
func PartialPGN(path string) string { return path + ".partial" }
