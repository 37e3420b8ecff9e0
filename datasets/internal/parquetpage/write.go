package parquetpage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The planes column is written page by page here rather than through
// arrow-go's column writer, which encodes two levels per value one at a
// time (2,304 per row) and its dictionary indices the same way. Every
// planes page has the same shape, so it is encoded directly:
//
//   - repetition levels (bit width 1): per row a bit-packed group of
//     0,1,1,1,1,1,1,1 and a run of RowSize-8 ones (1144 for chess);
//   - definition levels (bit width 1): one run of ones, every value present;
//   - values: indices into ChunkWriter.Dict, bit width 7, in Parquet's
//     RLE/bit-packed hybrid, eight values (one 64-bit word) at a time: a word
//     of eight equal indices extends a run, any other word is a bit-packed
//     group.
//
// The pages are data pages v1 with RLE_DICTIONARY values, after a PLAIN
// dictionary page of the dictionary, exactly the layout arrow-go's own
// writer gives this column; arrow-go's page writer frames, compresses and
// records them in the column chunk's metadata.

// bitWidth is the bit width of the dictionary indices.
const bitWidth = 7

// maxDict is the most values a ChunkWriter's dictionary may hold: its
// indices are written bitWidth bits wide.
const maxDict = 1 << bitWidth

// rowRepLevels returns the repetition levels of one row of size values:
// a bit-packed group (header 1<<1|1) of 0 then seven 1s, then a run
// (header (size-8)<<1) of 1s.
func rowRepLevels(size int) []byte {
	b := []byte{1<<1 | 1, 0xfe}
	b = binary.AppendUvarint(b, uint64(size-8)<<1)
	return append(b, 1)
}

// appendIndices appends the RLE/bit-packed hybrid encoding, bit width 7, of
// idx (whose length is a multiple of 8, each index below maxDict) to dst.
func appendIndices(dst []byte, idx []uint8) []byte {
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
		dst = binary.LittleEndian.AppendUint64(dst, w)[:len(dst)+bitWidth]
		groups++
		dst[lit] = byte(groups<<1 | 1)
		i += 8
	}
	return dst
}

// ChunkWriter writes a file's planes column chunks, one row group's at a
// time, through arrow-go page writers: Start writes the dictionary page,
// Add encodes rows of dictionary indices into data pages, Finish writes the
// last page and closes the chunk. Set the exported fields before the first
// Start; the rest of the zero value is ready. The scratch buffers are kept
// from chunk to chunk.
type ChunkWriter struct {
	// Dict holds the dictionary's values, index by index: at most 128
	// float32s, as the indices are written 7 bits wide. It is read once, by
	// the first Start.
	Dict []float32
	// RowSize is the number of values in a row's list (the layout's
	// InputSize: 1152 for chess), a multiple of 8 and at least 16.
	RowSize int
	// PageSize is the size in bytes of encoded indices that closes a data
	// page, after the row that reaches it.
	PageSize      int
	DictEncoding  parquet.Encoding // the dictionary page's encoding
	IndexEncoding parquet.Encoding // the data pages' encoding of the indices

	pager  file.PageWriter
	dict   []byte       // Dict PLAIN encoded: little-endian float32s
	rowRep []byte       // the repetition levels of one row
	rows   int          // rows in the open page
	values []byte       // the open page's encoded indices
	page   []byte       // scratch: the open page, levels and values
	zbuf   bytes.Buffer // scratch: the compressed page
}

// Start begins a column chunk on pager, writing the dictionary page.
func (c *ChunkWriter) Start(pager file.PageWriter) error {
	if c.dict == nil {
		if len(c.Dict) == 0 || len(c.Dict) > maxDict {
			return fmt.Errorf("planes: a dictionary of %d values, want 1 to %d", len(c.Dict), maxDict)
		}
		if c.RowSize < 16 || c.RowSize%8 != 0 {
			return fmt.Errorf("planes: rows of %d values, want a multiple of 8, at least 16", c.RowSize)
		}
		c.rowRep = rowRepLevels(c.RowSize)
		c.dict = make([]byte, 0, 4*len(c.Dict))
		for _, v := range c.Dict {
			c.dict = binary.LittleEndian.AppendUint32(c.dict, math.Float32bits(v))
		}
	}
	c.pager, c.rows, c.values = pager, 0, c.values[:0]
	page := file.NewDictionaryPage(memory.NewBufferBytes(c.dict), int32(len(c.Dict)), c.DictEncoding)
	_, err := pager.WriteDictionaryPage(page)
	return err
}

// Add encodes rows whole rows of dictionary indices (RowSize per row, each
// below len(Dict)), closing a page after the row that takes its values
// past PageSize.
func (c *ChunkWriter) Add(idx []uint8, rows int) error {
	size := c.RowSize
	if len(idx) != rows*size {
		return fmt.Errorf("planes: %d indices for %d rows", len(idx), rows)
	}
	for ; len(idx) > 0; idx = idx[size:] {
		c.values = appendIndices(c.values, idx[:size])
		c.rows++
		if len(c.values) >= c.PageSize {
			if err := c.flushPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushPage writes the open page, if it holds any rows.
func (c *ChunkWriter) flushPage() error {
	if c.rows == 0 {
		return nil
	}
	nv := c.rows * c.RowSize
	p := c.page[:0]
	// Repetition levels, then definition levels, each after its byte length.
	p = binary.LittleEndian.AppendUint32(p, uint32(c.rows*len(c.rowRep)))
	for range c.rows {
		p = append(p, c.rowRep...)
	}
	defStart := len(p)
	p = append(p, 0, 0, 0, 0)
	p = binary.AppendUvarint(p, uint64(nv)<<1)
	p = append(p, 1)
	binary.LittleEndian.PutUint32(p[defStart:], uint32(len(p)-defStart-4))
	p = append(p, bitWidth)
	p = append(p, c.values...)
	c.page = p

	data := p
	if c.pager.HasCompressor() {
		c.zbuf.Reset()
		data = c.pager.Compress(&c.zbuf, p)
	}
	page := file.NewDataPageV1(memory.NewBufferBytes(data), int32(nv), c.IndexEncoding,
		parquet.Encodings.RLE, parquet.Encodings.RLE, int32(len(p)))
	_, err := c.pager.WriteDataPage(page)
	c.rows, c.values = 0, c.values[:0]
	return err
}

// Finish writes the last page and closes the column chunk, recording its
// metadata.
func (c *ChunkWriter) Finish() error {
	if err := c.flushPage(); err != nil {
		return err
	}
	err := c.pager.Close(true, false)
	c.pager = nil
	return err
}
