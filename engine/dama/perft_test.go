package dama

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// startPerft holds the perft counts from the start position, depth 1 on
// (capture routes counted apart), as this package computes them; the simple
// implementation of naive_test.go confirms them to depth 6.
var startPerft = []uint64{7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875, 17761384, 81647058}

// TestPerftStart: perft from the start position to depth 7 (8 without
// -short) equals the counts above, and Divide's parts sum to it.
func TestPerftStart(t *testing.T) {
	depth := 8
	if testing.Short() {
		depth = 7
	}
	p := StartPosition()
	for d := 1; d <= depth; d++ {
		if got := p.Perft(d); got != startPerft[d-1] {
			t.Errorf("perft(%d) = %d, want %d", d, got, startPerft[d-1])
		}
	}
	b := naiveFrom(p)
	for d := 1; d <= 6; d++ {
		if got := b.perft(d); got != startPerft[d-1] {
			t.Errorf("the simple implementation's perft(%d) = %d, want %d", d, got, startPerft[d-1])
		}
	}
	var sum uint64
	total := p.Divide(5, func(m Move, n uint64) { sum += n })
	if total != startPerft[4] || sum != total {
		t.Errorf("Divide(5) = %d, parts sum to %d, want %d", total, sum, startPerft[4])
	}
	if p.FEN() != "W:W21-32:B1-12" || p.Hash() != StartPosition().Hash() || p.Ply() != 0 {
		t.Errorf("perft left the position changed: %s", p.FEN())
	}
}

// TestPerftPositions: perft of the priority-rule positions, cross-checked
// against the simple implementation to depth 4.
func TestPerftPositions(t *testing.T) {
	for _, fen := range []string{
		"W:W27,31:B13,22,28",
		"W:W31,K18:B14,20,28",
		"W:WK18:B5,22,K13,K23",
		"W:WK27:B7,13,K5,K14,K22",
		"W:WK27:B14,15,22,23",
		"W:W10:B6,7",
		"B:W27,28:B22",
		"W:W22:BK18",
		"W:W21,22,K30,31:B9,11,K13,16",
		"B:WK6,K7,23,25:BK2,10,K15,19,20",
	} {
		p := mustFEN(t, fen)
		b := naiveFrom(p)
		for d := 1; d <= 4; d++ {
			if got, want := p.Perft(d), b.perft(d); got != want {
				t.Errorf("%s: perft(%d) = %d, the simple implementation %d", fen, d, got, want)
			}
		}
	}
}

// BenchmarkPerft measures perft 8 from the start position (828,783 nodes),
// reporting nodes per second.
func BenchmarkPerft(b *testing.B) {
	p := StartPosition()
	var nodes uint64
	start := time.Now()
	for b.Loop() {
		nodes += p.Perft(8)
	}
	b.ReportMetric(float64(nodes)/time.Since(start).Seconds(), "nodes/s")
}

// BenchmarkGenerateMoves measures move generation over a set of positions
// from random games and endgames.
func BenchmarkGenerateMoves(b *testing.B) {
	positions := randomPositions(b, 4, 10)
	var l MoveList
	for b.Loop() {
		for _, p := range positions {
			p.GenerateMoves(&l)
		}
	}
	b.ReportMetric(float64(b.N*len(positions))/b.Elapsed().Seconds(), "positions/s")
}

// TestPerftSuite: perft of every position in testdata/perft.txt at every
// depth given (to depth 6 with -short), and the simple implementation to
// depth 4.
func TestPerftSuite(t *testing.T) {
	const path = "testdata/perft.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	maxDepth := 99
	if testing.Short() {
		maxDepth = 6
	}
	lines := 0
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, ";")
		p, err := ParseFEN(fields[0])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		lines++
		for _, f := range fields[1:] {
			var d int
			var want uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(f), "D%d %d", &d, &want); err != nil {
				t.Fatalf("%s:%d: field %q: %v", path, i+1, f, err)
			}
			if d > maxDepth {
				break
			}
			if got := p.Perft(d); got != want {
				t.Errorf("%s:%d: %s perft(%d) = %d, want %d", path, i+1, fields[0], d, got, want)
			}
			if d <= 4 {
				if got := naiveFrom(p).perft(d); got != want {
					t.Errorf("%s:%d: %s the simple implementation's perft(%d) = %d, want %d", path, i+1, fields[0], d, got, want)
				}
			}
		}
	}
	if lines < 20 {
		t.Errorf("%s: only %d positions", path, lines)
	}
}
