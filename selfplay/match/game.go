package match

import (
	"context"
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

// game is the state of one game of chess in progress.
type game struct {
	gameBase
	pos   *board.Position
	moves []string // UCI moves from the initial position
	clock [2]time.Duration
}

// side returns the match side (0 = A, 1 = B) that plays colour c.
func (g *game) side(c board.Color) int { return g.sideOf(c == board.White) }

// playGame plays one game of chess between the two engines (see play).
func playGame(ctx context.Context, spec gameSpec, cfg *Config, names [2]string, engines [2]*uciclient.Engine) (*gameRecord, error) {
	return play(ctx, &game{gameBase: newGameBase(spec, cfg, names, engines)})
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
	for side := range 2 {
		if tc := g.cfg.Players[side].TC; tc.Kind == TCClock {
			g.clock[side] = tc.Base
		}
	}
	return nil
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
	var onTime func(string)
	if tc.Kind == TCClock || tc.Kind == TCMovetime {
		onTime = func(why string) { g.loseOnTime(side, why) }
	}
	res, ok, err := g.ask(ctx, side, g.moves, args, budget, onTime)
	if !ok {
		return err
	}
	if tc.Kind == TCClock {
		// The clock may run below zero by up to the margin; the overdraft
		// carries into the next move, so the margin is a total tolerance,
		// not a per-move one.
		left := g.clock[side] - res.Elapsed
		if left < -g.cfg.Margin {
			g.loseOnTime(side, fmt.Sprintf("%s: %s overstepped its clock by %v", FaultTime, name, (-left).Round(time.Millisecond)))
			return nil
		}
		g.clock[side] = left + tc.Inc
	}
	m, err := g.pos.ParseUCIMove(res.BestMove)
	if err != nil {
		g.forfeit(side, fmt.Sprintf("%s: %s played %s", FaultIllegal, name, res.BestMove))
		return nil
	}
	g.rec.moves = append(g.rec.moves, m)
	g.rec.comments = append(g.rec.comments, moveComment(res))
	g.moves = append(g.moves, res.BestMove)
	g.pos.MakeMove(m)
	g.count(res.Score, stm == board.White, g.pos.Ply())
	return nil
}

// loseOnTime ends the game lost on time by side, why saying how, or drawn
// when the opponent has only its king and so cannot win.
func (g *game) loseOnTime(side int, why string) {
	g.rec.fault[side] = why
	if onlyKing(g.pos, g.pos.SideToMove().Other()) {
		g.finish(pgn.Draw, why+", but the opponent has only a king")
	} else {
		g.lose(side, why)
	}
}

func bump(n int, cond bool) int {
	if cond {
		return n + 1
	}
	return 0
}

// moveComment describes an engine's move for the PGN as cutechess-cli and
// fastchess do: the score in pawns from the mover's point of view (or +M
// and -M with the plies to mate: "mate 3" is +M5, "mate -2" is -M4), the
// depth, and the time used: "+0.31/9 0.052s".
func moveComment(res uciclient.Result) string {
	var b strings.Builder
	switch s := res.Score; {
	case !s.Valid:
		b.WriteString("?")
	case s.Mate > 0:
		fmt.Fprintf(&b, "+M%d", 32000-s.CP)
	case s.Mate < 0 || (s.Mate == 0 && s.CP <= -32000):
		fmt.Fprintf(&b, "-M%d", 32000+s.CP)
	default:
		fmt.Fprintf(&b, "%+.2f", float64(s.CP)/100)
	}
	fmt.Fprintf(&b, "/%d %.3fs", res.Depth, res.Elapsed.Seconds())
	return b.String()
}
