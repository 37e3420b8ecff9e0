package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"chessforge/engine/board"
)

// pickAll drains the picker, skipping quiet moves from the nth move on when
// skipAt > 0 (as late move pruning does).
func pickAll(mp *movePicker, checkSEE bool, skipAt int) []board.Move {
	var out []board.Move
	for {
		if skipAt > 0 && len(out) >= skipAt {
			mp.skipQuiets()
		}
		m := mp.pick(checkSEE, true)
		if m == board.NullMove {
			return out
		}
		// lastBad marks only losing captures and under-promotions (the
		// search reduces them like quiet moves).
		if p := mp.p; mp.lastBad() && !p.InCheck() && !p.IsCapture(m) && !m.IsPromotion() {
			panic("lastBad set for quiet move " + m.String())
		}
		out = append(out, m)
	}
}

func sorted(ms []board.Move) []board.Move {
	ms = slices.Clone(ms)
	slices.Sort(ms)
	return ms
}

// TestMovePickerHandsOutEveryMoveOnce plays random games and checks at every
// position, with TT moves, killers and countermoves drawn from legal moves,
// other positions' moves and garbage, that the staged picker hands out
// every legal move exactly once, the legal TT move first, and that with
// quiet moves skipped it hands out every capture and promotion and only
// quiet moves that give check; and that the quiescence picker hands out
// exactly the captures and promotions (every evasion in check).
func TestMovePickerHandsOutEveryMoveOnce(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 1})
	w := e.workers[0]
	rng := rand.New(rand.NewPCG(3, 4))
	var legal, caps board.MoveList
	var foreign []board.Move // moves from earlier positions
	positions := 0
	for game := 0; game < 12; game++ {
		p, _ := board.ParseFEN(board.StartFEN)
		w.pos = p
		for ply := 0; ply < 160; ply++ {
			p.GenerateLegal(&legal)
			if legal.N == 0 || p.IsInsufficientMaterial() {
				break
			}
			positions++
			pickMove := func() board.Move {
				switch rng.IntN(4) {
				case 0:
					return board.NullMove
				case 1:
					return legal.Moves[rng.IntN(legal.N)]
				case 2:
					if len(foreign) > 0 {
						return foreign[rng.IntN(len(foreign))]
					}
				}
				return board.Move(rng.Uint32())
			}
			ttMove := pickMove()
			w.stack[1].killers = [2]board.Move{pickMove(), pickMove()}
			if prev := p.LastMove(); prev != board.NullMove {
				w.counter[p.PieceAt(prev.To())][prev.To()] = pickMove()
			}
			want := sorted(legal.Slice())
			ch := w.contTables(1)
			// Random histories, with many ties, so that the order of the
			// quiet moves means something.
			for _, m := range legal.Slice() {
				w.history[p.SideToMove()][m.From()][m.To()] = int16(rng.IntN(5)-2) * 1000
			}

			var mp movePicker
			mp.initMain(w, 1, ttMove, &ch)
			checkSEE := rng.IntN(2) == 0
			got := pickAll(&mp, checkSEE, 0)
			if !slices.Equal(sorted(got), want) {
				t.Fatalf("%s (tt %v, killers %v): picker gave %v, legal moves are %v", p.FEN(), ttMove, w.stack[1].killers, got, legal.Slice())
			}
			if p.IsLegal(ttMove) && got[0] != ttMove {
				t.Fatalf("%s: TT move %v handed out after %v", p.FEN(), ttMove, got[0])
			}
			// The quiet moves other than the TT move, the killers and the
			// countermove come best first: by history and threats.
			last := math.MaxInt
			th := threatsTo(p)
			for _, m := range got {
				if p.IsCapture(m) || m.IsPromotion() || p.InCheck() || m == ttMove || m == mp.killer1 ||
					m == mp.killer2 || m == mp.counter {
					continue
				}
				s := w.quietScore(p.SideToMove(), p.PieceAt(m.From()), m, &ch) + th.bonus(p.PieceAt(m.From()).Type(), m.From(), m.To())
				if s > last {
					t.Fatalf("%s: quiet move %v (score %d) handed out after one scoring %d (%v)", p.FEN(), m, s, last, got)
				}
				last = s
			}

			// Without the look-ahead (pick's lookAhead off at random) the
			// order is the same.
			mp.initMain(w, 1, ttMove, &ch)
			var noAhead []board.Move
			for {
				m := mp.pick(checkSEE, rng.IntN(2) == 0)
				if m == board.NullMove {
					break
				}
				noAhead = append(noAhead, m)
			}
			if !slices.Equal(noAhead, got) {
				t.Fatalf("%s: without look-ahead the picker gave %v, with it %v", p.FEN(), noAhead, got)
			}

			skipAt := 1 + rng.IntN(4)
			mp.initMain(w, 1, ttMove, &ch)
			got = pickAll(&mp, true, skipAt)
			seen := map[board.Move]bool{}
			for i, m := range got {
				if seen[m] || !p.IsLegal(m) {
					t.Fatalf("%s: skipping picker gave %v twice or illegal", p.FEN(), m)
				}
				seen[m] = true
				if quiet := !p.IsCapture(m) && !m.IsPromotion(); quiet && i >= skipAt && m != ttMove && !p.InCheck() && !p.GivesCheck(m) {
					t.Fatalf("%s: quiet non-checking %v handed out after skipping began (%v)", p.FEN(), m, got)
				}
			}
			for _, m := range legal.Slice() {
				if (p.IsCapture(m) || m.IsPromotion() || p.GivesCheck(m) || p.InCheck()) && !seen[m] {
					t.Fatalf("%s: skipping picker lost %v (%v)", p.FEN(), m, got)
				}
			}

			mp.initQuiescence(w, ttMove)
			got = pickAll(&mp, false, 0)
			p.GenerateCaptures(&caps)
			if !slices.Equal(sorted(got), sorted(caps.Slice())) {
				t.Fatalf("%s: quiescence picker gave %v, want %v", p.FEN(), got, caps.Slice())
			}

			foreign = append(foreign, legal.Moves[rng.IntN(legal.N)])
			m := legal.Moves[rng.IntN(legal.N)]
			for try := 0; try < 2 && !p.IsCapture(m) && !m.IsPromotion(); try++ {
				m = legal.Moves[rng.IntN(legal.N)]
			}
			p.MakeMove(m)
		}
	}
	if positions < 1000 {
		t.Fatalf("only %d positions", positions)
	}
	t.Logf("%d positions", positions)
}

