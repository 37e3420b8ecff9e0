package datasets

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/datasets/internal/parquetpage"
	"chessforge/encoder"
)

// TempSuffix is appended to a file's name while it is being written.
const TempSuffix = ".tmp"

// Defaults of WriterOptions.
const (
	DefaultRowGroupRows     = 32768
	DefaultCompressionLevel = 7
	batchRows               = 1024 // rows buffered before they are handed to the Parquet encoders
)

// WriterOptions configures a Writer. EngineVersion and Config are required:
// every file records what made it.
type WriterOptions struct {
	// Layout is the game's encoding of the rows' planes and policy, which
	// the file records in its metadata; nil is encoder.Chess.
	Layout *encoder.Layout
	// EngineVersion is the version of the engine that generated the data.
	EngineVersion string
	// Config is the full generation config as a JSON object; SPEC §3 asks
	// for all of it, seed included.
	Config []byte
	// Metadata holds further key-value pairs for the file footer, written
	// in key order.
	Metadata map[string]string
	// RowGroupRows is the number of rows per row group (default
	// DefaultRowGroupRows): the unit streaming readers load and shard by.
	RowGroupRows int
	// CompressionLevel is the zstd level (default DefaultCompressionLevel;
	// 7 selects klauspost/compress's "better compression" encoder; on
	// playout positions it writes 14% fewer bytes than level 3 for 10% less
	// speed, and level 12 another 11% fewer for 45% less speed: see
	// BenchmarkWriteSettings).
	CompressionLevel int
}

// Writer streams rows into one Parquet file. It holds at most one batch of
// rows and one row group of compressed pages in memory, however many rows
// are written. The file is written as path+TempSuffix and renamed to path by
// Close, so a crash never leaves a truncated file under the final name.
//
// The file is what pqarrow writes for SchemaOf(layout) with the store-schema option
// (the Arrow schema in the ARROW:schema footer key, so readers get planes
// back as a fixed-size list), but it is assembled from arrow-go's Parquet
// parts directly: its metadata builders and page writers, its column
// writers for every column but planes, and for planes pages encoded by
// package parquetpage, which is several times faster than the generic paths
// for lists of hundreds of values.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	path, tmp    string
	layout       *encoder.Layout
	dict         *planesDict
	f            *os.File
	buf          *bufio.Writer
	sink         *tellWriter
	props        *parquet.WriterProperties
	meta         *metadata.FileMetaDataBuilder // nil once closed
	rg           *metadata.RowGroupMetaDataBuilder
	cols         []file.ColumnChunkWriter // the open row group's, nil at planesColumn
	planes       parquetpage.ChunkWriter
	rowGroups    int
	rgRows       int // rows in the open row group
	rowGroupRows int
	rows         int64
	err          error // sticky: the first I/O failure
	b            columnBuffers
}

// tellWriter counts the bytes written through it: page writers record
// offsets in the file by it.
type tellWriter struct {
	w *bufio.Writer
	n int64
}

func (t *tellWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.n += int64(n)
	return n, err
}

func (t *tellWriter) Tell() int64 { return t.n }

// columnBuffers holds the batch of rows not yet handed to the encoders, one
// Go slice per column.
type columnBuffers struct {
	n                               int
	gameID, nodes                   []int64
	ply, policy, score, depth       []int32
	result                          []float32
	planes                          []uint8 // planesDict indices, the layout's InputSize per row
	fen, move, best, term           byteArrays
	inCheck, bestCapture, bestPromo []bool
}

// byteArrays accumulates a utf8 column.
type byteArrays struct {
	data []byte
	ends []int
	vals []parquet.ByteArray
}

func (s *byteArrays) reset() {
	s.data = nil // a fresh buffer per batch: column statistics may point into the old one
	s.ends = s.ends[:0]
}

func (s *byteArrays) add(v string) {
	s.data = append(s.data, v...)
	s.ends = append(s.ends, len(s.data))
}

func (s *byteArrays) values() []parquet.ByteArray {
	s.vals = s.vals[:0]
	start := 0
	for _, end := range s.ends {
		s.vals = append(s.vals, parquet.ByteArray(s.data[start:end:end]))
		start = end
	}
	return s.vals
}

