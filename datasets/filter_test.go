package datasets

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"

	"chessforge/configs"
	"chessforge/engine/board"
)

// expectKeep is the filters' meaning written out again, independently of
// Filter: in check and the best move's kind come from the board, not from
// the row's columns.
func expectKeep(t *testing.T, f Filter, r *Row) bool {
	t.Helper()
	pos, err := board.ParseFEN(r.FEN)
	if err != nil {
		t.Fatal(err)
	}
	best, err := pos.ParseUCIMove(r.BestMove)
	if err != nil {
		t.Fatal(err)
	}
	score := int(r.ScoreCP)
	switch {
	case f.MinPly != 0 && int(r.Ply) < f.MinPly:
		return false
	case f.MaxScore != 0 && (score > f.MaxScore || -score > f.MaxScore):
		return false
	case f.SkipInCheck && pos.InCheck():
		return false
	case f.SkipCaptures && (pos.IsCapture(best) || best.IsPromotion()):
		return false
	case f.DisagreeScore != 0 && r.Result == 0 && score >= f.DisagreeScore:
		return false
	case f.DisagreeScore != 0 && r.Result == 1 && score <= -f.DisagreeScore:
		return false
	}
	return true
}

// readFiltered reads every row of path through the Reader with the filter
// and columns given, checking the batches' Scanned and the Reader's
// Dropped against the file's rows.
func readFiltered(t *testing.T, path string, f Filter, cols []string) []Row {
	t.Helper()
	rd, err := Open(path, &ReaderOptions{Filter: f, Columns: cols, BatchRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var rows []Row
	var b Batch
	scanned := 0
	for {
		err := rd.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Len == 0 || b.Scanned < b.Len {
			t.Fatalf("batch of %d rows, %d scanned", b.Len, b.Scanned)
		}
		scanned += b.Scanned
		for i := 0; i < b.Len; i++ {
			var r Row
			b.Row(i, &r)
			rows = append(rows, r)
		}
	}
	if int64(len(rows))+rd.Dropped() != rd.NumRows() || int64(scanned) > rd.NumRows() {
		t.Fatalf("%d rows kept, %d dropped, %d scanned, of %d", len(rows), rd.Dropped(), scanned, rd.NumRows())
	}
	return rows
}

// filterCases are filters one at a time and together.
var filterCases = []Filter{
	{},
	{MinPly: 30},
	{MaxScore: 300},
	{SkipInCheck: true},
	{SkipCaptures: true},
	{DisagreeScore: 200},
	{MinPly: 8, MaxScore: 500, SkipInCheck: true, SkipCaptures: true, DisagreeScore: 100},
}

func TestFiltersKeepExactlyTheRowsTheyShould(t *testing.T) {
	games := playGames(11, 30, 160)
	path := filepath.Join(t.TempDir(), "games.parquet")
	all := writeGames(t, path, games, testOptions())
	for _, f := range filterCases {
		t.Run(f.String(), func(t *testing.T) {
			var want []Row
			for i := range all {
				if expectKeep(t, f, &all[i]) {
					want = append(want, all[i])
				}
			}
			if f.Active() && (len(want) == 0 || len(want) == len(all)) {
				t.Fatalf("the fixture does not exercise the filter: %d of %d rows kept", len(want), len(all))
			}
			got := readFiltered(t, path, f, nil)
			if len(got) != len(want) {
				t.Fatalf("kept %d rows, want %d of %d", len(got), len(want), len(all))
			}
			for i := range want {
				if !sameRow(&got[i], &want[i]) {
					t.Fatalf("row %d: got game %d ply %d, want game %d ply %d", i, got[i].GameID, got[i].Ply, want[i].GameID, want[i].Ply)
				}
			}
			// Reading two columns: the filter reads its own as well, and
			// keeps the same rows.
			few := readFiltered(t, path, f, []string{ColFEN, ColResult})
			if len(few) != len(want) {
				t.Fatalf("with columns fen, result: kept %d rows, want %d", len(few), len(want))
			}
			for i := range want {
				if few[i].FEN != want[i].FEN || few[i].Result != want[i].Result {
					t.Fatalf("with columns fen, result: row %d is %s, want %s", i, few[i].FEN, want[i].FEN)
				}
			}
			// Filter.Keep on whole rows agrees.
			n := 0
			for i := range all {
				if f.Keep(&all[i]) {
					n++
				}
			}
			if n != len(want) {
				t.Fatalf("Filter.Keep keeps %d rows, want %d", n, len(want))
			}
		})
	}
}

// TestFiltersDeriveMissingColumnsFromTheFEN reads a file written without
// in_check, best_is_capture and best_is_promotion (as older files and other
// writers may be): skip-in-check and skip-captures derive them from fen and
// best_move and keep the rows they keep on the full file.
func TestFiltersDeriveMissingColumnsFromTheFEN(t *testing.T) {
	dir := t.TempDir()
	var rows []Row
	var row Row
	for _, g := range playGames(12, 12, 120) {
		gameRows(t, g, &row, func(r *Row) { rows = append(rows, *r) })
	}
	full, old := filepath.Join(dir, "full.parquet"), filepath.Join(dir, "old.parquet")
	writeRows(t, full, testOptions(), rows)
	for i := range rows {
		rows[i] = requiredOnly(rows[i])
	}
	writeOther(t, old, rows, requiredSchema(false), parquet.NewWriterProperties(), 100, -1)
	for _, f := range []Filter{{SkipInCheck: true}, {SkipCaptures: true}, {SkipInCheck: true, SkipCaptures: true, MaxScore: 400}} {
		want := readFiltered(t, full, f, nil)
		got := readFiltered(t, old, f, []string{ColGameID, ColPly})
		if len(got) != len(want) || len(want) == len(rows) {
			t.Fatalf("%v: kept %d rows of the old file, %d of the full one, of %d", f, len(got), len(want), len(rows))
		}
		for i := range want {
			if got[i].GameID != want[i].GameID || got[i].Ply != want[i].Ply {
				t.Fatalf("%v: row %d is game %d ply %d, want game %d ply %d", f, i, got[i].GameID, got[i].Ply, want[i].GameID, want[i].Ply)
			}
		}
	}
}

func TestFilterSettingsAreTheFixedNames(t *testing.T) {
	keys, err := configs.Keys(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys, " "); got != "min-ply max-score skip-in-check skip-captures disagree-score" {
		t.Fatalf("filter keys %q", got)
	}
	all := Filter{MinPly: 8, MaxScore: 3000, SkipInCheck: true, SkipCaptures: true, DisagreeScore: 500}
	if s := all.String(); s != "min-ply 8, max-score 3000, skip-in-check, skip-captures, disagree-score 500" {
		t.Errorf("String %q", s)
	}
	if s := (Filter{}).String(); s != "none" {
		t.Errorf("zero filter: %q", s)
	}
	for _, f := range []Filter{{MinPly: -1}, {MaxScore: -1}, {DisagreeScore: -5}} {
		if err := f.Validate(); err == nil {
			t.Errorf("%+v: no error", f)
		}
		if _, err := Open("nowhere.parquet", &ReaderOptions{Filter: f}); err == nil || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%+v: Open took it", f)
		}
	}
	if fmt.Sprint(Filter{MaxScore: -1}.Validate()) != "datasets: -max-score -1: must not be negative (0: off)" {
		t.Errorf("error %v", Filter{MaxScore: -1}.Validate())
	}
}
