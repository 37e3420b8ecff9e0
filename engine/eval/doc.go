// Package eval is the engine's static evaluation: a tapered, hand-crafted
// evaluation whose every weight is data, generated into weights_gen.go.
//
// # Evaluation
//
// Evaluate(p) scores a position in centipawns for the side to move. It
// allocates nothing. The terms, each a group of features with a
// {midgame, endgame} weight pair:
//
//   - material and piece-square tables for all six pieces (params.go, eval.go);
//   - pawn structure: isolated, doubled, backward, connected by rank; passed
//     pawns by rank, with a free path, the kings' distances to the stop
//     square, and the rule of the square against a lone king;
//   - mobility per piece type by number of safe squares;
//   - bishop pair, bishop and own pawns on its colour, knight and bishop
//     outposts, rooks on open and semi-open files and on the seventh;
//   - threats: pawn attacks on pieces, safe pawn pushes that attack, minor
//     and rook attacks by victim, hanging pieces;
//   - king safety: pawn shelter and storm on the three files by the king,
//     open files there, and king danger (attackers of the king zone by type,
//     attacks on it, weak zone squares, safe checks by type, no enemy
//     queen, a constant) through a non-linear curve;
//   - endgames: a lone king is driven to the edge, towards the winning king,
//     and in KBNK to a corner of the bishop's colour; drawish material is
//     scaled down, and rook pawns, alone or with the wrong bishop, against
//     a king in their corner to 0; dead draws (the board's insufficient
//     material) score 0 (Endgame lends this knowledge to the network's
//     scores);
//   - tempo for the side to move.
//
// The phase runs from 0 (pawns and kings) to PhaseMax (knights and bishops
// count 1, rooks 2, queens 4). The midgame and endgame sums mg and eg are
// blended as t = (mg·phase + eg·(PhaseMax−phase))/PhaseMax, then multiplied by
// a drawishness scale of ScaleNormal (see Coefs.Eval for the exact formula).
//
// A search uses an Evaluator instead, one per search thread: it returns the
// same value to the centipawn and keeps a pawn cache, so that the terms that
// depend only on the pawns (and the kings' squares) are computed once per
// pawn structure. Every term adds its {midgame, endgame} weight pair as one
// packed integer (score.go).
//
// # Weights as data
//
// Each feature group is declared once, as a field of the weight table
// (weightTable in params.go: its name, size, layout and family); Groups, the
// registry of named groups in the manner of CounterGo, the feature offsets
// and NumFeatures all follow from that declaration. The weights live in
// weights_gen.go, written by package evalgen from a weight vector, which
// assigns each group's values to its field by name, so that a layout change
// lands every value in its place or fails to build; the file records the
// layout's fingerprint (LayoutFingerprint) and a test checks it. `go
// generate ./engine/eval/` rewrites it, byte for byte, from the compiled-in
// values.
// The evaluation code adds every term through one helper that applies the
// weight and, when a Tracer is attached, records the count, so the traced
// coefficients cannot drift from the evaluation (Ethereal's trace idea).
// Evaluate and Evaluator run a generated copy of that code with the
// recording removed (eval_untraced_gen.go, written by internal/untrace;
// `go generate` rewrites it too), so the search pays nothing for tracing;
// its //line directives make panics and profiles name eval.go's lines.
//
// # Linear and non-linear parts
//
// Most of the evaluation is linear in the weights: Coefs.Linear holds White's
// count minus Black's per feature. Declared non-linear parts, which a tuner
// treats numerically or through Coefs.Gradient:
//
//   - king danger: for each king, u = Σ (ks_* counts)·w; it costs
//     max(u_mg,0)²/KingDangerMG in the middlegame and max(u_eg,0)/KingDangerEG
//     in the endgame (Coefs.Safety holds the counts for each king);
//   - the scale (Coefs.Scale), a function of the material (and, for rook
//     pawns, of their file and the defending king's square), chosen by the
//     sign of the tapered score; a tuner holds it constant;
//   - dead draws (Coefs.Draw) score 0 whatever the weights;
//   - the result is clamped to ±MaxEval.
//
// # Using it from a tuner
//
// The weight vector has NumParams = 2·NumFeatures entries: entry f is feature
// f's midgame weight, NumFeatures+f its endgame weight. The API:
//
//	w := eval.Weights()               // current weights, []float64 of NumParams
//	mask, err := eval.Select("psqt,kingsafety") // which weights to tune (-params)
//	var tr eval.Tracer                // reusable; one per goroutine
//	c := tr.Trace(pos)                // sparse coefficients, phase, scale, draw flag
//	v := c.Eval(w)                    // White's-view evaluation under w (Evaluate = trunc(v), by side to move)
//	c.Gradient(w, dLoss_dv, grad)     // adds dLoss/dv · ∂v/∂w to grad
//	evalgen.WriteFile("engine/eval/weights_gen.go", w, eval.Provenance{...}) // write the tuned weights back
//
// ParamName(j) names entry j ("psqt_knight[f3].mg") for reports, Groups and
// Families list what -params accepts, and CurrentProvenance says where the
// compiled-in weights came from.
package eval

// untrace first: it does not build this package, which does not build
// while eval_untraced_gen.go is stale.
//go:generate go run ./internal/untrace/cmd/untrace
//go:generate go run ./evalgen/cmd/evalgen -out weights_gen.go
