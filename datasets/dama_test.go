package datasets

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/encoder"
	"chessforge/engine/dama"
)

// damaRows plays n random draughts games and returns their rows, each
// game's best move a random legal move and its result what the rules give
// (a ply cap at maxPlies otherwise).
func damaRows(t testing.TB, seed uint64, n, maxPlies int) []Row {
	rng := rand.New(rand.NewPCG(seed, 5))
	var rows []Row
	var list dama.MoveList
	for g := range n {
		pos := dama.StartPosition()
		start := len(rows)
		term, result := TerminationPlyCap, float32(0.5)
		for range maxPlies {
			if o := pos.Outcome(); o != dama.Ongoing {
				term, result = DamaRuleTermination(o, pos.SideToMove())
				break
			}
			pos.GenerateMoves(&list)
			played, best := list.At(rng.IntN(list.Len())), list.At(rng.IntN(list.Len()))
			rows = append(rows, Row{})
			r := &rows[len(rows)-1]
			if err := r.SetDamaPosition(pos, 0, played, best); err != nil {
				t.Fatal(err)
			}
			r.GameID, r.ScoreCP, r.Depth, r.Nodes = int64(seed)<<32|int64(g), int32(rng.IntN(600)-300), 3, 1000
			pos.MakeMove(played)
		}
		for i := start; i < len(rows); i++ {
			rows[i].Termination, rows[i].Result = term, result
		}
	}
	return rows
}

func damaOptions() WriterOptions {
	o := testOptions()
	o.Layout = encoder.Dama
	return o
}

