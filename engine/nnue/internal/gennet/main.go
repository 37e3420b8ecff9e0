// Command gennet writes an untrained network with seeded random weights in
// the engine's network format (its version, nnue.Version), for tests that need a network of known,
// reproducible weights (the embedded engine/nnue/default.nnue is a trained
// one; -o is required so that it is never overwritten by accident).
//
//	go run ./engine/nnue/internal/gennet -seed 1 [-hidden 256] [-outputs 8] -o FILE
//
// Its provenance says "untrained, seeded random: for tests; replace with a
// trained network". Its evaluations mean nothing; the hand-crafted
// evaluation stays the engine's default.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"chessforge/engine/nnue"
	"chessforge/internal/atomicfile"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed of the random weights")
	hidden := flag.Int("hidden", nnue.DefaultHidden, fmt.Sprintf("accumulator width: a multiple of %d from %d to %d", nnue.HiddenStep, nnue.HiddenStep, nnue.MaxHidden))
	outputs := flag.Int("outputs", 1, "output buckets: 1, 2, 4 or 8")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gennet: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if !nnue.ValidOutputs(*outputs) {
		fmt.Fprintf(os.Stderr, "gennet: -outputs %d: want 1, 2, 4 or 8\n", *outputs)
		os.Exit(2)
	}
	if !nnue.ValidHidden(*hidden) {
		fmt.Fprintf(os.Stderr, "gennet: -hidden %d: want a multiple of %d from %d to %d\n", *hidden, nnue.HiddenStep, nnue.HiddenStep, nnue.MaxHidden)
		os.Exit(2)
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gennet: -o FILE is required")
		os.Exit(2)
	}
	n := nnue.Random(*seed, *hidden, *outputs)
	n.Provenance, _ = json.Marshal(map[string]any{
		"kind":    "untrained, seeded random: for tests; replace with a trained network",
		"command": fmt.Sprintf("go run ./engine/nnue/internal/gennet -seed %d -hidden %d -outputs %d", *seed, *hidden, *outputs),
		"seed":    *seed,
		"hidden":  *hidden,
		"outputs": *outputs,
	})
	if err := write(*out, n); err != nil {
		fmt.Fprintln(os.Stderr, "gennet:", err)
		os.Exit(1)
	}
	fmt.Printf("gennet: wrote %s, network %s\n", *out, n.ID())
}

// write writes n to path whole (nnue.Version) or not at all.
func write(path string, n *nnue.Network) error {
	var b bytes.Buffer
	if err := n.Write(&b); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes(), 0o644)
}
