package nnue

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"chessforge/engine/board"
)

// paths runs f once per kernel path this build and processor have: the
// pure-Go one and, with GOEXPERIMENT=simd on an AVX2 processor, the vector
// one.
func paths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer setSIMD(true)
	setSIMD(false)
	t.Run("scalar", f)
	if setSIMD(true) {
		t.Run("simd", f)
	}
}

// refEval is the forward pass written straight from the format's formula,
// without the package's tables or kernels: features by scanning the board,
// accumulators in int64.
func refEval(n *Network, p *board.Position) int {
	h := n.Hidden()
	acc := [2][]int64{make([]int64, h), make([]int64, h)}
	for persp := range 2 {
		for j := range h {
			acc[persp][j] = int64(n.B1[j])
		}
		mirror := 0 // king-mirrored: files mirrored while persp's king is on files e-h
		for sq := range 64 {
			if pc := p.PieceAt(board.Square(sq)); n.Mirrored() && pc.Type() == board.King && int(pc.Color()) == persp && sq%8 >= 4 {
				mirror = 7
			}
		}
		for sq := range 64 {
			pc := p.PieceAt(board.Square(sq))
			if pc == board.NoPiece {
				continue
			}
			c, typ := int(pc.Color()), int(pc.Type())
			rel := 6
			if c == persp {
				rel = 0
			}
			s := sq ^ mirror
			if persp == 1 {
				s ^= 56
			}
			idx := (rel+typ)*64 + s
			for j := range h {
				acc[persp][j] += int64(n.W1[idx*h+j])
			}
		}
	}
	screlu := func(x int64) int64 {
		x = min(max(x, 0), QA)
		return x * x
	}
	stm := int(p.SideToMove())
	pieces := 0
	for sq := range 64 {
		if p.PieceAt(board.Square(sq)) != board.NoPiece {
			pieces++
		}
	}
	b := min(max(pieces-2, 0)/(32/n.Outputs()), n.Outputs()-1)
	var s int64
	for j := range h {
		s += screlu(acc[stm][j]) * int64(n.W2[b][j])
		s += screlu(acc[1-stm][j]) * int64(n.W2[b][h+j])
	}
	v := s/QA + int64(n.B2[b])
	return int(v * Scale / (QA * QB))
}

// namedFENs are positions with every kind of move close at hand.
var namedFENs = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
	"r3k2r/pppq1ppp/2n2n2/8/8/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
	"r3k2r/pppq1ppp/2n2n2/8/8/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 1",
}

// randomGames returns the positions along count random games from the
// named positions, seeded, each at most plies moves long.
func randomPositions(t testing.TB, seed uint64, count, plies int) []*board.Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []*board.Position
	for g := range count {
		p, err := board.ParseFEN(namedFENs[g%len(namedFENs)])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Clone())
		for range plies {
			moves := legalMoves(p)
			if len(moves) == 0 {
				break
			}
			p.MakeMove(moves[rng.IntN(len(moves))])
			out = append(out, p.Clone())
		}
	}
	return out
}

// randomMirrored is Random with the king-mirrored feature set.
func randomMirrored(seed uint64, outputs int) *Network {
	return randomMirroredWidth(seed, DefaultHidden, outputs)
}

// randomMirroredWidth is randomMirrored with accumulators hidden wide.
func randomMirroredWidth(seed uint64, hidden, outputs int) *Network {
	n := Random(seed, hidden, outputs)
	n.SetMirrored(true)
	return n
}

// otherWidths are accumulator widths besides DefaultHidden that the tests
// cover: the narrowest, one between and the widest.
var otherWidths = []int{HiddenStep, 512, MaxHidden}

