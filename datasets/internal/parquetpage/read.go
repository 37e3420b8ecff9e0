package parquetpage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The planes column is read page by page here rather than through pqarrow,
// which decodes two levels per value one at a time (2,304 per row) and
// builds a list array on them. A planes column chunk whose schema and
// encodings allow it (see CanRead) is decoded directly through
// arrow-go's page reader, which frames and decompresses the pages:
//
//   - the repetition levels must be those of lists of exactly the
//     layout's row size (1152 values for chess; 0 where a row starts, 1
//     elsewhere) and the definition levels all 1 (every value present), both in the
//     RLE/bit-packed hybrid; they are checked run by run, not decoded;
//   - the values are dictionary indices (RLE_DICTIONARY or PLAIN_DICTIONARY,
//     after a PLAIN dictionary page of float32s of any size) or PLAIN
//     float32s, in data pages v1 or v2, rows free to span pages.
//
// Anything else the decoder meets is an error naming the file, row group
// and column: never silently different data. Files whose metadata shows
// another shape (nullable lists or elements, other encodings, encryption)
// are read through pqarrow instead.

// CanRead reports whether every planes column chunk of pf (leaf column col,
// lists of size values) can be decoded by a ColumnReader, by the file's
// schema and each chunk's value count and list of encodings.
func CanRead(pf *file.Reader, col, size int) bool {
	md := pf.MetaData()
	if col < 0 || col >= md.Schema.NumColumns() {
		return false
	}
	c := md.Schema.Column(col)
	if c.PhysicalType() != parquet.Types.Float || c.MaxDefinitionLevel() != 1 || c.MaxRepetitionLevel() != 1 {
		return false
	}
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		cc, err := rg.ColumnChunk(col)
		if err != nil || cc.CryptoMetadata() != nil || cc.NumValues() != rg.NumRows()*int64(size) {
			return false
		}
		for _, e := range cc.Encodings() {
			switch e {
			case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict, parquet.Encodings.RLE:
			default:
				return false
			}
		}
	}
	return true
}

// ColumnReader decodes the planes column of one file, row group after row
// group, a batch of rows at a time: Read as often as the other columns'
// rows come, Finish once they end, Close to release the open page reader.
type ColumnReader struct {
	pf   *file.Reader
	path string // the file's name, for errors
	name string // the column's name, for errors
	col  int    // leaf column index
	size int    // values per row

	group int // the row group being read
	pages file.PageReader
	total int64 // values of the open column chunk, by its row count
	seen  int64 // values of the open column chunk in the pages loaded so far
	dict  []float32
	ok    bool // dict holds this chunk's dictionary

	// The open data page.
	left  int    // values not yet decoded
	plain []byte // a PLAIN page's values not yet decoded
	idx   hybrid // a dictionary page's indices
	isIdx bool
}

// NewColumnReader returns a reader of leaf column col of pf, lists of size
// values, which CanRead accepts. Its errors name the file by path and the
// column by name.
func NewColumnReader(pf *file.Reader, col, size int, path, name string) *ColumnReader {
	return &ColumnReader{pf: pf, path: path, name: name, col: col, size: size, group: -1}
}

// Close releases the open page reader.
func (p *ColumnReader) Close() {
	if p.pages != nil {
		p.pages.Close()
		p.pages = nil
	}
}

// errorf returns an error naming the file, the row group and the column.
func (p *ColumnReader) errorf(format string, args ...any) error {
	return fmt.Errorf("datasets: %s: row group %d, column %q: "+format,
		append([]any{p.path, p.group, p.name}, args...)...)
}

// Read appends the values of the next rows rows to dst.
func (p *ColumnReader) Read(dst []float32, rows int) (out []float32, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = dst, p.errorf("corrupt file: %v", r)
		}
	}()
	start := len(dst)
	need := rows * p.size
	dst = slices.Grow(dst, need)[:start+need]
	for at := start; at < len(dst); {
		if p.left == 0 {
			if err := p.nextPage(); err != nil {
				return dst[:start], err
			}
			continue
		}
		k := min(p.left, len(dst)-at)
		if err := p.decode(dst[at : at+k]); err != nil {
			return dst[:start], err
		}
		p.left -= k
		at += k
	}
	return dst, nil
}

