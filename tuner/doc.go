// Package tuner fits the evaluation's weights to labelled positions: Texel
// tuning in one sitting, in the manner of Ethereal's tuner.
//
// Load reads positions once — self-play datasets through package datasets,
// or `FEN [result]` and zurichess `FEN c9 "result";` text files — resolves
// each to the quiet leaf of its quiescence search (or filters, see Load),
// traces it with eval.Tracer and stores only its sparse coefficients,
// phase, scale and target in a compact Set (about 170 bytes a position).
// FitK finds the sigmoid scale K for the starting weights. Fit then
// minimises the mean squared error between the targets and
// 1/(1+10^(−K·v/400)) over the chosen weights with gonum's L-BFGS (or Adam)
// and an analytic gradient computed over partitions of the positions on
// all cores, watching a validation set split off by game and keeping the
// weights where its error was lowest. WriteReport writes the errors per
// iteration (CSV and PNG) and the largest weight changes. Run is the whole
// algorithm in that order, from Options to the weights file written back
// with evalgen, which it writes only when the validation error of the
// rounded weights is below the starting one (else a NoGainError, unless
// Options.AllowWorse); cmd/tune reads the Options from flags and a config
// file.
//
// The evaluation itself is never re-implemented: the coefficients come
// from the evaluation's own trace, and the tuner's compact loop follows
// eval.Coefs.Eval and Coefs.Gradient, which a test holds equal to it on
// real positions.
package tuner