func TestForwardPassEqualsReference(t *testing.T) {
	positions := randomPositions(t, 7, 16, 60)
	for seed, outputs := range []int{1, 2, 4, 8} {
		nets := []*Network{Random(uint64(seed), DefaultHidden, outputs), randomMirrored(uint64(seed), outputs)}
		if outputs == 8 { // the other widths: eight buckets, every third position
			for _, h := range otherWidths {
				nets = append(nets, Random(uint64(seed), h, outputs), randomMirroredWidth(uint64(seed), h, outputs))
			}
		}
		for _, n := range nets {
			paths(t, func(t *testing.T) {
				for i, p := range positions {
					if n.Hidden() != DefaultHidden && i%3 != 0 {
						continue
					}
					if got, want := n.Evaluate(p), refEval(n, p); got != want {
						t.Fatalf("net %d (%s), %s: Evaluate = %d, reference = %d", seed, n.Architecture(), p.FEN(), got, want)
					}
				}
			})
		}
	}
}

// TestIncrementalEqualsRefresh plays random games and checks, at every ply
// and for both perspectives, that the accumulators updated by each move's
// Delta (and by a Stack, lazily) equal a refresh from scratch; the games
// must between them contain every kind of move. With a king-mirrored
// network, kings must also have crossed the middle of the board both ways.
func TestIncrementalEqualsRefresh(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testIncremental(t, Random(11, DefaultHidden, 8), 200) })
	t.Run("mirrored", func(t *testing.T) { testIncremental(t, randomMirrored(11, 8), 200) })
	t.Run("plain, 16 wide", func(t *testing.T) { testIncremental(t, Random(11, HiddenStep, 8), 100) })
	t.Run("mirrored, 512 wide", func(t *testing.T) { testIncremental(t, randomMirroredWidth(11, 512, 8), 100) })
}

// sameAccumulators reports whether a and b hold the same values and masks.
func sameAccumulators(a, b *Accumulator) bool {
	return a.Flip == b.Flip && slices.Equal(a.V[0], b.V[0]) && slices.Equal(a.V[1], b.V[1])
}

// testIncremental plays games random games with n.
func testIncremental(t *testing.T, n *Network, games int) {
	paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		seen := map[string]bool{}
		inc, full := n.NewAccumulator(), n.NewAccumulator()
		st := NewStack(n, 400)
		for g := range games {
			p, err := board.ParseFEN(namedFENs[g%len(namedFENs)])
			if err != nil {
				t.Fatal(err)
			}
			n.Refresh(inc, p)
			st.Reset(p)
			for ply := 0; ply < 160; ply++ {
				moves := legalMoves(p)
				if len(moves) == 0 {
					break
				}
				m := moves[rng.IntN(len(moves))]
				for _, k := range moveKinds(p, m) {
					seen[k] = true
				}
				d := DeltaOf(p, m)
				if n.crosses(&d, 0) || n.crosses(&d, 1) {
					seen["king crossing "+d.kingColor.String()] = true
				}
				st.Push(p, m)
				p.MakeMove(m)
				n.Apply(inc, inc, &d, p)
				n.Refresh(full, p)
				if !sameAccumulators(inc, full) {
					t.Fatalf("game %d ply %d after %v: incremental accumulators differ from a refresh (%s)", g, ply, m, p.FEN())
				}
				if rng.IntN(3) == 0 { // evaluate lazily, skipping plies
					if got, want := st.Evaluate(p), n.Output(full, p.SideToMove(), p.Occupied().Count()); got != want {
						t.Fatalf("game %d ply %d: stack evaluates %d, refresh %d", g, ply, got, want)
					}
				}
				if rng.IntN(8) == 0 { // a null move there and back
					st.PushNull()
					p.MakeNullMove()
					if got, want := st.Evaluate(p), n.Evaluate(p); got != want {
						t.Fatalf("game %d ply %d: after a null move the stack evaluates %d, refresh %d", g, ply, got, want)
					}
					p.UnmakeNullMove()
					st.Pop()
				}
				if rng.IntN(6) == 0 { // take the move back and check the parent
					st.Pop()
					p.UnmakeMove()
					if got, want := st.Evaluate(p), n.Evaluate(p); got != want {
						t.Fatalf("game %d ply %d: after Pop the stack evaluates %d, refresh %d", g, ply, got, want)
					}
					st.Push(p, m)
					p.MakeMove(m)
				}
			}
		}
		kinds := []string{"O-O white", "O-O-O white", "O-O black", "O-O-O black", "en passant",
			"=N", "=B", "=R", "=Q", "xP", "xN", "xB", "xR", "xQ", "king move"}
		if n.Mirrored() {
			kinds = append(kinds, "king crossing white", "king crossing black")
		}
		var missing []string
		for _, k := range kinds {
			if !seen[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			t.Errorf("the games never played %s", strings.Join(missing, ", "))
		}
	})
}

