package tuner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"chessforge/datasets"
)

// How positions are chosen and turned into training positions.
const (
	// Resolve replaces every position by the quiet leaf of its quiescence
	// search (the default, standard Texel practice).
	Resolve = "qsearch"
	// Filter keeps only quiet positions: not in check, and with a best move
	// that is neither a capture nor a promotion (datasets), or, for text
	// files without a best move, where the quiescence search stands pat.
	Filter = "filter"
	// AsIs takes every position as it is.
	AsIs = "none"
)

// MateBound is the score from which a search score is a mate score
// (datasets store mates as ±(32000 − plies)).
const MateBound = 31000

// LoadOptions configures Load.
type LoadOptions struct {
	// Model is the evaluation whose coefficients are stored, and the game
	// the positions are read as (nil: ChessModel).
	Model  Model
	Select string // Resolve (default), Filter or AsIs
	// Filter is the read-time filters. A Parquet dataset is read through
	// datasets.Reader with it. Text lines carry a FEN and a result only:
	// min-ply takes the ply from the FEN's move counters (a line without
	// them is a bad line), skip-in-check decides from the FEN, and the
	// filters that read a score or a best move (max-score, disagree-score,
	// skip-captures) are an error naming the file and the missing column.
	Filter    datasets.Filter
	SkipMates bool    // skip positions whose search score is a mate score
	ValFrac   float64 // share of games that go to validation
	Seed      uint64  // seed of the train/validation split
	EPDBlock  int     // consecutive text lines that count as one game for the split (0: 64)
	MaxBad    int     // bad lines tolerated before Load fails
	Threads   int     // goroutines (0: GOMAXPROCS)
	// Warn receives one line per tolerated bad line (nil: discarded).
	Warn io.Writer
	// Progress, when set, is called with the number of records read so far.
	Progress func(read int)
}

// LoadStats counts what Load read and kept.
type LoadStats struct {
	Files     []string
	Read      int // records (lines or rows) read, those the filters dropped included
	Bad       int // bad lines tolerated
	Train     int // positions kept for training
	Val       int // positions kept for validation
	Resolved  int // positions a quiescence search moved to another leaf
	Filtered  int // dropped by the read-time filters (LoadOptions.Filter)
	SkipMate  int // skipped for a mate score
	SkipCheck int // skipped (Filter) as in check
	SkipNoisy int // skipped (Filter) as not quiet
}

// record is one labelled position as read from a file.
type record struct {
	raw    string // a text line to parse, or "" when the fields are set
	fen    string
	result float64 // White's
	score  float64 // White's, NaN when unknown
	key    uint64  // game key for the split
	best   string  // the search's best move in the game's notation; "" for text lines
	file   string
	line   int
}

const chunkSize = 2048

type chunk struct {
	seq  int
	recs []record
}

type chunkResult struct {
	seq        int
	train, val Set
	st         LoadStats
	bad        []string // "file:line: problem"
}

