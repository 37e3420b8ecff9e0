package parquetpage

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"chessforge/encoder"
)

// pageRecorder is a file.PageWriter without a compressor that keeps a copy
// of every page written to it (ChunkWriter reuses its buffers). The
// methods ChunkWriter does not call are left to the nil embedded interface.
type pageRecorder struct {
	file.PageWriter
	pages  []file.Page
	closed bool
}

func (r *pageRecorder) WriteDictionaryPage(p *file.DictionaryPage) (int64, error) {
	data := slices.Clone(p.Data())
	r.pages = append(r.pages, file.NewDictionaryPage(memory.NewBufferBytes(data), p.NumValues(), parquet.Encoding(p.Encoding())))
	return int64(len(data)), nil
}

func (r *pageRecorder) WriteDataPage(p file.DataPage) (int64, error) {
	v1 := p.(*file.DataPageV1)
	data := slices.Clone(v1.Data())
	r.pages = append(r.pages, file.NewDataPageV1(memory.NewBufferBytes(data), v1.NumValues(), parquet.Encoding(v1.Encoding()),
		v1.DefinitionLevelEncoding(), v1.RepetitionLevelEncoding(), v1.UncompressedSize()))
	return int64(len(data)), nil
}

func (r *pageRecorder) HasCompressor() bool { return false }

func (r *pageRecorder) Close(hasDict, fallback bool) error {
	r.closed = true
	return nil
}

// TestChunkWriterPagesDecode writes a column chunk of rows of every kind of
// index pattern through ChunkWriter, in several pages, and decodes the
// pages with ColumnReader's page decoder back to the dictionary's values.
func TestChunkWriterPagesDecode(t *testing.T) {
	for _, l := range encoder.Layouts() {
		t.Run(l.Game, func(t *testing.T) { testChunkWriterPagesDecode(t, l.InputSize()) })
	}
}

func testChunkWriterPagesDecode(t *testing.T, size int) {
	dict := make([]float32, maxDict)
	for i := range dict {
		dict[i] = float32(i) / 7
	}
	const rows = 60
	rng := rand.New(rand.NewPCG(5, 6))
	idx := make([]uint8, rows*size)
	for r := range rows {
		row := idx[r*size : (r+1)*size]
		switch r % 3 {
		case 0: // random indices: bit-packed groups
			for i := range row {
				row[i] = uint8(rng.IntN(maxDict))
			}
		case 1: // runs of every length
			for i := 0; i < len(row); {
				v := uint8(rng.IntN(maxDict))
				for k := 1 + rng.IntN(40); k > 0 && i < len(row); k-- {
					row[i] = v
					i++
				}
			}
		case 2: // one index throughout, the largest
			for i := range row {
				row[i] = maxDict - 1
			}
		}
	}

	rec := &pageRecorder{}
	c := ChunkWriter{Dict: dict, RowSize: size, PageSize: 3000, DictEncoding: parquet.Encodings.Plain, IndexEncoding: parquet.Encodings.RLEDict}
	if err := c.Start(rec); err != nil {
		t.Fatal(err)
	}
	for at := 0; at < rows; {
		n := min(7, rows-at)
		if err := c.Add(idx[at*size:(at+n)*size], n); err != nil {
			t.Fatal(err)
		}
		at += n
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if !rec.closed || len(rec.pages) < 4 || rec.pages[0].Type() != file.PageTypeDictionaryPage {
		t.Fatalf("chunk closed %v, %d pages; want it closed, a dictionary page and several data pages", rec.closed, len(rec.pages))
	}

	p := NewColumnReader(nil, 0, size, "x.parquet", "planes")
	p.group, p.total = 0, int64(len(idx))
	got := make([]float32, 0, len(idx))
	for i, pg := range rec.pages {
		if pg.Type() == file.PageTypeDictionaryPage {
			if err := p.readDict(pg); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := p.openData(pg); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		n := len(got)
		got = got[:n+p.left]
		if err := p.decode(got[n:]); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	if len(got) != len(idx) {
		t.Fatalf("decoded %d values, want %d", len(got), len(idx))
	}
	for i, x := range idx {
		if math.Float32bits(got[i]) != math.Float32bits(dict[x]) {
			t.Fatalf("value %d: %v, want %v (index %d)", i, got[i], dict[x], x)
		}
	}
}

// TestChunkWriterRejects checks the errors of ChunkWriter: a dictionary
// its 7-bit indices cannot address, a row size that is not a whole number
// of eight-value groups, and indices not whole rows.
func TestChunkWriterRejects(t *testing.T) {
	for _, n := range []int{0, maxDict + 1} {
		c := ChunkWriter{Dict: make([]float32, n), RowSize: encoder.InputSize, PageSize: 1 << 20}
		if err := c.Start(&pageRecorder{}); err == nil || !strings.Contains(err.Error(), "dictionary") {
			t.Errorf("a dictionary of %d values: %v, want an error", n, err)
		}
	}
	for _, size := range []int{0, 8, 1150} {
		c := ChunkWriter{Dict: []float32{0, 1}, RowSize: size, PageSize: 1 << 20}
		if err := c.Start(&pageRecorder{}); err == nil || !strings.Contains(err.Error(), "rows of") {
			t.Errorf("rows of %d values: %v, want an error", size, err)
		}
	}
	c := ChunkWriter{Dict: []float32{0, 1}, RowSize: encoder.InputSize, PageSize: 1 << 20}
	if err := c.Start(&pageRecorder{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(make([]uint8, encoder.InputSize+8), 1); err == nil {
		t.Error("indices of one row and eight values: no error")
	}
}