// moveKinds names the kinds of move m is in p.
func moveKinds(p *board.Position, m board.Move) []string {
	var k []string
	pc := p.PieceAt(m.From())
	switch {
	case m.IsCastling():
		side := "O-O"
		if m.To().File() == 2 {
			side = "O-O-O"
		}
		k = append(k, side+" "+pc.Color().String())
	case m.IsEnPassant():
		k = append(k, "en passant", "xP")
	case m.IsPromotion():
		k = append(k, "="+string("PNBRQK"[m.Promotion()]))
	}
	if c := p.PieceAt(m.To()); c != board.NoPiece && !m.IsCastling() {
		k = append(k, "x"+string("PNBRQK"[c.Type()]))
	}
	if pc.Type() == board.King && !m.IsCastling() {
		k = append(k, "king move")
	}
	return k
}

// mirrorFEN returns the colour-mirrored position: ranks reversed, colours
// swapped, the other side to move.
func mirrorFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return r
		}, s)
	}
	f[0] = swap(strings.Join(ranks, "/"))
	if f[1] == "w" {
		f[1] = "b"
	} else {
		f[1] = "w"
	}
	if f[2] != "-" {
		c := swap(f[2])
		var up, low string
		for _, r := range c {
			if r >= 'A' && r <= 'Z' {
				up += string(r)
			} else {
				low += string(r)
			}
		}
		f[2] = up + low
	}
	if f[3] != "-" {
		f[3] = string(f[3][0]) + string("87654321"[f[3][1]-'1'])
	}
	return strings.Join(f, " ")
}

func TestColourMirrorSameScore(t *testing.T) {
	for _, n := range []*Network{Random(5, DefaultHidden, 8), randomMirrored(5, 8)} {
		paths(t, func(t *testing.T) {
			for _, p := range randomPositions(t, 9, 8, 80) {
				m, err := board.ParseFEN(mirrorFEN(p.FEN()))
				if err != nil {
					t.Fatal(err)
				}
				if a, b := n.Evaluate(p), n.Evaluate(m); a != b {
					t.Fatalf("%s: %s evaluates %d, its mirror %s %d", n.Architecture(), p.FEN(), a, m.FEN(), b)
				}
			}
		})
	}
}

// fileMirrorFEN returns the position with files reversed (a <-> h), without
// castling rights or en passant square.
func fileMirrorFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, r := range ranks {
		var sq []byte
		for _, c := range []byte(r) {
			if c >= '1' && c <= '8' {
				sq = append(sq, bytes.Repeat([]byte{'1'}, int(c-'0'))...)
			} else {
				sq = append(sq, c)
			}
		}
		slices.Reverse(sq)
		ranks[i] = string(sq)
	}
	f[0], f[2], f[3] = strings.Join(ranks, "/"), "-", "-"
	return strings.Join(f, " ")
}

// TestFileMirrorSameScoreMirrored: a king-mirrored network sees a position
// and its file mirror alike, wherever the kings stand; a plain one does not.
func TestFileMirrorSameScoreMirrored(t *testing.T) {
	plain, mirrored := Random(5, DefaultHidden, 8), randomMirrored(5, 8)
	differ := 0
	for _, p := range randomPositions(t, 13, 8, 80) {
		m, err := board.ParseFEN(fileMirrorFEN(p.FEN()))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mirrored.Evaluate(p), mirrored.Evaluate(m); a != b {
			t.Fatalf("%s evaluates %d, its file mirror %s %d", p.FEN(), a, m.FEN(), b)
		}
		if plain.Evaluate(p) != plain.Evaluate(m) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the plain network evaluates every file mirror alike: the test tells nothing apart")
	}
}

