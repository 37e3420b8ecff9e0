package nnue

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"chessforge/engine/board"
)

// TestVectors checks the forward pass against the trainer's test vectors:
// testdata/vectors.txt holds "FEN;eval" lines that the PyTorch export
// computed for testdata/test.nnue (one output), and
// testdata/buckets-vectors.txt those of testdata/buckets.nnue (eight output
// buckets, every one of them used by some line), and
// testdata/mirrored-vectors.txt those of testdata/mirrored.nnue (eight
// buckets, king-mirrored features), and testdata/narrow-vectors.txt those
// of testdata/narrow.nnue (eight buckets, king-mirrored, accumulators 32
// wide).
func TestVectors(t *testing.T) {
	for net, vectors := range map[string]string{"test.nnue": "vectors.txt", "buckets.nnue": "buckets-vectors.txt",
		"mirrored.nnue": "mirrored-vectors.txt", "narrow.nnue": "narrow-vectors.txt"} {
		t.Run(net, func(t *testing.T) { checkVectors(t, "testdata/"+net, "testdata/"+vectors) })
	}
}

func checkVectors(t *testing.T, net, vectors string) {
	n, err := LoadFile(net)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(vectors)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	paths(t, func(t *testing.T) {
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		lines := 0
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			fen, val, ok := strings.Cut(line, ";")
			want, err := strconv.Atoi(strings.TrimSpace(val))
			if !ok || err != nil {
				t.Fatalf("%s: bad line %q", vectors, line)
			}
			p, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("%s: %v", vectors, err)
			}
			if got := n.Evaluate(p); got != want {
				t.Fatalf("%s: engine %d, trainer %d", fen, got, want)
			}
			lines++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if lines < 1000 {
			t.Errorf("%s has %d positions, want at least 1000", vectors, lines)
		}
	})
}
