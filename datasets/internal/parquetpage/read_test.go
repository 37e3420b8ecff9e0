package parquetpage

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"chessforge/encoder"
)

// hybridRLE appends an RLE run of c copies of v (one byte) to b.
func hybridRLE(b []byte, c int, v byte) []byte {
	return append(binary.AppendUvarint(b, uint64(c)<<1), v)
}

// levelsV1 returns a page v1's level sections and values: rep and def
// after their lengths, then values.
func levelsV1(rep, def, values []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(rep)))
	b = append(b, rep...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(def)))
	b = append(b, def...)
	return append(b, values...)
}

// TestPlanesPagesAreChecked hands the page decoder pages that break the
// fixed-size list shape or the dictionary one way each: every one is an
// error naming the file, the row group and the column, and a good page
// decodes.
func TestPagesAreChecked(t *testing.T) {
	for _, l := range encoder.Layouts() {
		t.Run(l.Game, func(t *testing.T) { testPagesAreChecked(t, l.InputSize()) })
	}
}

func testPagesAreChecked(t *testing.T, n int) {
	goodRep := append(hybridRLE(nil, 1, 0), hybridRLE(nil, n-1, 1)...)
	goodDef := hybridRLE(nil, n, 1)
	idx := func(v byte) []byte { return hybridRLE([]byte{2}, n, v) } // bit width 2
	dict := file.NewDictionaryPage(memory.NewBufferBytes([]byte{0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x3f}), 3, parquet.Encodings.Plain)
	v1 := func(data []byte, enc parquet.Encoding) file.Page {
		return file.NewDataPageV1(memory.NewBufferBytes(data), int32(n), enc, parquet.Encodings.RLE, parquet.Encodings.RLE, int32(len(data)))
	}
	cases := []struct {
		name  string
		dict  bool
		page  file.Page
		error string // "" for a good page
	}{
		{"good", true, v1(levelsV1(goodRep, goodDef, idx(2)), parquet.Encodings.RLEDict), ""},
		{"good bit-packed levels", true, v1(levelsV1(
			append(append([]byte{1<<1 | 1, 0xfe}, hybridRLE(nil, n-16, 1)...), 1<<1|1, 0xff),
			append([]byte{2<<1 | 1, 0xff, 0xff}, hybridRLE(nil, n-16, 1)...), idx(1)), parquet.Encodings.RLEDict), ""},
		{"row of one value too few", true, v1(levelsV1(append(hybridRLE(nil, 1, 0), append(hybridRLE(nil, n-2, 1), hybridRLE(nil, 1, 0)...)...), goodDef, idx(1)), parquet.Encodings.RLEDict), "repetition levels"},
		{"row start in a bit-packed group", true, v1(levelsV1(append(hybridRLE(nil, 1, 0), append(hybridRLE(nil, n-9, 1), 1<<1|1, 0xfe)...), goodDef, idx(1)), parquet.Encodings.RLEDict), "repetition levels"},
		{"null value", true, v1(levelsV1(goodRep, append(hybridRLE(nil, n-1, 1), hybridRLE(nil, 1, 0)...), idx(1)), parquet.Encodings.RLEDict), "definition levels"},
		{"levels truncated", true, v1(levelsV1(goodRep, hybridRLE(nil, n-1, 1), idx(1)), parquet.Encodings.RLEDict), "definition levels"},
		{"index past the dictionary", true, v1(levelsV1(goodRep, goodDef, idx(3)), parquet.Encodings.RLEDict), "dictionary index 3"},
		{"bit-packed index past the dictionary", true, v1(levelsV1(goodRep, goodDef, append([]byte{2, 1<<1 | 1, 0b11100100, 0}, hybridRLE(nil, n-8, 0)...)), parquet.Encodings.RLEDict), "dictionary index 3"},
		{"indices end early", true, v1(levelsV1(goodRep, goodDef, hybridRLE([]byte{2}, n-1, 1)), parquet.Encodings.RLEDict), "indices end early"},
		{"no dictionary", false, v1(levelsV1(goodRep, goodDef, idx(1)), parquet.Encodings.RLEDict), "without a dictionary page"},
		{"bit width past 32", true, v1(levelsV1(goodRep, goodDef, hybridRLE([]byte{33}, n, 1)), parquet.Encodings.RLEDict), "bit width"},
		{"PLAIN values short", true, v1(levelsV1(goodRep, goodDef, make([]byte, 4*n-1)), parquet.Encodings.Plain), "PLAIN data page"},
		{"delta values", true, v1(levelsV1(goodRep, goodDef, idx(1)), parquet.Encodings.DeltaBinaryPacked), "values encoded"},
		{"BIT_PACKED levels", true, file.NewDataPageV1(memory.NewBufferBytes(levelsV1(goodRep, goodDef, idx(1))), int32(n),
			parquet.Encodings.RLEDict, parquet.Encodings.BitPacked, parquet.Encodings.RLE, 0), "want RLE"},
		{"v2 good", true, file.NewDataPageV2(memory.NewBufferBytes(append(append(goodRep, goodDef...), idx(1)...)), int32(n), 0, 1,
			parquet.Encodings.RLEDict, int32(len(goodDef)), int32(len(goodRep)), 0, false), ""},
		{"v2 nulls", true, file.NewDataPageV2(memory.NewBufferBytes(append(append(goodRep, goodDef...), idx(1)...)), int32(n), 1, 1,
			parquet.Encodings.RLEDict, int32(len(goodDef)), int32(len(goodRep)), 0, false), "nulls"},
		{"v2 rows", true, file.NewDataPageV2(memory.NewBufferBytes(append(append(goodRep, goodDef...), idx(1)...)), int32(n), 0, 2,
			parquet.Encodings.RLEDict, int32(len(goodDef)), int32(len(goodRep)), 0, false), "says 2 rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewColumnReader(nil, 3, n, "x.parquet", "planes")
			p.group, p.total = 4, int64(3*n)
			if tc.dict {
				if err := p.readDict(dict); err != nil {
					t.Fatal(err)
				}
			}
			err := p.openData(tc.page)
			out := make([]float32, n)
			if err == nil {
				err = p.decode(out)
			}
			if tc.error == "" {
				if err != nil {
					t.Fatal(err)
				}
				if v := out[n-1]; v != 1 && v != 0.5 {
					t.Errorf("decoded %v", v)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one about %q", tc.error)
			}
			if !strings.Contains(err.Error(), tc.error) {
				t.Errorf("error %q does not mention %q", err, tc.error)
			}
			if !strings.Contains(err.Error(), `x.parquet: row group 4, column "planes"`) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}