// searchWorker returns the worker of a fresh one-thread engine with fen as
// its root, its stack cleared, ready for a node to be searched directly.
func searchWorker(t *testing.T, fen string) (*worker, *board.Position) {
	t.Helper()
	w := New(Options{HashMB: 1, Threads: 1}).workers[0]
	p := mustFEN(t, fen)
	w.pos = p
	w.rootPly = p.Ply()
	w.completed = 1
	for i := range w.stack {
		w.stack[i] = frame{eval: -Infinity}
	}
	return w, p
}

// TestSamePlySearchesLeaveThePickerAlone runs the singular-extension
// verification search the way a node runs it while its own picker is live
// (excluding the move just handed out, at the node's ply), at depths from
// 0, which is a quiescence search, up: the node's picker must come out
// unchanged, and hand out every legal move once. When quiescence shared
// the node's picker slot, only a guard on the verification depth kept the
// node's move list intact.
func TestSamePlySearchesLeaveThePickerAlone(t *testing.T) {
	w, p := searchWorker(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10")
	const ply = 2
	ch := w.contTables(ply)
	mp := &w.pickers[ply][pickMain]
	mp.initMain(w, ply, board.NullMove, &ch)
	first := mp.pick(true, true)
	if !p.IsCapture(first) {
		t.Fatalf("first move %v is not a capture: the test wants the capture list in use", first)
	}
	before := *mp
	fen := p.FEN()
	for depth := 0; depth <= 3; depth++ {
		w.stack[ply].excluded = first
		w.negamax(999, 1000, depth, ply, false) // a window above the stand-pat score
		w.stack[ply].excluded = board.NullMove
		if w.stopped || p.FEN() != fen {
			t.Fatalf("depth %d: the verification search stopped or left %s", depth, p.FEN())
		}
		if *mp != before {
			t.Fatalf("depth %d: the verification search changed the node's picker", depth)
		}
		if depth == 0 && w.pickers[ply][pickQuiescence].p != p {
			t.Fatal("depth 0: the quiescence search used no picker at the node's ply: the test proves nothing")
		}
	}
	got := []board.Move{first}
	for m := mp.pick(true, true); m != board.NullMove; m = mp.pick(true, true) {
		got = append(got, m)
	}
	var legal board.MoveList
	p.GenerateLegal(&legal)
	if !slices.Equal(sorted(got), sorted(legal.Slice())) {
		t.Fatalf("picker gave %v, legal moves are %v", got, legal.Slice())
	}
}

// TestCaptureHistoryOrdersCaptures checks that a capture that caused a
// cutoff gains in capture history and is then handed out before an equal
// capture (same victim, same attacker) that failed before it, and that a
// quiet cutoff costs the captures tried before it.
func TestCaptureHistoryOrdersCaptures(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 1})
	w := e.workers[0]
	p := mustFEN(t, "4k3/8/8/3p1p2/8/4N3/8/4K3 w - - 0 1") // Nxd5 and Nxf5 both win a pawn
	w.pos = p
	for i := range w.stack {
		w.stack[i] = frame{eval: -Infinity}
	}
	const ply = 1
	ch := w.contTables(ply)
	firstMove := func() board.Move {
		mp := &w.pickers[ply][pickMain]
		mp.initMain(w, ply, board.NullMove, &ch)
		return mp.pick(true, true)
	}
	a := firstMove()
	var caps board.MoveList
	p.GenerateCaptures(&caps)
	b := board.NullMove
	for _, m := range caps.Slice() {
		if m != a {
			b = m
		}
	}
	if caps.N != 2 || !p.IsCapture(a) || !p.IsCapture(b) {
		t.Fatalf("captures %v, first move %v: want two captures", caps.Slice(), a)
	}

	w.updateCutoffStats(ply, b, false, 6, nil, []board.Move{a}, &ch)
	if hb, ha := *w.captureHist(p, b), *w.captureHist(p, a); hb <= 0 || ha >= 0 {
		t.Fatalf("after %v cut off with %v tried first: capture histories %d and %d, want > 0 and < 0", b, a, hb, ha)
	}
	if got := firstMove(); got != b {
		t.Fatalf("first move %v, want %v (the capture that cut off)", got, b)
	}

	before := *w.captureHist(p, b)
	quiet := board.NewMove(board.E1, board.D1)
	w.updateCutoffStats(ply, quiet, true, 6, nil, []board.Move{b}, &ch)
	if after := *w.captureHist(p, b); after >= before {
		t.Fatalf("a quiet cutoff after %v left its capture history at %d (was %d)", b, after, before)
	}
	if w.history[board.White][board.E1][board.D1] <= 0 {
		t.Fatal("the quiet move that cut off earned no history")
	}
}

