package selfplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"chessforge/configs"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/selfplay/match/uciclient"
)

// Self-play of an outside UCI engine (Config.Engine): the same games, rows,
// output and resume as with our engine, but each search is the engine's
// "go". Each worker runs one engine process. An engine that crashes, stops
// answering or plays an illegal or malformed move loses the game it was
// playing, which is not recorded (see gameLost), and is started again; a
// run whose engine fails maxFaults games in a row stops.

// maxFaults is how many games in a row the engine may lose to its faults
// before the run stops.
const maxFaults = 5

// errGameLost says that the engine failed during a game: the game is not
// recorded, and the run goes on.
var errGameLost = errors.New("the game is lost to an engine fault")

// engineFault is the engine's failure during a game.
type engineFault struct{ err error }

func (f *engineFault) Error() string { return f.err.Error() }
func (f *engineFault) Unwrap() error { return f.err }

func faultf(format string, args ...any) error {
	return &engineFault{fmt.Errorf(format, args...)}
}

// checkEngine reports the first setting of an outside engine that cannot
// be used, or one that needs -engine without it.
func (c *Config) checkEngine() error {
	bad := func(name string, v any, why string) error {
		return fmt.Errorf("selfplay: -%s %v: %s", name, v, why)
	}
	if c.Engine == "" {
		switch {
		case len(c.EngineOpt) > 0:
			return bad("engine-opt", c.EngineOpt.String(), "options are for an outside engine: give it with -engine")
		case c.MoveTime != 0:
			return bad("movetime", c.MoveTime, "a move time is for an outside engine (-engine); our engine plays fixed -nodes or -depth, so that games repeat")
		case c.EngineTimeout != 0:
			return bad("engine-timeout", time.Duration(c.EngineTimeout), "the timeout is for an outside engine: give it with -engine")
		}
		return nil
	}
	if _, err := uciclient.SplitCommand(c.Engine); err != nil {
		return bad("engine", strconv.Quote(c.Engine), err.Error())
	}
	for _, o := range c.EngineOpt {
		if strings.EqualFold(o.Name, "MultiPV") {
			return bad("engine-opt", o.Name+"="+o.Value, "MultiPV is set by self-play: 1, or -multipv on the -multipv-plies plies")
		}
	}
	switch {
	case c.Game != encoder.GameChess:
		return bad("engine", strconv.Quote(c.Engine), "outside engines play chess (UCI): not with -game "+c.Game)
	case c.SoftNodes != 0:
		return bad("soft-nodes", c.SoftNodes, "a soft node limit is our engine's (UCI has no such go command): give the outside engine -nodes or -movetime")
	case c.EvalFile != "":
		return bad("eval-file", c.EvalFile, "the network file is for our engine; set the outside engine's with -engine-opt, e.g. EvalFile=PATH")
	case c.MoveTime < 0:
		return bad("movetime", c.MoveTime, "must not be negative")
	case c.EngineTimeout < 0:
		return bad("engine-timeout", time.Duration(c.EngineTimeout), "must not be negative")
	}
	return nil
}

// engineTimeout is how long to wait for each answer of the outside engine:
// EngineTimeout, or by default 10 s + 2 × MoveTime + 50 µs a node (an
// engine of 20,000 nodes a second), or 10 minutes with a depth alone.
func (c *Config) engineTimeout() time.Duration {
	if c.EngineTimeout > 0 {
		return time.Duration(c.EngineTimeout)
	}
	if c.Nodes == 0 && c.MoveTime == 0 {
		return 10 * time.Minute
	}
	return 10*time.Second + 2*time.Duration(c.MoveTime)*time.Millisecond + time.Duration(c.Nodes)*50*time.Microsecond
}

// goArgs returns the arguments of each search's "go": the budget.
func (c *Config) goArgs() string {
	var args []string
	if c.Nodes > 0 {
		args = append(args, "nodes "+strconv.FormatUint(c.Nodes, 10))
	}
	if c.Depth > 0 {
		args = append(args, "depth "+strconv.Itoa(c.Depth))
	}
	if c.MoveTime > 0 {
		args = append(args, "movetime "+strconv.Itoa(c.MoveTime))
	}
	return strings.Join(args, " ")
}

