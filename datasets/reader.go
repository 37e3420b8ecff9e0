package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"chessforge/datasets/internal/parquetpage"
	"chessforge/encoder"
)

// DefaultBatchRows is the number of rows a Reader decodes at a time.
const DefaultBatchRows = 4096

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// Columns names the columns to read. Empty means every column this
	// package knows: the required ones, which every file must have, and
	// self-play's, which are read when a file has them. Leaving out planes
	// makes reading about twice as fast.
	Columns []string
	// BatchRows is the number of rows per batch (default DefaultBatchRows).
	BatchRows int
	// Filter drops the rows it rejects (see Filter); the zero Filter keeps
	// every row. The columns it reads are read whether or not Columns
	// names them; a file without in_check, best_is_capture or
	// best_is_promotion has them derived from fen and best_move.
	Filter Filter
}

// Files resolves a dataset path: a .parquet file, a directory (every
// *.parquet inside, sorted; unfinished *.parquet.tmp files are skipped), or
// a glob pattern. It fails when nothing matches.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		files, err := filepath.Glob(filepath.Join(globEscape(path), "*.parquet"))
		if err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", path, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("datasets: %s: directory holds no .parquet files", path)
		}
		sort.Strings(files)
		return files, nil
	case err == nil:
		return []string{path}, nil
	}
	if !strings.ContainsAny(path, "*?[") {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	files, gerr := filepath.Glob(path)
	if gerr != nil {
		return nil, fmt.Errorf("datasets: bad pattern %q: %w", path, gerr)
	}
	var out []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() && !strings.HasSuffix(f, TempSuffix) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("datasets: no files match %q", path)
	}
	sort.Strings(out)
	return out, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// FileInfo describes one dataset file.
type FileInfo struct {
	Path      string
	Size      int64 // bytes on disk
	Rows      int64
	RowGroups int
	CreatedBy string
	Schema    *arrow.Schema     // the Arrow schema stored in the file
	Metadata  map[string]string // key-value metadata, ARROW:schema left out
	// Layout is the game and encoding of the rows, from the metadata
	// (KeyGame, KeyPlanes, KeyPolicy).
	Layout *encoder.Layout
	// ColumnBytes is the compressed size of each top-level column (pages
	// and dictionaries) summed over row groups, by column name.
	ColumnBytes map[string]int64
}

// openFile opens a dataset file and checks its metadata and schema.
func openFile(path string) (*file.Reader, *FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}
	pf, err := openParquet(path)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	md := pf.MetaData()
	info := &FileInfo{
		Path: path, Size: st.Size(), Rows: md.NumRows, RowGroups: md.NumRowGroups(),
		CreatedBy: md.GetCreatedBy(), Metadata: map[string]string{},
	}
	info.ColumnBytes = map[string]int64{}
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			if cc, err := rg.ColumnChunk(c); err == nil {
				info.ColumnBytes[cc.PathInSchema()[0]] += cc.TotalCompressedSize()
			}
		}
	}
	kv := md.KeyValueMetadata()
	for i, k := range kv.Keys() {
		if k != KeyArrowSchema {
			info.Metadata[k] = kv.Values()[i]
		}
	}
	fail := func(format string, args ...any) (*file.Reader, *FileInfo, error) {
		pf.Close()
		return nil, nil, fmt.Errorf("datasets: %s: "+format, append([]any{path}, args...)...)
	}
	v, ok := info.Metadata[KeySchemaVersion]
	if !ok {
		return fail("not a chessforge dataset: no %s in the file's metadata", KeySchemaVersion)
	}
	if v != SchemaVersion {
		return fail("%s is %q; this reader knows version %s only", KeySchemaVersion, v, SchemaVersion)
	}
	if info.Layout, err = fileLayout(info.Metadata); err != nil {
		return fail("%v", err)
	}
	info.Schema, err = pqarrow.FromParquet(md.Schema, &pqarrow.ArrowReadProperties{}, kv)
	if err != nil {
		return fail("reading the Arrow schema: %v", err)
	}
	for _, want := range fieldsOf(info.Layout) {
		i := info.Schema.FieldIndices(want.Name)
		if len(i) == 0 {
			if columnIndex(want.Name) < numRequired {
				return fail("missing column %q", want.Name)
			}
			continue
		}
		if got := info.Schema.Field(i[0]).Type; !sameType(got, want.Type) {
			return fail("column %q has type %s, want %s", want.Name, got, want.Type)
		}
	}
	return pf, info, nil
}

