package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/datasets/npy"
	"chessforge/encoder"
)

// The NumPy export's layout, for a chess dataset (a draughts one has its
// layout's Binary and Scalar planes instead: planes uint8 [N, 4, 8] and
// scalars float32 [N, 3], see encoder.Dama; the manifest names the game
// and lists the planes). Each shard k is a set of .npy files of the same
// row count N, named part-KKKKK-NAME.npy:
//
//	planes   uint8   [N, 13, 8]  the 0/1 planes BinaryPlanes, each as 8 bytes
//	                             in np.packbits layout (big bit order): byte j
//	                             holds rank j, its top bit file a
//	scalars  float32 [N, 5]      the whole-plane values of ScalarPlanes,
//	                             exactly the float32 of the Parquet planes
//	policy   int32   [N]         SPEC §2 index of best_move
//	score_cp int32   [N]         centipawns from White's point of view
//	result   float32 [N]         the game's result for White: 1, 0.5, 0
//	ply      int32   [N]         half-moves since the game's first position
//	in_check, best_is_capture, best_is_promotion
//	         uint8   [N]         the filter columns, 1 true and 0 false; only
//	                             when every source file has them (older
//	                             datasets may not: the shard then omits them)
//
// The last four are what the read-time filters (min_ply, skip_in_check,
// skip_captures) need beside score_cp and result.
//
// np.unpackbits(planes, axis=-1) gives [N, 13, 64], the binary planes
// flat in the §1 square order; with the scalars broadcast over 64 squares
// they rebuild the 18×8×8 float32 planes bit for bit (Unpack does it in Go;
// the Python package does it in NumPy). manifest.json, written last, lists
// the shards.
var (
	BinaryPlanes = [...]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, encoder.PlaneEnPassant}
	ScalarPlanes = [...]int{encoder.PlaneRepetition, encoder.PlaneSideToMove,
		encoder.PlaneWhiteCastling, encoder.PlaneBlackCastling, encoder.PlaneHalfmove}
)

// Sizes of a row in the NumPy export of a chess dataset (RowBytes gives
// any layout's).
const (
	PackedBytes = len(BinaryPlanes) * 8 // bytes of packed planes per row: 104
	NumScalars  = len(ScalarPlanes)     // scalar values per row: 5
	// BytesPerRow is the export's size per position: packed planes,
	// scalars, policy, score_cp, result, ply and the three filter flags.
	BytesPerRow = PackedBytes + 4*NumScalars + 4 + 4 + 4 + 4 + 3
)

// RowBytes returns the export's size per position of a dataset of layout
// l: packed planes, scalars, policy, score_cp, result, ply and the three
// filter flags.
func RowBytes(l *encoder.Layout) int { return len(l.Binary)*8 + 4*len(l.Scalar) + 4 + 4 + 4 + 4 + 3 }

// ManifestName is the name of the NumPy export's manifest file.
const ManifestName = "manifest.json"

// Format and version written in the manifest.
const (
	NPYFormat  = "chessforge-npy"
	NPYVersion = 1
)

// Manifest describes a NumPy export: manifest.json.
type Manifest struct {
	Format  string `json:"format"`  // NPYFormat
	Version int    `json:"version"` // NPYVersion
	// Game is the source's game, absent for chess (as in the exports made
	// before draughts).
	Game         string            `json:"game,omitempty"`
	Planes       string            `json:"planes"` // the layout's planes version: encoder.PlanesVersion for chess
	Policy       string            `json:"policy"` // the layout's policy version
	BinaryPlanes []int             `json:"binary_planes"`
	ScalarPlanes []int             `json:"scalar_planes"`
	Rows         int64             `json:"rows"`
	Source       []string          `json:"source"`   // the Parquet files exported
	Metadata     map[string]string `json:"metadata"` // the first source file's key-value metadata
	Shards       []Shard           `json:"shards"`
}

// Shard names the files of one shard, relative to the manifest.
type Shard struct {
	Rows    int    `json:"rows"`
	Planes  string `json:"planes"`
	Scalars string `json:"scalars"`
	Policy  string `json:"policy"`
	ScoreCP string `json:"score_cp"`
	Result  string `json:"result"`
	Ply     string `json:"ply"`
	// The filter flags, empty when a source file lacks those columns.
	InCheck         string `json:"in_check,omitempty"`
	BestIsCapture   string `json:"best_is_capture,omitempty"`
	BestIsPromotion string `json:"best_is_promotion,omitempty"`
}