// TestQuietCutoffTeachesEveryContinuationTable checks that a quiet move
// that causes a cutoff gains in the continuation tables of the moves one,
// two and four plies before it and in the pawn history of its pawn
// structure, and that those tables then order it.
func TestQuietCutoffTeachesEveryContinuationTable(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 1})
	w := e.workers[0]
	p := mustFEN(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	w.pos = p
	for i := range w.stack {
		w.stack[i] = frame{eval: -Infinity}
	}
	const ply = 4
	// The line to this node, as the search would have noted it: the
	// moves made from plies 0 to 3.
	sq := func(name string) board.Square {
		s, ok := board.ParseSquare(name)
		if !ok {
			t.Fatalf("bad square %q", name)
		}
		return s
	}
	wp, bp := board.MakePiece(board.White, board.Pawn), board.MakePiece(board.Black, board.Pawn)
	wn, bn := board.MakePiece(board.White, board.Knight), board.MakePiece(board.Black, board.Knight)
	wb := board.MakePiece(board.White, board.Bishop)
	line := []struct {
		pc board.Piece
		to board.Square
	}{{wp, sq("e4")}, {bp, sq("e5")}, {wn, sq("f3")}, {bn, sq("c6")}}
	for i, l := range line {
		w.stack[i].moved, w.stack[i].to = l.pc, l.to
	}
	ch := w.contTables(ply)
	for i, back := range []int{1, 2, 4} {
		if want := &w.contHist[line[ply-back].pc][line[ply-back].to]; ch[i] != want {
			t.Fatalf("continuation table %d is not that of the move %d plies back", i, back)
		}
	}
	if ch[3] != &w.pawnHist[pawnIndex(p)] {
		t.Fatal("the last table is not the pawn history of the node's pawn structure")
	}
	m := board.NewMove(board.F1, sq("b5"))
	w.updateCutoffStats(ply, m, true, 6, nil, nil, &ch)
	for i, c := range ch {
		if c[wb][sq("b5")] <= 0 {
			t.Errorf("table %d: Bb5 scores %d after its cutoff, want > 0", i, c[wb][sq("b5")])
		}
	}
	w.history = [2][64][64]int16{}
	if s := w.quietScore(board.White, wb, m, &ch); s <= 0 {
		t.Errorf("Bb5's ordering score is %d without its history, want > 0 from its continuation histories", s)
	}
}

