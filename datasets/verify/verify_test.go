package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/encoder"
)

func TestVerifyFindsExactlyTheCorruptedRow(t *testing.T) {
	const bad = 37
	cases := []struct {
		name   string
		mutate func(r *datasets.Row)
		want   string // in the mismatch's text
	}{
		{"a piece plane", func(r *datasets.Row) { r.Planes[5*64+27] = 1 - r.Planes[5*64+27] }, "plane 5 (white king) square d4"},
		{"the repetition plane", func(r *datasets.Row) {
			for sq := 0; sq < 64; sq++ {
				r.Planes[encoder.PlaneRepetition*64+sq] = 1
			}
		}, "plane 12 (repetitions)"},
		{"the halfmove plane", func(r *datasets.Row) { r.Planes[encoder.PlaneHalfmove*64] += 0.01 }, "halfmove clock"},
		{"the policy", func(r *datasets.Row) { r.Policy = (r.Policy + 1) % encoder.PolicySize }, "policy is"},
		{"best_is_capture", func(r *datasets.Row) { r.BestIsCapture = !r.BestIsCapture }, "best_is_capture"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.parquet")
			rows, err := fixture.Write(path, fixture.Options{Games: 2, Seed: 7, MaxPlies: 60, Mutate: func(i int64, r *datasets.Row) {
				if i == bad {
					c.mutate(r)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Dataset(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != rows || rep.Mismatches != 1 || len(rep.First) != 1 {
				t.Fatalf("%d rows, %d mismatches (%v); want %d rows, 1 mismatch", rep.Rows, rep.Mismatches, rep.First, rows)
			}
			m := rep.First[0]
			if m.Row != bad || m.File != path || !strings.Contains(m.String(), c.want) {
				t.Errorf("mismatch %v; want row %d of %s about %q", m, bad, path, c.want)
			}
		})
	}
}

func TestVerifyPassesCleanDatasets(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name        string
		opts        fixture.Options
		wantPartial bool
	}{
		{"whole games", fixture.Options{Games: 4, Seed: 3, MaxPlies: 120}, false},
		{"write window from ply 12", fixture.Options{Games: 4, Seed: 3, MaxPlies: 120, FromPly: 12}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
			rows, err := fixture.Write(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var progress int64
			rep, err := Dataset(path, Options{Progress: func(n int) { progress += int64(n) }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != rows || progress != rows || rep.Mismatches != 0 {
				t.Fatalf("%d rows (progress %d), %d mismatches %v; want %d rows, none", rep.Rows, progress, rep.Mismatches, rep.First, rows)
			}
			if rep.Games != int64(c.opts.Games) {
				t.Errorf("%d games, want %d", rep.Games, c.opts.Games)
			}
			if (rep.PartialHistory > 0) != c.wantPartial {
				t.Errorf("%d rows with partial history", rep.PartialHistory)
			}
		})
	}
}

func TestVerifyFollowsAGameAcrossAReplacedFEN(t *testing.T) {
	// A FEN replaced by another legal position: the replay disagrees at
	// that row, and the next row (whose FEN follows the true game) disagrees
	// with the replay from the wrong FEN too.
	path := filepath.Join(t.TempDir(), "d.parquet")
	if _, err := fixture.Write(path, fixture.Options{Games: 1, Seed: 5, MaxPlies: 40, Mutate: func(i int64, r *datasets.Row) {
		if i == 20 {
			r.FEN = "8/8/8/4k3/8/8/8/4K3 w - - 0 1"
		}
	}}); err != nil {
		t.Fatal(err)
	}
	rep, err := Dataset(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches < 1 || rep.First[0].Row != 20 || !strings.Contains(rep.First[0].String(), "replayed") {
		t.Fatalf("%d mismatches, first %v", rep.Mismatches, rep.First)
	}
}

// rewrite writes rows to a dataset file at path with the fixture's writer
// options, as an older or another writer might have.
func rewrite(t *testing.T, path string, rows []datasets.Row) {
	t.Helper()
	w, err := datasets.Create(path, datasets.WriterOptions{EngineVersion: "chessforge fixture", Config: []byte(`{"source":"test"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyReportsBrokenGames makes datasets whose games are not whole, as
// the old write filter -write-max-score and careless merges left them: a
// hole in a game, a game's rows split by another game's, a game split over
// two shards. Each break is one mismatch naming the game and the plies.
func TestVerifyReportsBrokenGames(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fixture.parquet")
	if _, err := fixture.Write(src, fixture.Options{Games: 3, Seed: 9, MaxPlies: 80}); err != nil {
		t.Fatal(err)
	}
	rows := fixture.Rows(t, src)
	var starts []int // each game's first row
	for i := range rows {
		if i == 0 || rows[i].GameID != rows[i-1].GameID {
			starts = append(starts, i)
		}
	}
	if len(starts) != 3 || starts[1]-starts[0] < 50 {
		t.Fatalf("fixture games start at rows %v", starts)
	}
	g0 := rows[starts[0]].GameID
	cases := []struct {
		name  string
		files [][]datasets.Row
		games int64
		want  string
	}{
		{"a hole", [][]datasets.Row{concat(rows[:40], rows[43:])}, 3,
			fmt.Sprintf("game %d: ply 43 follows ply 39", g0)},
		{"another game in between", [][]datasets.Row{concat(rows[:30], rows[starts[1]:starts[2]], rows[30:starts[1]], rows[starts[2]:])}, 3,
			fmt.Sprintf("game %d: ply 30 comes after other games' rows, its rows before ending at ply 29", g0)},
		{"two shards", [][]datasets.Row{rows[:30], rows[30:]}, 3,
			fmt.Sprintf("game %d: rows in %s and in %s", g0, "a.parquet", "b.parquet")},
		{"rows out of order", [][]datasets.Row{concat(rows[:20], rows[21:22], rows[20:21], rows[22:])}, 3,
			fmt.Sprintf("game %d: ply 21 follows ply 19", g0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for k, f := range c.files {
				rewrite(t, filepath.Join(d, string(rune('a'+k))+".parquet"), f)
			}
			rep, err := Dataset(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Mismatches == 0 || rep.Games != c.games {
				t.Fatalf("%d mismatches, %d games; want some, %d games", rep.Mismatches, rep.Games, c.games)
			}
			m := rep.First[0].String()
			if !strings.Contains(strings.ReplaceAll(m, d+string(filepath.Separator), ""), c.want) {
				t.Fatalf("first mismatch %q, want it to say %q", m, c.want)
			}
			t.Logf("%d mismatches, first: %s", rep.Mismatches, m)
		})
	}
}

func concat(parts ...[]datasets.Row) []datasets.Row {
	var out []datasets.Row
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestVerifyPassesCleanDraughtsDatasets(t *testing.T) {
	for _, from := range []int{0, 10} {
		path := filepath.Join(t.TempDir(), "d.parquet")
		rows, err := fixture.Write(path, fixture.Options{Game: encoder.GameDama, Games: 12, Seed: 4, MaxPlies: 200, FromPly: from})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Dataset(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rows != rows || rep.Mismatches != 0 || rep.Games != 12 {
			t.Fatalf("from ply %d: %d rows of %d, %d games, %d mismatches: %v", from, rep.Rows, rows, rep.Games, rep.Mismatches, rep.First)
		}
		if (rep.PartialHistory > 0) != (from > 0) {
			t.Errorf("from ply %d: %d rows with partial history", from, rep.PartialHistory)
		}
	}
}

func TestVerifyFindsTheCorruptedDraughtsRow(t *testing.T) {
	const bad = 23
	cases := []struct {
		name   string
		mutate func(r *datasets.Row)
		want   string
	}{
		{"a man", func(r *datasets.Row) {
			r.Planes[encoder.DamaPlaneBlackMen*64+1] = 1 - r.Planes[encoder.DamaPlaneBlackMen*64+1]
		}, "plane 2 (black men) square b1"},
		{"the quiet plane", func(r *datasets.Row) {
			for sq := range 64 {
				r.Planes[encoder.DamaPlaneQuiet*64+sq] = encoder.Dama.ClockValue(79)
			}
		}, "plane 6 (quiet plies)"},
		{"the policy", func(r *datasets.Row) { r.Policy = (r.Policy + 64) % int32(encoder.Dama.PolicySize()) }, "policy is"},
		{"the move", func(r *datasets.Row) { r.Move = "1-5" }, "move: "},
		{"in_check", func(r *datasets.Row) { r.InCheck = true }, "draughts has no check"},
		{"best_is_promotion", func(r *datasets.Row) { r.BestIsPromotion = !r.BestIsPromotion }, "best_is_promotion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.parquet")
			_, err := fixture.Write(path, fixture.Options{Game: encoder.GameDama, Games: 2, Seed: 7, MaxPlies: 60, Mutate: func(i int64, r *datasets.Row) {
				if i == bad {
					c.mutate(r)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Dataset(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A wrong move breaks the chain: the next row's FEN differs too.
			if rep.Mismatches < 1 || rep.First[0].Row != bad || !strings.Contains(rep.First[0].String(), c.want) {
				t.Fatalf("%d mismatches %v; want the first at row %d about %q", rep.Mismatches, rep.First, bad, c.want)
			}
			if c.name != "the move" && rep.Mismatches != 1 {
				t.Errorf("%d mismatches, want 1: %v", rep.Mismatches, rep.First)
			}
		})
	}
}

// TestVerifyChecksHowDraughtsGamesEnd changes the result or termination of
// every row of a game: the last row's check of the game's end names it.
func TestVerifyChecksHowDraughtsGamesEnd(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(r *datasets.Row)
		want   string
	}{
		{"a wrong winner", func(r *datasets.Row) {
			if r.Termination == datasets.TerminationNoMoves {
				r.Result = 1 - r.Result
			}
		}, "result"},
		{"a rule ending that did not happen", func(r *datasets.Row) {
			if r.Termination == datasets.TerminationPlyCap {
				r.Termination = datasets.TerminationNoMoves
			}
		}, "goes on after the last row's move"},
		{"adjudicated though the rules ended it", func(r *datasets.Row) {
			if r.Termination == datasets.TerminationNoMoves {
				r.Termination = datasets.TerminationAdjudicatedDraw
			}
		}, "but the rules end the game"},
		{"a chess ending", func(r *datasets.Row) { r.Termination = datasets.TerminationCheckmate }, "not a way a game of draughts ends"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.parquet")
			_, err := fixture.Write(path, fixture.Options{Game: encoder.GameDama, Games: 20, Seed: 9, MaxPlies: 90, Mutate: func(i int64, r *datasets.Row) { c.mutate(r) }})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Dataset(path, Options{Keep: 100})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Mismatches == 0 || rep.Mismatches > 20 {
				t.Fatalf("%d mismatches, want one per changed game", rep.Mismatches)
			}
			for _, m := range rep.First {
				if !strings.Contains(m.String(), c.want) {
					t.Errorf("mismatch %v, want one about %q", m, c.want)
				}
			}
		})
	}
}