// TestKernelsAgree compares every kernel, on each path (pure Go and, where
// the processor has it, the vector one), with a reference computed element
// by element in int64, on random rows, extremes included. The rows' ranges
// keep every sum within int16, as the weight bounds do in play.
func TestKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths(t, func(t *testing.T) {
		for _, h := range append([]int{DefaultHidden}, otherWidths...) {
			row := func(lo, hi int) []int16 {
				r := make([]int16, h)
				for j := range r {
					r[j] = int16(lo + rng.IntN(hi-lo+1))
				}
				return r
			}
			for range 200 {
				src, a0, a1, s0, s1 := row(-20000, 20000), row(-MaxW1, MaxW1), row(-MaxW1, MaxW1), row(-MaxW1, MaxW1), row(-MaxW1, MaxW1)
				got := make([]int16, h)
				addSub(got, src, a0, s0)
				if want := refRows(src, [][]int16{a0}, [][]int16{s0}); !slices.Equal(got, want) {
					t.Fatalf("%d wide: addSub differs from the reference", h)
				}
				addSubSub(got, src, a0, s0, s1)
				if want := refRows(src, [][]int16{a0}, [][]int16{s0, s1}); !slices.Equal(got, want) {
					t.Fatalf("%d wide: addSubSub differs from the reference", h)
				}
				addAddSubSub(got, src, a0, a1, s0, s1)
				if want := refRows(src, [][]int16{a0, a1}, [][]int16{s0, s1}); !slices.Equal(got, want) {
					t.Fatalf("%d wide: addAddSubSub differs from the reference", h)
				}
				copy(got, src)
				addRow(got, a0)
				subRow(got, a1)
				if want := refRows(src, [][]int16{a0}, [][]int16{a1}); !slices.Equal(got, want) {
					t.Fatalf("%d wide: addRow/subRow differ from the reference", h)
				}
				w := row(-MaxW2, MaxW2)
				w = append(w, row(-MaxW2, MaxW2)...)
				if rng.IntN(4) == 0 { // the extreme: every lane at QA, every weight at ±MaxW2
					for j := range src {
						src[j], a0[j] = QA, QA
						w[j] = MaxW2
						w[h+j] = MaxW2
					}
				}
				if g, want := output(src, a0, w), refOutput(src, a0, w); g != want {
					t.Fatalf("%d wide: output %d, reference %d", h, g, want)
				}
			}
		}
	})
}

// refRows returns src plus the rows of add less those of sub, element by
// element in int64; a sum beyond int16 panics.
func refRows(src []int16, add, sub [][]int16) []int16 {
	out := make([]int16, len(src))
	for j := range src {
		v := int64(src[j])
		for _, r := range add {
			v += int64(r[j])
		}
		for _, r := range sub {
			v -= int64(r[j])
		}
		if v != int64(int16(v)) {
			panic(fmt.Sprintf("refRows: lane %d sums to %d, beyond int16", j, v))
		}
		out[j] = int16(v)
	}
	return out
}

// refOutput returns the output layer's sum from its formula: each lane of
// us and them clamped to [0, QA], squared and weighed by its weight in w
// (us's first, then them's).
func refOutput(us, them, w []int16) int64 {
	var s int64
	for j := range us {
		for side, x := range [2]int16{us[j], them[j]} {
			c := int64(x)
			if c < 0 {
				c = 0
			} else if c > QA {
				c = QA
			}
			s += c * c * int64(w[side*len(us)+j])
		}
	}
	return s
}

// mustPanic reports whether f panics with a message containing want.
func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("%s: panic %v, want one saying %q", what, r, want)
		}
	}()
	f()
}

