package stockfish

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/datasets/verify"
)

// exportFile exports the dataset at src in format f into dir and returns
// the file's path and bytes.
func exportFile(t *testing.T, src, dir, name string, f Format) (string, []byte) {
	t.Helper()
	out := filepath.Join(dir, name)
	rep, err := Export(src, out, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bytes != int64(len(data)) {
		t.Errorf("%s: report says %d bytes, the file has %d", name, rep.Bytes, len(data))
	}
	return out, data
}

// TestRoundTrip exports fixture games (random and greedy playouts, whose
// played moves often differ from the best move, with castlings, en-passant
// captures and promotions) to both formats, imports each export and exports
// the import again: the files must come back byte for byte, and the
// imported rows must keep every column the formats carry.
func TestRoundTrip(t *testing.T) {
	for _, from := range []int{0, 7} {
		t.Run(map[int]string{0: "whole games", 7: "write window from ply 7"}[from], func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src.parquet")
			if _, err := fixture.Write(src, fixture.Options{Games: 20, Seed: 5, FromPly: from, MaxPlies: 160}); err != nil {
				t.Fatal(err)
			}
			orig := fixture.Rows(t, src)
			plainPath, plain := exportFile(t, src, dir, "a.plain", Plain)
			binPath, bin := exportFile(t, src, dir, "a.binpack", Binpack)
			for _, c := range []struct {
				name string
				path string
				f    Format
			}{{"plain", plainPath, Plain}, {"binpack", binPath, Binpack}} {
				imported := filepath.Join(dir, "from-"+c.name+".parquet")
				rep, err := Import(c.path, c.f, imported, nil)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Rows != int64(len(orig)) || rep.Games != 20 {
					t.Errorf("%s import: %d rows in %d games, want %d in 20", c.name, rep.Rows, rep.Games, len(orig))
				}
				if _, again := exportFile(t, imported, dir, "again-"+c.name+".plain", Plain); !bytes.Equal(again, plain) {
					t.Errorf("plain export of the %s import differs from the first plain export", c.name)
				}
				if _, again := exportFile(t, imported, dir, "again-"+c.name+".binpack", Binpack); !bytes.Equal(again, bin) {
					t.Errorf("binpack export of the %s import differs from the first binpack export", c.name)
				}
				compareRows(t, c.name, orig, fixture.Rows(t, imported), from == 0)
				vr, err := verify.Dataset(imported, verify.Options{Keep: 3})
				if err != nil {
					t.Fatal(err)
				}
				if vr.Mismatches != 0 {
					t.Errorf("%s import: verify finds %d mismatches: %v", c.name, vr.Mismatches, vr.First)
				}
			}
		})
	}
}

// compareRows checks the imported rows against the originals: FEN, ply,
// best move, policy, score and result always; planes where the game was
// recorded from its start (otherwise the repetition plane may have lost
// positions before the window); the move played on every row but a game's
// last.
func compareRows(t *testing.T, name string, orig, got []datasets.Row, whole bool) {
	t.Helper()
	if len(got) != len(orig) {
		t.Fatalf("%s: %d rows, want %d", name, len(got), len(orig))
	}
	bad := 0
	for i := range orig {
		o, g := &orig[i], &got[i]
		last := i+1 == len(orig) || orig[i+1].GameID != o.GameID
		first := i == 0 || orig[i-1].GameID != o.GameID
		fen := g.FEN == o.FEN || first && !whole && sameButEP(g.FEN, o.FEN)
		if !fen || g.Ply != o.Ply || g.BestMove != o.BestMove || g.Policy != o.Policy ||
			g.ScoreCP != o.ScoreCP || g.Result != o.Result || g.InCheck != o.InCheck ||
			g.BestIsCapture != o.BestIsCapture || g.BestIsPromotion != o.BestIsPromotion ||
			(!last && g.Move != o.Move) || (whole && g.Planes != o.Planes) {
			if bad++; bad <= 5 {
				t.Errorf("%s: row %d differs:\n got  %+v\n want %+v", name, i, brief(g), brief(o))
			}
		}
		if last && (g.Move != g.BestMove) {
			t.Errorf("%s: row %d, a game's last: move %s, want the best move %s", name, i, g.Move, g.BestMove)
		}
	}
}

// sameButEP reports whether two FENs agree but for the en-passant field.
func sameButEP(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	fa[3], fb[3] = "", ""
	return strings.Join(fa, " ") == strings.Join(fb, " ")
}

func brief(r *datasets.Row) []any {
	return []any{r.Ply, r.FEN, r.Move, r.BestMove, r.Policy, r.ScoreCP, r.Result}
}
