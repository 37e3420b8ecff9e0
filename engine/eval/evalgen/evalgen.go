// Package evalgen writes the evaluation's weights file, weights_gen.go in
// package eval, from a weight vector: the one place where tuned chess
// weights turn back into Go source. It says what the file says of itself;
// the writing is the evaluations' shared machinery (engine/internal/evalweights).
//
// The output is deterministic: groups in registry order, each assigned to
// its field of the weight table by name, as an array of its own length
// ([...]Score), under one comment line; piece-square tables as boards
// (eight entries a line, rank 8 at the top); formatted with go/format. A
// group resized, renamed or removed since the file was written fails to
// build rather than shift its neighbours' values. The provenance records
// the layout's fingerprint (eval.LayoutFingerprint). Generating from
// eval.Weights() and eval.CurrentProvenance() reproduces the committed file
// byte for byte.
package evalgen

import (
	"fmt"

	"chessforge/engine/eval"
	"chessforge/engine/internal/evalweights"
)

// source is what the chess weights file says of itself.
var source = evalweights.Source{
	Generator: "evalgen",
	Summary: fmt.Sprintf("Evaluation weights: %d features in %d groups, each feature a {midgame, endgame} pair in centipawns.",
		eval.NumFeatures, len(eval.Groups)),
	FingerprintName: "eval.LayoutFingerprint",
	Regenerate:      "`go generate ./engine/eval/` (same values) or with the tuner",
	TableDoc: []string{
		"weights holds every group's {midgame, endgame} weights in its field of",
		"weightTable (params.go), by name; each array must have its field's length.",
	},
	GroupNote: func(g eval.Group) string {
		note := ""
		if g.Layout == eval.Board {
			note += " (White's side, rank 8 at the top, file a on the left)"
		}
		if g.Nonlinear {
			note += " [king-danger units]"
		}
		return note
	},
}

// Generate returns the formatted source of weights_gen.go for the weight
// vector w (length eval.NumParams, layout as eval.Weights) and provenance h.
// Weights are rounded to the nearest integer. The file records the current
// layout's fingerprint, whatever h.Layout says: w is a vector of the
// current layout.
func Generate(w []float64, h eval.Provenance) ([]byte, error) {
	return eval.Registry().Generate(source, w, h)
}

// WriteFile generates the weights file and writes it to path through a
// temporary file in the same directory, renamed into place when complete.
func WriteFile(path string, w []float64, h eval.Provenance) error {
	return eval.Registry().WriteFile(path, source, w, h)
}