// Finish checks that every row of the file has been read.
func (p *ColumnReader) Finish() error {
	more := p.left > 0 || p.seen < p.total
	for g := p.group + 1; g < p.pf.NumRowGroups(); g++ {
		more = more || p.pf.MetaData().RowGroup(g).NumRows() > 0
	}
	if more {
		return p.errorf("the other columns end before the planes do")
	}
	return nil
}

// decode decodes len(dst) values of the open page into dst.
func (p *ColumnReader) decode(dst []float32) error {
	if p.isIdx {
		if err := p.idx.decode(dst, p.dict); err != nil {
			return p.errorf("%v", err)
		}
		return nil
	}
	if len(p.plain) < 4*len(dst) {
		return p.errorf("PLAIN page holds %d bytes for %d values", len(p.plain), len(dst))
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(p.plain[4*i:]))
	}
	p.plain = p.plain[4*len(dst):]
	return nil
}

// nextPage opens the next data page, moving to the next row group when the
// open column chunk is done and reading dictionary pages on the way.
func (p *ColumnReader) nextPage() error {
	for p.seen == p.total {
		if err := p.nextGroup(); err != nil {
			return err
		}
	}
	for {
		if !p.pages.Next() {
			if err := p.pages.Err(); err != nil {
				return p.errorf("corrupt file: %v", err)
			}
			return p.errorf("column chunk ends after %d of its %d values", p.seen, p.total)
		}
		pg := p.pages.Page()
		if pg.Type() != file.PageTypeDictionaryPage {
			return p.openData(pg)
		}
		if err := p.readDict(pg); err != nil {
			return err
		}
	}
}

// nextGroup opens the next row group's planes column chunk.
func (p *ColumnReader) nextGroup() error {
	p.Close()
	if p.group+1 >= p.pf.NumRowGroups() {
		return p.errorf("file ends before the other columns do")
	}
	p.group++
	rg := p.pf.MetaData().RowGroup(p.group)
	p.total, p.seen, p.ok = rg.NumRows()*int64(p.size), 0, false
	cc, err := rg.ColumnChunk(p.col)
	if err != nil {
		return p.errorf("%v", err)
	}
	if cc.NumValues() != p.total {
		return p.errorf("column chunk holds %d values for %d rows of %d", cc.NumValues(), rg.NumRows(), p.size)
	}
	if p.total == 0 {
		return nil
	}
	p.pages, err = p.pf.RowGroup(p.group).GetColumnPageReader(p.col)
	if err != nil {
		return p.errorf("%v", err)
	}
	return nil
}

