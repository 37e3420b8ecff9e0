package match

import (
	"context"
	"fmt"
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
	gameBase
	pos *dama.Position
}

// side returns the match side (0 = A, 1 = B) that plays colour c.
func (g *damaGame) side(c dama.Color) int { return g.sideOf(c == dama.White) }

// playDamaGame plays one game of draughts between the two engines (see
// play), as playGame does one of chess.
func playDamaGame(ctx context.Context, spec gameSpec, cfg *Config, names [2]string, engines [2]*uciclient.Engine) (*gameRecord, error) {
	return play(ctx, &damaGame{gameBase: newGameBase(spec, cfg, names, engines)})
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
	args, budget := g.goArgs(side)
	res, ok, err := g.ask(ctx, side, g.rec.damaMoves, args, budget, nil)
	if !ok {
		return err
	}
	if res.BestMove == "none" {
		var list dama.MoveList
		g.pos.GenerateMoves(&list)
		g.forfeit(side, fmt.Sprintf("%s: %s answered bestmove none with %d legal move(s) in %s", FaultNoMove, name, list.Len(), g.pos.FEN()))
		return nil
	}
	m, err := g.pos.ParseMove(res.BestMove)
	if err != nil {
		g.forfeit(side, fmt.Sprintf("%s: %s played %s (%v)", FaultIllegal, name, res.BestMove, err))
		return nil
	}
	// The record keeps the move as the rules write it ("27x18x9" for a
	// capture the engine may have written otherwise).
	g.rec.damaMoves = append(g.rec.damaMoves, m.String())
	g.rec.comments = append(g.rec.comments, moveComment(res))
	g.pos.MakeMove(m)
	g.count(res.Score, stm == dama.White, len(g.rec.damaMoves))
	return nil
}