// TestFailLowRewardsTheOpponentsQuietMove checks that when every reply to
// a quiet move fails low, that move gains in its side's history and in the
// continuation tables of the moves before it, and that a capture gains
// nothing there.
func TestFailLowRewardsTheOpponentsQuietMove(t *testing.T) {
	for _, c := range []struct {
		name, fen, move string
		rewarded        bool
	}{
		{"quiet", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "f1b5", true},
		{"capture", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "f3e5", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, p := searchWorker(t, c.fen)
			m, err := p.ParseUCIMove(c.move)
			if err != nil {
				t.Fatal(err)
			}
			pc := p.PieceAt(m.From())
			bn, c6 := board.MakePiece(board.Black, board.Knight), board.Square(42)
			w.stack[0].moved, w.stack[0].to = bn, c6 // the move before it
			w.stack[1].moved, w.stack[1].to = pc, m.To()
			p.MakeMove(m)
			// A window far above anything Black can reach: every reply fails
			// low (deeper than razoring, which would answer without them).
			w.negamax(5000, 5001, params.RazorMaxDepth+1, 2, false)
			p.UnmakeMove()
			hist := w.history[board.White][m.From()][m.To()]
			cont := w.contHist[bn][c6][pc][m.To()]
			if c.rewarded && (hist <= 0 || cont <= 0) {
				t.Fatalf("%s: history %d, continuation history %d after every reply failed low, want > 0", c.move, hist, cont)
			}
			if !c.rewarded && (hist != 0 || cont != 0) {
				t.Fatalf("%s, a capture: history %d, continuation history %d, want 0", c.move, hist, cont)
			}
		})
	}
}

// TestPawnIndexFollowsThePawns checks that the pawn history index depends
// on the pawns alone: the same pawns with other pieces elsewhere share it,
// and the indexes of many pawn structures spread over the tables.
func TestPawnIndexFollowsThePawns(t *testing.T) {
	a := mustFEN(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	b := mustFEN(t, "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 3")
	if pawnIndex(a) != pawnIndex(b) {
		t.Fatalf("same pawns, indexes %d and %d", pawnIndex(a), pawnIndex(b))
	}
	// Random pawn structures on ranks 2 to 7, each side's pawns on about
	// one square in eight.
	const inner = board.Bitboard(0x00FFFFFFFFFFFF00)
	seen := map[int]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		white := board.Bitboard(rng.Uint64()&rng.Uint64()&rng.Uint64()) & inner
		black := board.Bitboard(rng.Uint64()&rng.Uint64()&rng.Uint64()) & inner &^ white
		seen[pawnStructureIndex(white, black)] = true
	}
	if len(seen) < 150 {
		t.Fatalf("200 random pawn structures fell into %d tables of %d", len(seen), pawnHistSize)
	}
}

