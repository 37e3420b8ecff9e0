package selfplay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/datasets/jobs"
	"chessforge/encoder"
	"chessforge/engine/uci"
	"chessforge/internal/outlock"
)

// Metadata keys self-play adds to each dataset file, beside the ones
// datasets.Writer writes (the job config is chessforge.config).
const (
	// KeyShard is the shard that wrote the file, "K/N" (jobs.KeyShard).
	KeyShard = jobs.KeyShard
	// KeyGames is the range of the shard's games in the file, "from-to"
	// (jobs.KeyGames).
	KeyGames = jobs.KeyGames
	// KeyEval is the evaluation that played the games: EvalHandCrafted or
	// EvalNNUE.
	KeyEval = "chessforge.selfplay.eval"
	// KeyNetwork is the id of the network that played the games (the first
	// 16 hex digits of its weights' SHA-256), with EvalNNUE only.
	KeyNetwork = "chessforge.selfplay.network"
	// KeyEngine is the "id name" of the outside engine that played the
	// games (-engine), with EvalEngine only.
	KeyEngine = "chessforge.selfplay.engine"
	// KeyEngineCommand is that engine's command line, as -engine gave it.
	KeyEngineCommand = "chessforge.selfplay.engine-command"
)

// The values of KeyEval.
const (
	EvalHandCrafted = "hand-crafted"
	EvalNNUE        = "nnue"
	EvalEngine      = "engine" // an outside engine's own (KeyEngine)
)

// output writes a shard's games into one file or into part files in a
// directory, rolling over to a new part every PartGames games.
type output struct {
	single  bool   // one file at path; else part files in the directory path
	path    string // the file, or the directory
	shard   Shard
	job     []byte // the job config as JSON
	perPart int    // games per part file (directory only)
	eval    string // KeyEval's value
	network string // KeyNetwork's value, "" for none
	// KeyEngine's and KeyEngineCommand's values, "" for our engine.
	engine, engineCommand string
	layout                *encoder.Layout
	// failClose, when set, may fail a file before it is finished (tests).
	failClose func(path string) error

	w        *datasets.Writer
	part     int // number of the next part file
	from, to int // the shard's games in the file being written
	files    []string
	rows     int64
}

// newOutput decides the layout: path is one file when it ends in .parquet,
// is not an existing directory, the job is unsharded and all its games fit
// in one part; otherwise it is a directory of part files.
func newOutput(cfg *Config, shard Shard, job []byte) *output {
	o := &output{path: cfg.Out, shard: shard, job: job, perPart: cfg.PartGames}
	o.layout, _ = encoder.LayoutOf(cfg.Game) // cfg is valid: a known game
	st, err := os.Stat(cfg.Out)
	isDir := err == nil && st.IsDir()
	o.single = strings.HasSuffix(strings.ToLower(cfg.Out), ".parquet") && !isDir &&
		shard.N == 1 && cfg.Games <= cfg.PartGames
	return o
}

// prefix is the start of the names of the shard's part files.
func (o *output) prefix() string {
	return fmt.Sprintf("part-s%03dof%03d-", o.shard.K, o.shard.N)
}

func (o *output) partPath(n int) string {
	return filepath.Join(o.path, fmt.Sprintf("%s%05d.parquet", o.prefix(), n))
}

// partInfo is what a finished file says about itself.
type partInfo struct {
	path     string
	from, to int
}

// check reports, before anything is made or played, whether the output
// can be written: a single file's directory must exist and take new files
// (configs.OutputFile: it is not made, so that a mistyped path fails at
// once), while a directory of part files must take new files or be one
// that makeDir can make. It creates nothing.
func (o *output) check() error {
	if o.single {
		if err := configs.OutputFile(o.path); err != nil {
			return fmt.Errorf("selfplay: -out %w", err)
		}
		return nil
	}
	if err := checkDir(o.path); err != nil {
		return fmt.Errorf("selfplay: -out %w", err)
	}
	return nil
}

