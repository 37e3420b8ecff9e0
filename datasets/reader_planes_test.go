package datasets

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/encoder"
)

// writeOther writes rows through pqarrow with the given Arrow schema (the
// dataset's columns, in any order and nullability) and Parquet properties,
// groupRows rows per record and so per row group, as another tool might.
// Row nullRow's planes hold a null value (-1: none).
func writeOther(t *testing.T, path string, rows []Row, schema *arrow.Schema, props *parquet.WriterProperties, groupRows, nullRow int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fw, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range goodMeta() {
		fw.AppendKeyValueMetadata(k, v)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range rows {
		if i > 0 && i%groupRows == 0 {
			writeRecord(t, fw, b)
		}
		r := &rows[i]
		for j, fd := range schema.Fields() {
			switch fb := b.Field(j); fd.Name {
			case ColGameID:
				fb.(*array.Int64Builder).Append(r.GameID)
			case ColPly:
				fb.(*array.Int32Builder).Append(r.Ply)
			case ColFEN:
				fb.(*array.StringBuilder).Append(r.FEN)
			case ColPlanes:
				pl := fb.(*array.FixedSizeListBuilder)
				pl.Append(true)
				var valid []bool
				if i == nullRow {
					valid = make([]bool, encoder.InputSize)
					for k := range valid {
						valid[k] = k != 5
					}
				}
				pl.ValueBuilder().(*array.Float32Builder).AppendValues(r.Planes[:], valid)
			case ColMove:
				fb.(*array.StringBuilder).Append(r.Move)
			case ColBestMove:
				fb.(*array.StringBuilder).Append(r.BestMove)
			case ColPolicy:
				fb.(*array.Int32Builder).Append(r.Policy)
			case ColScoreCP:
				fb.(*array.Int32Builder).Append(r.ScoreCP)
			case ColResult:
				fb.(*array.Float32Builder).Append(r.Result)
			default:
				t.Fatalf("no filler for column %s", fd.Name)
			}
		}
	}
	writeRecord(t, fw, b)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// readRows reads every row of path, through the planes fast path unless
// generic, and reports whether the fast path read any file.
func readRows(t *testing.T, path string, generic bool, opts *ReaderOptions) (rows []Row, fast bool) {
	t.Helper()
	rd, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.generic = generic
	var b Batch
	for {
		err := rd.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			return rows, fast
		}
		if err != nil {
			t.Fatalf("generic %v: %v", generic, err)
		}
		fast = fast || rd.planes != nil
		for i := range b.Len {
			var r Row
			b.Row(i, &r)
			rows = append(rows, r)
		}
	}
}

// requiredSchema is the required columns in another order, planes last, as
// another tool might write them; nullable makes the planes list and its
// elements nullable.
func requiredSchema(nullable bool) *arrow.Schema {
	var fs []arrow.Field
	for _, f := range columns[:numRequired] {
		if f.Name == ColPlanes {
			continue
		}
		fs = append(fs, f)
	}
	pl := arrow.Field{Name: ColPlanes, Type: PlanesType}
	if nullable {
		pl = arrow.Field{Name: ColPlanes, Type: arrow.FixedSizeListOf(encoder.InputSize, arrow.PrimitiveTypes.Float32), Nullable: true}
	}
	return arrow.NewSchema(append([]arrow.Field{fs[1], fs[0]}, append(fs[2:], pl)...), nil)
}

// requiredOnly keeps the columns of r that writeOther writes.
func requiredOnly(r Row) Row {
	return Row{GameID: r.GameID, Ply: r.Ply, FEN: r.FEN, Planes: r.Planes, Move: r.Move, BestMove: r.BestMove,
		Policy: r.Policy, ScoreCP: r.ScoreCP, Result: r.Result}
}

// TestPlanesFastPathReadsWhatPqarrowReads reads files of our writer and of
// pqarrow with many encodings both through the planes fast path and
// through pqarrow alone, and checks both give back the rows written, planes
// bit for bit; the shapes the fast path does not take go through pqarrow.
func TestPlanesFastPathReadsWhatPqarrowReads(t *testing.T) {
	dir := t.TempDir()
	rows := oddPlanesRows(t, 320)
	zstd := parquet.WithCompression(compress.Codecs.Zstd)
	small := parquet.WithDataPageSize(16 << 10) // several pages per column chunk
	// arrow-go v18.5.0 loops forever writing v2 pages of lists longer than
	// its write batch (1,024 levels by default): it looks back from the
	// batch's end for a row start and finds none.
	v2batch := parquet.WithBatchSize(4 * encoder.InputSize)
	// Since v18.8.0 arrow-go keeps a dictionary that outgrows its limit
	// only when a dictionary-encoded page was cut before (else it rewrites
	// the values PLAIN): pages of 2 KiB cut one within the first row, a
	// real position with few distinct values, before the second row's
	// random values overflow the 200-byte dictionary.
	dictThenPlain := []parquet.WriterProperty{parquet.WithDataPageSize(2 << 10), parquet.WithDictionaryPageSizeLimit(200)}
	cases := []struct {
		name   string
		write  func(t *testing.T, path string) []Row
		fast   bool
		groups int    // at least this many row groups
		pages  int    // and planes pages in the first one
		kinds  string // among them pages of these kinds
	}{
		{"writer", func(t *testing.T, path string) []Row {
			opts := testOptions()
			opts.RowGroupRows = 103
			w, err := Create(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			w.planes.PageSize = 2000
			for i := range rows {
				if err := w.Write(&rows[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return rows
		}, true, 3, 4, "dictionary PLAIN, v1 RLE_DICTIONARY"},
		{"pqarrow dictionary v1", pqarrowCase(rows, false, zstd, small), true, 3, 3, "dictionary PLAIN, v1 RLE_DICTIONARY"},
		{"pqarrow dictionary v1 format 1.0", pqarrowCase(rows, false, small, parquet.WithVersion(parquet.V1_0)), true, 3, 3, "dictionary PLAIN_DICTIONARY, v1 PLAIN_DICTIONARY"},
		{"pqarrow dictionary v2", pqarrowCase(rows, false, zstd, small, parquet.WithDataPageVersion(parquet.DataPageV2), v2batch), true, 3, 3, "dictionary PLAIN, v2 RLE_DICTIONARY"},
		{"pqarrow dictionary then plain", pqarrowCase(rows, false, append(dictThenPlain, zstd)...), true, 3, 3, "dictionary PLAIN, v1 RLE_DICTIONARY, v1 PLAIN"},
		{"pqarrow plain v1", pqarrowCase(rows, false, small, parquet.WithDictionaryDefault(false)), true, 3, 3, "v1 PLAIN"},
		{"pqarrow plain v2", pqarrowCase(rows, false, zstd, small, parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2), v2batch), true, 3, 3, "v2 PLAIN"},
		{"pqarrow byte stream split", pqarrowCase(rows, false, zstd, parquet.WithDictionaryDefault(false), parquet.WithEncodingFor(planesPath, parquet.Encodings.ByteStreamSplit)), false, 3, 1, "v1 BYTE_STREAM_SPLIT"},
		{"pqarrow nullable", pqarrowCase(rows, true, zstd), false, 3, 1, "dictionary PLAIN, v1 RLE_DICTIONARY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".parquet")
			want := tc.write(t, path)
			kinds := checkShape(t, path, tc.groups, tc.pages)
			for _, k := range strings.Split(tc.kinds, ", ") {
				if !kinds[k] {
					t.Errorf("no %s page in row group 0: %v", k, kinds)
				}
			}
			generic, _ := readRows(t, path, true, nil)
			if len(generic) != len(want) {
				t.Fatalf("pqarrow read %d rows, want %d", len(generic), len(want))
			}
			for _, opts := range []*ReaderOptions{nil, {BatchRows: 100}, {Columns: []string{ColPlanes}, BatchRows: 77}} {
				got, fast := readRows(t, path, false, opts)
				if fast != tc.fast {
					t.Errorf("options %+v: fast path %v, want %v", opts, fast, tc.fast)
				}
				if len(got) != len(want) {
					t.Fatalf("options %+v: read %d rows, want %d", opts, len(got), len(want))
				}
				for i := range want {
					if !samePlanes(&got[i].Planes, &generic[i].Planes) || !samePlanes(&got[i].Planes, &want[i].Planes) {
						t.Fatalf("options %+v: row %d planes differ from pqarrow's or from those written", opts, i)
					}
					if opts == nil && !sameRow(&got[i], &generic[i]) {
						t.Fatalf("row %d differs from pqarrow's:\n%+v\n%+v", i, got[i], generic[i])
					}
				}
			}
		})
	}
}

func samePlanes(a, b *encoder.Planes) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// pqarrowCase returns a writer of rows' required columns through pqarrow
// with the given properties, in row groups of 100 rows.
func pqarrowCase(rows []Row, nullable bool, props ...parquet.WriterProperty) func(*testing.T, string) []Row {
	return func(t *testing.T, path string) []Row {
		want := make([]Row, len(rows))
		for i := range rows {
			want[i] = requiredOnly(rows[i])
		}
		writeOther(t, path, want, requiredSchema(nullable), parquet.NewWriterProperties(props...), 100, -1)
		return want
	}
}

// checkShape checks that the file at path has at least groups row groups
// and pages planes pages (dictionary pages included) in the first, and
// returns the kinds of those pages: "dictionary PLAIN", "v2 RLE_DICTIONARY"...
func checkShape(t *testing.T, path string, groups, pages int) map[string]bool {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if pf.NumRowGroups() < groups {
		t.Fatalf("%d row groups, want at least %d", pf.NumRowGroups(), groups)
	}
	col := pf.MetaData().Schema.ColumnIndexByName(planesPath)
	pr, err := pf.RowGroup(0).GetColumnPageReader(col)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	kinds := map[string]bool{}
	for pr.Next() {
		n++
		kind := map[file.PageType]string{file.PageTypeDictionaryPage: "dictionary", file.PageTypeDataPage: "v1", file.PageTypeDataPageV2: "v2"}[pr.Page().Type()]
		kinds[kind+" "+parquet.Encoding(pr.Page().Encoding()).String()] = true
	}
	if n < pages {
		t.Fatalf("%d planes pages in row group 0, want at least %d", n, pages)
	}
	return kinds
}

// TestPlanesNullsAreReportedAsBefore reads a file whose planes column has a
// null value: it goes through pqarrow, and the null is reported as ever.
func TestPlanesNullsAreReportedAsBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "null.parquet")
	rows := oddPlanesRows(t, 50)
	for i := range rows {
		rows[i] = requiredOnly(rows[i])
	}
	writeOther(t, path, rows, requiredSchema(true), parquet.NewWriterProperties(), 50, 17)
	rd, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b Batch
	err = rd.ReadBatch(&b)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `column "planes": 1 null plane values`) {
		t.Fatalf("reading a null planes row: %v", err)
	}
}

