package tuner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/configs/progress"
	"chessforge/datasets"
	"chessforge/internal/cputime"
)

// Options are the settings of a whole tuning run. Each is declared here
// once: its json name is both its config-file key and cmd/tune's flag (see
// package configs), its usage tag the flag's help; DefaultOptions gives the
// defaults.
type Options struct {
	Data      string "json:\"data\" usage:\"labelled positions: a Parquet dataset (file, directory or glob) or text files of `FEN [1.0]` / `FEN c9 \\\"1-0\\\";` lines (PDN FENs for draughts)\""
	Game      string `json:"game" usage:"the game whose evaluation is tuned: chess or dama (empty: the dataset's chessforge.game metadata; chess for text files and datasets without it)"`
	Select    string `json:"select" usage:"position selection: qsearch (resolve each to its quiet leaf), filter (skip in-check and capture/promotion best moves), none"`
	SkipMates bool   `json:"skip-mates" usage:"skip positions with a mate score"`
	// Filter is the read-time filters (min-ply, max-score, skip-in-check,
	// skip-captures, disagree-score), the same in every reader of the
	// project; see LoadOptions.Filter for text input.
	datasets.Filter
	// SkipPlies is the removed setting skip-plies, now min-ply.
	SkipPlies RemovedSkipPlies `json:"skip-plies" usage:"removed: use the read-time filter -min-ply"`
	Lambda    Lambda           "json:\"lambda\" usage:\"`auto|λ`: target = λ·result + (1−λ)·sigmoid(K·score), λ in [0, 1]; auto: 0 (the search scores) when every position carries a score (Parquet), 1 (the game results) otherwise (text files)\""
	Val       float64          `json:"val" usage:"share of games held out for validation"`
	Seed      uint64           `json:"seed" usage:"seed of the train/validation split"`
	EPDBlock  int              `json:"epd-block" usage:"consecutive text lines treated as one game for the split"`
	MaxBad    int              `json:"max-bad" usage:"bad input lines tolerated (each reported) before giving up"`
	Params    string           `json:"params" usage:"weight groups or families to tune, comma-separated (e.g. psqt,kingsafety,passed_rank.eg); the rest stay frozen"`
	Method    string           `json:"method" usage:"minimiser: lbfgs (gonum, full batch) or adam (full batch)"`
	Iters     int              `json:"iters" usage:"iterations at most"`
	Patience  int              `json:"patience" usage:"stop after this many iterations without a better validation error"`
	LR        float64          `json:"lr" usage:"Adam's step size in centipawns"`
	L2        float64          `json:"l2" usage:"L2 penalty towards the starting weights: l2·Σ((w−w0)/100)²"`
	K         float64          `json:"k" usage:"sigmoid scale K (0: fit it to the starting weights)"`
	Threads   int              `json:"threads" usage:"goroutines (0: all cores)"`
	Out       string           `json:"out" usage:"weights file to write (empty: the game's, engine/eval/weights_gen.go for chess, engine/dama/eval/weights_gen.go for dama)"`
	Source    string           `json:"source" usage:"how the weights file's header names the data (default: the -data path)"`
	DryRun    bool             `json:"dry-run" usage:"write nothing: no weights file, and no report unless -report is given"`
	Report    string           `json:"report" usage:"directory for errors.csv, curves.png and changes.txt (empty: none)"`
	Top       int              `json:"top" usage:"weight changes listed in changes.txt"`
	// AllowWorse writes weights whose validation error is not below the
	// starting weights' one; without it Run refuses them (NoGainError).
	AllowWorse bool `json:"allow-worse" usage:"write the weights even when their validation error is not below the starting one (otherwise refused: bin/tune exits with status 3)"`

	// Log receives the run's report, a line per step (nil: discarded).
	Log io.Writer `json:"-"`
	// Warn receives warnings: bad input lines, positions without a score
	// (nil: discarded).
	Warn io.Writer `json:"-"`
	// Progress receives the progress bars (nil: none).
	Progress io.Writer `json:"-"`
}

// DefaultOptions returns the defaults of every setting.
func DefaultOptions() Options {
	return Options{
		Data:      "out.parquet",
		Select:    Resolve,
		SkipMates: true,
		Lambda:    LambdaAuto,
		Val:       0.1,
		Seed:      1,
		EPDBlock:  64,
		Params:    "all",
		Method:    LBFGS,
		Iters:     1000,
		Patience:  20,
		LR:        1,
		Report:    "tune-report",
		Top:       40,
	}
}

// ErrSkipPlies is the error for the removed setting skip-plies.
var ErrSkipPlies = errors.New("skip-plies is removed: use the read-time filter min-ply (the same name in every reader: bin/dataset export, the Python loader's min_ply)")