// openParquet opens a Parquet file, turning the panics arrow-go raises on
// some corrupt footers into errors. A file without the magic "PAR1" at both
// ends is not opened: the error says it is not a Parquet file, or a
// truncated one.
func openParquet(path string) (pf *file.Reader, err error) {
	if err := checkMagic(path); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, fmt.Errorf("%v", r)
		}
		if err != nil {
			err = fmt.Errorf("not a readable Parquet file: %w", err)
		}
	}()
	return file.OpenParquetFile(path, false)
}

// checkMagic reports a file that does not begin and end with "PAR1".
func checkMagic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	const magic = "PAR1"
	head, tail := make([]byte, len(magic)), make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != magic {
		return fmt.Errorf("not a Parquet file: it does not start with %q (a dataset is a .parquet file written by selfplay or bin/dataset)", magic)
	}
	if _, err := f.ReadAt(tail, st.Size()-int64(len(magic))); err != nil || string(tail) != magic || st.Size() < 12 {
		return fmt.Errorf("a truncated Parquet file: it starts with %q but does not end with it (cut short, or still being written)", magic)
	}
	return nil
}

// Stat returns the description of every file of a dataset (a file, a
// directory or a glob), checking each one's schema and version, and that
// they are all of one game (see SameGame).
func Stat(path string) ([]FileInfo, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	infos := make([]FileInfo, 0, len(files))
	for _, f := range files {
		pf, info, err := openFile(f)
		if err != nil {
			return nil, err
		}
		pf.Close()
		infos = append(infos, *info)
	}
	if err := SameGame(infos); err != nil {
		return nil, err
	}
	return infos, nil
}

// SameGame reports files of different games (a dataset holds one game),
// naming a file of each.
func SameGame(infos []FileInfo) error {
	for _, in := range infos[min(1, len(infos)):] {
		if first := infos[0]; in.Layout != first.Layout {
			return fmt.Errorf("datasets: %s holds %s positions and %s holds %s positions: a dataset holds one game (%s, %s)",
				first.Path, first.Layout.Game, in.Path, in.Layout.Game, first.Layout, in.Layout)
		}
	}
	return nil
}

// Batch holds consecutive rows of one file, column by column. Columns that
// were not read are empty. A Batch is the caller's: its slices stay valid
// until it is passed to ReadBatch again.
type Batch struct {
	File   string          // the file the rows come from
	Layout *encoder.Layout // the file's layout: the game, and the planes per row
	Len    int             // rows in the batch
	// Scanned is the number of rows read from the files for this batch:
	// Len, plus the rows the Reader's filter dropped since the batch before
	// (for a progress bar over NumRows).
	Scanned         int
	GameID          []int64
	Ply             []int32
	FEN             []string
	Planes          []float32 // Layout.InputSize() values per row
	Move            []string
	BestMove        []string
	Policy          []int32
	ScoreCP         []int32
	Result          []float32
	InCheck         []bool
	BestIsCapture   []bool
	BestIsPromotion []bool
	Depth           []int32
	Nodes           []int64
	Termination     []Termination
}

// Row copies row i of the batch into r; columns not read leave r's fields
// at their zero values.
func (b *Batch) Row(i int, r *Row) {
	*r = Row{}
	if len(b.GameID) > 0 {
		r.GameID = b.GameID[i]
	}
	if len(b.Ply) > 0 {
		r.Ply = b.Ply[i]
	}
	if len(b.FEN) > 0 {
		r.FEN = b.FEN[i]
	}
	if len(b.Planes) > 0 {
		n := b.rowSize()
		copy(r.Planes[:n], b.Planes[i*n:(i+1)*n])
	}
	if len(b.Move) > 0 {
		r.Move = b.Move[i]
	}
	if len(b.BestMove) > 0 {
		r.BestMove = b.BestMove[i]
	}
	if len(b.Policy) > 0 {
		r.Policy = b.Policy[i]
	}
	if len(b.ScoreCP) > 0 {
		r.ScoreCP = b.ScoreCP[i]
	}
	if len(b.Result) > 0 {
		r.Result = b.Result[i]
	}
	if len(b.InCheck) > 0 {
		r.InCheck = b.InCheck[i]
	}
	if len(b.BestIsCapture) > 0 {
		r.BestIsCapture = b.BestIsCapture[i]
	}
	if len(b.BestIsPromotion) > 0 {
		r.BestIsPromotion = b.BestIsPromotion[i]
	}
	if len(b.Depth) > 0 {
		r.Depth = b.Depth[i]
	}
	if len(b.Nodes) > 0 {
		r.Nodes = b.Nodes[i]
	}
	if len(b.Termination) > 0 {
		r.Termination = b.Termination[i]
	}
}

