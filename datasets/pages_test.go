package datasets

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/encoder"
)

// decodeHybrid7 decodes n values of Parquet's RLE/bit-packed hybrid with
// bit width 7, as the format's specification describes it, and returns
// them with the bytes it did not use.
func decodeHybrid7(t *testing.T, src []byte, n int) ([]uint8, []byte) {
	t.Helper()
	var out []uint8
	for len(out) < n {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			t.Fatalf("bad run header after %d values", len(out))
		}
		src = src[k:]
		if h&1 == 0 { // a run: count, then the value in one byte
			if len(src) < 1 {
				t.Fatalf("run of %d without its value", h>>1)
			}
			for range h >> 1 {
				out = append(out, src[0])
			}
			src = src[1:]
			continue
		}
		groups := int(h >> 1) // bit-packed: groups of 8 values in 7 bytes
		if len(src) < 7*groups {
			t.Fatalf("%d bit-packed groups in %d bytes", groups, len(src))
		}
		for i := range 8 * groups {
			var v uint8
			for b := range 7 {
				bit := i*7 + b
				v |= (src[bit/8] >> (bit % 8) & 1) << b
			}
			out = append(out, v)
		}
		src = src[7*groups:]
	}
	if len(out) != n {
		t.Fatalf("decoded %d values, want %d", len(out), n)
	}
	return out, src
}

func TestAppendPlanesIndicesDecodesToItsInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	runs := func(n, maxRun int) []uint8 {
		var s []uint8
		for len(s) < n {
			v, r := uint8(rng.IntN(len(planesDict))), 1+rng.IntN(maxRun)
			for range r {
				s = append(s, v)
			}
		}
		return s[:n]
	}
	random := make([]uint8, 8*200) // a bit-packed stretch longer than 63 groups
	for i := range random {
		random[i] = uint8(rng.IntN(len(planesDict)))
	}
	for _, tc := range []struct {
		name string
		idx  []uint8
	}{
		{"zeros", make([]uint8, encoder.InputSize)},
		{"largest index", slices.Repeat([]uint8{uint8(len(planesDict) - 1)}, 64)},
		{"one group", []uint8{0, 1, 2, 3, 100, 99, 98, 97}},
		{"random", random},
		{"short runs", runs(4096, 5)},
		{"long runs", runs(4096, 300)},
		{"run then group", append(make([]uint8, 24), 1, 0, 0, 0, 0, 0, 0, 0)},
		{"group then run", append([]uint8{5, 5, 5, 5, 5, 5, 5, 6}, slices.Repeat([]uint8{7}, 1000)...)},
	} {
		enc := appendPlanesIndices([]byte{0xaa}, tc.idx)
		if enc[0] != 0xaa {
			t.Fatalf("%s: overwrote what dst held", tc.name)
		}
		got, rest := decodeHybrid7(t, enc[1:], len(tc.idx))
		if !slices.Equal(got, tc.idx) || len(rest) != 0 {
			t.Errorf("%s: decodes to %d values differing from the input, %d bytes left", tc.name, len(got), len(rest))
		}
	}
}

func TestPlanesRowRepLevelsDecode(t *testing.T) {
	// Bit width 1 decodes like width 7 with only the lowest bit kept; decode by hand.
	src := planesRowRepLevels
	var out []uint8
	for len(src) > 0 {
		h, k := binary.Uvarint(src)
		src = src[k:]
		if h&1 == 0 {
			out = append(out, slices.Repeat([]uint8{src[0]}, int(h>>1))...)
			src = src[1:]
			continue
		}
		for i := range 8 * int(h>>1) {
			out = append(out, src[i/8]>>(i%8)&1)
		}
		src = src[h>>1:]
	}
	want := slices.Repeat([]uint8{1}, encoder.InputSize)
	want[0] = 0
	if !slices.Equal(out, want) {
		t.Errorf("one row's repetition levels decode to %d values, want 0 then 1151 ones", len(out))
	}
}

// oddPlanesRows returns playout rows whose planes are replaced by patterns
// no real position has but every reader must take: random dictionary
// values, runs of every length, the largest index.
func oddPlanesRows(t *testing.T, n int) []Row {
	rng := rand.New(rand.NewPCG(7, 8))
	var rows []Row
	var row Row
	for _, g := range playGames(6, 20, 100) {
		gameRows(t, g, &row, func(r *Row) {
			if len(rows) == n {
				return
			}
			p := &r.Planes
			switch len(rows) % 4 {
			case 0: // unchanged, a real position
			case 1:
				for i := range p {
					p[i] = planesDict[rng.IntN(len(planesDict))]
				}
			case 2:
				for i := 0; i < len(p); {
					v, k := planesDict[rng.IntN(len(planesDict))], 1+rng.IntN(40)
					for ; k > 0 && i < len(p); k-- {
						p[i] = v
						i++
					}
				}
			case 3:
				for i := range p {
					p[i] = planesDict[len(planesDict)-1]
				}
			}
			rows = append(rows, *r)
		})
	}
	if len(rows) < n {
		t.Fatalf("only %d rows", len(rows))
	}
	return rows
}

func TestPlanesPagesReadBackThroughPqarrow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.parquet")
	want := oddPlanesRows(t, 1500)
	opts := testOptions()
	opts.RowGroupRows = 700 // row groups end mid-batch
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.planes.pageSize = 5000 // many pages per column chunk
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
	fw, err := pqarrow.NewFileWriter(Schema(), f, writerProperties(opts), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{KeySchemaVersion, SchemaVersion}, {KeyPlanes, encoder.PlanesVersion}, {KeyPolicy, encoder.PolicyVersion},
		{KeyEngineVersion, opts.EngineVersion}, {KeyConfig, string(opts.Config)},
	} {
		fw.AppendKeyValueMetadata(kv[0], kv[1])
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
	w, err := Create(ours, opts)
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

func TestPlanesIndicesMatchValueByValue(t *testing.T) {
	dst := make([]uint8, encoder.InputSize)
	for n, r := range oddPlanesRows(t, 200) {
		if err := planesIndices(dst, &r.Planes); err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		for i, v := range r.Planes {
			if planesDict[dst[i]] != v {
				t.Fatalf("row %d value %d: %v has index %d (%v)", n, i, v, dst[i], planesDict[dst[i]])
			}
		}
	}
	bad := float32(0.333)
	for _, tc := range []struct {
		name    string
		squares []int // set to bad
		want    string
	}{
		{"a whole rank", []int{1088, 1089, 1090, 1091, 1092, 1093, 1094, 1095}, "plane 17, square 0"},
		{"one square", []int{70}, "plane 1, square 6"},
		{"the last square", []int{1151}, "plane 17, square 63"},
	} {
		var pl encoder.Planes
		for _, sq := range tc.squares {
			pl[sq] = bad
		}
		err := planesIndices(dst, &pl)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}
