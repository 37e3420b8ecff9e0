package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"chessforge/cmd/match/internal/book"
	"chessforge/cmd/match/internal/stats"
	"chessforge/cmd/match/internal/uci"
)

// matchConfig is everything a match needs.
type matchConfig struct {
	players     [2]*player // 0 = A, 1 = B
	rules       rules
	games       int
	openings    []book.Opening
	seed        uint64
	concurrency int
	sprt        *stats.SPRT
	event, site string
	date        string
	pgn         io.Writer // nil: no PGN
	progress    io.Writer // nil: no progress bar
}

// summary is the outcome of a match, from engine A's point of view.
type summary struct {
	names    [2]string
	tri      stats.Trinomial
	penta    stats.Pentanomial
	llr      float64
	decision stats.Decision
	faults   [2]map[string]int // per engine, forfeits by kind ("crash", "illegal move", ...)
	stopped  bool              // the SPRT ended the match early
}

// estimate returns the Elo estimate to report: from game pairs when every
// game belongs to a complete pair and there are enough pairs to estimate
// their variance (minSPRTPairs), else from single games.
func (s *summary) estimate() stats.Estimate {
	if s.penta.Pairs() >= minSPRTPairs && 2*s.penta.Pairs() == s.tri.Games() {
		return s.penta.Elo()
	}
	return s.tri.Elo()
}

// worker owns one engine of each side and plays games from jobs.
type worker struct {
	cfg     *matchConfig
	engines [2]*uci.Engine
}

func (w *worker) start(side int) error {
	p := w.cfg.players[side]
	e, err := uci.Start(p.argv, p.opts, w.cfg.rules.readyTimeout)
	if err != nil {
		return fmt.Errorf("engine %s: %w", "AB"[side:side+1], err)
	}
	w.engines[side] = e
	return nil
}

func (w *worker) close() {
	for side, e := range w.engines {
		if e != nil {
			e.Close()
			w.engines[side] = nil
		}
	}
}

// outcome is what a worker hands back: a finished game or a fatal error.
type outcome struct {
	rec *gameRecord
	err error
}

func (w *worker) run(ctx context.Context, jobs <-chan gameSpec, out chan<- outcome) {
	defer w.close()
	for spec := range jobs {
		for side := range 2 {
			if w.engines[side] == nil {
				if err := w.start(side); err != nil {
					out <- outcome{err: fmt.Errorf("restarting: %w", err)}
					return
				}
			}
		}
		rec, err := playGame(ctx, spec, w.cfg.players, w.engines, &w.cfg.rules)
		if err != nil {
			if ctx.Err() == nil {
				out <- outcome{err: err}
			}
			return
		}
		for side := range 2 {
			if rec.faulted[side] {
				w.engines[side].Kill()
				w.engines[side] = nil
			}
		}
		out <- outcome{rec: rec}
	}
}

// minSPRTPairs is the number of game pairs before the SPRT may stop a match.
// The LLR rests on a normal approximation with the variance estimated from
// the pairs themselves; over the first few pairs that estimate is nearly
// zero whenever the pairs agree (a single won pair gives an LLR near 18 for
// elo1 = 50), so a decision waits for enough pairs to estimate it.
const minSPRTPairs = 10

