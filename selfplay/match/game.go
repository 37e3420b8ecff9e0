package match

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
	"chessforge/selfplay/match/uciclient"
)

// gameSpec says which game to play: its number, its opening and the colours.
type gameSpec struct {
	index       int // 0-based game number; games 2k and 2k+1 form pair k
	opening     pgn.Opening
	damaOpening DamaOpening // for a game of draughts, in place of opening
	aWhite      bool        // engine A has White
}

// gameRecord is a finished game.
type gameRecord struct {
	spec        gameSpec
	result      string // pgn.WhiteWins, pgn.BlackWins or pgn.Draw
	termination string // why the game ended, for the Termination tag
	startFEN    string // the initial position when not the standard one
	moves       []board.Move
	damaMoves   []string // a game of draughts: its moves in standard notation
	comments    []string // per move after the book: score/depth and time used
	bookPlies   int
	faulted     [2]bool   // the engine (0 = A, 1 = B) must be restarted
	fault       [2]string // why the engine forfeited the game, if it did
}

// pointsA returns engine A's score from the game: 1, 1/2 or 0.
func (g *gameRecord) pointsA() float64 {
	white, _ := pgn.Points(g.result)
	if g.spec.aWhite {
		return float64(white)
	}
	return 1 - float64(white)
}

// game is the state of one game in progress.
type game struct {
	spec    gameSpec
	cfg     *Config
	names   [2]string // 0 = A, 1 = B
	engines [2]*uciclient.Engine

	pos      *board.Position
	posStart string   // "startpos" or "fen ..." for the position command
	moves    []string // UCI moves from the initial position
	rec      *gameRecord
	clock    [2]time.Duration
	adj      adjudicator
}

// side returns the match side (0 = A, 1 = B) that plays colour c.
func (g *game) side(c board.Color) int {
	if (c == board.White) == g.spec.aWhite {
		return 0
	}
	return 1
}

// playGame plays one game between the two engines. It returns an error only
// when the match is being cancelled; every failure of an engine is scored
// as a loss in the record instead.
func playGame(ctx context.Context, spec gameSpec, cfg *Config, names [2]string, engines [2]*uciclient.Engine) (*gameRecord, error) {
	g := &game{spec: spec, cfg: cfg, names: names, engines: engines,
		rec: &gameRecord{spec: spec}}
	if err := g.setup(); err != nil {
		return nil, err
	}
	for side := range 2 {
		if err := engines[side].NewGame(ctx, cfg.ReadyTimeout); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			g.forfeit(side, fmt.Sprintf("forfeit: %s failed to start the game (%v)", names[side], err))
			return g.rec, nil
		}
		if tc := cfg.Players[side].TC; tc.Kind == TCClock {
			g.clock[side] = tc.Base
		}
	}
	for {
		if done := g.adjudicate(); done {
			return g.rec, nil
		}
		if err := g.move(ctx); err != nil {
			return nil, err
		}
		if g.rec.result != "" {
			return g.rec, nil
		}
	}
}

// setup places the opening and records its moves.
func (g *game) setup() error {
	o := g.spec.opening
	pos, err := o.Start()
	if err != nil {
		return fmt.Errorf("opening %s: %w", o.Name, err)
	}
	if o.FEN == "" {
		g.posStart = "startpos"
	} else {
		g.rec.startFEN = pos.FEN()
		g.posStart = "fen " + g.rec.startFEN
	}
	for i, m := range o.Moves {
		if !pos.IsLegal(m) {
			return fmt.Errorf("opening %s: move %d (%v) is not legal in %s", o.Name, i+1, m, pos.FEN())
		}
		g.rec.moves = append(g.rec.moves, m)
		g.rec.comments = append(g.rec.comments, "")
		g.moves = append(g.moves, m.String())
		pos.MakeMove(m)
	}
	g.rec.bookPlies = len(o.Moves)
	g.pos = pos
	return nil
}

// finish records the result from White's point of view.
func (g *game) finish(result, termination string) {
	g.rec.result = result
	g.rec.termination = termination
}

