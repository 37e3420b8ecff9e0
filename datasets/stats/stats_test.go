package stats

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/encoder"
	"chessforge/engine/board"
)

type handRow struct {
	game   int64
	ply    int32
	score  int32
	result float32
	term   datasets.Termination
}

// writeHand writes rows with the given game columns (every position the
// start position: the statistics do not look at it).
func writeHand(t *testing.T, path string, rows []handRow) {
	t.Helper()
	w, err := datasets.Create(path, datasets.WriterOptions{EngineVersion: "test", Config: []byte(`{"hand":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	pos := board.NewPosition()
	m, _ := pos.ParseUCIMove("e2e4")
	var r datasets.Row
	for _, h := range rows {
		if err := r.SetPosition(pos, 0, m, m); err != nil {
			t.Fatal(err)
		}
		r.GameID, r.Ply, r.ScoreCP, r.Result, r.Termination = h.game, h.ply, h.score, h.result, h.term
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// handGames are four games' rows: a checkmate, a stalemate, an
// adjudicated win, and a game ended by the ply cap whose last row
// disagrees with the one before on the result.
var handGames = []handRow{
	{1, 0, 0, 1, datasets.TerminationCheckmate},
	{1, 1, 150, 1, datasets.TerminationCheckmate},
	{1, 2, 31990, 1, datasets.TerminationCheckmate},
	{2, 10, -25, 0.5, datasets.TerminationStalemate},
	{2, 11, -2000, 0.5, datasets.TerminationStalemate},
	{3, 44, -31000, 0, datasets.TerminationAdjudicatedWin},
	{4, 0, 19, 0.5, datasets.TerminationPlyCap},
	{4, 1, 20, 0, datasets.TerminationPlyCap}, // disagrees with the row before
}

func TestComputeCountsHandBuiltGames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.parquet")
	writeHand(t, path, handGames)
	s, err := Compute(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 8 || s.Games != 4 {
		t.Fatalf("%d rows %d games", s.Rows, s.Games)
	}
	if s.GameResults != [3]int64{1, 2, 1} || s.RowResults != [3]int64{3, 3, 2} {
		t.Errorf("results: games %v rows %v", s.GameResults, s.RowResults)
	}
	if s.InconsistentGames != 1 {
		t.Errorf("%d inconsistent games, want 1", s.InconsistentGames)
	}
	// Lengths: 3, 12, 45, 2.
	if s.MinLength != 2 || s.MaxLength != 45 || s.MeanLength != 15.5 || s.MedianLength != 12 {
		t.Errorf("lengths min %d max %d mean %v median %d", s.MinLength, s.MaxLength, s.MeanLength, s.MedianLength)
	}
	if len(s.LengthCounts) != 3 || s.LengthCounts[0] != 3 || s.LengthCounts[2] != 1 {
		t.Errorf("length buckets %v", s.LengthCounts)
	}
	if s.WhiteMates != 1 || s.BlackMates != 1 {
		t.Errorf("mates %d/%d", s.WhiteMates, s.BlackMates)
	}
	want := map[int32]int64{0: 1, 150: 1, -25: 1, -2000: 1, 19: 1, 20: 1}
	got := make([]int64, len(ScoreEdges)+1)
	for sc, n := range want {
		k := 0
		for k < len(ScoreEdges) && sc >= ScoreEdges[k] {
			k++
		}
		got[k] += n
	}
	for k := range got {
		if got[k] != s.ScoreCounts[k] {
			t.Fatalf("score buckets %v, want %v", s.ScoreCounts, got)
		}
	}
	if s.Terminations[datasets.TerminationCheckmate] != 1 || s.Terminations[datasets.TerminationStalemate] != 1 ||
		s.Terminations[datasets.TerminationAdjudicatedWin] != 1 || s.Terminations[datasets.TerminationPlyCap] != 1 {
		t.Errorf("terminations %v", s.Terminations)
	}
	var out bytes.Buffer
	s.Print(&out)
	for _, want := range []string{"White wins (1.0)", "checkmate", "adjudicated win", "Black mates", "warning: 1 games"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestComputeCountsTheRowsTheFiltersKeep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.parquet")
	writeHand(t, path, handGames[:7]) // without the row that disagrees
	s, err := Compute(path, Options{Filter: datasets.Filter{MaxScore: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	// Kept: scores 0, 150, -25 and 19; game 3 has no row left.
	if s.Rows != 4 || s.Dropped != 3 || s.Games != 3 || s.WhiteMates+s.BlackMates != 0 || s.MaxLength != 11 {
		t.Fatalf("%d rows, %d dropped, %d games, %d mates, longest %d", s.Rows, s.Dropped, s.Games, s.WhiteMates+s.BlackMates, s.MaxLength)
	}
	var out bytes.Buffer
	s.Print(&out)
	if want := "read-time filters max-score 1000: kept 4 of 7 rows (57.1%), dropped 3"; !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
}

func TestDescribeCountsGamesAndBytes(t *testing.T) {
	dir := t.TempDir()
	writeHand(t, filepath.Join(dir, "a.parquet"), []handRow{{1, 0, 0, 1, datasets.TerminationCheckmate}, {2, 0, 0, 1, datasets.TerminationCheckmate}})
	writeHand(t, filepath.Join(dir, "b.parquet"), []handRow{{3, 0, 0, 1, datasets.TerminationCheckmate}})
	var seen int
	in, err := Describe(dir, func(n int) { seen += n })
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 3 || in.Games != 3 || len(in.Files) != 2 || seen != 3 {
		t.Fatalf("rows %d games %d files %d progress %d", in.Rows, in.Games, len(in.Files), seen)
	}
	if in.Size != in.Files[0].Size+in.Files[1].Size || in.BytesPerRow() != float64(in.Size)/3 {
		t.Errorf("size %d, bytes per row %v", in.Size, in.BytesPerRow())
	}
	var out bytes.Buffer
	in.Print(&out)
	for _, want := range []string{"games:     3", "planes", "fixed_size_list", datasets.KeyConfig, `{"hand":true}`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("info lacks %q:\n%s", want, out.String())
		}
	}
}

func TestComputeReadsADraughtsDataset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dama.parquet")
	n, err := fixture.Write(path, fixture.Options{Game: encoder.GameDama, Games: 10, Seed: 3, MaxPlies: 120})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compute(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Game != encoder.GameDama || s.Rows != n || s.Games != 10 || s.InconsistentGames != 0 {
		t.Fatalf("stats %+v", s)
	}
	ended := 0
	for term, k := range s.Terminations {
		switch term {
		case datasets.TerminationNoMoves, datasets.TerminationThreefold, datasets.TerminationFortyMove, datasets.TerminationPlyCap:
			ended += int(k)
		default:
			t.Errorf("termination %v in a draughts fixture", term)
		}
	}
	var out strings.Builder
	s.Print(&out)
	if ended != 10 || !strings.Contains(out.String(), "centi-men") || !strings.Contains(out.String(), "White wins found") {
		t.Errorf("%d games ended, printed:\n%s", ended, out.String())
	}
}