// TestCorruptPlanesChunkIsReportedWithFileRowGroupAndColumn garbles the
// planes column chunk of the second row group: the fast path reports the
// file, the row group and the column.
func TestCorruptPlanesChunkIsReportedWithFileRowGroupAndColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.parquet")
	opts := testOptions()
	opts.RowGroupRows = 200
	writeGames(t, path, playGames(6, 8, 100), opts)
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pf.MetaData().RowGroup(1).ColumnChunk(planesColumn)
	if err != nil {
		t.Fatal(err)
	}
	start, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	if cc.HasDictionaryPage() {
		start = cc.DictionaryPageOffset()
	}
	pf.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Past the page headers: the dictionary page, then the data page's compressed bytes.
	for i := start + size/2; i < start+size-4; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cols := range [][]string{nil, {ColPlanes}} {
		rd, err := Open(path, &ReaderOptions{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		for err == nil {
			err = rd.ReadBatch(&b)
		}
		rd.Close()
		if err == io.EOF || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `row group 1, column "planes"`) {
			t.Fatalf("columns %v: reading a corrupt planes chunk: %v", cols, err)
		}
		t.Logf("columns %v: %v", cols, err)
	}
}

// TestDirectoryMixesFastAndGenericFiles reads a directory of a file the
// fast path takes and one it leaves to pqarrow, in both orders.
func TestDirectoryMixesFastAndGenericFiles(t *testing.T) {
	dir := t.TempDir()
	rows := oddPlanesRows(t, 120)
	for i := range rows {
		rows[i] = requiredOnly(rows[i])
	}
	bss := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithEncodingFor(planesPath, parquet.Encodings.ByteStreamSplit))
	writeOther(t, filepath.Join(dir, "a.parquet"), rows[:60], requiredSchema(false), bss, 25, -1)
	writeOther(t, filepath.Join(dir, "b.parquet"), rows[60:], requiredSchema(false), parquet.NewWriterProperties(), 25, -1)
	writeOther(t, filepath.Join(dir, "c.parquet"), rows[:60], requiredSchema(false), bss, 25, -1)
	want := append(append([]Row(nil), rows...), rows[:60]...)
	for _, opts := range []*ReaderOptions{nil, {Columns: []string{ColPlanes}, BatchRows: 40}} {
		got, fast := readRows(t, dir, false, opts)
		if !fast || len(got) != len(want) {
			t.Fatalf("options %+v: %d rows, fast path %v; want %d rows, fast path on b.parquet", opts, len(got), fast, len(want))
		}
		for i := range want {
			if !samePlanes(&got[i].Planes, &want[i].Planes) || opts == nil && !sameRow(&got[i], &want[i]) {
				t.Fatalf("options %+v: row %d differs", opts, i)
			}
		}
	}
}
