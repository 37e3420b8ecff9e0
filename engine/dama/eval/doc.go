// Package eval is the Italian draughts evaluation: a tapered, hand-crafted
// evaluation whose every weight is data, generated into weights_gen.go,
// so that bin/tune -game dama fits it as it fits the chess one.
//
// # Terms
//
// Evaluate(p) scores a position in centi-men (a man = 100) for the side to
// move, and allocates nothing. Every term is a group of features with a
// {full board, bare board} weight pair (params.go), counted for each side
// from the rules package's bitboards, Black's turned half a turn so that
// both are counted as White's:
//
//   - material: men and kings;
//   - men: advancement by row from the own side, a man on the row before
//     crowning with a free square ahead, men whose squares behind are own
//     pieces or off the board (no enemy man can jump them), and the
//     back-row guard as a pattern of the four back-row squares;
//   - position: men and kings on the central squares and on the side files;
//   - mobility: the empty squares men and kings can step to (steps only,
//     from the neighbour tables: no move generation);
//   - simplification: the side ahead in pieces gains its lead times the
//     pieces off the board, so that exchanges pay when ahead;
//   - tempo for the side to move.
//
// The phase is the number of pieces on the board, capped at PhaseMax (24,
// the full board); the two sums are blended as
// (mg·phase + eg·(PhaseMax−phase))/PhaseMax and clamped to ±MaxEval.
//
// # Weights as data
//
// Each group is declared once, as a field of weightTable; Groups, the
// feature offsets, NumFeatures, the -params selection (Select), the
// names (ParamName) and the layout's fingerprint follow from it. A
// Weights value is one weight set (the compiled-in one is Default(), a
// tuner's vector becomes one with FromVector), so several coexist in one
// process: a search evaluates through a Weights value's Evaluate.
// Generate writes weights_gen.go from a vector with its provenance;
// `go generate ./engine/dama/eval/` rewrites it byte for byte.
//
// # Trace
//
// Every term is added through one helper that applies its weights and,
// when a Tracer is attached, counts it: Tracer.Trace returns the
// position's coefficients (Coefs: White's counts minus Black's, and the
// phase), whose Eval(w) is the evaluation under any weight vector — the
// linear form the tuner fits. A test holds it equal to Evaluate.
package eval