// readDict reads a dictionary page.
func (p *ColumnReader) readDict(pg file.Page) error {
	if p.ok {
		return p.errorf("a second dictionary page")
	}
	switch parquet.Encoding(pg.Encoding()) {
	case parquet.Encodings.Plain, parquet.Encodings.PlainDict:
	default:
		return p.errorf("dictionary page encoded %s", parquet.Encoding(pg.Encoding()))
	}
	n, data := int(pg.NumValues()), pg.Data()
	if n < 0 || len(data) < 4*n {
		return p.errorf("dictionary page holds %d bytes for %d values", len(data), n)
	}
	p.dict = p.dict[:0]
	for i := range n {
		p.dict = append(p.dict, math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
	}
	p.ok = true
	return nil
}

// openData checks a data page's levels and opens its values.
func (p *ColumnReader) openData(pg file.Page) error {
	n := int(pg.NumValues())
	if n == 0 {
		return nil // an empty page: nothing to check or decode
	}
	if n < 0 || int64(n) > p.total-p.seen {
		return p.errorf("data page of %d values, with %d of the column chunk's %d values left", n, p.total-p.seen, p.total)
	}
	data := pg.Data()
	var rep, def []byte
	switch pg := pg.(type) {
	case *file.DataPageV1:
		if pg.RepetitionLevelEncoding() != parquet.Encodings.RLE || pg.DefinitionLevelEncoding() != parquet.Encodings.RLE {
			return p.errorf("data page levels encoded %s and %s, want RLE", pg.RepetitionLevelEncoding(), pg.DefinitionLevelEncoding())
		}
		var ok bool
		if rep, data, ok = lengthPrefixed(data); !ok {
			return p.errorf("data page truncated in its repetition levels")
		}
		if def, data, ok = lengthPrefixed(data); !ok {
			return p.errorf("data page truncated in its definition levels")
		}
	case *file.DataPageV2:
		rl, dl := int(pg.RepetitionLevelByteLen()), int(pg.DefinitionLevelByteLen())
		if rl+dl > len(data) {
			return p.errorf("data page v2 levels of %d+%d bytes in a page of %d", rl, dl, len(data))
		}
		if pg.NumNulls() != 0 {
			return p.errorf("data page v2 holds %d nulls", pg.NumNulls())
		}
		if want := rowStarts(p.seen, n, p.size); int64(pg.NumRows()) != want {
			return p.errorf("data page v2 says %d rows, its values start %d", pg.NumRows(), want)
		}
		rep, def, data = data[:rl], data[rl:rl+dl], data[rl+dl:]
	default:
		return p.errorf("unknown page type %v", pg.Type())
	}
	if err := checkLevels(rep, n, p.seen, p.size, true); err != nil {
		return p.errorf("repetition levels of values %d to %d: %v", p.seen, p.seen+int64(n), err)
	}
	if err := checkLevels(def, n, p.seen, p.size, false); err != nil {
		return p.errorf("definition levels of values %d to %d: %v", p.seen, p.seen+int64(n), err)
	}
	switch enc := parquet.Encoding(pg.Encoding()); enc {
	case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
		if !p.ok {
			return p.errorf("dictionary-encoded data page without a dictionary page")
		}
		if len(data) == 0 || data[0] > 32 {
			return p.errorf("dictionary indices have no valid bit width")
		}
		p.idx.reset(data[1:], uint(data[0]))
		p.isIdx = true
	case parquet.Encodings.Plain:
		if len(data) < 4*n {
			return p.errorf("PLAIN data page holds %d bytes for %d values", len(data), n)
		}
		p.plain, p.isIdx = data, false
	default:
		return p.errorf("data page values encoded %s", enc)
	}
	p.left = n
	p.seen += int64(n)
	return nil
}

// lengthPrefixed splits off a section after its 4-byte little-endian length.
func lengthPrefixed(b []byte) (section, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// rowStarts returns how many of the n values from index at of a column
// chunk of rows of size values start a row.
func rowStarts(at int64, n, rowSize int) int64 {
	size := int64(rowSize)
	return (at+int64(n)+size-1)/size - (at+size-1)/size
}

// checkLevels checks that src, the RLE/bit-packed hybrid encoding (bit
// width 1) of n levels, holds the repetition levels (rep) or the definition
// levels of lists of rowSize values, none null, from index at of the column
// chunk: repetition level 0 where a row starts and 1 elsewhere, definition
// level 1 throughout. It checks run by run without decoding.
func checkLevels(src []byte, n int, at int64, rowSize int, rep bool) error {
	size := int64(rowSize)
	for n > 0 {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return errors.New("truncated or bad run header")
		}
		src = src[k:]
		if h&1 == 0 { // a run of one repeated value
			c := h >> 1
			if len(src) < 1 {
				return errors.New("truncated run")
			}
			v := src[0]
			src = src[1:]
			if c > uint64(n) {
				return fmt.Errorf("run of %d levels with %d left", c, n)
			}
			r := at % size
			switch {
			case !rep && v == 1:
			case rep && v == 1 && r != 0 && r+int64(c) <= size:
			case rep && v == 0 && c == 1 && r == 0:
			case c == 0:
			default:
				return fmt.Errorf("run of %d levels %d at value %d", c, v, at)
			}
			at += int64(c)
			n -= int(c)
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)) {
			return fmt.Errorf("bit-packed run of %d groups in %d bytes", groups, len(src))
		}
		for _, b := range src[:groups] {
			if n == 0 {
				break // padding
			}
			want := byte(0xff)
			if rep {
				if r := at % size; r == 0 {
					want &^= 1
				} else if r > size-8 {
					want &^= 1 << (size - r)
				}
			}
			mask := byte(0xff)
			if n < 8 {
				mask = 1<<n - 1
			}
			if (b^want)&mask != 0 {
				return fmt.Errorf("levels %08b at value %d, want %08b", b&mask, at, want&mask)
			}
			k := min(n, 8)
			at += int64(k)
			n -= k
		}
		src = src[groups:]
	}
	return nil
}