// Create starts a dataset file at path (written as path+TempSuffix until
// Close). It fails when the options lack the engine version or a valid JSON
// config, or the file cannot be created.
func Create(path string, opts WriterOptions) (*Writer, error) {
	if opts.EngineVersion == "" {
		return nil, fmt.Errorf("datasets: %s: WriterOptions.EngineVersion is empty", path)
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(opts.Config, &cfg); err != nil {
		return nil, fmt.Errorf("datasets: %s: WriterOptions.Config is not a JSON object: %v", path, err)
	}
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = DefaultRowGroupRows
	}
	if opts.CompressionLevel == 0 {
		opts.CompressionLevel = DefaultCompressionLevel
	}
	if opts.Layout == nil {
		opts.Layout = encoder.Chess
	}
	dict := planesDicts[opts.Layout]
	if dict == nil {
		return nil, fmt.Errorf("datasets: %s: WriterOptions.Layout %v is not one of encoder.Layouts()", path, opts.Layout)
	}
	arrowSchema := SchemaOf(opts.Layout)
	props := writerProperties(opts)
	pqSchema, err := pqarrow.ToParquet(arrowSchema, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	// The stored Arrow schema's value is written at Close, with the
	// footer's other pairs as its metadata (storeArrowSchema).
	meta := metadata.NewKeyValueMetadata()
	meta.Append(KeyArrowSchema, "")
	for _, kv := range writerMetadata(opts.Layout, opts.EngineVersion, opts.Config) {
		meta.Append(kv[0], kv[1])
	}
	// In key order, so that the same options write the same bytes.
	for _, k := range slices.Sorted(maps.Keys(opts.Metadata)) {
		if IsWriterKey(k) {
			return nil, fmt.Errorf("datasets: %s: metadata key %q is set by the writer", path, k)
		}
		meta.Append(k, opts.Metadata[k])
	}

	if c := pqSchema.Column(planesColumn); c.MaxDefinitionLevel() != 1 || c.MaxRepetitionLevel() != 1 {
		return nil, fmt.Errorf("datasets: %s: planes column has levels %d/%d, want 1/1", path, c.MaxDefinitionLevel(), c.MaxRepetitionLevel())
	}

	w := &Writer{path: path, tmp: path + TempSuffix, layout: opts.Layout, dict: dict, rowGroupRows: opts.RowGroupRows, props: props}
	f, err := os.Create(w.tmp)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	w.f = f
	w.buf = bufio.NewWriterSize(f, 1<<20)
	w.sink = &tellWriter{w: w.buf}
	w.meta = metadata.NewFileMetadataBuilder(pqSchema, props, meta)
	w.planes = parquetpage.ChunkWriter{
		Dict:          dict.values,
		RowSize:       opts.Layout.InputSize(),
		PageSize:      int(props.DataPageSize()),
		DictEncoding:  props.DictionaryPageEncoding(),
		IndexEncoding: props.DictionaryIndexEncoding(),
	}
	if _, err := w.sink.Write(parquetMagic); err != nil {
		w.Abort()
		return nil, fmt.Errorf("datasets: writing %s: %w", w.tmp, err)
	}
	w.resetBatch()
	return w, nil
}

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// planesColumn is the Parquet leaf column of planes' values.
var planesColumn = columnIndex(ColPlanes)

// planesPath is the Parquet path of planes' values.
const planesPath = ColPlanes + ".list.element"

// writerProperties chooses each column's encoding. Every column is zstd
// compressed. Dictionary encoding pays for the columns with few distinct
// values (moves, termination, results, depths, game ids, and the planes);
// the FEN is nearly unique per row and is stored plain, where zstd finds
// what consecutive positions share; ply and nodes grow steadily and are
// delta encoded.
func writerProperties(opts WriterOptions) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(opts.CompressionLevel),
		parquet.WithDictionaryDefault(true),
		parquet.WithDictionaryFor(ColFEN, false),
		parquet.WithEncodingFor(ColFEN, parquet.Encodings.Plain),
		parquet.WithDictionaryFor(ColPly, false),
		parquet.WithEncodingFor(ColPly, parquet.Encodings.DeltaBinaryPacked),
		parquet.WithDictionaryFor(ColNodes, false),
		parquet.WithEncodingFor(ColNodes, parquet.Encodings.DeltaBinaryPacked),
		parquet.WithStatsFor(planesPath, false), // min 0, max 1: nothing to prune by
		parquet.WithMaxRowGroupLength(int64(opts.RowGroupRows)),
		parquet.WithDataPageSize(1<<20),
	)
}

// SetMetadata adds a key-value pair to the file's footer, such as a run's
// summary. The keys Create writes cannot be set again.
func (w *Writer) SetMetadata(key, value string) error {
	if w.meta == nil {
		return fmt.Errorf("datasets: %s: writer is closed", w.path)
	}
	if IsWriterKey(key) {
		return fmt.Errorf("datasets: %s: metadata key %q is set by the writer", w.path, key)
	}
	return w.meta.AppendKeyValueMetadata(key, value)
}