// TestMisshapenRowsPanic: rows and accumulators that do not match the
// network's width are refused, never read beyond (the vector kernels
// address their lanes unchecked once the lengths agree) nor evaluated as
// the bias alone.
func TestMisshapenRowsPanic(t *testing.T) {
	n := Random(1, 32, 8)
	mustPanic(t, "a zero Accumulator", "accumulators 0 and 0 wide for a network 32 wide", func() {
		n.Output(new(Accumulator), board.White, 32)
	})
	narrow := Random(1, HiddenStep, 8).NewAccumulator()
	mustPanic(t, "a narrower Accumulator", "accumulators 16 and 16 wide for a network 32 wide", func() {
		n.Output(narrow, board.White, 32)
	})
	for what, f := range map[string]func(){
		"NewStack":       func() { NewStack(new(Network), 4) },
		"NewAccumulator": func() { new(Network).NewAccumulator() },
		"Evaluate":       func() { new(Network).Evaluate(board.NewPosition()) },
	} {
		mustPanic(t, what+" of a zero Network", "a network 0 wide", f)
	}
	if !setSIMD(true) {
		t.Skip("no vector kernels in this build or on this processor")
	}
	row := make([]int16, 32)
	short := make([]int16, 16, 32) // shorter than its capacity: a reslice alone would not notice
	odd := make([]int16, 24)
	mustPanic(t, "addSub with a short row", "different lengths", func() { addSub(row, row, short, row) })
	mustPanic(t, "addAddSubSub with a short row", "different lengths", func() { addAddSubSub(row, row, row, row, row, short) })
	mustPanic(t, "addRow with a short row", "different lengths", func() { addRow(row, short) })
	mustPanic(t, "output with short weights", "different lengths", func() { output(row, row, row) })
	mustPanic(t, "rows 24 long", "not a multiple of 16", func() { addSub(odd, odd, odd, odd) })
}

func TestEvaluationAllocatesNothing(t *testing.T) {
	// King-mirrored: Kiwipete's king on e1 crosses to d1 and castles queenside.
	n := randomMirrored(2, 8)
	p, _ := board.ParseFEN(namedFENs[1])
	st := NewStack(n, 8)
	st.Reset(p)
	moves := legalMoves(p)
	paths(t, func(t *testing.T) {
		allocs := testing.AllocsPerRun(100, func() {
			for _, m := range moves {
				st.Push(p, m)
				p.MakeMove(m)
				st.Evaluate(p)
				p.UnmakeMove()
				st.Pop()
			}
			n.Evaluate(p)
		})
		if allocs != 0 {
			t.Errorf("evaluation allocates %v times per run", allocs)
		}
	})
}

func encode(t *testing.T, n *Network) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := n.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameWeights reports whether a and b have the same width and weights.
func sameWeights(a, b *Network) bool {
	if a.Hidden() != b.Hidden() || !slices.Equal(a.W1, b.W1) || !slices.Equal(a.B1, b.B1) || a.B2 != b.B2 {
		return false
	}
	for k := range a.W2 {
		if !slices.Equal(a.W2[k], b.W2[k]) {
			return false
		}
	}
	return true
}