// uciEngine is the outside engine of a job, as its first start found it.
type uciEngine struct {
	argv    []string
	command string             // the command line as given
	name    string             // its "id name"
	options []uciclient.Option // set after each start
	multiPV bool               // it offers MultiPV
	timeout time.Duration      // each wait for an answer
	goArgs  string             // the arguments of each "go"
	log     io.Writer          // where the faults are told
	faults  atomic.Int64       // games lost in a row, over all workers
}

// probeEngine starts the job's engine once, to learn its name and options
// and to check that it runs, and stops it. Its error names the engine: a
// program that does not start or does not speak UCI, or an -engine-opt the
// engine does not declare (a usage error).
func probeEngine(cfg *Config, log io.Writer) (*uciEngine, error) {
	argv, err := uciclient.SplitCommand(cfg.Engine)
	if err != nil {
		return nil, configs.AsUsage(fmt.Errorf("selfplay: -engine %q: %w", cfg.Engine, err))
	}
	u := &uciEngine{argv: argv, command: cfg.Engine, timeout: cfg.engineTimeout(), goArgs: cfg.goArgs(), log: log}
	e, err := uciclient.Start(argv, nil, u.timeout)
	if err != nil {
		return nil, fmt.Errorf("selfplay: -engine %s: %w", cfg.Engine, err)
	}
	defer e.Close()
	u.name = e.Name
	u.multiPV = e.HasOption("MultiPV")
	set := map[string]bool{}
	for _, o := range cfg.EngineOpt {
		if !e.HasOption(o.Name) {
			return nil, configs.Usagef("selfplay: -engine-opt %s=%s: engine %s (%s) has no option %q", o.Name, o.Value, u.name, cfg.Engine, o.Name)
		}
		set[strings.ToLower(o.Name)] = true
	}
	for _, o := range []uciclient.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: strconv.Itoa(cfg.Hash)}} {
		if e.HasOption(o.Name) && !set[strings.ToLower(o.Name)] {
			u.options = append(u.options, o)
		}
	}
	u.options = append(u.options, cfg.EngineOpt...)
	if u.multiPV {
		u.options = append(u.options, uciclient.Option{Name: "MultiPV", Value: "1"})
	}
	return u, nil
}

// start starts a process of the engine and sets its options.
func (u *uciEngine) start() (*uciclient.Engine, error) {
	return uciclient.Start(u.argv, u.options, u.timeout)
}

// uciPlayer plays chess games with one process of an outside engine. It is
// used by one goroutine.
type uciPlayer struct {
	cfg      *Config
	u        *uciEngine
	openings *openings
	eng      *uciclient.Engine // nil until started, and after a fault
	lines    int               // the engine's MultiPV setting
	list     board.MoveList
	start    string   // the FEN of the game's first position
	moves    []string // the game's moves in UCI notation, from start
	cands    []board.Move
	position strings.Builder
}

func newUCIPlayer(cfg *Config, u *uciEngine, o *openings) *uciPlayer {
	return &uciPlayer{cfg: cfg, u: u, openings: o}
}

// play plays game number n into g as player.play does. When the engine
// fails during the game it tells the log which game and why, stops the
// engine (the next game starts another) and returns errGameLost; after
// maxFaults such games in a row it returns an error that stops the run.
func (p *uciPlayer) play(ctx context.Context, n int, g *Game) error {
	err := p.playGame(ctx, n, g)
	var fault *engineFault
	switch {
	case err == nil:
		p.u.faults.Store(0)
		return nil
	case ctx.Err() != nil:
		p.stop()
		return ctx.Err()
	case !errors.As(err, &fault):
		return err
	}
	p.stop()
	k := p.u.faults.Add(1)
	if k >= maxFaults {
		return fmt.Errorf("engine %s (%s) failed %d games in a row; the last, game %d: %v", p.u.name, p.u.command, k, n, fault.err)
	}
	fmt.Fprintf(p.u.log, "selfplay: game %d: engine %s: %v; the game is not recorded, and the engine restarts\n", n, p.u.name, fault.err)
	return errGameLost
}