// checkDir reports whether dir takes new files or, when it does not exist,
// can be made: its nearest existing ancestor is a directory that takes new
// files. It creates nothing that outlasts it. Its error names dir first.
func checkDir(dir string) error {
	for p := filepath.Clean(dir); ; {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			parent := filepath.Dir(p)
			if parent == p {
				return fmt.Errorf("%s: cannot create the directory: %s does not exist", dir, p)
			}
			p = parent
			continue
		case err != nil:
			return fmt.Errorf("%s: cannot create the directory: %w", dir, err)
		case !st.IsDir():
			return fmt.Errorf("%s: cannot create the directory: %s is not a directory", dir, p)
		}
		f, err := os.CreateTemp(p, ".write-check-*")
		if err != nil {
			if p == filepath.Clean(dir) {
				return fmt.Errorf("%s: directory takes no new files: %w", dir, err)
			}
			return fmt.Errorf("%s: cannot create the directory: %s takes no new files: %w", dir, p, err)
		}
		f.Close()
		return os.Remove(f.Name())
	}
}

// makeDir makes the directory of part files with the directories above it
// and returns the ones it made, deepest first (none for a single file).
func (o *output) makeDir() (made []string, err error) {
	if o.single {
		return nil, nil
	}
	for p := filepath.Clean(o.path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			break
		}
		made = append(made, p)
	}
	if err := os.MkdirAll(o.path, 0o755); err != nil {
		return nil, fmt.Errorf("selfplay: -out %s: cannot create the directory: %w", o.path, err)
	}
	return made, nil
}

// lock takes the lock of the shard's files (outlock): a single file's own
// lock, or in a directory the lock of the shard's part files (their name's
// stem, part-sKKKofNNN), so that the shards of a job write one directory
// at once while two runs of one shard refuse each other.
func (o *output) lock() (*outlock.Lock, error) {
	if o.single {
		l, err := outlock.Acquire(o.path)
		if err != nil {
			return nil, fmt.Errorf("selfplay: -out %w", err)
		}
		return l, nil
	}
	l, err := outlock.Acquire(filepath.Join(o.path, strings.TrimSuffix(o.prefix(), "-")))
	if err != nil {
		return nil, fmt.Errorf("selfplay: -out %s: shard %v: %w", o.path, o.shard, err)
	}
	return l, nil
}

// scan finds the shard's finished files. Without resume it refuses to mix a
// new run with an earlier one's part files (a single file is simply
// replaced when the run ends). With resume it checks that the files were
// written by the same job and shard and hold a contiguous run of the
// shard's games from its game first (0 but where the games before are
// elsewhere), removes files a crash left half-written, and returns how
// many of the shard's games are done, first included. The caller holds the
// shard's lock (lock), so that no live run's temporary file is removed.
func (o *output) scan(resume bool, first int) (done int, err error) {
	if o.single {
		// A killed run's half-written file (datasets.Create's temporary).
		if err := os.Remove(o.path + datasets.TempSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("selfplay: %w", err)
		}
		if _, err := os.Stat(o.path); errors.Is(err, os.ErrNotExist) || !resume {
			return first, nil
		}
		info, err := o.readInfo(o.path)
		if err != nil {
			return 0, err
		}
		if info.from != first {
			return 0, startErr(o.path, info.from, first)
		}
		o.files = []string{o.path}
		return info.to, nil
	}
	entries, err := os.ReadDir(o.path)
	if errors.Is(err, os.ErrNotExist) {
		return first, nil
	}
	if err != nil {
		return 0, fmt.Errorf("selfplay: output directory: %w", err)
	}
	var parts []partInfo
	var temps []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, o.prefix()) {
			continue
		}
		full := filepath.Join(o.path, name)
		switch {
		case strings.HasSuffix(name, ".parquet"+datasets.TempSuffix):
			temps = append(temps, full)
		case strings.HasSuffix(name, ".parquet"):
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, o.prefix()), ".parquet"))
			if err != nil {
				return 0, fmt.Errorf("selfplay: %s: not a part file name this program writes", full)
			}
			o.part = max(o.part, n+1)
			if resume {
				info, err := o.readInfo(full)
				if err != nil {
					return 0, err
				}
				parts = append(parts, info)
			} else {
				parts = append(parts, partInfo{path: full})
			}
		}
	}
	if !resume {
		found := temps
		for _, p := range parts {
			found = append(found, p.path)
		}
		if len(found) > 0 {
			return 0, fmt.Errorf("selfplay: %s already holds files of shard %v from an earlier run (%s): add -resume to continue that job, or choose another -out",
				o.path, o.shard, filepath.Base(found[0]))
		}
		return first, nil
	}
	for _, t := range temps {
		if err := os.Remove(t); err != nil {
			return 0, fmt.Errorf("selfplay: removing the unfinished file %s: %w", t, err)
		}
	}
	slices.SortFunc(parts, func(a, b partInfo) int { return a.from - b.from })
	if len(parts) > 0 && parts[0].from != first {
		return 0, startErr(parts[0].path, parts[0].from, first)
	}
	done = first
	for _, p := range parts {
		if p.from != done {
			return 0, fmt.Errorf("selfplay: %s holds the shard's games %d-%d, but the files before it end at %d: games are missing or repeated", p.path, p.from, p.to, done)
		}
		done = p.to
		o.files = append(o.files, p.path)
	}
	return done, nil
}