// DefaultShardRows is the number of rows per NumPy shard: about 140 MB.
const DefaultShardRows = 1 << 20

// NPYOptions configures NPY.
type NPYOptions struct {
	ShardRows int             // rows per shard (default DefaultShardRows)
	Filter    datasets.Filter // read-time filters: the rows they drop are not exported
	Progress  Progress        // told of the rows read
}

// Pack writes the planes of one chess row in the export's layout: the
// binary planes bit-packed into packed (PackedBytes) and the scalar planes
// into scalars (NumScalars). It fails when a binary plane holds a value
// other than 0 or 1, or a scalar plane is not constant: such planes would
// not come back from the export unchanged.
func Pack(packed []byte, scalars []float32, planes []float32) error {
	return PackAs(encoder.Chess, packed, scalars, planes)
}

// PackAs is Pack for a row of layout l: len(l.Binary)*8 packed bytes and
// len(l.Scalar) scalars.
func PackAs(l *encoder.Layout, packed []byte, scalars []float32, planes []float32) error {
	for k, p := range l.Binary {
		pl := planes[p*64 : p*64+64]
		for j := 0; j < 8; j++ {
			var b byte
			for i, v := range pl[8*j : 8*j+8] {
				switch v {
				case 1:
					b |= 0x80 >> i
				case 0:
				default:
					return fmt.Errorf("plane %d square %d holds %v, not 0 or 1", p, 8*j+i, v)
				}
			}
			packed[8*k+j] = b
		}
	}
	for k, p := range l.Scalar {
		pl := planes[p*64 : p*64+64]
		v := pl[0]
		for sq, x := range pl {
			if x != v {
				return fmt.Errorf("plane %d is not constant: square %d holds %v, square 0 %v", p, sq, x, v)
			}
		}
		scalars[k] = v
	}
	return nil
}

// Unpack rebuilds the 18×8×8 planes of one chess row from its packed bits
// and scalars, the inverse of Pack.
func Unpack(planes []float32, packed []byte, scalars []float32) {
	UnpackAs(encoder.Chess, planes, packed, scalars)
}

// UnpackAs is Unpack for a row of layout l, the inverse of PackAs.
func UnpackAs(l *encoder.Layout, planes []float32, packed []byte, scalars []float32) {
	for k, p := range l.Binary {
		for j := 0; j < 8; j++ {
			b := packed[8*k+j]
			for i := 0; i < 8; i++ {
				planes[p*64+8*j+i] = float32(b >> (7 - i) & 1)
			}
		}
	}
	for k, p := range l.Scalar {
		for sq := 0; sq < 64; sq++ {
			planes[p*64+sq] = scalars[k]
		}
	}
}

// shardWriter writes the arrays of one shard.
type shardWriter struct {
	shard                                       Shard
	planes, scalars, policy, score, result, ply *npy.Writer
	flags                                       [3]*npy.Writer // in_check, best_is_capture, best_is_promotion; nil without them
}

// flagColumns are the boolean filter columns the export carries as uint8
// arrays, in the order of shardWriter.flags.
var flagColumns = [...]string{datasets.ColInCheck, datasets.ColBestIsCapture, datasets.ColBestIsPromotion}

func newShard(dir string, k int, withFlags bool, l *encoder.Layout) (*shardWriter, error) {
	name := func(s string) string { return fmt.Sprintf("part-%05d-%s.npy", k, s) }
	s := &shardWriter{shard: Shard{Planes: name("planes"), Scalars: name("scalars"),
		Policy: name("policy"), ScoreCP: name("score_cp"), Result: name("result"), Ply: name("ply")}}
	if withFlags {
		s.shard.InCheck, s.shard.BestIsCapture, s.shard.BestIsPromotion =
			name(flagColumns[0]), name(flagColumns[1]), name(flagColumns[2])
	}
	var err error
	create := func(file, descr string, shape ...int) *npy.Writer {
		if err != nil {
			return nil
		}
		var w *npy.Writer
		w, err = npy.Create(filepath.Join(dir, file), descr, shape...)
		return w
	}
	s.planes = create(s.shard.Planes, npy.Uint8, len(l.Binary), 8)
	s.scalars = create(s.shard.Scalars, npy.Float32, len(l.Scalar))
	s.policy = create(s.shard.Policy, npy.Int32)
	s.score = create(s.shard.ScoreCP, npy.Int32)
	s.result = create(s.shard.Result, npy.Float32)
	s.ply = create(s.shard.Ply, npy.Int32)
	if withFlags {
		for i, file := range []string{s.shard.InCheck, s.shard.BestIsCapture, s.shard.BestIsPromotion} {
			s.flags[i] = create(file, npy.Uint8)
		}
	}
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("export: %w", err)
	}
	return s, nil
}