// lose ends the game as a loss for the given side.
func (g *game) lose(side int, termination string) {
	winner := board.White
	if g.side(board.White) == side {
		winner = board.Black
	}
	g.finish(pgn.Win(winner), termination)
}

// forfeit scores a loss for an engine that failed and marks it for restart.
func (g *game) forfeit(side int, termination string) {
	g.rec.faulted[side] = true
	g.rec.fault[side] = termination
	g.lose(side, termination)
}

// adjudicate ends the game when the rules or the adjudication thresholds
// decide it, and reports whether it did.
func (g *game) adjudicate() bool {
	if o := g.pos.Outcome(); o != board.Ongoing {
		g.finish(pgn.RuleResult(o, g.pos.SideToMove()))
		return true
	}
	if result, termination := g.adj.decide(g.cfg, len(g.rec.moves)); result != "" {
		g.finish(result, termination)
		return true
	}
	return false
}

// adjudicator keeps the counters of the adjudication rules (Config.Resign,
// Config.Draw, Config.MaxPlies) over a game, of chess or of draughts.
type adjudicator struct {
	whiteLosing, blackLosing, drawish int // in plies
}

// decide returns the result (pgn.WhiteWins, pgn.BlackWins or pgn.Draw) and
// the termination when the rules end the game after plies plies, and "" when
// they do not.
func (a *adjudicator) decide(cfg *Config, plies int) (result, termination string) {
	if rr := cfg.Resign; rr != nil {
		switch {
		case a.whiteLosing >= 2*rr.Moves:
			return pgn.BlackWins, "adjudication: White resigns"
		case a.blackLosing >= 2*rr.Moves:
			return pgn.WhiteWins, "adjudication: Black resigns"
		}
	}
	if dr := cfg.Draw; dr != nil && a.drawish >= 2*dr.Moves {
		return pgn.Draw, "adjudication: draw"
	}
	if cfg.MaxPlies > 0 && plies >= cfg.MaxPlies {
		return pgn.Draw, fmt.Sprintf("adjudication: ply cap (%d plies)", cfg.MaxPlies)
	}
	return "", ""
}

// count updates the counters with the score the mover reported after a move,
// white its score from White's point of view, ply the position's ply.
func (a *adjudicator) count(cfg *Config, valid bool, white, ply int) {
	if !valid {
		a.whiteLosing, a.blackLosing, a.drawish = 0, 0, 0
		return
	}
	if rr := cfg.Resign; rr != nil {
		a.whiteLosing = bump(a.whiteLosing, white <= -rr.Score)
		a.blackLosing = bump(a.blackLosing, white >= rr.Score)
	}
	if dr := cfg.Draw; dr != nil {
		a.drawish = bump(a.drawish, ply >= dr.MinPly && white <= dr.Score && white >= -dr.Score)
	}
}

// goArgs returns the go command's arguments and the time budget for the side
// to move.
func (g *game) goArgs(side int) (string, time.Duration) {
	tc := g.cfg.Players[side].TC
	switch tc.Kind {
	case TCNodes:
		return fmt.Sprintf("nodes %d", tc.N), g.cfg.MoveTimeout
	case TCDepth:
		return fmt.Sprintf("depth %d", tc.N), g.cfg.MoveTimeout
	case TCMovetime:
		return fmt.Sprintf("movetime %d", tc.Movetime.Milliseconds()), tc.Movetime + g.cfg.Margin
	}
	// A clock: give both sides' clocks; a side without a clock of its own
	// is shown with the mover's.
	var wtime, btime, winc, binc time.Duration
	white, black := g.side(board.White), g.side(board.Black)
	for _, c := range []struct {
		side      int
		time, inc *time.Duration
	}{{white, &wtime, &winc}, {black, &btime, &binc}} {
		s := c.side
		if g.cfg.Players[s].TC.Kind != TCClock {
			s = side
		}
		// A clock in overdraft is shown as 1 ms: some engines read 0 as
		// "no clock".
		*c.time, *c.inc = max(g.clock[s], time.Millisecond), g.cfg.Players[s].TC.Inc
	}
	return fmt.Sprintf("wtime %d btime %d winc %d binc %d",
		wtime.Milliseconds(), btime.Milliseconds(), winc.Milliseconds(), binc.Milliseconds()), max(g.clock[side]+g.cfg.Margin, 0)
}