// stop ends the engine process at once.
func (p *uciPlayer) stop() {
	if p.eng != nil {
		p.eng.Kill()
		p.eng = nil
	}
}

// close asks the engine to quit (see closePlayer).
func (p *uciPlayer) close() {
	if p.eng != nil {
		p.eng.Close()
		p.eng = nil
	}
}

func (p *uciPlayer) playGame(ctx context.Context, n int, g *Game) error {
	cfg := p.cfg
	st, err := beginChess(cfg, p.openings, n, g)
	if err != nil {
		return err
	}
	rng, pos := st.rng, st.pos
	g.engine = p.u.name
	if p.eng == nil {
		if p.eng, err = p.u.start(); err != nil {
			return &engineFault{err}
		}
		p.lines = 1
	}
	if err := p.eng.NewGame(ctx, p.u.timeout); err != nil {
		return faultf("new game: %w", err)
	}
	p.start, p.moves = g.StartFEN, p.moves[:0]

	return playChess(ctx, g, cfg, n, st, !p.u.multiPV, &p.list, func(ply int, pl *Ply) error {
		if err := p.search(ctx, pos, pl, rng); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return faultf("ply %d: %w", ply, err)
		}
		return nil
	}, func(m board.Move) { p.moves = append(p.moves, m.String()) })
}

// search asks the engine for the position after the game's moves and fills
// pl: the best move, the score (its last exact one, stored from White's
// side), depth and nodes, and on a ply of choice the move chosen among
// its lines.
func (p *uciPlayer) search(ctx context.Context, pos *board.Position, pl *Ply, rng *rand.Rand) error {
	lines := 1
	if pl.choice == choiceMultiPV {
		lines = p.cfg.MultiPV
	}
	if lines != p.lines {
		if err := p.eng.SetOption("MultiPV", strconv.Itoa(lines)); err != nil {
			return err
		}
		p.lines = lines
	}
	b := &p.position
	b.Reset()
	b.WriteString("fen ")
	b.WriteString(p.start)
	if len(p.moves) > 0 {
		b.WriteString(" moves ")
		b.WriteString(strings.Join(p.moves, " "))
	}
	a, err := p.eng.Analyse(ctx, b.String(), p.u.goArgs, p.u.timeout)
	if err != nil {
		return err
	}
	best, err := pos.ParseUCIMove(a.BestMove)
	if err != nil {
		return fmt.Errorf("bestmove: %w", err)
	}
	if !a.Score.Valid {
		return fmt.Errorf("bestmove %s after no info line with a score", a.BestMove)
	}
	pl.Best = best
	pl.setSearch(a.Score.CP, a.Depth, uint64(max(a.Nodes, 0)), pos.SideToMove() == board.White)
	switch pl.choice {
	case choiceBest:
		pl.Move = best
	case choiceMultiPV:
		if pl.Move, err = p.chooseLine(pos, &a, best, rng); err != nil {
			return err
		}
	}
	return nil
}

// chooseLine picks uniformly among the engine's lines whose score is
// within the margin of the first line's, as player.chooseLine does among
// our engine's; best when there are none.
func (p *uciPlayer) chooseLine(pos *board.Position, a *uciclient.Analysis, best board.Move, rng *rand.Rand) (board.Move, error) {
	p.cands = p.cands[:0]
	for i, l := range a.Lines {
		m, err := pos.ParseUCIMove(l.Move)
		if err != nil {
			return board.NullMove, fmt.Errorf("line %d: %w", i+1, err)
		}
		if l.Score.CP >= a.Lines[0].Score.CP-p.cfg.MultiPVMargin {
			p.cands = append(p.cands, m)
		}
	}
	if len(p.cands) == 0 {
		return best, nil
	}
	return p.cands[rng.IntN(len(p.cands))], nil
}