func (s *shardWriter) writers() []*npy.Writer {
	w := []*npy.Writer{s.planes, s.scalars, s.policy, s.score, s.result, s.ply}
	if s.flags[0] != nil {
		w = append(w, s.flags[:]...)
	}
	return w
}

func (s *shardWriter) abort() {
	for _, w := range s.writers() {
		if w != nil {
			w.Abort()
		}
	}
}

func (s *shardWriter) close() error {
	s.shard.Rows = s.policy.Rows()
	for i, w := range s.writers() {
		if err := w.Close(); err != nil {
			for _, rest := range s.writers()[i+1:] {
				rest.Abort()
			}
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// NPY exports the dataset at src into the directory dir as NumPy shards
// and a manifest, in the layout described above. The export is written
// into a new directory beside dir (".NAME-*.tmp", the directories above
// made if needed) and, once whole, takes dir's place: an earlier export
// there (see CheckNPYDir) is replaced only then, and a failed export
// leaves it as it was and nothing new beside it. On Linux the two
// directories are swapped in one step, so that a crash leaves dir holding
// either export whole; elsewhere the old one is first renamed aside
// (".NAME-*.old"), and a crash between the two renames leaves both whole
// beside a missing dir. A crash may leave such a directory beside dir,
// which is safe to delete. It returns the manifest.
func NPY(src, dir string, opts NPYOptions) (*Manifest, error) {
	if opts.ShardRows <= 0 {
		opts.ShardRows = DefaultShardRows
	}
	dir = resolveLink(dir)
	infos, err := datasets.Stat(src)
	if err != nil {
		return nil, err
	}
	withFlags := haveFlags(infos)
	r, err := openForNPY(src, opts.Filter, withFlags)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := CheckNPYDir(dir); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	undo, err := configs.MakeDirs(filepath.Dir(dir))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+"-*"+npy.TempSuffix)
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	fail := func(err error) (*Manifest, error) {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		undo()
		return nil, err
	}
	if err != nil {
		return fail(fmt.Errorf("export: %w", err))
	}
	e := &npyExport{dir: tmp, opts: opts, l: r.Layout(), withFlags: withFlags, m: newManifest(r, infos, opts.Filter)}
	if opts.Filter.Active() {
		e.kept = " of those the filter keeps"
	}
	if err := e.copyRows(r); err != nil {
		e.abort()
		return fail(err)
	}
	if e.cur != nil {
		if err := e.closeShard(); err != nil {
			return fail(err)
		}
	}
	if err := writeJSON(filepath.Join(tmp, ManifestName), e.m); err != nil {
		return fail(err)
	}
	if err := replaceDir(tmp, dir); err != nil {
		return fail(fmt.Errorf("export: %w", err))
	}
	return e.m, nil
}

// CheckNPYDir checks that dir can take a NumPy export: it does not exist,
// or it is a directory holding nothing but an earlier export's files
// (manifest.json, the part-*.npy arrays, and the *.tmp files of one cut
// short), which the export replaces whole. The error names a file that is
// not an export's, which the export would delete, first the directory:
// "npy holds npy/notes.txt, which is not part of a NumPy export: ...".
func CheckNPYDir(dir string) error {
	dir = resolveLink(dir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		ours := name == ManifestName || name == ManifestName+npy.TempSuffix ||
			(strings.HasPrefix(name, "part-") && (strings.HasSuffix(name, ".npy") || strings.HasSuffix(name, ".npy"+npy.TempSuffix)))
		if !ours || !e.Type().IsRegular() {
			return fmt.Errorf("%s holds %s, which is not part of a NumPy export: replacing the directory would delete it (choose a new or empty directory)",
				dir, filepath.Join(dir, name))
		}
	}
	return nil
}

// resolveLink returns the directory a symbolic link dir points to, so
// that the export replaces that directory rather than the link; dir
// itself otherwise.
func resolveLink(dir string) string {
	dir = filepath.Clean(dir)
	if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(dir); err == nil {
			return target
		}
	}
	return dir
}

// replaceDir puts the directory tmp in dir's place, removing what dir held.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	if err := exchange(tmp, dir); err == nil {
		return os.RemoveAll(tmp) // now the old export
	} else if !errors.Is(err, errNoExchange) {
		return err
	}
	old, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+"-*.old")
	if err != nil {
		return err
	}
	if err := os.Rename(dir, old); err != nil { // over the empty old
		os.Remove(old)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	return os.RemoveAll(old)
}