// RemovedSkipPlies is the setting skip-plies, replaced by the read-time
// filter min-ply. It is kept only to say so: a flag or a config-file value
// is ErrSkipPlies. It holds no value: it encodes as JSON null, and null
// (not set) decodes without error.
type RemovedSkipPlies struct{}

// String returns "" (the flag has no value).
func (RemovedSkipPlies) String() string { return "" }

// Set fails with ErrSkipPlies.
func (*RemovedSkipPlies) Set(string) error { return ErrSkipPlies }

// UnmarshalJSON fails with ErrSkipPlies unless data is null.
func (*RemovedSkipPlies) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	return ErrSkipPlies
}

// MarshalJSON returns null.
func (RemovedSkipPlies) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// ResolveGame returns the model of the game tuned — o.Game, or when it is
// empty the game of o.Data (DataGame; chess for text files) — and sets
// o.Out to the model's weights file when it is empty. A dataset of another
// game than o.Game is an error.
func (o *Options) ResolveGame() (Model, error) {
	game := o.Game
	if game == "" {
		g, err := DataGame(o.Data)
		if err != nil {
			return nil, err
		}
		game = g
	}
	m, err := ModelFor(game)
	if err != nil {
		return nil, configs.Usagef("-game: %w", err)
	}
	if o.Out == "" {
		o.Out = m.WeightsFile()
	}
	return m, nil
}

// Summary is what a run found: the errors before and after, on the training
// and validation sets, with the weights rounded as the generated file holds
// them.
type Summary struct {
	Positions               int     // positions kept (training and validation)
	K                       float64 // the sigmoid scale
	Lambda                  float64 // λ, -lambda resolved
	Best                    int     // the iteration whose weights were kept
	TrainBefore, TrainAfter float64
	ValBefore, ValAfter     float64
}

// Better reports whether the validation error after is below the one
// before: whether Run writes the weights without AllowWorse.
func (s *Summary) Better() bool { return s.ValAfter < s.ValBefore }

// ExitNoGain is bin/tune's exit status when Run refused the weights with a
// NoGainError, so that scripts (make loop) tell "no gain" from a failure.
const ExitNoGain = 3

// NoGainError is Run's error when the fitted weights' validation error is
// not below the starting weights' one and AllowWorse is not set: no
// weights file was written.
type NoGainError struct {
	Before, After float64 // validation errors, as in the summary line
	DryRun        bool
}

// Error says what was refused, with both figures, in one line.
func (e *NoGainError) Error() string {
	what := "no weights written"
	if e.DryRun {
		what = "a run without -dry-run would write no weights"
	}
	return fmt.Sprintf("refused: validation MSE %.6f -> %.6f is not below its start; %s (-allow-worse writes them)", e.Before, e.After, what)
}

// Line returns the summary line of SPEC §4:
// "tune: N positions, K=k, train MSE a -> b, validation MSE c -> d".
func (s *Summary) Line() string {
	return fmt.Sprintf("tune: %d positions, K=%.4f, train MSE %.6f -> %.6f, validation MSE %.6f -> %.6f",
		s.Positions, s.K, s.TrainBefore, s.TrainAfter, s.ValBefore, s.ValAfter)
}

