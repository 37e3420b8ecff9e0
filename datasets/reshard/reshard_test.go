package reshard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
)

func write(t *testing.T, path string, opts fixture.Options) int64 {
	t.Helper()
	n, err := fixture.Write(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSplitIsByGameAndDeterministic(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.parquet")
	rows := write(t, src, fixture.Options{Games: 16, Seed: 11, MaxPlies: 24})
	var progress int64
	a, err := Split(src, filepath.Join(dir, "a"), SplitOptions{Val: 0.3, Seed: 4, Progress: func(n int) { progress += int64(n) }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Split(src, filepath.Join(dir, "b"), SplitOptions{Val: 0.3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if a.TrainRows+a.ValidationRows != rows || progress != rows {
		t.Fatalf("split %d+%d rows (progress %d) of %d", a.TrainRows, a.ValidationRows, progress, rows)
	}
	if a.TrainGames+a.ValidationGames != 16 || a.ValidationGames == 0 || a.TrainGames == 0 {
		t.Fatalf("split %d+%d games of 16", a.TrainGames, a.ValidationGames)
	}
	for _, part := range []struct {
		a, b string
		val  bool
	}{{a.Train, b.Train, false}, {a.Validation, b.Validation, true}} {
		ra, rb := fixture.Rows(t, part.a), fixture.Rows(t, part.b)
		if len(ra) != len(rb) {
			t.Fatalf("%s: %d rows, the second run %d", part.a, len(ra), len(rb))
		}
		for i := range ra {
			if ra[i] != rb[i] {
				t.Fatalf("%s row %d differs between two runs", part.a, i)
			}
			if IsValidation(ra[i].GameID, 0.3, 4) != part.val {
				t.Fatalf("%s holds game %d, which belongs to the other side", part.a, ra[i].GameID)
			}
		}
	}
	// Every game lies wholly on one side.
	side := map[int64]string{}
	for _, f := range []string{a.Train, a.Validation} {
		for _, r := range fixture.Rows(t, f) {
			if s, ok := side[r.GameID]; ok && s != f {
				t.Fatalf("game %d is in both files", r.GameID)
			}
			side[r.GameID] = f
		}
	}
	infos, err := datasets.Stat(a.Validation)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Reshard map[string]any `json:"reshard"`
	}
	if err := json.Unmarshal([]byte(infos[0].Metadata[datasets.KeyConfig]), &cfg); err != nil || cfg.Reshard["op"] != "split" {
		t.Errorf("validation config %q (%v)", infos[0].Metadata[datasets.KeyConfig], err)
	}
}

func TestIsValidationTakesTheShareAskedFor(t *testing.T) {
	for _, val := range []float64{0, 0.1, 0.5, 1} {
		n := 0
		for id := int64(0); id < 20000; id++ {
			if IsValidation(id, val, 1) {
				n++
			}
		}
		if got := float64(n) / 20000; got < val-0.01 || got > val+0.01 {
			t.Errorf("val %v: share %v", val, got)
		}
	}
	same := 0
	for id := int64(0); id < 1000; id++ {
		if IsValidation(id, 0.5, 1) == IsValidation(id, 0.5, 2) {
			same++
		}
	}
	if same > 600 || same < 400 {
		t.Errorf("seeds 1 and 2 agree on %d of 1000 games: the seed does not change the split", same)
	}
}

func TestSplitRejectsABadShare(t *testing.T) {
	if _, err := Split("x", t.TempDir(), SplitOptions{Val: 1.5}); err == nil {
		t.Error("val 1.5 accepted")
	}
}

func fenKey(fen string) string {
	f := strings.Fields(fen)
	return strings.Join(f[:4], " ")
}

func TestMergeCountsAndDedup(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "c.parquet")
	na := write(t, a, fixture.Options{Games: 4, Seed: 1, MaxPlies: 30})
	nb := write(t, b, fixture.Options{Games: 4, Seed: 2, MaxPlies: 30, FirstID: 1000})
	// c replays a's games under other ids: every position is a duplicate.
	nc := write(t, c, fixture.Options{Games: 4, Seed: 1, MaxPlies: 30, FirstID: 2000})
	// What -dedup keeps, worked out here independently: each game's rows
	// from its first position not seen earlier in the merge.
	dedupRows := func(srcs ...string) int64 {
		seen := map[string]bool{}
		var kept int64
		for _, f := range srcs {
			leading, game := false, int64(-1)
			for _, r := range fixture.Rows(t, f) {
				if r.GameID != game {
					game, leading = r.GameID, true
				}
				k := fenKey(r.FEN)
				if leading && seen[k] {
					continue
				}
				leading, seen[k] = false, true
				kept++
			}
		}
		return kept
	}
	// e holds the second half of a's games under other ids; merged before
	// a, every position of a's second halves is a duplicate in mid-game,
	// which -dedup must keep so that a's games stay whole.
	e := filepath.Join(dir, "e.parquet")
	write(t, e, fixture.Options{Games: 4, Seed: 1, MaxPlies: 30, FirstID: 3000, FromPly: 15})
	cases := []struct {
		name        string
		srcs        []string
		dedup       bool
		wantWritten int64
		wantShared  int64
	}{
		{"two files", []string{a, b}, false, na + nb, 0},
		{"two files dedup", []string{a, b}, true, dedupRows(a, b), 0},
		{"a copy under other ids adds nothing", []string{a, b, c}, true, dedupRows(a, b), 0},
		{"a glob", []string{filepath.Join(dir, "[ab].parquet")}, false, na + nb, 0},
		{"seen positions in mid-game are kept", []string{e, a}, true, dedupRows(e, a), 0},
		{"a copy under other ids without dedup", []string{a, c}, false, na + nc, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out", tc.name+".parquet")
			if i == 0 {
				out = filepath.Join(dir, "m.parquet")
			}
			if err := mkdirFor(out); err != nil {
				t.Fatal(err)
			}
			rep, err := Merge(tc.srcs, out, MergeOptions{Dedup: tc.dedup})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Written != tc.wantWritten || rep.Rows-rep.Dropped != rep.Written || rep.SharedGameIDs != tc.wantShared {
				t.Fatalf("read %d, wrote %d, dropped %d, shared ids %d; want %d written, %d shared",
					rep.Rows, rep.Written, rep.Dropped, rep.SharedGameIDs, tc.wantWritten, tc.wantShared)
			}
			got := fixture.Rows(t, out)
			if int64(len(got)) != tc.wantWritten {
				t.Fatalf("file holds %d rows, want %d", len(got), tc.wantWritten)
			}
			// Every game of the output is whole: a suffix of its source
			// game, its rows contiguous.
			last := map[int64]int32{}
			for k, r := range got {
				if p, ok := last[r.GameID]; ok && (r.Ply != p+1 || got[k-1].GameID != r.GameID) {
					t.Fatalf("game %d: ply %d follows ply %d", r.GameID, r.Ply, p)
				}
				last[r.GameID] = r.Ply
			}
			if !tc.dedup {
				var want []datasets.Row
				for _, f := range tc.srcs {
					want = append(want, fixture.Rows(t, f)...)
				}
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("row %d differs from its source", k)
					}
				}
			}
		})
	}
	// Same ids in two files are reported.
	d := filepath.Join(dir, "d.parquet")
	write(t, d, fixture.Options{Games: 3, Seed: 9, MaxPlies: 20})
	rep, err := Merge([]string{a, d}, filepath.Join(dir, "ad.parquet"), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SharedGameIDs != 3 {
		t.Errorf("%d shared game ids, want 3", rep.SharedGameIDs)
	}
	if _, err := Merge([]string{a, a}, filepath.Join(dir, "aa.parquet"), MergeOptions{}); err == nil {
		t.Error("a file given twice was merged")
	}
}

func TestPositionKeyIgnoresTheMoveCounters(t *testing.T) {
	k := PositionKey("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
	if k != PositionKey("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 7 40") {
		t.Error("counters change the key")
	}
	for _, other := range []string{
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b Kkq e3 0 1",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
	} {
		if PositionKey(other) == k {
			t.Errorf("%s has the same key", other)
		}
	}
}

func mkdirFor(path string) error { return os.MkdirAll(filepath.Dir(path), 0o755) }

// TestAFailedSplitKeepsTheSplitThatWasThere splits into a directory that
// holds an earlier split whose val.parquet cannot be replaced (a
// directory stands in its way): the split fails and leaves the earlier
// train.parquet byte for byte, and no temporary file.
func TestAFailedSplitKeepsTheSplitThatWasThere(t *testing.T) {
	src := filepath.Join(t.TempDir(), "a.parquet")
	write(t, src, fixture.Options{Games: 6, Seed: 1, MaxPlies: 30})
	other := filepath.Join(t.TempDir(), "b.parquet")
	write(t, other, fixture.Options{Games: 6, Seed: 2, MaxPlies: 30})
	dir := t.TempDir()
	if _, err := Split(src, dir, SplitOptions{Val: 0.5}); err != nil {
		t.Fatal(err)
	}
	train := filepath.Join(dir, TrainFile)
	before, err := os.ReadFile(train)
	if err != nil {
		t.Fatal(err)
	}
	val := filepath.Join(dir, ValidationFile)
	os.Remove(val)
	if err := os.MkdirAll(filepath.Join(val, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Split(other, dir, SplitOptions{Val: 0.5}); err == nil {
		t.Fatal("a split whose val.parquet cannot be written: no error")
	}
	if after, err := os.ReadFile(train); err != nil || string(after) != string(before) {
		t.Errorf("the earlier %s was not kept (%v)", TrainFile, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("after the failed split %s holds %v, want only %s and %s", dir, entries, TrainFile, ValidationFile)
	}
}
