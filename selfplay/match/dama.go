package match

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"chessforge/engine/dama"
	"chessforge/engine/pgn"
	"chessforge/selfplay/match/uciclient"
)

// DefaultDamaMaxPlies is the ply cap of a draughts match that sets none: a
// game that long is adjudicated a draw. (The rules end every game anyway:
// each capture removes a piece, and 80 plies without one draw.)
const DefaultDamaMaxPlies = 400

// damaGame is the state of one game of Italian draughts in progress. The
// rules of engine/dama adjudicate it: the side to move without a legal move
// loses, dama.QuietLimit (80) plies without a capture and threefold repetition draw; an engine
// that plays an illegal move, answers "bestmove none" while it has a move,
// sends no bestmove in time, or crashes loses.
type damaGame struct {
	spec    gameSpec
	cfg     *Config
	names   [2]string // 0 = A, 1 = B
	engines [2]*uciclient.Engine

	pos      *dama.Position
	posStart string // "startpos" or "fen ..." for the position command
	rec      *gameRecord
	adj      adjudicator
}

// side returns the match side (0 = A, 1 = B) that plays colour c.
func (g *damaGame) side(c dama.Color) int {
	if (c == dama.White) == g.spec.aWhite {
		return 0
	}
	return 1
}

// playDamaGame plays one game of draughts between the two engines, as
// playGame does one of chess. It returns an error only when the match is
// being cancelled (or its opening is bad); every failure of an engine is
// scored as a loss in the record instead.
func playDamaGame(ctx context.Context, spec gameSpec, cfg *Config, names [2]string, engines [2]*uciclient.Engine) (*gameRecord, error) {
	g := &damaGame{spec: spec, cfg: cfg, names: names, engines: engines, rec: &gameRecord{spec: spec}}
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
	}
	for {
		if g.adjudicate() {
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
func (g *damaGame) setup() error {
	o := g.spec.damaOpening
	pos, err := o.play()
	if err != nil {
		return fmt.Errorf("opening %s: %w", o.Name, err)
	}
	g.posStart = "startpos"
	if o.FEN != "" {
		start, err := dama.ParseFEN(o.FEN)
		if err != nil {
			return fmt.Errorf("opening %s: %w", o.Name, err)
		}
		g.rec.startFEN = start.FEN()
		g.posStart = "fen " + g.rec.startFEN
	}
	g.rec.damaMoves = append(g.rec.damaMoves, o.Moves...)
	g.rec.comments = make([]string, len(o.Moves))
	g.rec.bookPlies = len(o.Moves)
	g.pos = pos
	return nil
}

// finish records the result from White's point of view.
func (g *damaGame) finish(result, termination string) {
	g.rec.result = result
	g.rec.termination = termination
}

// lose ends the game as a loss for the given side.
func (g *damaGame) lose(side int, termination string) {
	result := pgn.WhiteWins
	if g.side(dama.White) == side {
		result = pgn.BlackWins
	}
	g.finish(result, termination)
}

// forfeit scores a loss for an engine that failed and marks it for restart.
func (g *damaGame) forfeit(side int, termination string) {
	g.rec.faulted[side] = true
	g.rec.fault[side] = termination
	g.lose(side, termination)
}

// colourName returns "White" or "Black".
func colourName(c dama.Color) string {
	if c == dama.White {
		return "White"
	}
	return "Black"
}

// adjudicate ends the game when the rules or the adjudication thresholds
// decide it, and reports whether it did.
func (g *damaGame) adjudicate() bool {
	switch g.pos.Outcome() {
	case dama.NoMoves:
		stm := g.pos.SideToMove()
		why := "no moves: " + colourName(stm) + " cannot move"
		if g.pos.Pieces(stm) == 0 {
			why = "no pieces: " + colourName(stm) + " has none left"
		}
		g.lose(g.side(stm), why)
		return true
	case dama.DrawQuiet:
		g.finish(pgn.Draw, dama.DrawQuiet.String())
		return true
	case dama.DrawRepetition:
		g.finish(pgn.Draw, dama.DrawRepetition.String())
		return true
	}
	if result, termination := g.adj.decide(g.cfg, len(g.rec.damaMoves)); result != "" {
		g.finish(result, termination)
		return true
	}
	return false
}

// goArgs returns the go command's arguments and the time budget for the
// search: the text protocol limits a search by nodes, depth or time per
// move, not by a clock (Settings.Config refuses one).
func (g *damaGame) goArgs(side int) (string, time.Duration) {
	tc := g.cfg.Players[side].TC
	switch tc.Kind {
	case TCDepth:
		return fmt.Sprintf("depth %d", tc.N), g.cfg.MoveTimeout
	case TCMovetime:
		return fmt.Sprintf("movetime %d", tc.Movetime.Milliseconds()), tc.Movetime + g.cfg.Margin
	}
	return fmt.Sprintf("nodes %d", tc.N), g.cfg.MoveTimeout
}

// move asks the side to move for its move and plays it, or ends the game if
// the engine fails.
func (g *damaGame) move(ctx context.Context) error {
	stm := g.pos.SideToMove()
	side := g.side(stm)
	name := g.names[side]
	position := g.posStart
	if len(g.rec.damaMoves) > 0 {
		position += " moves " + strings.Join(g.rec.damaMoves, " ")
	}
	args, budget := g.goArgs(side)
	res, err := g.engines[side].Go(ctx, position, args, budget)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var timeout *uciclient.TimeoutError
	var crash *uciclient.CrashError
	switch {
	case errors.As(err, &timeout):
		g.forfeit(side, fmt.Sprintf("stalled: %s sent no bestmove within %v", name, budget.Round(time.Millisecond)))
		return nil
	case errors.As(err, &crash):
		g.forfeit(side, fmt.Sprintf("crash: %s %v", name, crash))
		return nil
	case err != nil:
		g.forfeit(side, fmt.Sprintf("protocol error: %s: %v", name, err))
		return nil
	}
	if res.BestMove == "none" {
		var list dama.MoveList
		g.pos.GenerateMoves(&list)
		g.forfeit(side, fmt.Sprintf("no move: %s answered bestmove none with %d legal move(s) in %s", name, list.Len(), g.pos.FEN()))
		return nil
	}
	m, err := g.pos.ParseMove(res.BestMove)
	if err != nil {
		g.forfeit(side, fmt.Sprintf("illegal move: %s played %s (%v)", name, res.BestMove, err))
		return nil
	}
	// The record keeps the move as the rules write it ("27x18x9" for a
	// capture the engine may have written otherwise).
	g.rec.damaMoves = append(g.rec.damaMoves, m.String())
	g.rec.comments = append(g.rec.comments, moveComment(res))
	g.pos.MakeMove(m)
	white := res.Score.CP
	if stm == dama.Black {
		white = -white
	}
	g.adj.count(g.cfg, res.Score.Valid, white, len(g.rec.damaMoves))
	return nil
}