func TestFileRoundTrip(t *testing.T) {
	for i, outputs := range []int{1, 2, 4, 8} {
		h := []int{DefaultHidden, HiddenStep, 512, MaxHidden}[i]
		n := Random(3, h, outputs)
		n.SetMirrored(outputs == 4)
		data := encode(t, n)
		if want := headerSize + len(n.Provenance) + Inputs*h*2 + h*2 + outputs*(2*h*2+4) + PawnGroups*2; len(data) != want {
			t.Errorf("%d wide, %d outputs: %d bytes, want %d", h, outputs, len(data), want)
		}
		m, err := Parse(data, "x.nnue")
		if err != nil {
			t.Fatal(err)
		}
		if !sameWeights(m, n) || m.Outputs() != outputs ||
			!bytes.Equal(m.Provenance, n.Provenance) || m.ID() != n.ID() || m.Mirrored() != n.Mirrored() ||
			m.PawnScale() != n.PawnScale() {
			t.Fatalf("%d wide, %d outputs: the network read back differs from the one written", h, outputs)
		}
		if want := fmt.Sprintf("x2-%d-%d-screlu", h, outputs); !strings.HasSuffix(m.Architecture(), want) {
			t.Errorf("architecture %s, want ...%s", m.Architecture(), want)
		}
		if len(m.ID()) != 16 {
			t.Errorf("ID %q, want 16 hex digits", m.ID())
		}
		if _, err := Load(bytes.NewReader(data), "r.nnue"); err != nil {
			t.Fatal(err)
		}
	}
	// A version 2 file (no pawn table) and a version 1 file (no feature set
	// either) read with the table the engine gave every network before
	// version 3, as plain networks for version 1; their ids are their
	// weights' hash.
	n := Random(3, DefaultHidden, 8)
	n.SetMirrored(true)
	if err := n.SetPawnScale([PawnGroups]int{10, 20, 30, 40, 50}); err != nil {
		t.Fatal(err)
	}
	v3 := encode(t, n)
	v2 := bytes.Clone(v3[:len(v3)-PawnGroups*2])
	binary.LittleEndian.PutUint32(v2[4:], 2)
	weights := sha256Sum(v2[headerSize+len(n.Provenance):])
	copy(v2[40:], weights[:])
	v1 := append(bytes.Clone(v2[:24]), v2[28:]...)
	binary.LittleEndian.PutUint32(v1[4:], 1)
	for _, c := range []struct {
		name     string
		data     []byte
		mirrored bool
	}{{"v2.nnue", v2, true}, {"v1.nnue", v1, false}} {
		m, err := Parse(c.data, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if !sameWeights(m, n) || m.Mirrored() != c.mirrored {
			t.Fatalf("%s reads back differently", c.name)
		}
		if m.PawnScale() != legacyPawnScale {
			t.Errorf("%s: pawn table %v, want the one before version 3, %v", c.name, m.PawnScale(), legacyPawnScale)
		}
		if m.Hash() != weights || m.ID() == n.ID() {
			t.Errorf("%s: id %s, want the hash of its weights, not the version 3 file's %s", c.name, m.ID(), n.ID())
		}
	}
}

func TestBadFiles(t *testing.T) {
	good := encode(t, Random(4, DefaultHidden, 1))
	provLen := int(binary.LittleEndian.Uint32(good[72:]))
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	put := func(off int, v uint32) []byte {
		return edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b })
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"magic", edit(func(b []byte) []byte { copy(b, "NNUE"); return b }), "not a chessforge network"},
		{"version", put(4, 5), "unsupported format version 5"},
		{"version 0", put(4, 0), "unsupported format version 0"},
		{"hidden", put(12, 24), "other architecture: inputs 768, hidden 24, outputs 1"},
		{"hidden 0", put(12, 0), "other architecture: inputs 768, hidden 0"},
		{"too wide", put(12, 2*MaxHidden), "other architecture: inputs 768, hidden 2048"},
		{"wider", put(12, 512), "truncated: expected"},
		{"outputs", put(16, 3), "other architecture: inputs 768, hidden 256, outputs 3"},
		{"more outputs", put(16, 8), "truncated: expected"},
		{"activation", put(20, 0), "other architecture"},
		{"features", put(24, 2), "unknown feature set 2"},
		{"quantization", put(28, 127), "other quantization"},
		{"header", good[:40], "truncated header"},
		{"truncated", good[:len(good)-1], "truncated: expected"},
		{"trailing", append(bytes.Clone(good), 0), "trailing bytes"},
		{"hash", edit(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "hash does not match its contents (damaged file)"},
		{"provenance", put(72, 1<<30), "provenance length"},
	}
	for _, c := range cases {
		_, err := Parse(c.data, "bad-"+c.name+".nnue")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad-"+c.name+".nnue") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want the file's name and %q", c.name, err, c.want)
		}
	}
	// A weight beyond the range, with a hash that matches it.
	n := Random(4, DefaultHidden, 1)
	n.W2[0][3] = MaxW2 + 1
	if err := n.Write(new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "W2[0][3]") {
		t.Errorf("writing an out-of-range weight: %v", err)
	}
	data := bytes.Clone(good)
	payload := data[headerSize+provLen:]
	binary.LittleEndian.PutUint16(payload[(Inputs*DefaultHidden+DefaultHidden+3)*2:], uint16(MaxW2+1))
	rehash(data)
	if _, err := Parse(data, "range.nnue"); err == nil || !strings.Contains(err.Error(), "range.nnue: weight out of range: W2[0][3]") {
		t.Errorf("out-of-range weight: %v", err)
	}
	// Weights that do not match the width: a network not made by New, or
	// one whose rows were replaced.
	short := Random(4, DefaultHidden, 1)
	short.W1 = short.W1[:len(short.W1)-1]
	for _, c := range []struct {
		n    *Network
		want string
	}{{new(Network), "accumulators 0 wide"}, {short, "W1 has 196607 weights"}} {
		c.n.SetOutputs(1)
		if err := c.n.Write(new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("writing a misshapen network: %v, want %q", err, c.want)
		}
	}
}