// Load reads labelled positions from path — a Parquet dataset (a file, a
// directory of shards or a glob, through package datasets) or text files
// of `FEN [result]` or zurichess `FEN c9 "result";` lines — selects and
// resolves them as opts says, traces each with the evaluation of
// opts.Model and splits them by game into a training and a validation
// set. A Parquet file of another game than the model's is an error.
//
// Parquet rows carry their game_id; text lines carry no game, so lines are
// grouped into blocks of EPDBlock consecutive lines and each block goes
// wholly to one side. A file written game by game then keeps most games on
// one side, and a shuffled file is split at random either way.
//
// The work is spread over Threads goroutines; chunk k always goes to
// goroutine k mod Threads and each chunk starts with a cleared search, so
// the sets are the same whatever the thread count and timing.
func Load(path string, opts LoadOptions) (train, val *Set, st *LoadStats, err error) {
	switch opts.Select {
	case "":
		opts.Select = Resolve
	case Resolve, Filter, AsIs:
	default:
		return nil, nil, nil, fmt.Errorf("tuner: unknown selection %q (want %s, %s or %s)", opts.Select, Resolve, Filter, AsIs)
	}
	if opts.Model == nil {
		opts.Model = ChessModel
	}
	if opts.EPDBlock <= 0 {
		opts.EPDBlock = 64
	}
	if opts.ValFrac < 0 || opts.ValFrac >= 1 {
		return nil, nil, nil, fmt.Errorf("tuner: validation fraction %g not in [0, 1)", opts.ValFrac)
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if err := opts.Filter.Validate(); err != nil {
		return nil, nil, nil, err
	}
	files, err := inputFiles(path)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range files {
		if err := textTakes(f, opts.Filter); err != nil {
			return nil, nil, nil, err
		}
	}
	if game, err := DataGame(path); err != nil {
		return nil, nil, nil, err
	} else if game != "" && game != opts.Model.Game() {
		return nil, nil, nil, fmt.Errorf("tune: %s holds %s positions, and the evaluation tuned is %s's", path, game, opts.Model.Game())
	}
	st = &LoadStats{Files: files}

	quit := make(chan struct{})
	ins := make([]chan chunk, threads)
	out := make(chan chunkResult, 2*threads)
	var wg sync.WaitGroup
	for t := range ins {
		ins[t] = make(chan chunk, 2)
		wg.Add(1)
		go func(in <-chan chunk) {
			defer wg.Done()
			w := newWorker(opts)
			for c := range in {
				select {
				case out <- w.do(c):
				case <-quit:
				}
			}
		}(ins[t])
	}
	prodErr := make(chan error, 1)
	var dropped int64 // rows the Parquet reader's filter dropped; read after prodErr
	go func() {
		var err error
		dropped, err = produce(files, opts, ins, quit)
		prodErr <- err
		for _, in := range ins {
			close(in)
		}
		wg.Wait()
		close(out)
	}()

	train, val = NewSet(opts.Model.Shape()), NewSet(opts.Model.Shape())
	pending := map[int]chunkResult{}
	next := 0
	var fail error
	for r := range out {
		if fail != nil {
			continue
		}
		pending[r.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if fail = st.merge(&r, train, val, opts); fail != nil {
				close(quit)
				break
			}
			if opts.Progress != nil {
				opts.Progress(st.Read)
			}
		}
	}
	if e := <-prodErr; fail == nil && e != nil && !errors.Is(e, errQuit) {
		fail = e
	}
	if fail != nil {
		return nil, nil, nil, fail
	}
	st.Read += int(dropped)
	st.Filtered += int(dropped)
	st.Train, st.Val = train.Len(), val.Len()
	return train, val, st, nil
}

// merge adds a chunk's result in order, counting bad lines against the
// tolerance.
func (st *LoadStats) merge(r *chunkResult, train, val *Set, opts LoadOptions) error {
	for _, b := range r.bad {
		st.Bad++
		if st.Bad > opts.MaxBad {
			return fmt.Errorf("%s (more than -max-bad %d bad lines)", b, opts.MaxBad)
		}
		if opts.Warn != nil {
			fmt.Fprintf(opts.Warn, "tune: skipping bad line: %s\n", b)
		}
	}
	st.Read += r.st.Read
	st.Resolved += r.st.Resolved
	st.Filtered += r.st.Filtered
	st.SkipMate += r.st.SkipMate
	st.SkipCheck += r.st.SkipCheck
	st.SkipNoisy += r.st.SkipNoisy
	if err := train.Append(&r.train); err != nil {
		return err
	}
	return val.Append(&r.val)
}

var errQuit = errors.New("tuner: load cancelled")

// inputFiles resolves path: a file, a directory (its regular files in name
// order, unfinished *.tmp files skipped) or a glob.
func inputFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		return []string{path}, nil
	}
	var files []string
	if err == nil {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), datasets.TempSuffix) && !strings.HasPrefix(e.Name(), ".") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	} else {
		files, err = filepath.Glob(path)
		if err != nil {
			return nil, fmt.Errorf("tune: bad pattern %q: %w", path, err)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("tune: no data at %q", path)
	}
	return files, nil
}

// textTakes reports, for an input that is not Parquet, the filter that
// reads a column text lines lack.
func textTakes(path string, f datasets.Filter) error {
	if isParquet(path) {
		return nil
	}
	for _, n := range f.Needs() {
		if n.Setting == "min-ply" || n.Setting == "skip-in-check" {
			continue // from the FEN
		}
		return fmt.Errorf("tune: %s: text input has no %s column, which the read-time filter %s reads: filter a Parquet dataset instead",
			path, strings.Join(n.Columns, " or "), n.Setting)
	}
	return nil
}

func isParquet(path string) bool { return strings.HasSuffix(path, ".parquet") }

// produce reads every file into chunks, handing chunk k to ins[k mod n]. It
// returns the number of Parquet rows the read-time filters dropped.
func produce(files []string, opts LoadOptions, ins []chan chunk, quit <-chan struct{}) (int64, error) {
	seq := 0
	cur := make([]record, 0, chunkSize)
	send := func() error {
		if len(cur) == 0 {
			return nil
		}
		select {
		case ins[seq%len(ins)] <- chunk{seq, cur}:
		case <-quit:
			return errQuit
		}
		seq++
		cur = make([]record, 0, chunkSize)
		return nil
	}
	add := func(r record) error {
		cur = append(cur, r)
		if len(cur) == chunkSize {
			return send()
		}
		return nil
	}
	var dropped int64
	for fi, f := range files {
		var err error
		if isParquet(f) {
			var n int64
			n, err = readParquet(f, opts.Filter, add)
			dropped += n
		} else {
			err = readText(f, uint64(fi), opts.EPDBlock, add)
		}
		if err != nil {
			return dropped, err
		}
	}
	return dropped, send()
}

