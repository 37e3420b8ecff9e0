package board

import (
	"errors"
	"testing"
)

// FuzzParseFEN feeds arbitrary strings to ParseFEN. It must never panic; an
// error must be a *FENError; a FEN that parses must write a FEN that parses
// back to the same FEN and hash, its legal moves must be those of the plain
// mailbox generator, and they must play and unplay cleanly (the positions
// they reach checked against the plain generator too).
func FuzzParseFEN(f *testing.F) {
	for _, tc := range perftCases {
		f.Add(tc.fen)
	}
	for _, fen := range trickyFENs {
		f.Add(fen)
	}
	for _, s := range []string{
		"", "8/8/8/8/8/8/8/8 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 w - -",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +5 -1",
		"4k3/8/8/8/8/8/8/4K3 w - - 9999999999999999999999 1",
		"kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1", "9/8/8/8/8/8/8/8 w - - 0 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			var fe *FENError
			if !errors.As(err, &fe) || fe.Field == "" || fe.Reason == "" {
				t.Fatalf("ParseFEN(%q): error %v is not a complete *FENError", fen, err)
			}
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("ParseFEN(%q) gave FEN %q, which does not parse: %v", fen, out, err)
		}
		if q.FEN() != out || q.Hash() != p.Hash() {
			t.Fatalf("ParseFEN(%q): FEN %q re-parses to %q, hash %016x vs %016x", fen, out, q.FEN(), q.Hash(), p.Hash())
		}
		if p.Hash() != p.computeHash() {
			t.Fatalf("%s: hash %016x, recomputed %016x", out, p.Hash(), p.computeHash())
		}
		var list MoveList
		p.GenerateLegal(&list)
		if n := p.Perft(1); n != uint64(list.N) {
			t.Fatalf("%s: perft(1) = %d, %d legal moves", out, n, list.N)
		}
		checkAgainstNaive(t, p)
		before := snapshot(p)
		for _, m := range list.Slice() {
			p.MakeMove(m)
			checkConsistent(t, p)
			checkAgainstNaive(t, p)
			p.UnmakeMove()
			if !sameState(p, &before) {
				t.Fatalf("%s: unmaking %s left %s", out, m, p.FEN())
			}
		}
	})
}

// uciFuzzFENs are the positions FuzzParseUCIMove parses moves in: quiet,
// castling, en passant, promotion, check and mate positions.
var uciFuzzFENs = []string{
	StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
	"4k3/8/8/8/1b6/3n4/8/1R2K3 w - - 0 1",
	"8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1",
	"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
}

// FuzzParseUCIMove feeds arbitrary strings to ParseUCIMove in a few
// positions. It must never panic; a move it accepts must be legal, print
// back as the input, and leave the position unchanged.
func FuzzParseUCIMove(f *testing.F) {
	for _, s := range []string{"e2e4", "e1g1", "e1c1", "e5f6", "b7a8q", "b7c8n", "g2h1r", "f1g3",
		"e1e2", "b5c6", "0000", "", "e2e4q", "a1a1", "h8h9", "e7e8k", "e2e4 ", "\x00\x00\x00\x00"} {
		for i := range uciFuzzFENs {
			f.Add(uint8(i), s)
		}
	}
	positions := make([]*Position, len(uciFuzzFENs))
	for i, fen := range uciFuzzFENs {
		p, err := ParseFEN(fen)
		if err != nil {
			f.Fatal(err)
		}
		positions[i] = p
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		p := positions[int(which)%len(positions)]
		before := snapshot(p)
		m, err := p.ParseUCIMove(s)
		if !sameState(p, &before) {
			t.Fatalf("ParseUCIMove(%q) changed the position", s)
		}
		if err != nil {
			if m != NullMove {
				t.Fatalf("ParseUCIMove(%q) returned %s with error %v", s, m, err)
			}
			return
		}
		if !p.IsLegal(m) || m.String() != s {
			t.Fatalf("%s: ParseUCIMove(%q) = %s, legal %v", p.FEN(), s, m, p.IsLegal(m))
		}
		_ = p.SAN(m)
		if !sameState(p, &before) {
			t.Fatalf("SAN(%s) changed the position", m)
		}
	})
}

// FuzzMoveSequences plays the game the input spells out (the first byte picks
// the starting position, each further byte a legal move by index) and checks
// every position on the way: consistent state, the same legal moves as the
// plain generator, and exact restoration when the moves are unmade.
func FuzzMoveSequences(f *testing.F) {
	f.Add([]byte{0, 12, 3, 40, 7, 7, 1, 0, 19})
	f.Add([]byte{2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{3, 255, 254, 253, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{5, 9, 200, 31, 17, 77, 3, 99, 42})
	f.Add([]byte{6, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1})
	starts := make([]*Position, len(playoutStarts))
	for i, fen := range playoutStarts {
		starts[i] = mustFEN(f, fen)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		p := starts[int(data[0])%len(starts)].Clone()
		origin := snapshot(p)
		var list MoveList
		for _, b := range data[1:] {
			p.GenerateLegal(&list)
			if list.N == 0 {
				break
			}
			p.MakeMove(list.Moves[int(b)%list.N])
			checkConsistent(t, p)
			checkAgainstNaive(t, p)
		}
		for p.Ply() > 0 {
			p.UnmakeMove()
		}
		if !sameState(p, &origin) {
			t.Fatalf("unmaking the whole game left %s", p.FEN())
		}
	})
}