// Reader streams the rows of a dataset, file after file in name order and
// row group after row group, holding one batch in memory. The columns are
// decoded by arrow-go's pqarrow, but for planes: its pages are decoded by
// package parquetpage when the file's schema and encodings allow it, which
// is many times faster than pqarrow's generic path for lists this long.
// Every file of a dataset is of one game, with one layout.
type Reader struct {
	files  []string
	layout *encoder.Layout
	rows   int64 // in all files
	opts   ReaderOptions
	next   int // index in files of the next file to open

	pf       *file.Reader
	rr       pqarrow.RecordReader      // the columns pqarrow reads; nil if planes is the only column
	planes   *parquetpage.ColumnReader // the planes column, when it is decoded here
	rowsLeft int64                     // rows of the open file not yet read
	path     string
	generic  bool // read planes through pqarrow always (tests compare the two paths)

	row     Batch // the batch Read serves rows from
	pos     int
	dropped int64 // rows the filter dropped so far
}

// Open starts reading a dataset (a file, a directory or a glob). It opens
// and checks every file's footer first, so that a dataset with a bad file,
// or with files of two games, fails at once with that file's name.
func Open(path string, opts *ReaderOptions) (*Reader, error) {
	if opts != nil {
		if err := opts.Filter.Validate(); err != nil {
			return nil, err
		}
	}
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	r := &Reader{files: files}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.BatchRows <= 0 {
		r.opts.BatchRows = DefaultBatchRows
	}
	for _, c := range r.opts.Columns {
		if columnIndex(c) < 0 {
			return nil, fmt.Errorf("datasets: unknown column %q (known: %s)", c, strings.Join(ColumnNames(), ", "))
		}
	}
	var first FileInfo
	for i, f := range files {
		pf, info, err := openFile(f)
		if err != nil {
			return nil, err
		}
		pf.Close()
		if i == 0 {
			first, r.layout = *info, info.Layout
		} else if err := SameGame([]FileInfo{first, *info}); err != nil {
			return nil, err
		}
		r.rows += info.Rows
		for _, c := range r.opts.Columns {
			if len(info.Schema.FieldIndices(c)) == 0 {
				return nil, fmt.Errorf("datasets: %s: missing column %q", f, c)
			}
		}
		if _, err := r.opts.Filter.filterColumns(f, info.has); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// has reports whether the file has the column.
func (info *FileInfo) has(col string) bool { return len(info.Schema.FieldIndices(col)) > 0 }

// Dropped returns the number of rows the filter has dropped so far.
func (r *Reader) Dropped() int64 { return r.dropped }

// Layout returns the layout of the dataset's rows: its game, and the size
// of its planes and policy.
func (r *Reader) Layout() *encoder.Layout { return r.layout }

// Files returns the files the Reader reads, in order.
func (r *Reader) Files() []string { return r.files }

// NumRows returns the number of rows in all the files, from their footers:
// the total for a progress bar.
func (r *Reader) NumRows() int64 { return r.rows }

// openNext opens the next file for reading, or returns io.EOF.
func (r *Reader) openNext() error {
	r.closeFile()
	if r.next >= len(r.files) {
		return io.EOF
	}
	path := r.files[r.next]
	r.next++
	pf, info, err := openFile(path)
	if err != nil {
		return err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(r.opts.BatchRows)}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return fmt.Errorf("datasets: %s: %w", path, err)
	}
	want := r.opts.Columns
	if len(want) == 0 {
		want = ColumnNames()
	}
	if r.opts.Filter.Active() {
		extra, err := r.opts.Filter.filterColumns(path, info.has)
		if err != nil {
			pf.Close()
			return err
		}
		want = want[:len(want):len(want)]
		for _, c := range extra {
			if !slices.Contains(want, c) {
				want = append(want, c)
			}
		}
	}
	var leaves []int
	var planes *parquetpage.ColumnReader
	for _, name := range want {
		i := info.Schema.FieldIndices(name)
		if len(i) == 0 {
			continue // an optional column this file lacks
		}
		f := fr.Manifest.Fields[i[0]]
		if name == ColPlanes && !r.generic {
			size := info.Layout.InputSize()
			if l := appendLeaves(nil, f); len(l) == 1 && parquetpage.CanRead(pf, l[0], size) {
				planes = parquetpage.NewColumnReader(pf, l[0], size, path, ColPlanes)
				continue
			}
		}
		leaves = appendLeaves(leaves, f)
	}
	r.pf, r.planes, r.path, r.rowsLeft = pf, planes, path, info.Rows
	if len(leaves) == 0 && planes != nil {
		return nil
	}
	sort.Ints(leaves)
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		r.closeFile()
		return fmt.Errorf("datasets: %s: %w", path, err)
	}
	r.rr = rr
	return nil
}