// runMatch plays the match and returns its summary. It stops early when
// the SPRT crosses a bound or ctx is cancelled; games still in progress then
// are abandoned and not counted.
func runMatch(parent context.Context, cfg *matchConfig) (*summary, error) {
	if len(cfg.openings) == 0 {
		return nil, errors.New("no openings")
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	// The first worker's engines are started here, to learn the names and
	// to fail early on a bad command or option.
	first := &worker{cfg: cfg}
	for side := range 2 {
		if err := first.start(side); err != nil {
			first.close()
			return nil, err
		}
	}
	s := &summary{faults: [2]map[string]int{{}, {}}}
	for side, p := range cfg.players {
		s.names[side] = p.name
		if s.names[side] == "" {
			s.names[side] = first.engines[side].Name
		}
	}
	if s.names[0] == s.names[1] {
		s.names[0] += " (A)"
		s.names[1] += " (B)"
	}
	for side, p := range cfg.players {
		p.name = s.names[side]
	}

	order := book.Order(len(cfg.openings), cfg.seed)
	jobs := make(chan gameSpec)
	go func() {
		defer close(jobs)
		for g := range cfg.games {
			spec := gameSpec{index: g, opening: cfg.openings[order[(g/2)%len(order)]], aWhite: g%2 == 0}
			select {
			case jobs <- spec:
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make(chan outcome, cfg.concurrency)
	var wg sync.WaitGroup
	for i := range max(cfg.concurrency, 1) {
		w := first
		if i > 0 {
			w = &worker{cfg: cfg}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, jobs, out)
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()

	var bar *progressbar.ProgressBar
	if cfg.progress != nil {
		bar = progressbar.NewOptions(cfg.games,
			progressbar.OptionSetWriter(cfg.progress),
			progressbar.OptionSetDescription("games"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(250*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
	}
	hdr := &pgnHeader{event: cfg.event, site: cfg.site, date: cfg.date, names: s.names,
		tc: [2]TimeControl{cfg.players[0].tc, cfg.players[1].tc}}
	pending := map[int]*gameRecord{}
	nextPGN := 0
	firstOfPair := map[int]float64{}
	var fatal error

	for o := range out {
		if o.err != nil {
			if fatal == nil {
				fatal = o.err
			}
			cancel()
			continue
		}
		rec := o.rec
		switch p := rec.pointsA(); p {
		case 1:
			s.tri.W++
		case 0.5:
			s.tri.D++
		default:
			s.tri.L++
		}
		pair := rec.spec.index / 2
		if p, ok := firstOfPair[pair]; ok {
			s.penta[int(math.Round(2*(p+rec.pointsA())))]++
			delete(firstOfPair, pair)
		} else {
			firstOfPair[pair] = rec.pointsA()
		}
		for side := range 2 {
			if rec.fault[side] != "" {
				s.faults[side][faultKind(rec.fault[side])]++
			}
		}
		if cfg.pgn != nil {
			pending[rec.spec.index] = rec
			for pending[nextPGN] != nil {
				if err := writePGN(cfg.pgn, hdr, pending[nextPGN]); err != nil && fatal == nil {
					fatal = fmt.Errorf("writing PGN: %w", err)
					cancel()
				}
				delete(pending, nextPGN)
				nextPGN++
			}
		}
		if cfg.sprt != nil {
			s.llr = cfg.sprt.LLR(s.penta)
			if s.penta.Pairs() >= minSPRTPairs {
				s.decision = cfg.sprt.Decide(s.llr)
			}
			if s.decision != stats.Continue && !s.stopped {
				s.stopped = true
				cancel()
			}
		}
		if bar != nil {
			bar.Describe(progressLine(s, cfg.sprt))
			_ = bar.Add(1)
		}
	}
	if bar != nil {
		// An early stop leaves games unplayed: end the bar at the count
		// played so that it reads as finished.
		bar.ChangeMax(s.tri.Games())
		_ = bar.Finish()
		fmt.Fprintln(cfg.progress)
	}
	// Games finished after a gap left by an abandoned game.
	if cfg.pgn != nil {
		keys := make([]int, 0, len(pending))
		for k := range pending {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := writePGN(cfg.pgn, hdr, pending[k]); err != nil && fatal == nil {
				fatal = fmt.Errorf("writing PGN: %w", err)
			}
		}
	}
	if fatal != nil {
		return s, fatal
	}
	return s, parent.Err()
}

// faultKind returns the first words of a forfeit's termination, up to ':'.
func faultKind(t string) string {
	for i := range len(t) {
		if t[i] == ':' {
			return t[:i]
		}
	}
	return t
}

// progressLine is the progress bar's running description.
func progressLine(s *summary, sprt *stats.SPRT) string {
	e := s.estimate()
	line := fmt.Sprintf("Elo %s ± %s", formatElo(e.Elo), formatMargin(e.Margin()))
	if sprt != nil {
		lo, hi := sprt.Bounds()
		line += fmt.Sprintf(" LLR %.2f (%.2f, %.2f)", s.llr, lo, hi)
	}
	return line
}

// formatElo writes an Elo figure with one decimal, and infinities and NaN in
// the words a script can read back with strconv.ParseFloat.
func formatElo(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	case math.IsNaN(x):
		return "NaN"
	}
	s := fmt.Sprintf("%.1f", x)
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}

// formatMargin writes the half-width of an interval: one decimal, or "Inf".
func formatMargin(x float64) string {
	if math.IsInf(x, 1) {
		return "Inf"
	}
	return formatElo(x)
}
