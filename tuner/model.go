package tuner

import (
	"fmt"
	"strings"

	"chessforge/encoder"
)

// A Model is an evaluation the tuner fits: the shape of its formula, its
// weight vector and the names of its weights, how the positions of its
// game are read, selected and traced, and how its weights file is written
// back. The tuner itself (Load, Fit, Run) knows no game; ChessModel
// (engine/eval) and DamaModel (engine/dama/eval) are the two models.
type Model interface {
	// Game is the game's name as datasets record it in the metadata key
	// chessforge.game: "chess" or "dama".
	Game() string
	// Shape is the form of the evaluation the tuner's kernel computes
	// from a position's coefficients.
	Shape() Shape
	// Weights returns a copy of the compiled-in weights: Shape().Features
	// midgame weights, then as many endgame weights.
	Weights() []float64
	// Select parses -params (a comma-separated list of groups and
	// families, "all", each optionally ending in .mg or .eg) into a mask
	// over the weights, true where a weight may be tuned.
	Select(spec string) ([]bool, error)
	// ParamName names entry j of the weight vector, e.g.
	// "psqt_knight[f3].mg".
	ParamName(j int) string
	// WeightsFile is the generated weights file, relative to the
	// repository root, that bin/tune rewrites when -out is not given.
	WeightsFile() string
	// WriteWeights writes the generated weights file for w, rounded, with
	// its provenance, to path.
	WriteWeights(path string, w []float64, p Provenance) error
	// NewTracer returns a tracer for one of Load's goroutines; sel is the
	// selection (Resolve, Filter or AsIs).
	NewTracer(sel string) Tracer
}

// Shape is the form of a model's evaluation: with a position's
// coefficients c and a weight vector w (Features midgame weights, then
// Features endgame weights), the evaluation from White's side is
//
//	mg = Σ c.Linear·w_mg − (max(u_mg[White],0)² − max(u_mg[Black],0)²) / KingDangerMG
//	eg = Σ c.Linear·w_eg − (max(u_eg[White],0) − max(u_eg[Black],0)) / KingDangerEG
//	t  = (mg·c.Phase + eg·(PhaseMax−c.Phase)) / PhaseMax
//	v  = t · c.Scale[0 if t > 0 else 1] / ScaleNormal, clamped to ±MaxEval
//
// with u[s] = c.Safety[s]·w, and 0 for a c.Draw. A model without king
// danger gives no Safety coefficients; one without drawishness scaling
// gives Scale = {ScaleNormal, ScaleNormal}.
type Shape struct {
	Features                   int     // features; the weight vector has 2·Features entries
	PhaseMax                   int     // the phase of a full board (the phase runs 0..PhaseMax, at most 255)
	ScaleNormal                int     // the scale that leaves a score unchanged (at most 255)
	MaxEval                    float64 // the evaluation's clamp
	KingDangerMG, KingDangerEG float64 // the king-danger curve's divisors (unused without Safety coefficients)
}

// Params returns the length of the weight vector, 2·Features.
func (s Shape) Params() int { return 2 * s.Features }

// Coef is one entry of a sparse coefficient vector.
type Coef struct {
	Index int32 // feature index, 0 <= Index < Shape.Features
	N     int32 // count
}

// Coefs is a position's evaluation as data, in the form every model's
// trace is turned into (see Shape for the formula).
type Coefs struct {
	// Linear holds White's count minus Black's for every feature whose
	// difference is not zero.
	Linear []Coef
	// Safety holds the king-danger counts against White's king [0] and
	// Black's king [1] (chess); empty in models without king danger.
	Safety [2][]Coef
	Phase  int    // 0..PhaseMax
	Scale  [2]int // the drawishness scale when the score favours White [0], Black [1]
	Draw   bool   // a dead draw: 0 whatever the weights
}

// A Tracer reads positions of its model's game and turns them into
// coefficients, one position at a time (the current one). Load gives each
// of its goroutines its own.
type Tracer interface {
	// Clear forgets what the tracer keeps between positions (a search's
	// tables), so that a chunk's positions do not depend on the chunks
	// before it.
	Clear()
	// Parse reads a position string (the game's FEN) and makes it the
	// current position.
	Parse(fen string) error
	// Ply returns the current position's ply as its string gives it, or
	// an error saying that the string does not give it.
	Ply() (int, error)
	// InCheck reports whether the side to move is in check (never in a
	// game without check).
	InCheck() bool
	// NoisyMove reports whether move, a best move in the game's notation,
	// is a capture or a promotion in the current position.
	NoisyMove(move string) (bool, error)
	// Quiet reports whether the current position is quiet: its
	// quiescence search stands pat.
	Quiet() bool
	// Resolve replaces the current position by the quiet leaf of its
	// quiescence search and reports whether that is another position.
	Resolve() bool
	// Trace returns the current position's coefficients, valid until the
	// next call of the tracer.
	Trace() *Coefs
}

// Provenance says where fitted weights came from; the model writes it
// into the generated file's header.
type Provenance struct {
	Source      string  // the data the weights were fitted to
	Positions   int     // positions fitted
	K           float64 // the sigmoid scale
	ErrorBefore float64 // validation error before (starting weights)
	ErrorAfter  float64 // validation error after (rounded weights)
}

// Games lists the games the tuner has a model for, the default first.
var Games = []string{GameChess, GameDama}

// The games' names, as the datasets' metadata key chessforge.game holds
// them (package encoder declares them).
const (
	GameChess = encoder.GameChess
	GameDama  = encoder.GameDama
)

// ModelFor returns the model of game (GameChess or GameDama; "" is chess).
func ModelFor(game string) (Model, error) {
	switch game {
	case GameChess, "":
		return ChessModel, nil
	case GameDama:
		return DamaModel, nil
	}
	return nil, fmt.Errorf("unknown game %q (want %s)", game, strings.Join(Games, " or "))
}
