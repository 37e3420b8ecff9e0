package tuner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/engine/board"
)

// TestLoadAppliesTheReadTimeFiltersToParquet loads a fixture dataset with
// the read-time filters and counts the positions kept against a selection
// made here from the rows, in check decided by the board.
func TestLoadAppliesTheReadTimeFiltersToParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.parquet")
	n, err := fixture.Write(path, fixture.Options{Games: 6, Seed: 4, MaxPlies: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := datasets.Filter{MinPly: 6, MaxScore: 250, SkipInCheck: true, DisagreeScore: 100}
	want := 0
	for _, r := range fixture.Rows(t, path) {
		pos, err := board.ParseFEN(r.FEN)
		if err != nil {
			t.Fatal(err)
		}
		disagree := r.ScoreCP >= 100 && r.Result == 0 || r.ScoreCP <= -100 && r.Result == 1
		if r.Ply >= 6 && r.ScoreCP <= 250 && r.ScoreCP >= -250 && !pos.InCheck() && !disagree {
			want++
		}
	}
	if want == 0 || int64(want) > n*3/4 {
		t.Fatalf("the filters keep %d of %d rows: the fixture does not exercise them", want, n)
	}
	train, val, st, err := Load(path, LoadOptions{Select: AsIs, Filter: f, ValFrac: 0.2, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if train.Len()+val.Len() != want || int64(st.Read) != n || st.Filtered != int(n)-want {
		t.Fatalf("kept %d, read %d, filtered %d; want %d kept of %d", train.Len()+val.Len(), st.Read, st.Filtered, want, n)
	}
}

// TestLoadFiltersTextByWhatItsLinesHold: text lines hold a FEN and a
// result, so min-ply (from the FEN's move counters) and skip-in-check
// apply, and a filter reading a score or a best move is an error naming the
// file and the column.
func TestLoadFiltersTextByWhatItsLinesHold(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.epd")
	text := "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]\n" + // ply 1
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 [0.5]\n" + // ply 2
		"rnb1kbnr/pppp1ppp/8/4p3/4P2q/5P2/PPPP2PP/RNBQKBNR w KQkq - 1 3 [0.0]\n" + // ply 4, in check
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [1.0]\n" // ply 4
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f          datasets.Filter
		kept, drop int
	}{
		{datasets.Filter{}, 4, 0},
		{datasets.Filter{MinPly: 2}, 3, 1},
		{datasets.Filter{SkipInCheck: true}, 3, 1},
		{datasets.Filter{MinPly: 3, SkipInCheck: true}, 1, 3},
	} {
		train, val, st, err := Load(path, LoadOptions{Select: AsIs, Filter: c.f})
		if err != nil {
			t.Fatal(err)
		}
		if train.Len()+val.Len() != c.kept || st.Filtered != c.drop || st.Read != 4 {
			t.Errorf("%v: kept %d, filtered %d, read %d; want %d, %d, 4", c.f, train.Len()+val.Len(), st.Filtered, st.Read, c.kept, c.drop)
		}
	}
	for _, c := range []struct {
		f    datasets.Filter
		want string
	}{
		{datasets.Filter{MaxScore: 300}, "text input has no score_cp column, which the read-time filter max-score reads"},
		{datasets.Filter{SkipCaptures: true}, "best_is_capture or best_is_promotion column, which the read-time filter skip-captures reads"},
		{datasets.Filter{DisagreeScore: 300}, "read-time filter disagree-score"},
		{datasets.Filter{MinPly: -1}, "-min-ply -1"},
	} {
		_, _, _, err := Load(path, LoadOptions{Filter: c.f})
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.f.MinPly == 0 && !strings.Contains(err.Error(), path)) {
			t.Errorf("%v: error %v; want one naming %s and %q", c.f, err, path, c.want)
		}
	}
	// A FEN without move counters has no ply for min-ply: a bad line.
	short := filepath.Join(dir, "short.epd")
	os.WriteFile(short, []byte("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - [0.5]\n"), 0o644)
	if _, _, _, err := Load(short, LoadOptions{Filter: datasets.Filter{MinPly: 2}}); err == nil || !strings.Contains(err.Error(), "no move counters") {
		t.Errorf("min-ply on a FEN without counters: %v", err)
	}
}