// Layout returns the layout of the file's rows.
func (w *Writer) Layout() *encoder.Layout { return w.layout }

// Path returns the final name of the file.
func (w *Writer) Path() string { return w.path }

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// Write adds a row. It rejects a row no valid dataset holds (an empty FEN
// or move, a policy index out of the layout's range, a result other than 0,
// 0.5 or 1, an unset termination, a planes value the layout does not
// allow) with an error naming
// the row; the Writer stays usable. After an I/O error the Writer is
// broken: every later call returns that error, and the caller should Abort.
func (w *Writer) Write(r *Row) error {
	if w.err != nil {
		return w.err
	}
	if w.meta == nil {
		return fmt.Errorf("datasets: %s: writer is closed", w.path)
	}
	b := &w.b
	err := r.check(w.layout)
	if err == nil {
		start, size := len(b.planes), w.layout.InputSize()
		b.planes = b.planes[:start+size]
		if err = w.dict.planesIndices(b.planes[start:], &r.Planes, size); err != nil {
			b.planes = b.planes[:start]
		}
	}
	if err != nil {
		return fmt.Errorf("datasets: %s: row %d (game %d, ply %d): %w", w.path, w.rows, r.GameID, r.Ply, err)
	}
	b.gameID = append(b.gameID, r.GameID)
	b.ply = append(b.ply, r.Ply)
	b.fen.add(r.FEN)
	b.move.add(r.Move)
	b.best.add(r.BestMove)
	b.policy = append(b.policy, r.Policy)
	b.score = append(b.score, r.ScoreCP)
	b.result = append(b.result, r.Result)
	b.inCheck = append(b.inCheck, r.InCheck)
	b.bestCapture = append(b.bestCapture, r.BestIsCapture)
	b.bestPromo = append(b.bestPromo, r.BestIsPromotion)
	b.depth = append(b.depth, r.Depth)
	b.nodes = append(b.nodes, r.Nodes)
	b.term.add(r.Termination.String())
	b.n++
	w.rows++
	if b.n == batchRows || w.rgRows+b.n == w.rowGroupRows {
		return w.flushBatch()
	}
	return nil
}

func (w *Writer) resetBatch() {
	b := &w.b
	b.n = 0
	b.gameID, b.nodes = b.gameID[:0], b.nodes[:0]
	b.ply, b.policy, b.score, b.depth = b.ply[:0], b.policy[:0], b.score[:0], b.depth[:0]
	b.result = b.result[:0]
	if b.planes == nil {
		b.planes = make([]uint8, 0, batchRows*w.layout.InputSize())
	}
	b.planes = b.planes[:0]
	b.inCheck, b.bestCapture, b.bestPromo = b.inCheck[:0], b.bestCapture[:0], b.bestPromo[:0]
	for _, s := range []*byteArrays{&b.fen, &b.move, &b.best, &b.term} {
		s.reset()
	}
}

// flushBatch hands the buffered rows to the column writers of the open row
// group (starting one if needed) and closes the row group when it is full.
func (w *Writer) flushBatch() (err error) {
	b := &w.b
	if b.n == 0 {
		return nil
	}
	defer w.catch(&err)
	if w.rg == nil {
		if err := w.startRowGroup(); err != nil {
			return err
		}
	}
	for i, cw := range w.cols {
		switch i {
		case 0:
			_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(b.gameID, nil, nil)
		case 1:
			_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(b.ply, nil, nil)
		case 2:
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(b.fen.values(), nil, nil)
		case 3:
			err = w.planes.Add(b.planes, b.n)
		case 4:
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(b.move.values(), nil, nil)
		case 5:
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(b.best.values(), nil, nil)
		case 6:
			_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(b.policy, nil, nil)
		case 7:
			_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(b.score, nil, nil)
		case 8:
			_, err = cw.(*file.Float32ColumnChunkWriter).WriteBatch(b.result, nil, nil)
		case 9:
			_, err = cw.(*file.BooleanColumnChunkWriter).WriteBatch(b.inCheck, nil, nil)
		case 10:
			_, err = cw.(*file.BooleanColumnChunkWriter).WriteBatch(b.bestCapture, nil, nil)
		case 11:
			_, err = cw.(*file.BooleanColumnChunkWriter).WriteBatch(b.bestPromo, nil, nil)
		case 12:
			_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(b.depth, nil, nil)
		case 13:
			_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(b.nodes, nil, nil)
		case 14:
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(b.term.values(), nil, nil)
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", columns[i].Name, err)
		}
	}
	w.rgRows += b.n
	w.resetBatch()
	if w.rgRows >= w.rowGroupRows {
		return w.closeRowGroup()
	}
	return nil
}

