package datasets

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/encoder"
)

// TestPlanesPagesReadBackThroughPqarrow writes rows of odd planes through
// the Writer, many planes pages per column chunk, and checks that pqarrow
// reads every value back bit for bit.
func TestPlanesPagesReadBackThroughPqarrow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.parquet")
	want := oddPlanesRows(t, 1500)
	opts := testOptions()
	opts.RowGroupRows = 700 // row groups end mid-batch
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.planes.PageSize = 5000 // many pages per column chunk
	for i := range want {
		if err := w.Write(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for g := range pf.NumRowGroups() {
		pages, err := pf.RowGroup(g).GetColumnPageReader(planesColumn)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for pages.Next() {
			n++
		}
		if n < 4 {
			t.Errorf("row group %d: %d planes pages, want a dictionary page and several data pages", g, n)
		}
	}
	tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	row := 0
	for _, chunk := range tbl.Column(planesColumn).Data().Chunks() {
		l := chunk.(*array.FixedSizeList)
		vals := l.ListValues().(*array.Float32)
		if l.NullN() != 0 || vals.NullN() != 0 {
			t.Fatalf("planes has %d null lists and %d null values", l.NullN(), vals.NullN())
		}
		for i := 0; i < l.Len(); i++ {
			for j := range encoder.InputSize {
				v := vals.Value((l.Data().Offset()+i)*encoder.InputSize + j)
				if math.Float32bits(v) != math.Float32bits(want[row].Planes[j]) {
					t.Fatalf("row %d value %d: %v, want %v", row, j, v, want[row].Planes[j])
				}
			}
			row++
		}
	}
	if row != len(want) {
		t.Fatalf("read %d rows, want %d", row, len(want))
	}
}

// writeWithPqarrow writes rows through arrow-go's generic path (pqarrow
// with the Writer's properties and the store-schema option), a record per
// row group: arrow-go v18.5.0 writes the planes of a record it slices into
// row groups from the slice's start wrong (the second row group gets the
// first one's planes).
func writeWithPqarrow(t *testing.T, path string, rows []Row, opts WriterOptions) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The pairs as the Arrow schema's metadata, which pqarrow writes both
	// into the stored schema and into the footer.
	var keys, values []string
	for _, kv := range writerMetadata(encoder.Chess, opts.EngineVersion, opts.Config) {
		keys, values = append(keys, kv[0]), append(values, kv[1])
	}
	md := arrow.NewMetadata(keys, values)
	fw, err := pqarrow.NewFileWriter(arrow.NewSchema(Schema().Fields(), &md), f, writerProperties(opts),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, Schema())
	defer b.Release()
	for i := range rows {
		if i > 0 && i%opts.RowGroupRows == 0 {
			writeRecord(t, fw, b)
		}
		r := &rows[i]
		b.Field(0).(*array.Int64Builder).Append(r.GameID)
		b.Field(1).(*array.Int32Builder).Append(r.Ply)
		b.Field(2).(*array.StringBuilder).Append(r.FEN)
		pl := b.Field(3).(*array.FixedSizeListBuilder)
		pl.Append(true)
		pl.ValueBuilder().(*array.Float32Builder).AppendValues(r.Planes[:], nil)
		b.Field(4).(*array.StringBuilder).Append(r.Move)
		b.Field(5).(*array.StringBuilder).Append(r.BestMove)
		b.Field(6).(*array.Int32Builder).Append(r.Policy)
		b.Field(7).(*array.Int32Builder).Append(r.ScoreCP)
		b.Field(8).(*array.Float32Builder).Append(r.Result)
		b.Field(9).(*array.BooleanBuilder).Append(r.InCheck)
		b.Field(10).(*array.BooleanBuilder).Append(r.BestIsCapture)
		b.Field(11).(*array.BooleanBuilder).Append(r.BestIsPromotion)
		b.Field(12).(*array.Int32Builder).Append(r.Depth)
		b.Field(13).(*array.Int64Builder).Append(r.Nodes)
		b.Field(14).(*array.StringBuilder).Append(r.Termination.String())
	}
	writeRecord(t, fw, b)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeRecord(t *testing.T, fw *pqarrow.FileWriter, b *array.RecordBuilder) {
	t.Helper()
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
}

// chunkSummary is what a reader learns from a column chunk's metadata
// about how to read it.
func chunkSummary(t *testing.T, c *metadata.ColumnChunkMetaData) string {
	t.Helper()
	var stats []string
	for _, s := range c.EncodingStats() {
		stats = append(stats, fmt.Sprintf("%v/%v", s.PageType, s.Encoding))
	}
	slices.Sort(stats)
	stats = slices.Compact(stats)
	return fmt.Sprintf("path %s, type %v, codec %v, %d values, encodings %v, dictionary page %v, page kinds %v, stats set %v",
		c.PathInSchema(), c.Type(), c.Compression(), c.NumValues(), c.Encodings(), c.HasDictionaryPage(), stats, statsSet(c))
}

// TestFileMatchesArrowGoWriter compares the file with what arrow-go's
// generic writer makes of the same rows: same schema, footer metadata and
// row groups, and every column chunk described alike, planes included
// (dictionary page first, then dictionary-encoded data pages); then reads
// both back to the same rows.
func TestFileMatchesArrowGoWriter(t *testing.T) {
	dir := t.TempDir()
	rows := oddPlanesRows(t, 900)
	opts := testOptions()
	opts.RowGroupRows = 400
	ours, theirs := filepath.Join(dir, "ours.parquet"), filepath.Join(dir, "theirs.parquet")
	writeRows(t, ours, opts, rows)
	writeWithPqarrow(t, theirs, rows, opts)

	open := func(path string) *file.Reader {
		r, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	a, b := open(ours), open(theirs)
	am, bm := a.MetaData(), b.MetaData()
	if !am.Schema.Equals(bm.Schema) {
		t.Errorf("schemas differ:\n%s\n%s", am.Schema, bm.Schema)
	}
	if am.NumRows != bm.NumRows || am.NumRowGroups() != bm.NumRowGroups() || am.Version() != bm.Version() {
		t.Fatalf("%d rows in %d row groups (version %v), arrow-go writes %d in %d (%v)",
			am.NumRows, am.NumRowGroups(), am.Version(), bm.NumRows, bm.NumRowGroups(), bm.Version())
	}
	if got, want := kvPairs(am.KeyValueMetadata()), kvPairs(bm.KeyValueMetadata()); !slices.Equal(got, want) {
		t.Errorf("footer metadata\n got %q\nwant %q", got, want)
	}
	for g := range am.NumRowGroups() {
		ag, bg := am.RowGroup(g), bm.RowGroup(g)
		if ag.NumRows() != bg.NumRows() {
			t.Errorf("row group %d: %d rows, want %d", g, ag.NumRows(), bg.NumRows())
		}
		for c := range ag.NumColumns() {
			ac, err := ag.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			bc, err := bg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := chunkSummary(t, ac), chunkSummary(t, bc); got != want {
				t.Errorf("row group %d column %d:\n got %s\nwant %s", g, c, got, want)
			}
			if ac.HasDictionaryPage() && ac.DictionaryPageOffset() >= ac.DataPageOffset() {
				t.Errorf("row group %d column %d: dictionary page at %d, after the data at %d", g, c, ac.DictionaryPageOffset(), ac.DataPageOffset())
			}
		}
	}

	read := func(path string) []Row {
		got, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	ra, rb := read(ours), read(theirs)
	if len(ra) != len(rows) || len(rb) != len(rows) {
		t.Fatalf("read %d and %d rows, want %d", len(ra), len(rb), len(rows))
	}
	for i := range rows {
		if !sameRow(&ra[i], &rows[i]) {
			t.Fatalf("row %d differs in ours: %+v\nwant %+v", i, ra[i], rows[i])
		}
		if !sameRow(&rb[i], &rows[i]) {
			t.Fatalf("row %d differs in arrow-go's: %+v\nwant %+v", i, rb[i], rows[i])
		}
	}
}

func statsSet(c *metadata.ColumnChunkMetaData) bool {
	ok, err := c.StatsSet()
	return ok && err == nil
}

func kvPairs(kv metadata.KeyValueMetadata) []string {
	var s []string
	for i, k := range kv.Keys() {
		s = append(s, k+"="+kv.Values()[i])
	}
	slices.Sort(s)
	return s
}