// Run is Texel tuning from data to weights file: it loads and selects the
// positions of o.Data, fits K (unless o.K is set), sets the targets,
// minimises the error over the chosen weight groups until the validation
// error stops improving, writes the report (when o.Report is set, dry run
// or not: cmd/tune clears its default under -dry-run) and, unless o.DryRun,
// the weights file o.Out (the model's when empty). The weights kept are
// those of the iteration with the lowest validation error; when, rounded,
// their validation error is not below the starting weights' one, Run
// writes no weights file and returns the summary with a *NoGainError,
// unless o.AllowWorse. It reports each step to o.Log; its errors name the
// setting at fault by its flag.
func Run(o Options) (*Summary, error) {
	t, err := newTuning(o)
	if err != nil {
		return nil, err
	}
	defer t.log.Flush()
	if err := t.load(); err != nil {
		return nil, err
	}
	t.setTargets()
	res, err := t.fit()
	if err != nil {
		return nil, err
	}
	wr, sum := t.measure(res)
	if err := t.report(res, wr, sum); err != nil {
		return nil, err
	}
	if err := t.accept(sum); err != nil {
		return sum, err
	}
	if err := t.write(wr, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// tuning is one Run: its settings, checked and resolved, and what each of
// its steps hands the next.
type tuning struct {
	o       Options // o.Out resolved to the model's weights file when empty
	m       Model
	mask    []bool // the weights tuned (-params)
	threads int
	log     *bufio.Writer // o.Log's, flushed at each line
	warn    io.Writer

	train, val *Set
	n          int       // positions kept: training and validation
	w0         []float64 // the starting weights
	k, lambda  float64   // the sigmoid scale and λ of the targets
}

// newTuning checks the settings that need no data (-lambda, -game,
// -params, the read-time filters) and resolves the game, the weights
// file, the threads and the writers.
func newTuning(o Options) (*tuning, error) {
	if err := o.Lambda.check(); err != nil {
		return nil, configs.Usagef("-lambda %v: not in [0, 1]", o.Lambda)
	}
	m, err := o.ResolveGame()
	if err != nil {
		return nil, err
	}
	mask, err := m.Select(o.Params)
	if err != nil {
		return nil, configs.Usagef("-params: %w", err)
	}
	if err := o.Filter.Validate(); err != nil {
		return nil, configs.AsUsage(err)
	}
	t := &tuning{o: o, m: m, mask: mask, threads: o.Threads, warn: o.Warn}
	if t.threads <= 0 {
		t.threads = runtime.GOMAXPROCS(0)
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	if t.warn == nil {
		t.warn = io.Discard
	}
	t.log = bufio.NewWriter(logw)
	return t, nil
}

// say writes one line of the run's report, at once.
func (t *tuning) say(format string, a ...any) {
	fmt.Fprintf(t.log, format+"\n", a...)
	t.log.Flush()
}

// load reads and selects the positions of o.Data into the training and
// validation sets, and reports what it kept and what that cost.
func (t *tuning) load() error {
	o := &t.o
	start, cpu0 := time.Now(), cputime.Used()
	bar := progress.New(o.Progress, -1, "reading positions", progress.Style{
		Throttle: 200 * time.Millisecond, Elapsed: true, ClearOnFinish: true,
	})
	train, val, st, err := Load(o.Data, LoadOptions{
		Model: t.m, Select: o.Select, Filter: o.Filter, SkipMates: o.SkipMates,
		ValFrac: o.Val, Seed: o.Seed, EPDBlock: o.EPDBlock, MaxBad: o.MaxBad,
		Threads: t.threads, Warn: t.warn,
		Progress: func(n int) { bar.Set(int64(n)) },
	})
	bar.Finish()
	if err != nil {
		return err
	}
	n := train.Len() + val.Len()
	if train.Len() == 0 {
		return fmt.Errorf("%s: no positions left to train on (%d read)", o.Data, st.Read)
	}
	loadTime, loadCPU := time.Since(start), cputime.Used()-cpu0
	t.say("tune: %s: %d file(s), %d read, %d bad, %d kept: %d train + %d validation (read-time filters %s: %d dropped; selection %s: %d resolved to another leaf, skipped %d mate scores, %d in check, %d not quiet)",
		o.Data, len(st.Files), st.Read+st.Filtered, st.Bad, n, train.Len(), val.Len(), o.Filter, st.Filtered, o.Select, st.Resolved, st.SkipMate, st.SkipCheck, st.SkipNoisy)
	storeBytes := train.Bytes() + val.Bytes()
	t.say("tune: positions stored in %.1f MB, %.0f bytes/position; loaded in %.1f s, %.1f CPU-s (%.0f positions/s)",
		float64(storeBytes)/1e6, float64(storeBytes)/float64(n), loadTime.Seconds(), loadCPU.Seconds(), float64(st.Read)/loadTime.Seconds())
	t.train, t.val, t.n = train, val, n
	return nil
}

// setTargets takes the starting weights, fits K to them on the training
// set (unless o.K is set), resolves λ and sets each position's target.
func (t *tuning) setTargets() {
	t.w0 = t.m.Weights()
	t.k = t.o.K
	if t.k <= 0 {
		t.k, _ = FitK(t.train, t.w0, 0.01, 10, t.threads)
		t.say("tune: K=%.4f fitted on the training set at the starting weights", t.k)
	}
	lambda, why := t.o.Lambda.Resolve(t.train.Scored()+t.val.Scored(), t.n)
	switch lambda {
	case LambdaResults:
		t.say("tune: λ=%g (%s): the targets are the game results", lambda, why)
	case LambdaScores:
		t.say("tune: λ=%g (%s): the targets are the search scores, σ(K·score)", lambda, why)
	default:
		t.say("tune: λ=%g (%s): the targets are λ·result + (1−λ)·σ(K·score)", lambda, why)
	}
	if lambda < 1 {
		if miss := t.train.SetTargets(lambda, t.k) + t.val.SetTargets(lambda, t.k); miss > 0 {
			fmt.Fprintf(t.warn, "tune: %d positions have no search score; their target stays the result\n", miss)
		}
	}
	t.lambda = lambda
}

// fit minimises the error over the weights tuned until the validation
// error stops improving, showing each iteration on a progress bar, and
// reports how it stopped and whose weights it keeps.
func (t *tuning) fit() (*Result, error) {
	o := &t.o
	free := 0
	for _, m := range t.mask {
		if m {
			free++
		}
	}
	t.say("tune: %s over %d of %d weights of the %s evaluation (-params %s), %d threads", strings.ToUpper(o.Method), free, len(t.w0), t.m.Game(), o.Params, t.threads)
	bar := progress.New(o.Progress, int64(o.Iters), "", progress.Style{
		Width: 20, Throttle: 100 * time.Millisecond, Elapsed: true, NoPredict: true, ClearOnFinish: true,
	})
	fitStart, fitCPU0 := time.Now(), cputime.Used()
	res, err := Fit(t.train, t.val, t.w0, Config{
		K: t.k, Mask: t.mask, L2: o.L2, Method: o.Method, MaxIter: o.Iters,
		Patience: o.Patience, LR: o.LR, Threads: t.threads,
		Progress: func(it Iter) {
			if bar != nil {
				bar.Describe(fmt.Sprintf("train %.6f  val %.6f", it.Train, it.Val))
				bar.Set(int64(it.N))
			}
		},
	})
	bar.Finish()
	if err != nil {
		return nil, err
	}
	fitTime, fitCPU := time.Since(fitStart), cputime.Used()-fitCPU0
	its := len(res.History) - 1
	perM := float64(max(1, its)) * float64(t.train.Len()) / 1e6
	t.say("tune: stopped after %d iterations (%s); best validation error at iteration %d; %.1f s, %.3f s/iteration/M positions (%.1f CPU-s, %.3f CPU-s/iteration/M positions)",
		its, res.Stop, res.Best, fitTime.Seconds(), fitTime.Seconds()/perM, fitCPU.Seconds(), fitCPU.Seconds()/perM)
	switch {
	case res.Best == 0:
		t.say("tune: no iteration lowered the validation error: the weights kept are the starting ones")
	case res.Best < its:
		t.say("tune: keeping the weights of iteration %d (validation MSE %.6f), not those of the last, %d (%.6f)",
			res.Best, res.History[res.Best].Val, its, res.History[its].Val)
	}
	return res, nil
}

// measure rounds the fitted weights as the generated file holds them and
// returns them with the summary: the errors of the starting and of the
// rounded weights on both sets.
func (t *tuning) measure(res *Result) ([]float64, *Summary) {
	wr := make([]float64, len(res.W))
	for j, x := range res.W {
		wr[j] = math.Round(x)
	}
	ot := NewObjective(t.train, t.k, t.threads)
	ov := ot
	if t.val.Len() > 0 {
		ov = NewObjective(t.val, t.k, t.threads)
	}
	sum := &Summary{Positions: t.n, K: t.k, Lambda: t.lambda, Best: res.Best, TrainBefore: ot.Value(t.w0), TrainAfter: ot.Value(wr),
		ValBefore: ov.Value(t.w0), ValAfter: ov.Value(wr)}
	return wr, sum
}

// report writes the report (when o.Report is set) and logs the largest
// weight changes.
func (t *tuning) report(res *Result, wr []float64, sum *Summary) error {
	if t.o.Report != "" {
		if err := WriteReport(t.o.Report, t.m, res, t.w0, t.o.Top, sum); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		t.say("tune: report in %s (errors.csv, curves.png, changes.txt)", t.o.Report)
	}
	cs := Changes(t.m, t.w0, wr, 10)
	if len(cs) > 0 {
		t.say("tune: largest changes:")
		for _, c := range cs {
			t.say("  %-36s %6.0f -> %6.0f", c.Name, c.Before, c.After)
		}
	}
	return nil
}

// accept refuses, with a *NoGainError, weights whose validation error is
// not below the starting weights' one, unless o.AllowWorse.
func (t *tuning) accept(sum *Summary) error {
	if sum.Better() {
		return nil
	}
	if !t.o.AllowWorse {
		return &NoGainError{Before: sum.ValBefore, After: sum.ValAfter, DryRun: t.o.DryRun}
	}
	t.say("tune: validation MSE %.6f -> %.6f is not below its start; accepted (-allow-worse)", sum.ValBefore, sum.ValAfter)
	return nil
}

// write writes the rounded weights to o.Out with their provenance, unless
// o.DryRun.
func (t *tuning) write(wr []float64, sum *Summary) error {
	o := &t.o
	if o.DryRun {
		t.say("tune: dry run, no weights written")
		return nil
	}
	source := o.Source
	if source == "" {
		source = o.Data
	}
	prov := Provenance{Source: source, Positions: t.n, K: t.k, ErrorBefore: sum.ValBefore, ErrorAfter: sum.ValAfter}
	if err := t.m.WriteWeights(o.Out, wr, prov); err != nil {
		return err
	}
	t.say("tune: wrote %s", o.Out)
	return nil
}
