package match

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"chessforge/engine/pgn"
	"chessforge/selfplay/match/uciclient"
)

// This file holds what a game of chess (game.go) and one of draughts
// (dama.go) share: the engines, the record, the adjudication counters, the
// driver that starts both engines and asks them for moves until the game
// ends, and the scoring of an engine that fails.

// gameBase is the state of a game in progress that does not depend on the
// game played; the game types embed it.
type gameBase struct {
	spec    gameSpec
	cfg     *Config
	names   [2]string // 0 = A, 1 = B
	engines [2]*uciclient.Engine

	posStart string // "startpos" or "fen ..." for the position command
	rec      *gameRecord
	adj      adjudicator
}

func newGameBase(spec gameSpec, cfg *Config, names [2]string, engines [2]*uciclient.Engine) gameBase {
	return gameBase{spec: spec, cfg: cfg, names: names, engines: engines, rec: &gameRecord{spec: spec}}
}

// base returns the shared state; through embedding, every game type has it.
func (g *gameBase) base() *gameBase { return g }

// sideOf returns the match side (0 = A, 1 = B) that plays White if white,
// Black if not.
func (g *gameBase) sideOf(white bool) int {
	if white == g.spec.aWhite {
		return 0
	}
	return 1
}

// finish records the result from White's point of view.
func (g *gameBase) finish(result, termination string) {
	g.rec.result = result
	g.rec.termination = termination
}

// lose ends the game as a loss for the given side.
func (g *gameBase) lose(side int, termination string) {
	result := pgn.WhiteWins
	if g.sideOf(true) == side {
		result = pgn.BlackWins
	}
	g.finish(result, termination)
}

// forfeit scores a loss for an engine that failed and marks it for restart.
func (g *gameBase) forfeit(side int, termination string) {
	g.rec.faulted[side] = true
	g.rec.fault[side] = termination
	g.lose(side, termination)
}

// count updates the adjudication counters with the score s that the mover
// (White if whiteMoved) reported, ply being the game's ply after its move.
func (g *gameBase) count(s uciclient.Score, whiteMoved bool, ply int) {
	white := s.CP
	if !whiteMoved {
		white = -white
	}
	g.adj.count(g.cfg, s.Valid, white, ply)
}

// ask sends side's engine the position after moves (from posStart) and the
// go command args, and returns its answer with ok true. When the engine
// fails it scores the failure and returns ok false: a timeout is a forfeit
// ("stalled"), or, when onTime is not nil, is marked as a fault and handed
// to onTime as a "time forfeit"; a crash or a protocol error is a forfeit.
// The error is the context's when the match is being cancelled.
func (g *gameBase) ask(ctx context.Context, side int, moves []string, args string, budget time.Duration, onTime func(why string)) (res uciclient.Result, ok bool, err error) {
	position := g.posStart
	if len(moves) > 0 {
		position += " moves " + strings.Join(moves, " ")
	}
	res, err = g.engines[side].Go(ctx, position, args, budget)
	if ctx.Err() != nil {
		return res, false, ctx.Err()
	}
	name := g.names[side]
	var timeout *uciclient.TimeoutError
	var crash *uciclient.CrashError
	switch {
	case errors.As(err, &timeout) && onTime != nil:
		g.rec.faulted[side] = true
		onTime(fmt.Sprintf("%s: %s sent no bestmove within %v", FaultTime, name, budget.Round(time.Millisecond)))
	case errors.As(err, &timeout):
		g.forfeit(side, fmt.Sprintf("%s: %s sent no bestmove within %v", FaultStalled, name, budget.Round(time.Millisecond)))
	case errors.As(err, &crash):
		g.forfeit(side, fmt.Sprintf("%s: %s %v", FaultCrash, name, crash))
	case err != nil:
		g.forfeit(side, fmt.Sprintf("%s: %s: %v", FaultProtocol, name, err))
	default:
		return res, true, nil
	}
	return res, false, nil
}

// rules is what a game type adds to gameBase: its opening, its rules and
// its moves.
type rules interface {
	base() *gameBase
	// setup places the opening and records its moves; an error is a bad
	// opening.
	setup() error
	// adjudicate ends the game when the rules or the adjudication
	// thresholds decide it, and reports whether it did.
	adjudicate() bool
	// move asks the side to move for its move and plays it, or ends the
	// game if the engine fails; an error is the context's.
	move(ctx context.Context) error
}

// play plays one game between the two engines. It returns an error only
// when the match is being cancelled (or the opening is bad); every failure
// of an engine is scored as a loss in the record instead.
func play(ctx context.Context, g rules) (*gameRecord, error) {
	b := g.base()
	if err := g.setup(); err != nil {
		return nil, err
	}
	for side := range 2 {
		if err := b.engines[side].NewGame(ctx, b.cfg.ReadyTimeout); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			b.forfeit(side, fmt.Sprintf("%s: %s failed to start the game (%v)", FaultStart, b.names[side], err))
			return b.rec, nil
		}
	}
	for {
		if g.adjudicate() {
			return b.rec, nil
		}
		if err := g.move(ctx); err != nil {
			return nil, err
		}
		if b.rec.result != "" {
			return b.rec, nil
		}
	}
}