func appendLeaves(dst []int, f pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(dst, f.ColIndex)
	}
	for _, c := range f.Children {
		dst = appendLeaves(dst, c)
	}
	return dst
}

func (r *Reader) closeFile() {
	if r.planes != nil {
		r.planes.Close()
		r.planes = nil
	}
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	if r.pf != nil {
		r.pf.Close()
		r.pf = nil
	}
}

// ReadBatch fills b with the next rows (at most ReaderOptions.BatchRows,
// all from one file, those the filter keeps), reusing b's slices. It
// returns io.EOF after the last row, and an error naming the file for a
// corrupt or truncated file or a null in any column.
func (r *Reader) ReadBatch(b *Batch) error {
	scanned := 0
	for {
		if err := r.readBatch(b); err != nil {
			return err
		}
		scanned += b.Len
		if r.opts.Filter.Active() {
			n, err := r.opts.Filter.filter(b)
			if err != nil {
				return err
			}
			r.dropped += int64(n)
			if b.Len == 0 {
				continue
			}
		}
		b.Scanned = scanned
		return nil
	}
}

// readBatch is ReadBatch without the filter.
func (r *Reader) readBatch(b *Batch) error {
	for {
		if r.pf == nil {
			if err := r.openNext(); err != nil {
				return err
			}
		}
		if r.rr == nil { // planes only, decoded here
			n := int(min(r.rowsLeft, int64(r.opts.BatchRows)))
			if n == 0 {
				r.closeFile()
				continue
			}
			b.reset(r.path, r.layout, n)
			var err error
			b.Planes, err = r.planes.Read(b.Planes, n)
			r.rowsLeft -= int64(n)
			return err
		}
		rec, err := r.nextRecord()
		if err != nil {
			return err
		}
		if rec == nil { // this file is done
			if r.planes != nil {
				if err := r.planes.Finish(); err != nil {
					return err
				}
			}
			r.closeFile()
			continue
		}
		err = fillBatch(b, rec, r.path, r.layout)
		rec.Release()
		if err == nil && r.planes != nil {
			b.Planes, err = r.planes.Read(b.Planes, b.Len)
		}
		r.rowsLeft -= int64(b.Len)
		return err
	}
}

// nextRecord returns the next record of the open file, or nil at its end.
func (r *Reader) nextRecord() (rec arrow.RecordBatch, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("datasets: %s: corrupt file: %v", r.path, p)
		}
	}()
	if !r.rr.Next() {
		if err := r.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("datasets: %s: corrupt file: %w", r.path, err)
		}
		return nil, nil
	}
	rec = r.rr.RecordBatch()
	rec.Retain()
	return rec, nil
}

// Read copies the next row into row. It returns io.EOF after the last row.
func (r *Reader) Read(row *Row) error {
	for r.pos >= r.row.Len {
		if err := r.ReadBatch(&r.row); err != nil {
			return err
		}
		r.pos = 0
	}
	r.row.Row(r.pos, row)
	r.pos++
	return nil
}

// Close releases the open file.
func (r *Reader) Close() error {
	r.closeFile()
	r.next = len(r.files)
	return nil
}

// reset empties b for n rows of the file path of layout l, keeping its
// slices.
func (b *Batch) reset(path string, l *encoder.Layout, n int) {
	*b = Batch{
		File: path, Layout: l, Len: n,
		GameID: b.GameID[:0], Ply: b.Ply[:0], FEN: b.FEN[:0], Planes: b.Planes[:0],
		Move: b.Move[:0], BestMove: b.BestMove[:0], Policy: b.Policy[:0], ScoreCP: b.ScoreCP[:0],
		Result: b.Result[:0], InCheck: b.InCheck[:0], BestIsCapture: b.BestIsCapture[:0],
		BestIsPromotion: b.BestIsPromotion[:0], Depth: b.Depth[:0], Nodes: b.Nodes[:0],
		Termination: b.Termination[:0],
	}
}