// startErr is the error of a resumed output whose first file starts at the
// shard's game from where the run expects first (-first-game).
func startErr(path string, from, first int) error {
	if from > first {
		return fmt.Errorf("selfplay: resume: %s holds the shard's games from %d, not from %d: resume it with -first-game %d if the games before are kept elsewhere", path, from, first, from)
	}
	return fmt.Errorf("selfplay: resume: %s holds the shard's games from %d, before -first-game %d: resume it with -first-game %d", path, from, first, from)
}

// openFooter returns a dataset file's key-value metadata.
func openFooter(path string) (map[string]string, error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	kv := map[string]string{}
	for _, e := range r.MetaData().KeyValueMetadata() {
		if e.Value != nil {
			kv[e.Key] = *e.Value
		}
	}
	return kv, nil
}

// readInfo reads a finished file's metadata and checks that the same job and
// shard wrote it.
func (o *output) readInfo(path string) (partInfo, error) {
	kv, err := openFooter(path)
	if err != nil {
		return partInfo{}, fmt.Errorf("selfplay: resume: %s: %w", path, err)
	}
	if got := kv[datasets.KeyConfig]; got != string(o.job) {
		return partInfo{}, fmt.Errorf("selfplay: resume: %s was written by another job: %s", path, recordDiff(got, string(o.job)))
	}
	if got := kv[KeyShard]; got != o.shard.String() {
		return partInfo{}, fmt.Errorf("selfplay: resume: %s was written by shard %q, this is shard %v", path, got, o.shard)
	}
	from, to, err := jobs.ParseGames(kv[KeyGames])
	if err != nil {
		return partInfo{}, fmt.Errorf("selfplay: resume: %s: metadata %s: %w", path, KeyGames, err)
	}
	return partInfo{path: path, from: from, to: to}, nil
}

// write adds game i of the shard (its rows) to the output, opening a file
// when none is open. The caller closes a part when it is full.
func (o *output) write(i int, g *Game) error {
	if o.w == nil {
		if err := o.open(i); err != nil {
			return err
		}
	}
	for r := range g.Rows {
		if err := o.w.Write(&g.Rows[r]); err != nil {
			return err
		}
	}
	o.rows += int64(len(g.Rows))
	o.to = i + 1
	return nil
}

// full reports whether the open file is a part that holds its games.
func (o *output) full() bool {
	return o.w != nil && !o.single && o.to-o.from >= o.perPart
}

