package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"chessforge/encoder"
)

// The planes column is written page by page here rather than through
// arrow-go's column writer, which encodes two levels per value one at a
// time (2,304 per row) and its dictionary indices the same way. Every
// planes page has the same shape, so it is encoded directly:
//
//   - repetition levels (bit width 1): per row a bit-packed group of
//     0,1,1,1,1,1,1,1 and a run of 1144 ones;
//   - definition levels (bit width 1): one run of ones, every value present;
//   - values: indices into planesDict, bit width 7, in Parquet's RLE/bit-packed
//     hybrid, eight values (one 64-bit word) at a time: a word of eight equal
//     indices extends a run, any other word is a bit-packed group.
//
// The pages are data pages v1 with RLE_DICTIONARY values, after a PLAIN
// dictionary page of planesDict, exactly the layout arrow-go's own writer
// gives this column; arrow-go's page writer frames, compresses and records
// them in the column chunk's metadata.

// planesBitWidth is the bit width of planesDict indices.
const planesBitWidth = 7

// planesRowRepLevels is the repetition levels of one row: a bit-packed
// group (header 1<<1|1) of 0 then seven 1s, then a run (header 1144<<1) of
// 1s.
var planesRowRepLevels = func() []byte {
	b := []byte{1<<1 | 1, 0xfe}
	b = binary.AppendUvarint(b, (encoder.InputSize-8)<<1)
	return append(b, 1)
}()

// appendPlanesIndices appends the RLE/bit-packed hybrid encoding, bit width
// 7, of idx (whose length is a multiple of 8, each index below 128) to dst.
func appendPlanesIndices(dst []byte, idx []uint8) []byte {
	const ones = 0x0101010101010101
	lit := -1 // offset in dst of the open bit-packed run's header
	groups := 0
	for i := 0; i < len(idx); {
		w := binary.LittleEndian.Uint64(idx[i:])
		if v := w & 0xff; w == v*ones {
			j := i + 8
			for j < len(idx) && binary.LittleEndian.Uint64(idx[j:]) == w {
				j += 8
			}
			dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
			dst = append(dst, byte(v))
			lit = -1
			i = j
			continue
		}
		if lit < 0 || groups == 63 { // 63 groups keep the header in one byte
			lit, groups = len(dst), 0
			dst = append(dst, 0)
		}
		// Eight 7-bit values in 8-bit lanes, packed to 56 bits, first value lowest.
		w = w&0x007f007f007f007f | (w&0x7f007f007f007f00)>>1
		w = w&0x00003fff00003fff | (w&0x3fff00003fff0000)>>2
		w = w&0x000000000fffffff | (w&0x0fffffff00000000)>>4
		dst = binary.LittleEndian.AppendUint64(dst, w)[:len(dst)+planesBitWidth]
		groups++
		dst[lit] = byte(groups<<1 | 1)
		i += 8
	}
	return dst
}

// planesChunk writes one row group's planes column chunk through an
// arrow-go page writer: the dictionary page when it starts, then a data
// page whenever the encoded values pass the page size.
type planesChunk struct {
	pager    file.PageWriter
	pageSize int
	dictEnc  parquet.Encoding // the dictionary page's encoding
	idxEnc   parquet.Encoding // the data pages' encoding of the indices
	rows     int              // rows in the open page
	values   []byte           // the open page's encoded indices
	page     []byte           // scratch: the open page, levels and values
	zbuf     bytes.Buffer     // scratch: the compressed page
}

// planesDictBytes is planesDict PLAIN encoded: little-endian float32s.
var planesDictBytes = func() []byte {
	b := make([]byte, 0, 4*len(planesDict))
	for _, v := range planesDict {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}()

// start begins a column chunk on pager, writing the dictionary page.
func (c *planesChunk) start(pager file.PageWriter) error {
	c.pager, c.rows, c.values = pager, 0, c.values[:0]
	page := file.NewDictionaryPage(memory.NewBufferBytes(planesDictBytes), int32(len(planesDict)), c.dictEnc)
	_, err := pager.WriteDictionaryPage(page)
	return err
}

// add encodes the dictionary indices of rows whole rows, closing a page
// after the row that takes its values past the page size.
func (c *planesChunk) add(idx []uint8, rows int) error {
	if len(idx) != rows*encoder.InputSize {
		return fmt.Errorf("planes: %d indices for %d rows", len(idx), rows)
	}
	for ; len(idx) > 0; idx = idx[encoder.InputSize:] {
		c.values = appendPlanesIndices(c.values, idx[:encoder.InputSize])
		c.rows++
		if len(c.values) >= c.pageSize {
			if err := c.flushPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushPage writes the open page, if it holds any rows.
func (c *planesChunk) flushPage() error {
	if c.rows == 0 {
		return nil
	}
	nv := c.rows * encoder.InputSize
	p := c.page[:0]
	// Repetition levels, then definition levels, each after its byte length.
	p = binary.LittleEndian.AppendUint32(p, uint32(c.rows*len(planesRowRepLevels)))
	for range c.rows {
		p = append(p, planesRowRepLevels...)
	}
	defStart := len(p)
	p = append(p, 0, 0, 0, 0)
	p = binary.AppendUvarint(p, uint64(nv)<<1)
	p = append(p, 1)
	binary.LittleEndian.PutUint32(p[defStart:], uint32(len(p)-defStart-4))
	p = append(p, planesBitWidth)
	p = append(p, c.values...)
	c.page = p

	data := p
	if c.pager.HasCompressor() {
		c.zbuf.Reset()
		data = c.pager.Compress(&c.zbuf, p)
	}
	page := file.NewDataPageV1(memory.NewBufferBytes(data), int32(nv), c.idxEnc,
		parquet.Encodings.RLE, parquet.Encodings.RLE, int32(len(p)))
	_, err := c.pager.WriteDataPage(page)
	c.rows, c.values = 0, c.values[:0]
	return err
}

// finish writes the last page and closes the column chunk, recording its
// metadata.
func (c *planesChunk) finish() error {
	if err := c.flushPage(); err != nil {
		return err
	}
	err := c.pager.Close(true, false)
	c.pager = nil
	return err
}