func TestDamaDatasetRoundTrips(t *testing.T) {
	want := damaRows(t, 1, 30, 200)
	path := filepath.Join(t.TempDir(), "dama.parquet")
	opts := damaOptions()
	opts.RowGroupRows = 700 // several row groups
	writeRows(t, path, opts, want)

	infos, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	in := infos[0]
	if in.Layout != encoder.Dama || in.Metadata[KeyGame] != "dama" || in.Metadata[KeyPlanes] != encoder.Dama.Planes ||
		in.Metadata[KeyPolicy] != encoder.Dama.Policy {
		t.Errorf("layout %v, metadata %v", in.Layout, in.Metadata)
	}
	i := in.Schema.FieldIndices(ColPlanes)
	if got := in.Schema.Field(i[0]).Type.String(); got != PlanesTypeOf(encoder.Dama).String() || !strings.Contains(got, "[448]") {
		t.Errorf("planes type %s", got)
	}
	got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows back, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameRow(&got[i], &want[i]) || got[i].Planes != want[i].Planes {
			t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got[i].FEN, want[i].FEN)
		}
	}
	// The batch says the layout, and holds 448 values a row.
	r, err := Open(path, &ReaderOptions{BatchRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b Batch
	if err := r.ReadBatch(&b); err != nil {
		t.Fatal(err)
	}
	if r.Layout() != encoder.Dama || b.Layout != encoder.Dama || len(b.Planes) != b.Len*448 {
		t.Errorf("reader layout %v, batch layout %v, %d plane values for %d rows", r.Layout(), b.Layout, len(b.Planes), b.Len)
	}
}

func TestDamaReadFilters(t *testing.T) {
	rows := damaRows(t, 2, 20, 150)
	path := filepath.Join(t.TempDir(), "dama.parquet")
	writeRows(t, path, damaOptions(), rows)
	f := Filter{SkipCaptures: true, SkipInCheck: true, MinPly: 4}
	r, err := Open(path, &ReaderOptions{Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kept := 0
	var row Row
	for {
		err := r.Read(&row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if row.BestIsCapture || row.BestIsPromotion || row.Ply < 4 {
			t.Fatalf("kept %s best %s ply %d", row.FEN, row.BestMove, row.Ply)
		}
		kept++
	}
	want := 0
	captures := 0
	for i := range rows {
		if f.Keep(&rows[i]) {
			want++
		}
		if rows[i].BestIsCapture {
			captures++
		}
	}
	if kept != want || captures == 0 || kept == len(rows) {
		t.Errorf("kept %d rows, want %d of %d (%d captures)", kept, want, len(rows), captures)
	}
}

func TestChessFilesHaveNoGameKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chess.parquet")
	var rows []Row
	var row Row
	gameRows(t, playGames(1, 1, 20)[0], &row, func(r *Row) { rows = append(rows, *r) })
	writeRows(t, path, testOptions(), rows)
	infos, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := infos[0].Metadata[KeyGame]; ok || infos[0].Layout != encoder.Chess {
		t.Errorf("a chess file: metadata %v, layout %v", infos[0].Metadata, infos[0].Layout)
	}
}

func TestADatasetHoldsOneGame(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, filepath.Join(dir, "a.parquet"), damaOptions(), damaRows(t, 3, 2, 40))
	var rows []Row
	var row Row
	gameRows(t, playGames(1, 1, 20)[0], &row, func(r *Row) { rows = append(rows, *r) })
	writeRows(t, filepath.Join(dir, "b.parquet"), testOptions(), rows)
	for name, fn := range map[string]func() error{
		"Open": func() error { _, err := Open(dir, nil); return err },
		"Stat": func() error { _, err := Stat(dir); return err },
	} {
		err := fn()
		if err == nil || !strings.Contains(err.Error(), "a dataset holds one game") ||
			!strings.Contains(err.Error(), "a.parquet holds dama") || !strings.Contains(err.Error(), "b.parquet holds chess") {
			t.Errorf("%s of a directory with a draughts and a chess file: %v", name, err)
		}
	}
}

func TestDamaWriterRejectsBadRows(t *testing.T) {
	rows := damaRows(t, 4, 1, 10)
	for name, mutate := range map[string]func(r *Row){
		"a chess planes value":    func(r *Row) { r.Planes[6*64] = 0.01 },
		"a policy past the index": func(r *Row) { r.Policy = int32(encoder.Dama.PolicySize()) },
	} {
		w, err := Create(filepath.Join(t.TempDir(), "x.parquet"), damaOptions())
		if err != nil {
			t.Fatal(err)
		}
		r := rows[0]
		mutate(&r)
		if err := w.Write(&r); err == nil {
			t.Errorf("%s: no error", name)
		}
		w.Abort()
	}
	// The quiet plane's steps are eightieths: 1/80 is a value, 1/100 is not.
	w, err := Create(filepath.Join(t.TempDir(), "x.parquet"), damaOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	r := rows[0]
	for i := range 64 {
		r.Planes[encoder.DamaPlaneQuiet*64+i] = encoder.Dama.ClockValue(1)
	}
	if err := w.Write(&r); err != nil {
		t.Errorf("quiet plies 1/80: %v", err)
	}
}

func TestUnknownGameIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	opts := damaOptions()
	writeRows(t, path, opts, damaRows(t, 5, 1, 10))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, another game name in the footer.
	bad := strings.Replace(string(data), "\x04dama", "\x04dame", 1)
	if bad == string(data) {
		t.Fatal("the footer's game value not found")
	}
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Stat(path); err == nil || !strings.Contains(err.Error(), `chessforge.game is "dame"`) {
		t.Errorf("a file of an unknown game: %v", err)
	}
}

func TestDamaRuleTermination(t *testing.T) {
	for _, c := range []struct {
		o      dama.Outcome
		side   dama.Color
		term   string
		result float32
	}{
		{dama.NoMoves, dama.White, "no moves", 0},
		{dama.NoMoves, dama.Black, "no moves", 1},
		{dama.DrawRepetition, dama.Black, "threefold", 0.5},
		{dama.DrawQuiet, dama.White, "forty-move", 0.5},
		{dama.Ongoing, dama.White, "unknown", 0.5},
	} {
		term, res := DamaRuleTermination(c.o, c.side)
		if term.String() != c.term || res != c.result {
			t.Errorf("%v, %v to move: %v %v, want %s %v", c.o, c.side, term, res, c.term, c.result)
		}
		if c.o != dama.Ongoing && term.String() != c.o.String() {
			t.Errorf("%v ends as %q, not by its own name", c.o, term)
		}
	}
}
