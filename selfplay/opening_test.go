package selfplay

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

func TestLoadBookReadsEPDAndPGN(t *testing.T) {
	dir := t.TempDir()
	epd := filepath.Join(dir, "b.epd")
	writeFile(t, epd, "# two openings\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n\n8/8/8/4k3/8/8/3RK3/r7 w - - hmvc 37; fmvn 60;\n")
	book, err := LoadBook(epd)
	if err != nil {
		t.Fatal(err)
	}
	if len(book) != 2 || book[0].Name != "b.epd:2 e4" || !strings.HasSuffix(book[1].FEN, " 37 60") {
		t.Fatalf("EPD book %+v", book)
	}

	pgn := filepath.Join(dir, "b.pgn")
	writeFile(t, pgn, `[Event "x"]
[Opening "Ruy Lopez"]

1. e4 e5 2. Nf3 {a comment (with parens)} Nc6 (2... d6 3. d4) 3. Bb5 $1 a6 *

[Event "y"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K2R w K - 0 1"]

1. 0-0 Kd7 2. e4+ ; a rest-of-line comment
1/2-1/2
`)
	book, err = LoadBook(pgn)
	if err != nil {
		t.Fatal(err)
	}
	if len(book) != 2 {
		t.Fatalf("%d openings, want 2: %+v", len(book), book)
	}
	var got []string
	for _, m := range book[0].Moves {
		got = append(got, m.String())
	}
	if strings.Join(got, " ") != "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6" || book[0].Name != "b.pgn:1 Ruy Lopez" {
		t.Fatalf("first opening %v %q", got, book[0].Name)
	}
	if len(book[1].Moves) != 3 || book[1].Moves[0].String() != "e1g1" {
		t.Fatalf("second opening %v", book[1].Moves)
	}
	// The errors (tested in engine/pgn) say that the book is at fault.
	writeFile(t, pgn, "1. e4 e5 2. Ke3 *\n")
	if _, err := LoadBook(pgn); err == nil || !strings.HasPrefix(err.Error(), "book: b.pgn:1: game 1: move 3 (Ke3)") {
		t.Fatalf("error %v, want one naming the book, file, line, game and move", err)
	}
}

func TestEndgamePositionsHaveTheSignature(t *testing.T) {
	sigs, err := ParseSignatures("KRPvKR, kqvk")
	if err != nil || len(sigs) != 2 {
		t.Fatalf("%v %v", sigs, err)
	}
	rng := gameRand(3, 4)
	seen := map[string]bool{}
	for i := range 200 {
		s := sigs[i%2]
		pos, err := s.RandomPosition(rng)
		if err != nil {
			t.Fatal(err)
		}
		if pos.Outcome() != board.Ongoing {
			t.Fatalf("%s: game over in %s", s.Text, pos.FEN())
		}
		for c := range 2 {
			var count [6]int
			for _, pt := range s.Pieces[c] {
				count[pt]++
			}
			for pt := board.Pawn; pt <= board.King; pt++ {
				if n := pos.Pieces(board.Color(c), pt).Count(); n != count[pt] {
					t.Fatalf("%s: %d of piece type %d for colour %d in %s", s.Text, n, pt, c, pos.FEN())
				}
			}
		}
		seen[pos.FEN()] = true
	}
	if len(seen) < 190 {
		t.Fatalf("only %d distinct positions in 200", len(seen))
	}
	for _, bad := range []string{"KRPKR", "KKvK", "RvK", "KPPPPPPPPPvK", "KXvK"} {
		if _, err := ParseSignatures(bad); err == nil {
			t.Errorf("ParseSignatures(%q) accepted", bad)
		}
	}
}

func TestEndgameGamesStartFromTheSignature(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games, cfg.Endgames, cfg.EndgameShare = 4, "KRPvKR", 1
	for _, g := range collect(t, cfg, Unsharded) {
		checkGame(t, &cfg, g)
		if g.Opening != "endgame KRPvKR" || g.Plies[0].choice == choiceRandom {
			t.Fatalf("game %d: opening %q, first ply choice %d", g.Number, g.Opening, g.Plies[0].choice)
		}
	}
}

