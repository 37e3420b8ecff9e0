package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// writeGame writes g's rows with w and returns them.
func writeGame(t *testing.T, w *Writer, g testGame) []Row {
	t.Helper()
	var rows []Row
	var row Row
	gameRows(t, g, &row, func(r *Row) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, *r)
	})
	return rows
}

// writeGames writes the games' rows to path and returns them.
func writeGames(t *testing.T, path string, games []testGame, opts WriterOptions) []Row {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for _, g := range games {
		rows = append(rows, writeGame(t, w, g)...)
	}
	if _, err := os.Stat(path + TempSuffix); err != nil {
		t.Errorf("while writing, %s should exist: %v", path+TempSuffix, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("while writing, %s should not exist yet", path)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + TempSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close, %s should be gone: %v", path+TempSuffix, err)
	}
	return rows
}

func sameRow(a, b *Row) bool {
	if a.GameID != b.GameID || a.Ply != b.Ply || a.FEN != b.FEN || a.Move != b.Move ||
		a.BestMove != b.BestMove || a.Policy != b.Policy || a.ScoreCP != b.ScoreCP ||
		a.Result != b.Result || a.InCheck != b.InCheck || a.BestIsCapture != b.BestIsCapture ||
		a.BestIsPromotion != b.BestIsPromotion || a.Depth != b.Depth || a.Nodes != b.Nodes ||
		a.Termination != b.Termination {
		return false
	}
	for i := range a.Planes {
		if math.Float32bits(a.Planes[i]) != math.Float32bits(b.Planes[i]) {
			return false
		}
	}
	return true
}

func TestRoundTripReadsBackEveryRowIdentically(t *testing.T) {
	games := playGames(1, 9, 150)
	path := filepath.Join(t.TempDir(), "games.parquet")
	opts := testOptions()
	opts.RowGroupRows = 400 // several row groups, batch and group boundaries mid-game
	opts.Metadata = map[string]string{"chessforge.note": "round trip"}
	want := writeGames(t, path, games, opts)
	if len(want) < 1000 {
		t.Fatalf("only %d rows written", len(want))
	}
	terms := map[Termination]bool{}
	for _, r := range want {
		terms[r.Termination] = true
	}

	rd, err := Open(path, &ReaderOptions{BatchRows: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var got Row
	for i := range want {
		if err := rd.Read(&got); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if !sameRow(&got, &want[i]) {
			t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got.FEN, want[i].FEN)
		}
	}
	if err := rd.Read(&got); err != io.EOF {
		t.Fatalf("after the last row: %v, want io.EOF", err)
	}

	infos, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	in := infos[0]
	if in.Rows != int64(len(want)) || in.RowGroups != (len(want)+399)/400 {
		t.Errorf("Stat: %d rows in %d row groups, want %d rows in %d", in.Rows, in.RowGroups, len(want), (len(want)+399)/400)
	}
	for k, v := range map[string]string{
		KeySchemaVersion: "1", KeyPlanes: "18x8x8-v1", KeyPolicy: "73x8x8-v1", KeyFormat: "docs/format.md",
		KeyEngineVersion: "chessforge-test", KeyConfig: `{"seed":1,"source":"playout"}`,
		"chessforge.note": "round trip",
	} {
		if in.Metadata[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, in.Metadata[k], v)
		}
	}
	for i, f := range in.Schema.Fields() {
		if f.Name != columns[i].Name || !arrow.TypeEqual(f.Type, columns[i].Type) || f.Nullable {
			t.Errorf("stored schema field %d is %s, want %s non-nullable", i, f, columns[i])
		}
	}
	t.Logf("%d rows, %d games, terminations %v, %d bytes", len(want), len(games), terms, in.Size)
}

// TestPlanesReadBackAsFixedSizeListWithoutNulls reads the file with plain
// pqarrow, as any Arrow user would: planes must come back as a fixed-size
// list with no null anywhere (arrow-go before v18.5 wrote them as nulls).
func TestPlanesReadBackAsFixedSizeListWithoutNulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.parquet")
	want := writeGames(t, path, playGames(2, 3, 60), testOptions())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != int64(len(want)) {
		t.Fatalf("%d rows, want %d", tbl.NumRows(), len(want))
	}
	col := tbl.Column(3)
	if col.Name() != ColPlanes || col.DataType().ID() != arrow.FIXED_SIZE_LIST {
		t.Fatalf("column 3 is %s %s, want planes fixed_size_list", col.Name(), col.DataType())
	}
	row := 0
	for _, chunk := range col.Data().Chunks() {
		l := chunk.(*array.FixedSizeList)
		vals := l.ListValues().(*array.Float32)
		if l.NullN() != 0 || vals.NullN() != 0 {
			t.Fatalf("planes has %d null lists and %d null values", l.NullN(), vals.NullN())
		}
		for i := 0; i < l.Len(); i++ {
			for j := 0; j < encoder.InputSize; j++ {
				if v := vals.Value((l.Data().Offset()+i)*encoder.InputSize + j); v != want[row].Planes[j] {
					t.Fatalf("row %d value %d: %v, want %v", row, j, v, want[row].Planes[j])
				}
			}
			row++
		}
	}
}