func (o *output) open(i int) error {
	path, dir := o.path, filepath.Dir(o.path)
	if !o.single {
		path, dir = o.partPath(o.part), o.path
		o.part++
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("selfplay: output directory: %w", err)
	}
	w, err := datasets.Create(path, datasets.WriterOptions{
		Layout:        o.layout,
		EngineVersion: uci.Version,
		Config:        o.job,
		Metadata:      map[string]string{KeyShard: o.shard.String()},
	})
	if err != nil {
		return err
	}
	// Added one by one, in this order: the writer's Metadata map would
	// put several keys in the footer in a random order, and the same job
	// must write the same bytes.
	err = w.SetMetadata(KeyEval, o.eval)
	if err == nil && o.network != "" {
		err = w.SetMetadata(KeyNetwork, o.network)
	}
	if err == nil && o.engine != "" {
		if err = w.SetMetadata(KeyEngine, o.engine); err == nil {
			err = w.SetMetadata(KeyEngineCommand, o.engineCommand)
		}
	}
	if err != nil {
		w.Abort()
		return err
	}
	o.w, o.from, o.to = w, i, i
	return nil
}

// closeFile finishes the open file, recording the games it holds.
func (o *output) closeFile() error {
	if o.w == nil {
		return nil
	}
	w := o.w
	o.w = nil
	if err := w.SetMetadata(KeyGames, fmt.Sprintf("%d-%d", o.from, o.to)); err != nil {
		w.Abort()
		return err
	}
	if o.failClose != nil {
		if err := o.failClose(w.Path()); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if !slices.Contains(o.files, w.Path()) {
		o.files = append(o.files, w.Path())
	}
	return nil
}

// abort drops the open file.
func (o *output) abort() {
	if o.w != nil {
		o.w.Abort()
		o.w = nil
	}
}

// reopenSingle starts the single file of a resumed run: a new file (under
// the temporary name until it is closed) that begins with the rows of the
// shard's games first to done, copied from the file the interrupted run left.
func (o *output) reopenSingle(first, done int) error {
	if err := o.open(first); err != nil {
		return err
	}
	n, err := copyRows(o.w, o.path)
	if err != nil {
		o.abort()
		return fmt.Errorf("selfplay: resume: copying %s: %w", o.path, err)
	}
	o.rows += n
	o.to = done
	return nil
}

// recordDiff says how the job record there (a file's) differs from here
// (this run's): the settings whose values differ, and for a job of the
// hand-crafted evaluation, the default before the network's, the flag that
// resumes it; both records whole when either is not a JSON object.
func recordDiff(there, here string) string {
	a, aKeys, errA := recordValues(there)
	b, bKeys, errB := recordValues(here)
	if errA != nil || errB != nil {
		return fmt.Sprintf("its record is %s, this run's %s", there, here)
	}
	keys := aKeys
	for _, k := range bKeys {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	show := func(m map[string]json.RawMessage, k string) string {
		if v, ok := m[k]; ok {
			return string(v)
		}
		return "none"
	}
	var diffs []string
	for _, k := range keys {
		if show(a, k) != show(b, k) {
			diffs = append(diffs, fmt.Sprintf("%s (%s there, %s here)", k, show(a, k), show(b, k)))
		}
	}
	msg := "its settings differ in " + strings.Join(diffs, ", ") + "; resume with that job's settings"
	if _, hce := a["nnue"]; !hce && string(b["nnue"]) == "true" {
		msg += " (a job of the hand-crafted evaluation resumes with -nnue=false)"
	}
	return msg
}

// recordValues reads a job record: its values by key, and its keys in order.
func recordValues(record string) (map[string]json.RawMessage, []string, error) {
	dec := json.NewDecoder(strings.NewReader(record))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	values := map[string]json.RawMessage{}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		k := tok.(string)
		if _, ok := values[k]; !ok {
			keys = append(keys, k)
		}
		values[k] = v
	}
	return values, keys, nil
}