// readParquet hands the rows of a Parquet file that filter keeps to add
// and returns how many it dropped.
func readParquet(path string, filter datasets.Filter, add func(record) error) (int64, error) {
	// Required columns only (in check and the best move's kind come from
	// the board), so that every dataset, old or from another writer, loads.
	rd, err := datasets.Open(path, &datasets.ReaderOptions{Filter: filter, Columns: []string{
		datasets.ColGameID, datasets.ColFEN, datasets.ColBestMove, datasets.ColScoreCP, datasets.ColResult,
	}})
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	var row datasets.Row
	for n := 1; ; n++ {
		if err := rd.Read(&row); err == io.EOF {
			return rd.Dropped(), nil
		} else if err != nil {
			return rd.Dropped(), fmt.Errorf("%s: row %d: %w", path, n, err)
		}
		if err := add(record{
			fen: row.FEN, result: float64(row.Result), score: float64(row.ScoreCP),
			key: mix(uint64(row.GameID)), best: row.BestMove, file: path, line: n,
		}); err != nil {
			return rd.Dropped(), err
		}
	}
}

func readText(path string, fileIndex uint64, block int, add func(record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		key := mix(fileIndex<<40 ^ uint64((n-1)/block))
		if err := add(record{raw: line, key: key, score: math.NaN(), file: path, line: n}); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// mix is SplitMix64's finaliser: it spreads keys over 64 bits.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// isVal says whether game key goes to validation.
func isVal(key, seed uint64, frac float64) bool {
	return float64(mix(key^mix(seed))>>11)/(1<<53) < frac
}

// worker turns records into traced positions.
type worker struct {
	opts  LoadOptions
	tr    Tracer
	shape Shape
}

func newWorker(opts LoadOptions) *worker {
	return &worker{opts: opts, tr: opts.Model.NewTracer(opts.Select), shape: opts.Model.Shape()}
}

func (w *worker) do(c chunk) chunkResult {
	r := chunkResult{seq: c.seq, train: Set{shape: w.shape}, val: Set{shape: w.shape}}
	w.tr.Clear()
	for i := range c.recs {
		rec := &c.recs[i]
		r.st.Read++
		if err := w.one(rec, &r); err != nil {
			r.bad = append(r.bad, fmt.Sprintf("%s:%d: %v", rec.file, rec.line, err))
		}
	}
	return r
}

func (w *worker) one(rec *record, r *chunkResult) error {
	if rec.raw != "" {
		fen, res, err := ParseLine(rec.raw)
		if err != nil {
			return err
		}
		rec.fen, rec.result = fen, res
	}
	if rec.result != 0 && rec.result != 0.5 && rec.result != 1 {
		return fmt.Errorf("bad result %g: want 0, 0.5 or 1", rec.result)
	}
	tr := w.tr
	if err := tr.Parse(rec.fen); err != nil {
		return fmt.Errorf("bad FEN %q: %w", rec.fen, err)
	}
	o := &w.opts
	if rec.raw != "" { // a text line: the filters that need only the FEN (Load refused the others)
		if o.Filter.MinPly > 0 {
			ply, err := tr.Ply()
			if err != nil {
				return fmt.Errorf("the read-time filter min-ply needs the ply, and %v", err)
			}
			if ply < o.Filter.MinPly {
				r.st.Filtered++
				return nil
			}
		}
		if o.Filter.SkipInCheck && tr.InCheck() {
			r.st.Filtered++
			return nil
		}
	}
	if o.SkipMates && !math.IsNaN(rec.score) && math.Abs(rec.score) >= MateBound {
		r.st.SkipMate++
		return nil
	}
	switch o.Select {
	case Filter:
		if tr.InCheck() {
			r.st.SkipCheck++
			return nil
		}
		if rec.best != "" {
			noisy, err := tr.NoisyMove(rec.best)
			if err != nil {
				return fmt.Errorf("best move: %w", err)
			}
			if noisy {
				r.st.SkipNoisy++
				return nil
			}
		} else if !tr.Quiet() {
			r.st.SkipNoisy++
			return nil
		}
	case Resolve:
		if tr.Resolve() {
			r.st.Resolved++
		}
	}
	c := tr.Trace()
	set := &r.train
	if isVal(rec.key, o.Seed, o.ValFrac) {
		set = &r.val
	}
	return set.Add(c, rec.result, rec.score)
}

// DataGame returns the game of the positions at path as the Parquet
// files' metadata (chessforge.game; absent: chess) says it, or "" when
// path holds text files only, which do not say. Files of different games
// are an error.
func DataGame(path string) (string, error) {
	files, err := inputFiles(path)
	if err != nil {
		return "", err
	}
	game, from := "", ""
	for _, f := range files {
		if !isParquet(f) {
			continue
		}
		infos, err := datasets.Stat(f)
		if err != nil {
			return "", err
		}
		g := infos[0].Layout.Game // from datasets.KeyGame, chess when absent
		if game != "" && g != game {
			return "", fmt.Errorf("tune: %s holds %s positions and %s %s positions: tune one game at a time", from, game, f, g)
		}
		game, from = g, f
	}
	return game, nil
}
