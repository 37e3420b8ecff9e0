package eval

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"chessforge/engine/board"
)

// wukongPath is the public labelled set shipped beside the repository.
const wukongPath = "../../../shared/data/texel-wukong-66k.epd"

// randomPositions plays seeded random games from the start position and
// returns n of the positions met, each a separate copy.
func randomPositions(t testing.TB, n int, seed uint64) []*board.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var out []*board.Position
	var list board.MoveList
	for len(out) < n {
		p := board.NewPosition()
		for ply := 0; ply < 300 && len(out) < n; ply++ {
			p.GenerateLegal(&list)
			if list.N == 0 || p.IsInsufficientMaterial() || p.HalfmoveClock() >= 100 {
				break
			}
			// Prefer captures now and then so that games reach endgames.
			m := list.Moves[rng.IntN(list.N)]
			if rng.IntN(3) == 0 {
				for i := 0; i < list.N; i++ {
					if p.IsCapture(list.Moves[i]) {
						m = list.Moves[i]
						break
					}
				}
			}
			p.MakeMove(m)
			q, err := board.ParseFEN(p.FEN())
			if err != nil {
				t.Fatalf("re-parsing %s: %v", p.FEN(), err)
			}
			out = append(out, q)
		}
	}
	return out
}

// epdPositions reads every k-th position of an EPD file of "FEN [result]"
// lines; it returns nil if the file is absent.
func epdPositions(t testing.TB, path string, k int) []*board.Position {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Logf("%s not available: %v", path, err)
		return nil
	}
	defer f.Close()
	var out []*board.Position
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line%k != 0 {
			continue
		}
		fen := sc.Text()
		if i := strings.IndexByte(fen, '['); i >= 0 {
			fen = fen[:i]
		}
		p, err := board.ParseFEN(strings.TrimSpace(fen))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

var (
	corpusOnce sync.Once
	corpus     []*board.Position
)

// testPositions is the shared corpus, built once: random playouts plus
// every tenth position of the Wukong set (about 10,000 in all).
func testPositions(t testing.TB) []*board.Position {
	corpusOnce.Do(func() {
		corpus = randomPositions(t, 3500, 1)
		corpus = append(corpus, epdPositions(t, wukongPath, 10)...)
	})
	return corpus
}

// mirrorFEN returns the position with the board flipped top to bottom,
// the colours swapped and the other side to move.
func mirrorFEN(t testing.TB, fen string) string {
	t.Helper()
	fields := strings.Fields(fen)
	ranks := strings.Split(fields[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	fields[0] = swapCase(strings.Join(ranks, "/"))
	if fields[1] == "w" {
		fields[1] = "b"
	} else {
		fields[1] = "w"
	}
	if fields[2] != "-" {
		c := []byte(swapCase(fields[2]))
		// Keep FEN order: KQkq.
		var up, low []byte
		for _, b := range c {
			if b >= 'A' && b <= 'Z' {
				up = append(up, b)
			} else {
				low = append(low, b)
			}
		}
		fields[2] = string(append(up, low...))
	}
	if fields[3] != "-" {
		r := byte('1' + '8' - fields[3][1])
		fields[3] = string([]byte{fields[3][0], r})
	}
	return strings.Join(fields, " ")
}

func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 32
		case c >= 'A' && c <= 'Z':
			b[i] = c + 32
		}
	}
	return string(b)
}

func mustFEN(t testing.TB, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}