func TestBookOpeningsArePlayedInAShuffledCycle(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "b.pgn")
	writeFile(t, book, "1. e4 e5 *\n\n1. d4 d5 *\n\n1. c4 e5 *\n")
	cfg := tinyConfig()
	cfg.Games, cfg.Book, cfg.RandomPlies, cfg.MaxPlies = 6, book, 0, 12
	games := collect(t, cfg, Unsharded)
	count := map[string]int{}
	for n, g := range games {
		checkGame(t, &cfg, g)
		count[g.Opening]++
		if g.Plies[0].choice != choiceBook || g.Plies[1].choice != choiceBook || g.Plies[2].choice != choiceMultiPV {
			t.Fatalf("game %d: choices %d %d %d", n, g.Plies[0].choice, g.Plies[1].choice, g.Plies[2].choice)
		}
	}
	if len(count) != 3 {
		t.Fatalf("openings used %v, want each of 3 twice", count)
	}
	for o, n := range count {
		if n != 2 {
			t.Fatalf("opening %s used %d times, want 2", o, n)
		}
	}
}

func TestPGNRecordsTheGamesMovesResultTerminationAndOpening(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 3
	games := collect(t, cfg, Unsharded)
	var buf bytes.Buffer
	for n := range 3 {
		if err := WritePGN(&buf, games[n]); err != nil {
			t.Fatal(err)
		}
	}
	parsed, err := pgn.ReadGames(&buf, "g.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed) != 3 {
		t.Fatalf("%d PGN games, want 3", len(parsed))
	}
	for n, p := range parsed {
		g := games[n]
		want := map[string]string{
			"Round": strconv.Itoa(n + 1), "Result": pgn.ResultOf(g.Result), "Termination": g.Termination.String(),
			"Opening": g.Opening, "GameId": strconv.FormatInt(g.ID, 10), "PlyCount": strconv.Itoa(len(g.Plies)),
		}
		for k, v := range want {
			if p.Tags[k] != v {
				t.Errorf("game %d: tag %s = %q, want %q", n, k, p.Tags[k], v)
			}
		}
		if p.Result != pgn.ResultOf(g.Result) {
			t.Errorf("game %d: movetext result %q, want %q", n, p.Result, pgn.ResultOf(g.Result))
		}
		if start, _ := p.Start(); start.FEN() != g.StartFEN {
			t.Errorf("game %d: starts from %s, want %s", n, start.FEN(), g.StartFEN)
		}
		if !slices.Equal(p.Moves, g.moves()) {
			t.Fatalf("game %d: PGN moves %v, want %v", n, p.Moves, g.moves())
		}
	}
}

func TestPGNResumeKeepsOnlyWholeFinishedGames(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 3
	games := collect(t, cfg, Unsharded)
	var buf bytes.Buffer
	var ends []int
	for n := range 3 {
		WritePGN(&buf, games[n])
		ends = append(ends, buf.Len())
	}
	text := buf.String()
	tests := []struct {
		name string
		text string
		done int
		want int
	}{
		{"all done", text, 3, ends[2]},
		{"two done", text, 2, ends[1]},
		{"none done", text, 0, 0},
		{"third cut in its tags", text[:ends[1]+30], 3, ends[1]},
		{"third cut in its moves", text[:ends[2]-20], 3, ends[1]},
		{"third without its blank line", text[:ends[2]-1], 3, ends[2] - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.pgn")
			writeFile(t, path, tt.text)
			p, err := openPGN(path, func(g int) bool { return g < tt.done })
			if err != nil {
				t.Fatal(err)
			}
			p.close()
			got, _ := os.ReadFile(path)
			if len(got) != tt.want {
				t.Fatalf("kept %d bytes, want %d", len(got), tt.want)
			}
		})
	}
}