// catch turns a panic of arrow-go's writers (they report some failures so)
// into an error, and makes any error sticky.
func (w *Writer) catch(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%v", r)
	}
	if *err != nil {
		w.err = fmt.Errorf("datasets: writing %s: %w", w.tmp, *err)
		*err = w.err
	}
}

// startRowGroup opens a row group: a page writer per column, buffering the
// column's pages in memory until the row group closes, and a column writer
// on it (the planes column's pages are written by w.planes).
func (w *Writer) startRowGroup() error {
	w.rg = w.meta.AppendRowGroup()
	if w.cols == nil {
		w.cols = make([]file.ColumnChunkWriter, len(columns))
	}
	for i := range w.cols {
		cm := w.rg.NextColumnChunk()
		path := cm.Descr().Path()
		pager, err := file.NewPageWriter(w.sink, w.props.CompressionFor(path), w.props.CompressionLevelFor(path),
			cm, int16(w.rowGroups), int16(i), w.props.Allocator(), true, nil, nil)
		if err != nil {
			return err
		}
		if i == planesColumn {
			w.cols[i] = nil
			if err := w.planes.Start(pager); err != nil {
				return err
			}
			continue
		}
		w.cols[i] = file.NewColumnChunkWriter(cm, pager, w.props)
	}
	return nil
}

// closeRowGroup writes the open row group's column chunks, in column
// order, and its metadata.
func (w *Writer) closeRowGroup() error {
	for i, cw := range w.cols {
		var err error
		if i == planesColumn {
			err = w.planes.Finish()
		} else {
			err = cw.Close()
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", columns[i].Name, err)
		}
		w.cols[i] = nil
	}
	w.rg.SetNumRows(w.rgRows)
	err := w.rg.Finish(0, int16(w.rowGroups))
	w.rg, w.rgRows = nil, 0
	w.rowGroups++
	return err
}

// finish closes the open row group and writes the footer.
func (w *Writer) finish() (err error) {
	if err = w.flushBatch(); err != nil {
		return err
	}
	defer w.catch(&err)
	if w.rg != nil {
		if err := w.closeRowGroup(); err != nil {
			return err
		}
	}
	md, err := w.meta.Finish()
	if err != nil {
		return err
	}
	if err := storeArrowSchema(md.KeyValueMetadata(), SchemaOf(w.layout)); err != nil {
		return err
	}
	n, err := md.WriteTo(w.sink, nil)
	if err != nil {
		return err
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(n))
	_, err = w.sink.Write(append(tail, parquetMagic...))
	return err
}

// storeArrowSchema sets kv's KeyArrowSchema value to s serialized, as
// pqarrow's store-schema option writes it, with kv's other pairs as the
// schema's metadata: readers that take the metadata from the stored Arrow
// schema (pyarrow's read_table and read_schema) see the footer's pairs too.
func storeArrowSchema(kv metadata.KeyValueMetadata, s *arrow.Schema) error {
	var keys, values []string
	var slot *string
	for _, e := range kv {
		if e.Key == KeyArrowSchema {
			slot = e.Value
			continue
		}
		keys, values = append(keys, e.Key), append(values, e.GetValue())
	}
	if slot == nil {
		return fmt.Errorf("the footer has no %s pair", KeyArrowSchema)
	}
	md := arrow.NewMetadata(keys, values)
	var ser bytes.Buffer
	iw := ipc.NewWriter(&ser, ipc.WithSchema(arrow.NewSchema(s.Fields(), &md)))
	if err := iw.Close(); err != nil {
		return fmt.Errorf("serializing the Arrow schema: %w", err)
	}
	*slot = base64.StdEncoding.EncodeToString(ser.Bytes())
	return nil
}

// Close writes the rows still buffered and the footer, syncs the file and
// renames it to its final name. After a failure the temporary file is
// removed and the error returned.
func (w *Writer) Close() error {
	if w.meta == nil {
		return fmt.Errorf("datasets: %s: writer is closed", w.path)
	}
	err := w.err
	if err == nil {
		err = w.finish()
	}
	w.meta = nil
	if err == nil {
		err = w.buf.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	w.f = nil
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("datasets: closing %s: %w", w.path, err)
	}
	return nil
}

// Abort drops the file being written: nothing is left under either name.
func (w *Writer) Abort() error {
	if w.f == nil {
		return errors.New("datasets: writer already closed or aborted")
	}
	w.meta = nil
	w.rg, w.cols = nil, nil
	w.f.Close()
	w.f = nil
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("datasets: %w", err)
	}
	return nil
}