// haveFlags reports whether every file has the filter columns: only then
// does the export carry them.
func haveFlags(infos []datasets.FileInfo) bool {
	for _, info := range infos {
		for _, c := range flagColumns {
			if len(info.Schema.FieldIndices(c)) == 0 {
				return false
			}
		}
	}
	return true
}

// openForNPY opens the dataset at src for the columns the export writes,
// with the read-time filters.
func openForNPY(src string, filter datasets.Filter, withFlags bool) (*datasets.Reader, error) {
	columns := []string{datasets.ColPlanes, datasets.ColPolicy, datasets.ColScoreCP, datasets.ColResult, datasets.ColPly}
	if withFlags {
		columns = append(columns, flagColumns[:]...)
	}
	return datasets.Open(src, &datasets.ReaderOptions{Filter: filter, Columns: columns})
}

// newManifest begins the manifest of an export of r: its layout, its
// sources, the first file's metadata and the read-time filters; the rows
// and shards are counted in as they are written.
func newManifest(r *datasets.Reader, infos []datasets.FileInfo, filter datasets.Filter) *Manifest {
	l := r.Layout()
	m := &Manifest{
		Format: NPYFormat, Version: NPYVersion,
		Planes: l.Planes, Policy: l.Policy,
		BinaryPlanes: l.Binary, ScalarPlanes: l.Scalar,
		Source: r.Files(), Metadata: infos[0].Metadata,
	}
	if l != encoder.Chess {
		m.Game = l.Game
	}
	if filter.Active() {
		m.Metadata[KeyFilter] = filter.String()
	}
	return m
}

// npyExport is an NPY export under way: the shard being written, and the
// buffers each batch's rows are packed into, reused from batch to batch.
type npyExport struct {
	dir       string
	opts      NPYOptions
	l         *encoder.Layout
	withFlags bool
	m         *Manifest
	cur       *shardWriter // nil between shards
	packed    []byte
	scalars   []float32
	flags     []byte
	kept      string // says so in messages when the filter is on
}

// copyRows reads r batch by batch and writes its rows into the shards,
// telling opts.Progress of each batch.
func (e *npyExport) copyRows(r *datasets.Reader) error {
	var (
		b      datasets.Batch
		inFile int64 // row number within b.File (among the rows the filter keeps)
		file   string
	)
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.File != file {
			file, inFile = b.File, 0
		}
		if err := e.writeBatch(&b, inFile); err != nil {
			return err
		}
		inFile += int64(b.Len)
		if e.opts.Progress != nil {
			e.opts.Progress(b.Scanned)
		}
	}
}

// writeBatch writes a batch's rows, opening a shard when none is open and
// closing one when it is full; inFile is the batch's first row's number
// within its file.
func (e *npyExport) writeBatch(b *datasets.Batch, inFile int64) error {
	for start := 0; start < b.Len; {
		if e.cur == nil {
			cur, err := newShard(e.dir, len(e.m.Shards), e.withFlags, e.l)
			if err != nil {
				return err
			}
			e.cur = cur
		}
		n := min(b.Len-start, e.opts.ShardRows-e.cur.policy.Rows())
		if err := e.pack(b, start, n, inFile); err != nil {
			return err
		}
		if err := e.writeRows(b, start, n); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		start += n
		e.m.Rows += int64(n)
		if e.cur.policy.Rows() == e.opts.ShardRows {
			if err := e.closeShard(); err != nil {
				return err
			}
		}
	}
	return nil
}

