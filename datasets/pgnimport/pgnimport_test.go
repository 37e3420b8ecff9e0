package pgnimport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/verify"
)

// imported imports testdata/name into a temporary file and returns the
// report, the rows, the file's metadata and the games skipped.
func imported(t *testing.T, name string) (*Report, []datasets.Row, map[string]string, []*Skip) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.parquet")
	var skips []*Skip
	src := filepath.Join("testdata", name)
	rep, err := Import(src, out, Options{Skipped: func(s *Skip) { skips = append(skips, s) }})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := datasets.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := datasets.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Dataset(out, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Mismatches != 0 || v.Rows != int64(len(rows)) {
		t.Errorf("%s: verify: %d rows, %d mismatches: %v", name, v.Rows, v.Mismatches, v.First)
	}
	if rep.Rows != int64(len(rows)) || v.Games != rep.Runs {
		t.Errorf("%s: report %+v, file %d rows in %d games", name, rep, len(rows), v.Games)
	}
	return rep, rows, infos[0].Metadata, skips
}

// want is a row as the tests check it.
type want struct {
	id          int64
	ply         int32
	fen, move   string
	score       int32
	result      float32
	depth       int32
	nodes       int64
	termination string
}

func checkRows(t *testing.T, rows []datasets.Row, wants []want) {
	t.Helper()
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d", len(rows), len(wants))
	}
	for i, w := range wants {
		r := rows[i]
		got := want{r.GameID, r.Ply, r.FEN, r.Move, r.ScoreCP, r.Result, r.Depth, r.Nodes, r.Termination.String()}
		if w.fen == "" {
			got.fen = ""
		}
		if got != w {
			t.Errorf("row %d: %+v\nwant   %+v", i, got, w)
		}
		if r.BestMove != r.Move {
			t.Errorf("row %d: best move %s, move played %s: want the engine's move as both", i, r.BestMove, r.Move)
		}
	}
}