func TestDefaultNetworkLoads(t *testing.T) {
	n, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	p := board.NewPosition()
	if got, want := n.Evaluate(p), refEval(n, p); got != want {
		t.Errorf("default network: start position %d, reference %d", got, want)
	}
	if !strings.Contains(string(n.Provenance), "command") {
		t.Errorf("default network's provenance %q names no command", n.Provenance)
	}
	// A version 4 file whose id is the one records name it by: the hash of
	// its payload, not the file's.
	if v := version(defaultNet); v != Version || n.ID() != "1e3bf8638d5e0a3e" {
		t.Errorf("default network: version %d, id %s; want %d, 1e3bf8638d5e0a3e", v, n.ID(), Version)
	}
}

// TestHashCoversTheFile: a version 4 file's hash is that of every byte
// but its own, so a flip in the provenance or the header is refused as a
// damaged file, naming it; the id stays the payload's hash.
func TestHashCoversTheFile(t *testing.T) {
	n := Random(8, DefaultHidden, 8)
	good := encode(t, n)
	provLen := int(binary.LittleEndian.Uint32(good[72:]))
	payload := good[headerSize+provLen:]
	if v := version(good); v != 4 {
		t.Fatalf("Write writes version %d, want 4", v)
	}
	whole := sha256.New()
	whole.Write(good[:40])
	whole.Write(good[72:])
	if !bytes.Equal(good[40:72], whole.Sum(nil)) {
		t.Errorf("stored hash %x, want the SHA-256 of the file without it, %x", good[40:48], whole.Sum(nil)[:8])
	}
	weights := sha256Sum(payload)
	if n.Hash() != weights || n.ID() != hex.EncodeToString(weights[:8]) {
		t.Errorf("written: id %s, want the payload's hash %x", n.ID(), weights[:8])
	}
	m, err := Parse(good, "good.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != n.ID() || m.Hash() != weights {
		t.Errorf("read back: id %s, want the payload's hash %x", m.ID(), weights[:8])
	}
	damaged := "hash does not match its contents (damaged file)"
	for _, c := range []struct {
		what string
		at   int
		bit  byte
		want string // what refuses it
	}{
		{"a provenance byte", headerSize + provLen/2, 0x01, damaged},
		{"the provenance's first byte", headerSize, 0x20, damaged},
		{"the provenance's last byte", headerSize + provLen - 1, 0x40, damaged},
		{"the feature set", 24, 0x01, damaged}, // plain to mirrored: a valid field
		{"the hash", 45, 0x80, damaged},
		{"a weight", len(good) - 100, 0x01, damaged},
		{"the quantization", 28, 0x01, "other quantization"},
		{"the outputs", 16, 0x02, "other architecture: inputs 768, hidden 256, outputs 10"},
		{"the outputs' bits", 16, 0x0c, "4112 trailing bytes"}, // 8 to 4 buckets: 4 · (4H + 4) bytes fewer
		{"the provenance length", 72, 0x01, "truncated: expected"},
	} {
		data := bytes.Clone(good)
		data[c.at] ^= c.bit
		name := "flipped " + c.what + ".nnue"
		_, err := Parse(data, name)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "nnue: "+name+": "+c.want) {
			t.Errorf("%s flipped: %v, want %q naming the file", c.what, err, c.want)
		}
	}
}