// onlyKing reports whether colour c has nothing but its king, so that it
// cannot win on time.
func onlyKing(pos *board.Position, c board.Color) bool {
	return !pos.Occupancy(c).More()
}

// move asks the side to move for its move and plays it, or ends the game if
// the engine fails.
func (g *game) move(ctx context.Context) error {
	stm := g.pos.SideToMove()
	side := g.side(stm)
	name := g.names[side]
	tc := g.cfg.Players[side].TC
	args, budget := g.goArgs(side)
	position := g.posStart
	if len(g.moves) > 0 {
		position += " moves " + strings.Join(g.moves, " ")
	}
	res, err := g.engines[side].Go(ctx, position, args, budget)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var timeout *uciclient.TimeoutError
	var crash *uciclient.CrashError
	switch {
	case errors.As(err, &timeout):
		g.rec.faulted[side] = true
		if tc.Kind == TCClock || tc.Kind == TCMovetime {
			why := fmt.Sprintf("time forfeit: %s sent no bestmove within %v", name, budget.Round(time.Millisecond))
			g.rec.fault[side] = why
			if onlyKing(g.pos, stm.Other()) {
				g.finish(pgn.Draw, why+", but the opponent has only a king")
			} else {
				g.lose(side, why)
			}
			return nil
		}
		g.forfeit(side, fmt.Sprintf("stalled: %s sent no bestmove within %v", name, budget.Round(time.Millisecond)))
		return nil
	case errors.As(err, &crash):
		g.forfeit(side, fmt.Sprintf("crash: %s %v", name, crash))
		return nil
	case err != nil:
		g.forfeit(side, fmt.Sprintf("protocol error: %s: %v", name, err))
		return nil
	}
	if tc.Kind == TCClock {
		// The clock may run below zero by up to the margin; the overdraft
		// carries into the next move, so the margin is a total tolerance,
		// not a per-move one.
		left := g.clock[side] - res.Elapsed
		if left < -g.cfg.Margin {
			why := fmt.Sprintf("time forfeit: %s overstepped its clock by %v", name, (-left).Round(time.Millisecond))
			g.rec.fault[side] = why
			if onlyKing(g.pos, stm.Other()) {
				g.finish(pgn.Draw, why+", but the opponent has only a king")
			} else {
				g.lose(side, why)
			}
			return nil
		}
		g.clock[side] = left + tc.Inc
	}
	m, err := g.pos.ParseUCIMove(res.BestMove)
	if err != nil {
		g.forfeit(side, fmt.Sprintf("illegal move: %s played %s", name, res.BestMove))
		return nil
	}
	g.rec.moves = append(g.rec.moves, m)
	g.rec.comments = append(g.rec.comments, moveComment(res))
	g.moves = append(g.moves, res.BestMove)
	g.pos.MakeMove(m)
	g.count(res.Score, stm)
	return nil
}

// count updates the adjudication counters with the mover's reported score.
func (g *game) count(s uciclient.Score, mover board.Color) {
	white := s.CP
	if mover == board.Black {
		white = -white
	}
	g.adj.count(g.cfg, s.Valid, white, g.pos.Ply())
}

func bump(n int, cond bool) int {
	if cond {
		return n + 1
	}
	return 0
}

// moveComment describes an engine's move for the PGN as cutechess does:
// the score in pawns from the mover's point of view (or M/-M and the moves
// to mate), the depth, and the time used: "+0.31/9 0.052s".
func moveComment(res uciclient.Result) string {
	var b strings.Builder
	switch s := res.Score; {
	case !s.Valid:
		b.WriteString("?")
	case s.Mate > 0:
		fmt.Fprintf(&b, "+M%d", s.Mate)
	case s.Mate < 0 || (s.Mate == 0 && s.CP <= -32000):
		fmt.Fprintf(&b, "-M%d", -s.Mate)
	default:
		fmt.Fprintf(&b, "%+.2f", float64(s.CP)/100)
	}
	fmt.Fprintf(&b, "/%d %.3fs", res.Depth, res.Elapsed.Seconds())
	return b.String()
}