// TestImportCutechess: book moves give no row but are played; scores turn
// from the mover's pawns to White's centipawns, mates (plies) to
// ±(32000 − plies); the result and the rules' ending come with every row.
func TestImportCutechess(t *testing.T) {
	rep, rows, md, skips := imported(t, "cutechess.pgn")
	if len(skips) != 0 || rep.Imported != 3 || rep.Games != 3 {
		t.Fatalf("report %+v, skipped %v", rep, skips)
	}
	const mate = 32000
	checkRows(t, rows, []want{
		{0, 2, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2", "f1c4", 25, 1, 12, 0, "checkmate"},
		{0, 3, "", "b8c6", 31, 1, 11, 0, "checkmate"},
		{0, 4, "", "d1h5", 40, 1, 13, 0, "checkmate"},
		{0, 5, "", "g8f6", mate - 2, 1, 10, 0, "checkmate"},
		{0, 6, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7", mate - 1, 1, 1, 0, "checkmate"},
		{1, 2, "", "c2c4", 18, 0.5, 14, 0, "adjudicated draw"},
		{1, 3, "", "e7e6", 20, 0.5, 13, 0, "adjudicated draw"},
		{1, 4, "", "b1c3", 0, 0.5, 15, 0, "adjudicated draw"},
		{2, 0, "", "f2f3", 10, 0, 8, 0, "checkmate"},
		{2, 1, "", "e7e5", -50, 0, 9, 0, "checkmate"},
		{2, 2, "", "g2g4", -(mate - 2), 0, 9, 0, "checkmate"},
		{2, 3, "", "d8h4", -(mate - 1), 0, 3, 0, "checkmate"},
	})
	for k, v := range map[string]string{
		KeyFormat: "pgn", KeySource: "testdata/cutechess.pgn", KeyGames: "3", KeySkipped: "0",
		datasets.KeyEngineVersion: "unknown (imported from PGN)",
		datasets.KeyConfig:        `{"import":{"format":"pgn","source":"testdata/cutechess.pgn"}}`,
	} {
		if md[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, md[k], v)
		}
	}
}

// TestImportFastchess: a game from a FEN tag with Black to move, node
// counts from "n=", fastchess's extra fields, and a move without a score
// ("/1"), which splits its game's rows into two runs of their own ids.
func TestImportFastchess(t *testing.T) {
	rep, rows, _, skips := imported(t, "fastchess.pgn")
	if len(skips) != 0 || rep.Imported != 2 || rep.Runs != 3 {
		t.Fatalf("report %+v, skipped %v", rep, skips)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	checkRows(t, rows[:6], []want{
		{0, 0, "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", "e8d7", 120, 1, 20, 15321, "adjudicated win"},
		{0, 1, "", "e1d2", 135, 1, 21, 20000, "adjudicated win"},
		{0, 2, "", "d7d6", 140, 1, 22, 18000, "adjudicated win"},
		{0, 3, "", "d2e3", 150, 1, 22, 19000, "adjudicated win"},
		{1, 0, "", "e2e4", 30, 0.5, 10, 1000, "adjudicated draw"},
		{1, 1, "", "e7e5", 28, 0.5, 10, 1100, "adjudicated draw"},
	})
	checkRows(t, rows[6:], []want{
		{2, 3, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "b8c6", 25, 0.5, 10, 1200, "adjudicated draw"},
		{2, 4, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "f1b5", 33, 0.5, 11, 1300, "adjudicated draw"},
	})
}

// TestImportSkipsMalformedGames: each malformed or unfinished game is
// named by its number, its first line and the reason, and the rest are
// imported.
func TestImportSkipsMalformedGames(t *testing.T) {
	rep, rows, md, skips := imported(t, "malformed.pgn")
	wantSkips := []string{
		"game 2 (testdata/malformed.pgn:6): line 9: move 3 (Ke3)",
		"game 3 (testdata/malformed.pgn:11): line 13: FEN tag",
		"game 4 (testdata/malformed.pgn:18): result * (an unfinished game)",
		`game 5 (testdata/malformed.pgn:23): bad result "2-0": want 1-0, 0-1 or 1/2-1/2`,
		"game 6 (testdata/malformed.pgn:28): bad result 1/2-1/2: the final position is checkmate (0-1)",
		"game 7 (testdata/malformed.pgn:33): line 36: move 2 (Zz9)",
		`game 8 (testdata/malformed.pgn:38): variant "fischerandom": only standard chess is imported`,
		`game 9 (testdata/malformed.pgn:44): move 1 (e4): score "+M0/10": a mate must be in 1 ply or more`,
	}
	if len(skips) != len(wantSkips) {
		t.Fatalf("skipped %v, want %d games", skips, len(wantSkips))
	}
	for i, w := range wantSkips {
		if !strings.HasPrefix(skips[i].Error(), w) {
			t.Errorf("skip %d: %q, want it to start %q", i, skips[i].Error(), w)
		}
	}
	if rep.Games != 11 || rep.Imported != 2 || rep.Skipped != 8 || rep.Unscored != 1 || len(rows) != 6 {
		t.Errorf("report %+v, %d rows; want 11 games: 2 imported, 8 skipped, 1 without a score, 6 rows", rep, len(rows))
	}
	if md[KeyGames] != "2" || md[KeySkipped] != "8" {
		t.Errorf("metadata games %q skipped %q, want 2 and 8", md[KeyGames], md[KeySkipped])
	}
}

// TestImportOfNothingFailsAndLeavesNoFile: a PGN without a scored move is
// an error, and the output is not written.
func TestImportOfNothingFailsAndLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "none.pgn")
	os.WriteFile(src, []byte("[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"*\"]\n1. d4 {+0.1/3 0.1s} *\n"), 0o644)
	out := filepath.Join(dir, "out.parquet")
	_, err := Import(src, out, Options{})
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "2 games read: 1 skipped, 1 without a scored move") {
		t.Errorf("error %v, want ErrNothing with the counts", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}
