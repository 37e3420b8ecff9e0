package match

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/pgnimport"
	"chessforge/datasets/verify"
	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// TestMatchPGNImportsAsADataset plays bin/engine against itself at low
// nodes, imports the PGN (bin/dataset import) and checks the dataset:
// every row verifies (legal moves, planes, policy), there is a row for
// each scored comment, with the comment's score from White's side, the
// move played and the game's result.
func TestMatchPGNImportsAsADataset(t *testing.T) {
	engine := projectEngine(t)
	var buf bytes.Buffer
	cfg := testConfig(t, []string{engine}, []string{engine}, 2, "nodes=200", &buf)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, out := filepath.Join(dir, "match.pgn"), filepath.Join(dir, "match.parquet")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := pgnimport.Import(src, out, pgnimport.Options{Skipped: func(s *pgnimport.Skip) { t.Errorf("skipped %v", s) }})
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Dataset(out, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Mismatches != 0 || v.Rows != rep.Rows || rep.Imported != 2 {
		t.Fatalf("import %+v; verify %d rows, %d mismatches %v", rep, v.Rows, v.Mismatches, v.First)
	}
	rows, err := datasets.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for gi, g := range readBack(t, buf.String()) {
		white, ok := pgn.Points(g.Result)
		if !ok {
			t.Fatalf("game %d: result %q", gi+1, g.Result)
		}
		pos, _ := g.Start()
		for i, m := range g.Moves {
			e, err := pgn.ParseEval(g.Comments[i])
			if err != nil {
				t.Fatalf("game %d move %d: %v", gi+1, i+1, err)
			}
			if e.Scored {
				score := e.CP
				if e.Mate > 0 {
					score = 32000 - e.Mate
				} else if e.Mate < 0 {
					score = -32000 - e.Mate
				}
				if pos.SideToMove() == board.Black {
					score = -score
				}
				if next >= len(rows) {
					t.Fatalf("game %d move %d (%q): no row left", gi+1, i+1, g.Comments[i])
				}
				r := rows[next]
				next++
				if r.FEN != pos.FEN() || r.Move != m.String() || r.ScoreCP != int32(score) || r.Result != white || r.Depth != int32(e.Depth) {
					t.Errorf("game %d move %d (%s {%s}): row %s %s score %d result %v depth %d; want %s %s %d %v %d", gi+1, i+1,
						pos.SAN(m), g.Comments[i], r.FEN, r.Move, r.ScoreCP, r.Result, r.Depth, pos.FEN(), m, score, white, e.Depth)
				}
			}
			pos.MakeMove(m)
		}
	}
	if next != len(rows) || next == 0 {
		t.Errorf("%d rows, %d scored comments", len(rows), next)
	}
}
