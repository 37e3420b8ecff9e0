package eval

//go:generate go run ./internal/regen -out weights_gen.go

import (
	"fmt"

	"chessforge/engine/internal/evalweights"
)

// source is what the draughts weights file says of itself.
var source = evalweights.Source{
	Generator: "chessforge/engine/dama/eval.Generate",
	Summary: fmt.Sprintf("Draughts evaluation weights: %d features in %d groups, each a {full board, bare board} pair in centi-men.",
		NumFeatures, len(Groups)),
	FingerprintName: "LayoutFingerprint",
	Regenerate:      "`go generate ./engine/dama/eval/` (same values) or with `bin/tune -game dama`",
	TableDoc: []string{
		"weights holds every group's {full board, bare board} weights in its field",
		"of weightTable (params.go), by name; each array must have its field's length.",
	},
}

// Generate returns the formatted source of weights_gen.go for the weight
// vector w (NumParams entries, layout as Weights.Vector; each rounded to
// the nearest integer) and provenance h. The output is deterministic:
// groups in registry order, each assigned to its field of the weight table
// by name as an array of its own length ([...]Score), under a comment line
// saying what it is, Group.Cols entries a line (eight for rows, four for
// the back-row patterns, else the whole group). The file records the current LayoutFingerprint, whatever
// h.Layout says. Generating from Default().Vector() and
// CurrentProvenance() reproduces the committed file byte for byte.
func Generate(w []float64, h Provenance) ([]byte, error) {
	return table.Generate(source, w, h)
}

// WriteWeights generates the weights file for w and h and writes it to
// path through a temporary file in the same directory, renamed into place
// when complete.
func WriteWeights(path string, w []float64, h Provenance) error {
	return table.WriteFile(path, source, w, h)
}