// TestVersion3FilesReadAsBefore: in a version 3 file the hash is the
// payload's alone; it still loads, with the same id, a flip in its
// provenance unnoticed as before, and written again it is a version 4
// file with the same id.
func TestVersion3FilesReadAsBefore(t *testing.T) {
	data, err := os.ReadFile("testdata/narrow.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if v := version(data); v != 3 {
		t.Fatalf("testdata/narrow.nnue: version %d, want 3", v)
	}
	n, err := Parse(data, "narrow.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if n.ID() != "25f82e16ad4bdbdd" || n.ID() != hex.EncodeToString(data[40:48]) {
		t.Errorf("narrow.nnue: id %s, want 25f82e16ad4bdbdd, its stored hash", n.ID())
	}
	flipped := bytes.Clone(data)
	flipped[headerSize+3] ^= 0x01
	if m, err := Parse(flipped, "flipped.nnue"); err != nil || m.ID() != n.ID() {
		t.Errorf("version 3 with a provenance byte flipped: %v, want it read as before", err)
	}
	flipped = bytes.Clone(data)
	flipped[len(flipped)-3] ^= 0x01
	if _, err := Parse(flipped, "flipped.nnue"); err == nil || !strings.Contains(err.Error(), "flipped.nnue: hash does not match its payload (damaged file)") {
		t.Errorf("version 3 with a weight flipped: %v", err)
	}
	v4 := encode(t, n)
	if m, err := Parse(v4, "v4.nnue"); err != nil || version(v4) != 4 || m.ID() != n.ID() {
		t.Errorf("narrow.nnue written again: version %d, %v, want version 4 with id %s", version(v4), err, n.ID())
	}
}

// TestProvenanceIsAJSONObject: a version 4 file's provenance is a JSON
// object, as every reader decodes it: Write refuses another, Parse too
// (with a hash that matches it).
func TestProvenanceIsAJSONObject(t *testing.T) {
	for _, prov := range []string{"", "not json", "[1, 2]", `{"a": 1`} {
		n := Random(9, HiddenStep, 1)
		n.Provenance = []byte(prov)
		if err := n.Write(new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "provenance") {
			t.Errorf("writing provenance %q: %v, want an error naming the provenance", prov, err)
		}
		n.Provenance = []byte(`{"x": 1}`)
		data := encode(t, n)
		data = append(data[:headerSize:headerSize], append([]byte(prov), data[headerSize+len(n.Provenance):]...)...)
		binary.LittleEndian.PutUint32(data[72:], uint32(len(prov)))
		rehash(data)
		if _, err := Parse(data, "prov.nnue"); err == nil || !strings.Contains(err.Error(), "prov.nnue: provenance is not a JSON object") {
			t.Errorf("reading provenance %q: %v", prov, err)
		}
	}
}

func TestFeatureIndex(t *testing.T) {
	// White's perspective is the dataset's plane layout, plane*64 + sq.
	for pc := board.Piece(0); pc < 12; pc++ {
		for sq := board.Square(0); sq < 64; sq++ {
			if got := FeatureIndex(board.White, pc, sq); got != int(pc)*64+int(sq) {
				t.Fatalf("white %v on %v: %d", pc, sq, got)
			}
			flipped := board.MakePiece(pc.Color().Other(), pc.Type())
			if got, want := FeatureIndex(board.Black, pc, sq), int(flipped)*64+int(sq^56); got != want {
				t.Fatalf("black %v on %v: %d, want %d", pc, sq, got, want)
			}
		}
	}
}

func TestBuckets(t *testing.T) {
	want := map[int][]int{ // bucket of 0, 2, 5, 6, 17, 18, 29, 30, 32, 64 pieces
		1: {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		2: {0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
		4: {0, 0, 0, 0, 1, 2, 3, 3, 3, 3},
		8: {0, 0, 0, 1, 3, 4, 6, 7, 7, 7},
	}
	for k, w := range want {
		n := Random(1, DefaultHidden, k)
		for i, pieces := range []int{0, 2, 5, 6, 17, 18, 29, 30, 32, 64} {
			if got := n.Bucket(pieces); got != w[i] {
				t.Errorf("%d outputs, %d pieces: bucket %d, want %d", k, pieces, got, w[i])
			}
		}
	}
}