// hybrid decodes dictionary indices in Parquet's RLE/bit-packed hybrid
// encoding into the dictionary's values.
type hybrid struct {
	src   []byte
	width uint   // bits per index
	run   int    // values left in the current run of one index
	val   uint32 // that index
	lit   int    // values left in the current bit-packed run, in whole groups of 8
	pend  [8]uint32
	pendN int // indices of pend not yet used, at its end
}

func (h *hybrid) reset(src []byte, width uint) {
	*h = hybrid{src: src, width: width}
}

// decode writes the values of the next len(dst) indices to dst, failing on
// an index outside dict or an encoding that ends early.
func (h *hybrid) decode(dst []float32, dict []float32) error {
	n := uint32(len(dict))
	if n == 0 && len(dst) > 0 {
		return errors.New("dictionary indices with an empty dictionary")
	}
	for len(dst) > 0 {
		switch {
		case h.pendN > 0:
			k := min(h.pendN, len(dst))
			for i, x := range h.pend[8-h.pendN : 8-h.pendN+k] {
				if x >= n {
					return fmt.Errorf("dictionary index %d with %d values in the dictionary", x, n)
				}
				dst[i] = dict[x]
			}
			h.pendN -= k
			dst = dst[k:]
		case h.run > 0:
			k := min(h.run, len(dst))
			v := dict[h.val]
			if math.Float32bits(v) == 0 {
				clear(dst[:k])
			} else {
				for i := range dst[:k] {
					dst[i] = v
				}
			}
			h.run -= k
			dst = dst[k:]
		case h.lit > 0:
			w := int(h.width)
			if h.width <= 8 && len(dst) >= 8 && len(h.src) >= 8 {
				// Eight indices of at most 8 bits: one 64-bit word.
				x := binary.LittleEndian.Uint64(h.src)
				mask := uint64(1)<<h.width - 1
				d := (*[8]float32)(dst)
				hi := uint64(0)
				for j := range d {
					i := x >> (uint(j) * h.width) & mask
					hi = max(hi, i)
					d[j] = dict[min(i, uint64(n-1))]
				}
				if hi >= uint64(n) {
					return fmt.Errorf("dictionary index %d with %d values in the dictionary", hi, n)
				}
				h.src = h.src[w:]
				h.lit -= 8
				dst = dst[8:]
				continue
			}
			if len(h.src) < w {
				return errors.New("bit-packed run truncated")
			}
			unpack8(&h.pend, h.src[:w], h.width)
			h.src = h.src[w:]
			h.lit -= 8
			h.pendN = 8
		default:
			if err := h.header(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// header reads the next run's header (and an RLE run's index).
func (h *hybrid) header(n uint32) error {
	x, k := binary.Uvarint(h.src)
	if k <= 0 {
		return errors.New("indices end early or have a bad run header")
	}
	h.src = h.src[k:]
	if x&1 == 1 {
		groups := x >> 1
		if groups > math.MaxInt32/8 {
			return fmt.Errorf("bit-packed run of %d groups", groups)
		}
		h.lit = int(groups) * 8
		return nil
	}
	c := x >> 1
	nb := int(h.width+7) / 8
	if len(h.src) < nb {
		return errors.New("run of one index truncated")
	}
	var v uint32
	for i := range nb {
		v |= uint32(h.src[i]) << (8 * i)
	}
	h.src = h.src[nb:]
	if v >= n {
		return fmt.Errorf("dictionary index %d with %d values in the dictionary", v, n)
	}
	if c > math.MaxInt32 {
		return fmt.Errorf("run of %d values", c)
	}
	h.run, h.val = int(c), v
	return nil
}

// unpack8 unpacks eight width-bit values from src (width bytes).
func unpack8(dst *[8]uint32, src []byte, width uint) {
	var buf [40]byte // width ≤ 32 bytes, and room to read 8 bytes past any bit
	copy(buf[:], src)
	mask := uint64(1)<<width - 1
	for j := range dst {
		bit := uint(j) * width
		dst[j] = uint32(binary.LittleEndian.Uint64(buf[bit/8:]) >> (bit % 8) & mask)
	}
}