// TestStoredArrowSchemaCarriesTheMetadata: readers that take a file's
// metadata from its stored Arrow schema (pqarrow here; pyarrow's read_table
// and read_schema) see every footer pair, those SetMetadata adds before
// Close included.
func TestStoredArrowSchemaCarriesTheMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.parquet")
	opts := testOptions()
	opts.Metadata = map[string]string{"chessforge.note": "given to Create"}
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	writeGame(t, w, playGames(4, 1, 40)[0])
	if err := w.SetMetadata("chessforge.summary", "set before Close"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	infos, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	footer := infos[0].Metadata
	if footer["chessforge.summary"] != "set before Close" || footer[KeyConfig] == "" {
		t.Fatalf("footer pairs %v lack the summary or the config", footer)
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	md := stored.Metadata()
	if md.Len() != len(footer) {
		t.Errorf("the stored schema has %d pairs %v, the footer %d besides %s", md.Len(), md.Keys(), len(footer), KeyArrowSchema)
	}
	for k, v := range footer {
		if got, ok := md.GetValue(k); !ok || got != v {
			t.Errorf("stored schema's %s = %q (present %v), footer's %q", k, got, ok, v)
		}
	}
	for i, f := range SchemaOf(encoder.Chess).Fields() {
		if g := stored.Field(i); g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			t.Errorf("stored schema's field %d is %s, want %s", i, g, f)
		}
	}
}