// TestCutoffsCountBetaCutoffs checks the count a node's parent uses to
// reduce its moves more: a node that fails high adds one cutoff to its
// ply's count with a table move, two without, and a node clears the count
// of the ply two below it.
func TestCutoffsCountBetaCutoffs(t *testing.T) {
	const fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
	for _, c := range []struct {
		name    string
		ttMove  string
		cutoffs int
	}{
		{"without a table move", "", 2},
		{"with a table move", "f1b5", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, p := searchWorker(t, fen)
			if c.ttMove != "" {
				m, err := p.ParseUCIMove(c.ttMove)
				if err != nil {
					t.Fatal(err)
				}
				w.e.tt.Store(p.Hash(), m, 0, 0, 0, BoundUpper)
			}
			const ply = 2
			w.stack[ply].cutoffs = 0
			const stale = 1000 // left by an earlier node; far more than this small search makes
			w.stack[ply+2].cutoffs = stale
			// A window far below anything White can score, and a PV node
			// (no pruning before the moves): the first move cuts off.
			w.negamax(-5000, -4000, 3, ply, false)
			if got := w.stack[ply].cutoffs; got != c.cutoffs {
				t.Errorf("cutoffs at the node's ply %d, want %d", got, c.cutoffs)
			}
			if got := w.stack[ply+2].cutoffs; got >= stale {
				t.Errorf("cutoffs two plies below %d, want the node to have cleared it", got)
			}
		})
	}
}

// TestThreatsOrderQuietMoves checks the ordering bonus of quiet moves
// against cheaper attackers: with every history empty, a piece leaving a
// square a cheaper enemy piece attacks gains its bonus, one walking into
// such an attack loses it, and other moves score nothing.
func TestThreatsOrderQuietMoves(t *testing.T) {
	tests := []struct {
		fen   string
		moves map[string]int // quiet move: its expected score
	}{
		// The d5 pawn attacks the e4 knight: every knight move escapes.
		{"4k3/8/8/3p4/4N3/8/8/4K3 w - - 0 1", map[string]int{
			"e4c3": params.ThreatEscapeMinor, "e4g5": params.ThreatEscapeMinor, "e1d1": 0,
		}},
		// The c5 pawn guards d4 and b4: Nd4 walks into it, Ne5 does not.
		{"4k3/8/8/2p5/8/5N2/8/4K3 w - - 0 1", map[string]int{
			"f3d4": -params.ThreatEscapeMinor, "f3e5": 0,
		}},
		// The d8 rook attacks the d1 queen; the a5 bishop guards c3 and d2.
		{"3rk3/8/8/b7/8/8/8/3Q3K w - - 0 1", map[string]int{
			"d1f3": params.ThreatEscapeQueen, "d1c2": params.ThreatEscapeQueen, "d1d2": 0,
		}},
		// The f2 queen is not attacked: Qd2 walks into the a5 bishop.
		{"4k3/8/8/b7/8/8/5Q2/7K w - - 0 1", map[string]int{
			"f2d2": -params.ThreatEscapeQueen, "f2f3": 0,
		}},
		// The e6 knight attacks the d4 rook; it also guards f4 and d8.
		{"4k3/8/4n3/8/3R4/8/8/4K3 w - - 0 1", map[string]int{
			"d4h4": params.ThreatEscapeRook, "d4f4": 0, "d4d8": 0,
		}},
		// The b2 pawn attacks the a1 rook and c1; a pawn threat counts
		// against a rook too.
		{"4k3/8/8/8/8/8/1p6/R3K3 w - - 0 1", map[string]int{
			"a1b1": params.ThreatEscapeRook, "a1c1": 0,
		}},
	}
	e := New(Options{HashMB: 1, Threads: 1})
	w := e.workers[0]
	for _, tt := range tests {
		p := mustFEN(t, tt.fen)
		w.pos = p
		ch := w.contTables(1)
		for s, want := range tt.moves {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				t.Fatalf("%s: %v", tt.fen, err)
			}
			var keys [256]int64
			w.scoreQuiets(p, []board.Move{m}, &keys, &ch)
			if got := int(keys[0] >> 8); got != want {
				t.Errorf("%s: %s scores %d, want %d", tt.fen, s, got, want)
			}
		}
	}
}
