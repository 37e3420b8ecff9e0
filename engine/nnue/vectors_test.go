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
// computed for testdata/test.nnue.
func TestVectors(t *testing.T) {
	n, err := LoadFile("testdata/test.nnue")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/vectors.txt")
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
				t.Fatalf("vectors.txt: bad line %q", line)
			}
			p, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("vectors.txt: %v", err)
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
			t.Errorf("vectors.txt has %d positions, want at least 1000", lines)
		}
	})
}