func TestReadBatchAndColumnSelection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.parquet")
	want := writeGames(t, path, playGames(3, 5, 100), testOptions())
	rd, err := Open(path, &ReaderOptions{Columns: []string{ColGameID, ColPly, ColResult}, BatchRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b Batch
	n := 0
	for {
		err := rd.ReadBatch(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Len > 100 || len(b.GameID) != b.Len || len(b.Planes) != 0 || len(b.FEN) != 0 {
			t.Fatalf("batch of %d rows with %d game ids, %d plane values, %d FENs", b.Len, len(b.GameID), len(b.Planes), len(b.FEN))
		}
		for i := 0; i < b.Len; i++ {
			if b.GameID[i] != want[n].GameID || b.Ply[i] != want[n].Ply || b.Result[i] != want[n].Result {
				t.Fatalf("row %d differs", n)
			}
			n++
		}
	}
	if n != len(want) {
		t.Fatalf("read %d rows, want %d", n, len(want))
	}
}

func TestDirectoryAndGlobReadShardsInOrder(t *testing.T) {
	dir := t.TempDir()
	var want []Row
	for i, name := range []string{"part-000.parquet", "part-001.parquet", "part-002.parquet"} {
		want = append(want, writeGames(t, filepath.Join(dir, name), playGames(uint64(10+i), 2, 40), testOptions())...)
	}
	// An unfinished shard and a stray file are not part of the dataset.
	if err := os.WriteFile(filepath.Join(dir, "part-003.parquet.tmp"), []byte("half written"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, filepath.Join(dir, "part-*.parquet"), filepath.Join(dir, "part-*")} {
		rd, err := Open(path, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if rd.NumRows() != int64(len(want)) {
			t.Errorf("%s: NumRows %d, want %d", path, rd.NumRows(), len(want))
		}
		if len(rd.Files()) != 3 {
			t.Errorf("%s: files %v, want the three shards", path, rd.Files())
		}
		var got Row
		for i := range want {
			if err := rd.Read(&got); err != nil {
				t.Fatalf("%s row %d: %v", path, i, err)
			}
			if !sameRow(&got, &want[i]) {
				t.Fatalf("%s row %d differs", path, i)
			}
		}
		if err := rd.Read(&got); err != io.EOF {
			t.Fatalf("%s: after the last row: %v", path, err)
		}
		rd.Close()
	}
}

// writeCustom writes a one-row Parquet file with the given schema (every
// column filled with a plausible value) and metadata, as another tool might.
func writeCustom(t *testing.T, path string, schema *arrow.Schema, meta map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range meta {
		fw.AppendKeyValueMetadata(k, v)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range schema.Fields() {
		switch fb := b.Field(i).(type) {
		case *array.Int64Builder:
			fb.Append(1)
		case *array.Int32Builder:
			fb.Append(1)
		case *array.Float32Builder:
			fb.Append(1)
		case *array.StringBuilder:
			fb.Append("checkmate")
		case *array.BooleanBuilder:
			fb.Append(false)
		case *array.FixedSizeListBuilder:
			fb.Append(true)
			for range encoder.InputSize {
				fb.ValueBuilder().(*array.Float32Builder).Append(0)
			}
		case *array.ListBuilder:
			fb.Append(true)
			fb.ValueBuilder().(*array.Float32Builder).Append(0)
		default:
			t.Fatalf("no filler for %T", fb)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

func goodMeta() map[string]string {
	return map[string]string{KeySchemaVersion: "1", KeyPlanes: "18x8x8-v1", KeyPolicy: "73x8x8-v1", KeyEngineVersion: "x", KeyConfig: "{}"}
}

func TestOpenRejectsBadFilesNamingThem(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeGames(t, good, playGames(4, 2, 40), testOptions())
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	fields := append([]arrow.Field(nil), columns[:numRequired]...)
	without := func(name string) *arrow.Schema {
		var fs []arrow.Field
		for _, f := range fields {
			if f.Name != name {
				fs = append(fs, f)
			}
		}
		return arrow.NewSchema(fs, nil)
	}
	retyped := func(name string, dt arrow.DataType) *arrow.Schema {
		fs := append([]arrow.Field(nil), fields...)
		fs[columnIndex(name)].Type = dt
		return arrow.NewSchema(fs, nil)
	}
	meta := func(k, v string) map[string]string {
		m := goodMeta()
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name, file string
		make       func(path string)
		wantErr    string
	}{
		{"missing column", "nopolicy.parquet", func(p string) { writeCustom(t, p, without(ColPolicy), goodMeta()) }, `missing column "policy"`},
		{"wrong type", "ply64.parquet", func(p string) {
			writeCustom(t, p, retyped(ColPly, arrow.PrimitiveTypes.Int64), goodMeta())
		}, `column "ply" has type int64, want int32`},
		{"planes as a plain list", "list.parquet", func(p string) {
			writeCustom(t, p, retyped(ColPlanes, arrow.ListOf(arrow.PrimitiveTypes.Float32)), goodMeta())
		}, `column "planes" has type list`},
		{"unknown schema version", "v2.parquet", func(p string) { writeCustom(t, p, arrow.NewSchema(fields, nil), meta(KeySchemaVersion, "2")) }, `chessforge.schema_version is "2"`},
		{"not a chessforge dataset", "other.parquet", func(p string) { writeCustom(t, p, arrow.NewSchema(fields, nil), meta(KeySchemaVersion, "")) }, "not a chessforge dataset"},
		{"other planes layout", "planes.parquet", func(p string) { writeCustom(t, p, arrow.NewSchema(fields, nil), meta(KeyPlanes, "112x8x8")) }, `chessforge.planes is "112x8x8"`},
		{"truncated", "cut.parquet", func(p string) { os.WriteFile(p, data[:len(data)/2], 0o644) }, "a truncated Parquet file: it starts with \"PAR1\" but does not end with it"},
		{"not parquet", "text.parquet", func(p string) { os.WriteFile(p, []byte("game_id,ply\n1,2\n"), 0o644) }, "not a Parquet file: it does not start with \"PAR1\""},
		{"empty", "empty.parquet", func(p string) { os.WriteFile(p, nil, 0o644) }, "not a Parquet file: it does not start with \"PAR1\""},
		{"footer cut off", "nofooter.parquet", func(p string) {
			os.WriteFile(p, append(append([]byte{}, data[:len(data)/2]...), "PAR1"...), 0o644)
		}, "not a readable Parquet file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			os.Mkdir(sub, 0o755)
			path := filepath.Join(sub, tc.file)
			tc.make(path)
			for _, open := range []func() error{
				func() error { _, err := Open(path, nil); return err },
				func() error { _, err := Stat(path); return err },
				func() error { // the bad file among good shards
					os.WriteFile(filepath.Join(sub, "a-good.parquet"), data, 0o644)
					_, err := Open(sub, nil)
					return err
				},
			} {
				err := open()
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %v; want one naming %s and saying %q", err, path, tc.wantErr)
				}
			}
		})
	}
}

func TestCorruptPageIsReportedWithTheFileName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.parquet")
	writeGames(t, path, playGames(6, 8, 100), testOptions())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite the middle of the column data, leaving the footer intact.
	for i := 4 + len(data)/4; i < len(data)/2; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err := Open(path, nil)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %v does not name the file", err)
		}
		return
	}
	var b Batch
	for {
		err = rd.ReadBatch(&b)
		if err != nil {
			break
		}
	}
	if err == io.EOF || !strings.Contains(err.Error(), path) {
		t.Fatalf("reading a corrupt file: %v; want an error naming %s", err, path)
	}
	t.Logf("reading: %v", err)
}

func TestWriterRejectsInvalidRowsAndOptions(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(filepath.Join(dir, "a.parquet"), WriterOptions{Config: []byte(`{"seed":1}`)}); err == nil {
		t.Error("Create without an engine version: want an error")
	}
	if _, err := Create(filepath.Join(dir, "a.parquet"), WriterOptions{EngineVersion: "x", Config: []byte("{seed:")}); err == nil {
		t.Error("Create with invalid JSON config: want an error")
	}
	if _, err := Create(filepath.Join(dir, "a.parquet"), WriterOptions{EngineVersion: "x", Config: []byte(`[1,2]`)}); err == nil {
		t.Error("Create with a config that is not a JSON object: want an error")
	}
	for _, k := range WriterKeys() {
		if _, err := Create(filepath.Join(dir, "a.parquet"), WriterOptions{EngineVersion: "x", Config: []byte(`{"seed":1}`), Metadata: map[string]string{k: "x"}}); err == nil {
			t.Errorf("Create overriding %s: want an error", k)
		}
	}
	path := filepath.Join(dir, "rows.parquet")
	w, err := Create(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var good Row
	if err := good.SetPosition(board.NewPosition(), 0, board.NewMove(12, 28), board.NewMove(12, 28)); err != nil {
		t.Fatal(err)
	}
	good.Result, good.Termination = 0.5, TerminationAdjudicatedDraw
	bad := []func(r *Row){
		func(r *Row) { r.FEN = "" },
		func(r *Row) { r.Policy = encoder.PolicySize },
		func(r *Row) { r.Result = 0.25 },
		func(r *Row) { r.Termination = TerminationUnknown },
		func(r *Row) { r.Planes[100] = 0.305 },
		func(r *Row) { r.Planes[1151] = float32(math.NaN()) },
		func(r *Row) { r.Planes[0] = 2 },
	}
	for i, mutate := range bad {
		r := good
		mutate(&r)
		if err := w.Write(&r); err == nil {
			t.Errorf("bad row %d accepted", i)
		}
	}
	if err := w.Write(&good); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	infos, err := Stat(path)
	if err != nil || infos[0].Rows != 1 {
		t.Fatalf("after rejecting bad rows the file should hold the one good row: %v, %v", infos, err)
	}
	if err := w.Write(&good); err == nil {
		t.Error("Write after Close: want an error")
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	w, err := Create(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	writeGame(t, w, playGames(7, 1, 50)[0])
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("after Abort the directory holds %v", entries)
	}
}

func TestEmptyFileIsValid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.parquet")
	w, err := Create(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var row Row
	if err := rd.Read(&row); err != io.EOF {
		t.Fatalf("reading an empty dataset: %v, want io.EOF", err)
	}
}

func TestSetPositionFillsDerivedColumns(t *testing.T) {
	pos, err := board.ParseFEN("3r4/4P3/8/8/8/2k5/8/4K3 w - - 0 60")
	if err != nil {
		t.Fatal(err)
	}
	promo, _ := pos.ParseUCIMove("e7d8q")
	quiet, _ := pos.ParseUCIMove("e1e2")
	var r Row
	if err := r.SetPosition(pos, 30, quiet, promo); err != nil {
		t.Fatal(err)
	}
	if r.Ply != 30 || r.Move != "e1e2" || r.BestMove != "e7d8q" || !r.BestIsCapture || !r.BestIsPromotion || r.InCheck {
		t.Errorf("SetPosition: %+v", r)
	}
	if idx, _ := encoder.PolicyIndex(promo); r.Policy != int32(idx) {
		t.Errorf("policy %d, want %d", r.Policy, idx)
	}
	if r.Planes.At(0, 6, 4) != 1 || r.FEN != pos.FEN() {
		t.Errorf("planes or FEN not filled")
	}
	if err := r.SetPosition(pos, 0, board.NewMove(board.A1, board.A8), promo); err == nil {
		t.Error("an illegal played move: want an error")
	}
}

func TestFilesResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	if _, err := Files(dir); err == nil || !strings.Contains(err.Error(), "no .parquet files") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Files(filepath.Join(dir, "nothing.parquet")); err == nil {
		t.Error("missing file: want an error")
	}
	if _, err := Files(filepath.Join(dir, "*.parquet")); err == nil {
		t.Error("glob with no match: want an error")
	}
}

func TestTerminationNamesRoundTrip(t *testing.T) {
	want := []string{"checkmate", "stalemate", "threefold", "fifty-move", "insufficient material", "adjudicated win", "adjudicated draw", "ply cap", "no moves", "forty-move"}
	got := Terminations()
	if len(got) != len(want) {
		t.Fatalf("%d terminations, want %d", len(got), len(want))
	}
	for i, term := range got {
		if term.String() != want[i] {
			t.Errorf("termination %d is %q, want %q", i, term, want[i])
		}
		if p, err := ParseTermination(want[i]); err != nil || p != term {
			t.Errorf("ParseTermination(%q) = %v, %v", want[i], p, err)
		}
	}
	if _, err := ParseTermination("resigned"); err == nil {
		t.Error("unknown termination: want an error")
	}
}

func TestRuleTerminationIsTheOutcomeThePGNResultNames(t *testing.T) {
	for o := board.Checkmate; o <= board.InsufficientMaterial; o++ {
		_, name := pgn.RuleResult(o, board.White)
		if term := RuleTermination(o); term.String() != name || !slices.Contains(Terminations(), term) {
			t.Errorf("RuleTermination(%v) = %v, want the valid termination %q", o, term, name)
		}
	}
	if RuleTermination(board.Ongoing) != TerminationUnknown {
		t.Error("RuleTermination(Ongoing): want TerminationUnknown")
	}
}

// TestReaderTakesFilesOfOtherWriters reads a file with only the required
// columns and one with an extra column, as another tool may write: the
// missing self-play columns stay zero, the unknown column is ignored.
func TestReaderTakesFilesOfOtherWriters(t *testing.T) {
	dir := t.TempDir()
	required := arrow.NewSchema(columns[:numRequired], nil)
	extra := arrow.NewSchema(append(append([]arrow.Field(nil), columns[:numRequired]...),
		arrow.Field{Name: "wdl_draw", Type: arrow.PrimitiveTypes.Float32}), nil)
	for _, tc := range []struct {
		name   string
		schema *arrow.Schema
	}{{"required.parquet", required}, {"extra.parquet", extra}} {
		path := filepath.Join(dir, tc.name)
		writeCustom(t, path, tc.schema, goodMeta())
		rd, err := Open(path, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var r Row
		if err := rd.Read(&r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.GameID != 1 || r.FEN != "checkmate" || r.Termination != TerminationUnknown || r.Depth != 0 {
			t.Errorf("%s: read %+v", tc.name, r)
		}
		if err := rd.Read(&r); err != io.EOF {
			t.Errorf("%s: after the only row: %v", tc.name, err)
		}
		rd.Close()
	}
	if _, err := Open(filepath.Join(dir, "required.parquet"), &ReaderOptions{Columns: []string{ColDepth}}); err == nil ||
		!strings.Contains(err.Error(), `missing column "depth"`) {
		t.Errorf("asking for a column the file lacks: %v", err)
	}
}

// TestMetadataIsWrittenInKeyOrder: the same options write the same bytes,
// whatever order Go's map iteration takes over several metadata keys.
func TestMetadataIsWrittenInKeyOrder(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.Metadata = map[string]string{}
	for _, k := range []string{"z.one", "a.two", "m.three", "b.four", "y.five", "c.six", "x.seven", "d.eight"} {
		opts.Metadata[k] = k
	}
	var first []byte
	for i := range 8 {
		path := filepath.Join(dir, fmt.Sprintf("m%d.parquet", i))
		w, err := Create(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = data
		} else if !bytes.Equal(data, first) {
			t.Fatalf("write %d differs from the first", i)
		}
	}
}