// rowSize returns the planes values per row: the layout's InputSize (a
// Batch made by hand, without a Layout, is chess).
func (b *Batch) rowSize() int {
	if b.Layout == nil {
		return encoder.InputSize
	}
	return b.Layout.InputSize()
}

// fillBatch copies a record's columns into b, checking for nulls.
func fillBatch(b *Batch, rec arrow.RecordBatch, path string, l *encoder.Layout) error {
	n := int(rec.NumRows())
	b.reset(path, l, n)
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		if col.NullN() > 0 {
			return fmt.Errorf("datasets: %s: column %q has %d nulls in a batch of %d rows", path, f.Name, col.NullN(), n)
		}
		var err error
		switch f.Name {
		case ColGameID:
			b.GameID = append(b.GameID, col.(*array.Int64).Int64Values()...)
		case ColPly:
			b.Ply = append(b.Ply, col.(*array.Int32).Int32Values()...)
		case ColFEN:
			b.FEN = appendStrings(b.FEN, col.(*array.String))
		case ColPlanes:
			b.Planes, err = appendPlanes(b.Planes, col.(*array.FixedSizeList), l.InputSize())
		case ColMove:
			b.Move = appendStrings(b.Move, col.(*array.String))
		case ColBestMove:
			b.BestMove = appendStrings(b.BestMove, col.(*array.String))
		case ColPolicy:
			b.Policy = append(b.Policy, col.(*array.Int32).Int32Values()...)
		case ColScoreCP:
			b.ScoreCP = append(b.ScoreCP, col.(*array.Int32).Int32Values()...)
		case ColResult:
			b.Result = append(b.Result, col.(*array.Float32).Float32Values()...)
		case ColInCheck:
			b.InCheck = appendBools(b.InCheck, col.(*array.Boolean))
		case ColBestIsCapture:
			b.BestIsCapture = appendBools(b.BestIsCapture, col.(*array.Boolean))
		case ColBestIsPromotion:
			b.BestIsPromotion = appendBools(b.BestIsPromotion, col.(*array.Boolean))
		case ColDepth:
			b.Depth = append(b.Depth, col.(*array.Int32).Int32Values()...)
		case ColNodes:
			b.Nodes = append(b.Nodes, col.(*array.Int64).Int64Values()...)
		case ColTermination:
			b.Termination, err = appendTerminations(b.Termination, col.(*array.String))
		}
		if err != nil {
			return fmt.Errorf("datasets: %s: column %q: %w", path, f.Name, err)
		}
	}
	return nil
}

// appendStrings copies a string column's bytes once and slices the values
// out of that copy.
func appendStrings(dst []string, col *array.String) []string {
	offs := col.ValueOffsets()
	all := string(col.ValueBytes())
	base := offs[0]
	for i := 0; i < col.Len(); i++ {
		dst = append(dst, all[offs[i]-base:offs[i+1]-base])
	}
	return dst
}

func appendBools(dst []bool, col *array.Boolean) []bool {
	for i := 0; i < col.Len(); i++ {
		dst = append(dst, col.Value(i))
	}
	return dst
}

func appendPlanes(dst []float32, col *array.FixedSizeList, size int) ([]float32, error) {
	values, ok := col.ListValues().(*array.Float32)
	if !ok {
		return dst, fmt.Errorf("list values are %s, want float", col.ListValues().DataType())
	}
	if values.NullN() > 0 {
		return dst, fmt.Errorf("%d null plane values", values.NullN())
	}
	start := col.Data().Offset() * size
	end := start + col.Len()*size
	all := values.Float32Values()
	if end > len(all) {
		return dst, fmt.Errorf("%d plane values for %d rows", len(all)-start, col.Len())
	}
	return append(dst, all[start:end]...), nil
}

func appendTerminations(dst []Termination, col *array.String) ([]Termination, error) {
	last, lastT := "", TerminationUnknown
	for i := 0; i < col.Len(); i++ {
		s := col.Value(i)
		if s != last || lastT == TerminationUnknown {
			t, err := ParseTermination(s)
			if err != nil {
				return dst, err
			}
			last, lastT = s, t
		}
		dst = append(dst, lastT)
	}
	return dst, nil
}
