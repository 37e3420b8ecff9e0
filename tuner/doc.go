// Package tuner fits an evaluation's weights to labelled positions: Texel
// tuning in one sitting, in the manner of Ethereal's tuner.
//
// The evaluation is a Model: the shape of its formula (a tapered sum of
// coefficients times weights, with chess's king-danger curve and
// drawishness scales as optional parts), its weight vector with names and
// the -params selection, a Tracer that reads, selects and traces the
// positions of its game, and the generated weights file it writes back.
// ChessModel (engine/eval) and DamaModel (engine/dama/eval, Italian
// draughts) are the two; Run picks one by Options.Game or by the dataset's
// chessforge.game metadata (DataGame).
//
// Load reads positions once — self-play datasets through package datasets,
// or `FEN [result]` and zurichess `FEN c9 "result";` text files (PDN FENs
// for draughts) — resolves each to the quiet leaf of its quiescence search
// (or filters, see Load), traces it with the model's Tracer and stores
// only its sparse coefficients, phase, scale and target in a compact Set
// (about 170 bytes a chess position, 60 a draughts one).
// FitK finds the sigmoid scale K for the starting weights. Fit then
// minimises the mean squared error between the targets and
// 1/(1+10^(−K·v/400)) over the chosen weights with gonum's L-BFGS (or Adam)
// and an analytic gradient computed over partitions of the positions on
// all cores, watching a validation set split off by game and keeping the
// weights where its error was lowest. WriteReport writes the errors per
// iteration (CSV and PNG) and the largest weight changes. Run is the whole
// algorithm in that order, from Options to the weights file the model
// writes back, which it writes only when the validation error of the
// rounded weights is below the starting one (else a NoGainError, unless
// Options.AllowWorse); cmd/tune reads the Options from flags and a config
// file.
//
// The evaluation itself is never re-implemented: the coefficients come
// from the evaluation's own trace, and the tuner's compact loop follows
// eval.Coefs.Eval and Coefs.Gradient (and dama/eval's Coefs.Eval), which
// tests hold equal to it on real positions.
package tuner