// pack packs the planes of the batch's rows [start, start+n) into
// e.packed and e.scalars; an error names the row that does not fit.
func (e *npyExport) pack(b *datasets.Batch, start, n int, inFile int64) error {
	packedBytes, numScalars, size := len(e.l.Binary)*8, len(e.l.Scalar), e.l.InputSize()
	e.packed = e.packed[:0]
	e.scalars = e.scalars[:0]
	for i := start; i < start+n; i++ {
		e.packed = append(e.packed, make([]byte, packedBytes)...)
		e.scalars = append(e.scalars, make([]float32, numScalars)...)
		err := PackAs(e.l, e.packed[len(e.packed)-packedBytes:], e.scalars[len(e.scalars)-numScalars:],
			b.Planes[i*size:(i+1)*size])
		if err != nil {
			return fmt.Errorf("export: %s: row %d%s: planes do not fit the export's layout: %w", b.File, inFile+int64(i), e.kept, err)
		}
	}
	return nil
}

// writeRows appends the packed rows and the batch's columns of the rows
// [start, start+n) to the shard's arrays.
func (e *npyExport) writeRows(b *datasets.Batch, start, n int) error {
	cur := e.cur
	err := cur.planes.WriteUint8(e.packed)
	if err == nil {
		err = cur.scalars.WriteFloat32(e.scalars)
	}
	if err == nil {
		err = cur.policy.WriteInt32(b.Policy[start : start+n])
	}
	if err == nil {
		err = cur.score.WriteInt32(b.ScoreCP[start : start+n])
	}
	if err == nil {
		err = cur.result.WriteFloat32(b.Result[start : start+n])
	}
	if err == nil {
		err = cur.ply.WriteInt32(b.Ply[start : start+n])
	}
	if e.withFlags {
		for k, col := range [...][]bool{b.InCheck, b.BestIsCapture, b.BestIsPromotion} {
			e.flags = e.flags[:0]
			for _, v := range col[start : start+n] {
				e.flags = append(e.flags, boolByte(v))
			}
			if err == nil {
				err = cur.flags[k].WriteUint8(e.flags)
			}
		}
	}
	return err
}

// closeShard closes the shard being written and lists it in the manifest.
// On an error the shard's files are gone (shardWriter.close aborts them).
func (e *npyExport) closeShard() error {
	cur := e.cur
	e.cur = nil
	if err := cur.close(); err != nil {
		return err
	}
	e.m.Shards = append(e.m.Shards, cur.shard)
	return nil
}

// abort removes the files of the shard being written, if any.
func (e *npyExport) abort() {
	if e.cur != nil {
		e.cur.abort()
	}
}

// boolByte is 1 for true, 0 for false.
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// writeJSON writes v as indented JSON under a temporary name, then renames.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp := path + npy.TempSuffix
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// ReadManifest reads a NumPy export's manifest from dir and checks its
// format and layout versions (see Manifest.Layout).
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("export: %w (a NumPy export without a manifest is unfinished)", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	switch {
	case m.Format != NPYFormat || m.Version != NPYVersion:
		return nil, fmt.Errorf("export: %s: format %q version %d, want %q version %d", path, m.Format, m.Version, NPYFormat, NPYVersion)
	}
	if _, err := m.Layout(); err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	return &m, nil
}

// Layout returns the layout of the export's source: its game's (chess
// when the manifest names none), whose versions and binary and scalar
// planes the manifest must give.
func (m *Manifest) Layout() (*encoder.Layout, error) {
	l, err := encoder.LayoutOf(m.Game)
	if err != nil {
		return nil, err
	}
	if m.Planes != l.Planes || m.Policy != l.Policy || !slices.Equal(m.BinaryPlanes, l.Binary) || !slices.Equal(m.ScalarPlanes, l.Scalar) {
		return nil, fmt.Errorf("planes %q policy %q (binary %v, scalar %v), want %q and %q (%v, %v) for %s",
			m.Planes, m.Policy, m.BinaryPlanes, m.ScalarPlanes, l.Planes, l.Policy, l.Binary, l.Scalar, l.Game)
	}
	return l, nil
}
