// Package match plays two UCI engines against each other and measures the
// difference in strength: W/D/L, the Elo difference with its 95% interval,
// the likelihood of superiority, the pentanomial counts of game pairs and,
// optionally, a sequential probability ratio test (SPRT) that stops the
// match as soon as it is decided. With Config.Game = Dama it plays Italian
// draughts instead, between engines speaking the text protocol of
// `bin/engine -game dama` (dama.go), with the same figures.
//
// Every opening is played twice, colours swapped. An engine that crashes,
// stops answering or plays an illegal move loses the game and is restarted.
// Run plays a Config; Settings, ParseArgs and Play give bin/match's command
// line (cmd/match) and `make loop` (cmd/loop) the same match. The engines
// are driven by package uciclient and the figures come from package stats.
package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"chessforge/configs/progress"
	"chessforge/encoder"
	"chessforge/engine/pgn"
	"chessforge/selfplay/match/stats"
	"chessforge/selfplay/match/uciclient"
)

// Player is one side of a match: how to start its engine and how it
// searches.
type Player struct {
	Command []string           // the engine's command line, program first
	Options []uciclient.Option // UCI options set after the handshake
	Name    string             // shown in the PGN and the summary; "" for the engine's id name
	TC      TimeControl
}

// The games a match can be played in (Config.Game, bin/match -game): the
// names datasets record (encoder's).
const (
	Chess = encoder.GameChess // chess between UCI engines; "" too
	Dama  = encoder.GameDama  // Italian draughts between text-protocol engines
)

// Config is everything a match needs.
type Config struct {
	Game         string    // Chess (or "") or Dama
	Players      [2]Player // 0 = A, 1 = B
	Games        int
	Openings     []pgn.Opening // chess: played in a seed-shuffled order, each by a pair of games
	DamaOpenings []DamaOpening // draughts: the same, in place of Openings
	Seed         uint64
	Concurrency  int         // games played at once
	SPRT         *stats.SPRT // nil: no sequential test
	Resign       *ResignRule // nil: no loss adjudication
	Draw         *DrawRule   // nil: no draw adjudication
	MaxPlies     int         // adjudicate a draw at this many plies; 0: no cap

	Margin       time.Duration // allowed beyond a clock or movetime budget
	MoveTimeout  time.Duration // budget for one node- or depth-limited search
	ReadyTimeout time.Duration // budget for the handshake and isready

	Event, Site, Date string    // PGN tags
	PGN               io.Writer // nil: no PGN (for draughts, PDN)
	Progress          io.Writer // nil: no progress bar
	Log               io.Writer // nil: no log; else a line for every forfeit

	// Earlier holds the games of an earlier run of this match, read back
	// from its PGN (chess only): Run checks that each is one of this
	// match's games, counts it and does not play it again. They are not
	// written to PGN, which is to hold them already.
	Earlier []pgn.Game
}

// dama reports whether the match is one of draughts.
func (c *Config) dama() bool { return c.Game == Dama }

// openings returns the number of openings of the match's game.
func (c *Config) openings() int {
	if c.dama() {
		return len(c.DamaOpenings)
	}
	return len(c.Openings)
}

// Result is the outcome of a match, from engine A's point of view, with the
// match's figures that its report shows.
type Result struct {
	Names    [2]string         // the engines' names, made distinct
	TC       [2]TimeControl    // the engines' time controls
	Score    stats.Trinomial   // A's wins, draws and losses
	Pairs    stats.Pentanomial // game pairs by A's points in them
	SPRT     *stats.SPRT       // the sequential test, nil if none ran
	LLR      float64           // its log-likelihood ratio
	Decision stats.Decision    // its decision (Continue: undecided)
	Forfeits [2]map[string]int // per engine, forfeits by kind (FaultCrash, FaultIllegal, ...)

	Stopped     bool // the SPRT ended the match early
	Interrupted bool // the caller's context ended the match early
	Planned     int  // the games the match was to play
	Resumed     int  // the games counted from an earlier run (Config.Earlier)
	Openings    int  // the openings it had
	Concurrency int
	Elapsed     time.Duration
}

// Estimate returns the Elo estimate to report: from game pairs when every
// game belongs to a complete pair and there are enough pairs to estimate
// their variance (minSPRTPairs), else from single games.
func (r *Result) Estimate() stats.Estimate {
	if r.Pairs.Pairs() >= minSPRTPairs && 2*r.Pairs.Pairs() == r.Score.Games() {
		return r.Pairs.Elo()
	}
	return r.Score.Elo()
}

// Verdict names the SPRT's decision: "H1 accepted", "H0 accepted" or
// "undecided"; "" when no test ran.
func (r *Result) Verdict() string {
	switch {
	case r.SPRT == nil:
		return ""
	case r.Decision == stats.AcceptH1:
		return "H1 accepted"
	case r.Decision == stats.AcceptH0:
		return "H0 accepted"
	}
	return "undecided"
}

// Summary returns the summary line of SPEC §4:
// "match: A vs B: +W =D -L, Elo E ± C". After a perfect or a zero score,
// where E and C are infinite, the Elo is the interval's finite end
// instead, "Elo > X (95%)" or "Elo < X (95%)" (see FormatEstimate).
func (r *Result) Summary() string {
	return fmt.Sprintf("match: %s vs %s: +%d =%d -%d, Elo %s",
		r.Names[0], r.Names[1], r.Score.W, r.Score.D, r.Score.L, FormatEstimate(r.Estimate()))
}

// Report prints the match's figures, ending with the summary line.
func (r *Result) Report(w io.Writer) {
	t := r.Score
	n := t.Games()
	fmt.Fprintf(w, "Engines:     A = %s (%s), B = %s (%s)\n", r.Names[0], r.TC[0], r.Names[1], r.TC[1])
	fmt.Fprintf(w, "Games:       %d of %d in %v (%d openings, concurrency %d, %d CPUs)\n",
		n, r.Planned, r.Elapsed.Round(time.Second), r.Openings, r.Concurrency, runtime.GOMAXPROCS(0))
	if r.Resumed > 0 {
		fmt.Fprintf(w, "Resumed:     %d of the games were played by an earlier run\n", r.Resumed)
	}
	if r.Interrupted {
		fmt.Fprintln(w, "Interrupted: the figures cover the games finished so far")
	}
	if n > 0 {
		fmt.Fprintf(w, "Score of A:  +%d =%d -%d, %.1f%% (%.1f/%d)\n",
			t.W, t.D, t.L, 100*(float64(t.W)+float64(t.D)/2)/float64(n), float64(t.W)+float64(t.D)/2, n)
	}
	tri := t.Elo()
	fmt.Fprintf(w, "Elo (games): %s%s, LOS %.1f%%\n", FormatEstimate(tri), formatInterval(tri), 100*t.LOS())
	p := r.Pairs
	fmt.Fprintf(w, "Pairs:       %d, pentanomial [0, 1/2, 1, 3/2, 2 points] = %v\n", p.Pairs(), [5]int(p))
	if p.Pairs() > 0 {
		pe := p.Elo()
		fmt.Fprintf(w, "Elo (pairs): %s%s\n", FormatEstimate(pe), formatInterval(pe))
	}
	if r.SPRT != nil {
		lo, hi := r.SPRT.Bounds()
		verdict := r.Verdict()
		switch r.Decision {
		case stats.AcceptH1:
			verdict += fmt.Sprintf(": A is stronger by about %g Elo or more", r.SPRT.Elo1)
		case stats.AcceptH0:
			verdict += fmt.Sprintf(": A gains no more than about %g Elo", r.SPRT.Elo0)
		}
		fmt.Fprintf(w, "SPRT:        elo0=%g elo1=%g alpha=%g beta=%g: LLR %.3f, bounds (%.3f, %.3f): %s\n",
			r.SPRT.Elo0, r.SPRT.Elo1, r.SPRT.Alpha, r.SPRT.Beta, r.LLR, lo, hi, verdict)
	}
	for side := range 2 {
		if len(r.Forfeits[side]) > 0 {
			kinds := make([]string, 0, len(r.Forfeits[side]))
			for k, n := range r.Forfeits[side] {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			}
			slices.Sort(kinds)
			fmt.Fprintf(w, "Forfeits %c:  %s\n", "AB"[side], strings.Join(kinds, ", "))
		}
	}
	fmt.Fprintln(w, r.Summary())
}

// worker owns one engine of each side and plays games from jobs.
type worker struct {
	cfg     *Config
	names   [2]string
	engines [2]*uciclient.Engine
}

func (w *worker) start(side int) error {
	p := &w.cfg.Players[side]
	var e *uciclient.Engine
	var err error
	if w.cfg.dama() {
		if len(p.Options) > 0 {
			return fmt.Errorf("engine %s: the text protocol of a draughts engine has no options", "AB"[side:side+1])
		}
		e, err = uciclient.StartText(p.Command, w.cfg.ReadyTimeout)
	} else {
		e, err = uciclient.Start(p.Command, p.Options, w.cfg.ReadyTimeout)
	}
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
		play := playGame
		if w.cfg.dama() {
			play = playDamaGame
		}
		rec, err := play(ctx, spec, w.cfg, w.names, w.engines)
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
// the pairs themselves (each outcome's count given a prior of 1/2, see
// stats.SPRT); over the first few pairs that estimate stands mostly on the
// prior, so a decision waits for enough pairs to estimate it.
const minSPRTPairs = 10

// Run plays the match and returns its result. It stops early when the SPRT
// crosses a bound or ctx is cancelled; games still in progress then are
// abandoned and not counted. When ctx ends the match, Run returns the result
// so far, marked Interrupted, with ctx's error; it returns a nil result only
// when the match cannot start (no openings, an engine that does not start).
func Run(parent context.Context, cfg *Config) (*Result, error) {
	if err := cfg.checkPlayable(); err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	first, r, err := startMatch(cfg)
	if err != nil {
		return nil, err
	}
	spec := gameSpecs(cfg)
	hdr := &pgnHeader{event: cfg.Event, site: cfg.Site, date: cfg.Date, names: r.Names, tc: r.TC}
	t, done, err := countEarlier(cfg, r, hdr, spec)
	if err != nil {
		first.close()
		return nil, err
	}
	out := playGames(ctx, cfg, first, spec, done, r.Stopped)
	fatal := collect(cfg, r, t, hdr, done, out, cancel)
	r.Elapsed = time.Since(start)
	if fatal != nil {
		return r, fatal
	}
	if err := parent.Err(); err != nil {
		r.Interrupted = true
		return r, err
	}
	return r, nil
}

// checkPlayable reports why the Config cannot start a match: a game other
// than Chess or Dama, or no openings of its game.
func (c *Config) checkPlayable() error {
	if c.Game != "" && c.Game != Chess && c.Game != Dama {
		return fmt.Errorf("unknown game %q (want %s or %s)", c.Game, Chess, Dama)
	}
	if c.openings() == 0 {
		return errors.New("no openings")
	}
	return nil
}

// startMatch starts the first worker's engines, to learn their names and
// to fail early on a bad command or option, and begins the match's result:
// its settings and the engines' names (the players' names, else the
// engines' own), made distinct.
func startMatch(cfg *Config) (*worker, *Result, error) {
	first := &worker{cfg: cfg}
	for side := range 2 {
		if err := first.start(side); err != nil {
			first.close()
			return nil, nil, err
		}
	}
	r := &Result{
		TC:          [2]TimeControl{cfg.Players[0].TC, cfg.Players[1].TC},
		SPRT:        cfg.SPRT,
		Forfeits:    [2]map[string]int{{}, {}},
		Planned:     cfg.Games,
		Openings:    cfg.openings(),
		Concurrency: cfg.Concurrency,
	}
	for side, p := range cfg.Players {
		r.Names[side] = p.Name
		if r.Names[side] == "" {
			r.Names[side] = first.engines[side].Name
		}
	}
	if r.Names[0] == r.Names[1] {
		r.Names[0] += " (A)"
		r.Names[1] += " (B)"
	}
	first.names = r.Names
	return first, r, nil
}

// gameSpecs returns the function that gives the match's game g: A is White
// in the even games, and each pair of games plays the next opening of a
// seed-shuffled order, starting over when the openings run out.
func gameSpecs(cfg *Config) func(g int) gameSpec {
	order := openingOrder(cfg.openings(), cfg.Seed)
	return func(g int) gameSpec {
		spec := gameSpec{index: g, aWhite: g%2 == 0}
		if i := order[(g/2)%len(order)]; cfg.dama() {
			spec.damaOpening = cfg.DamaOpenings[i]
		} else {
			spec.opening = cfg.Openings[i]
		}
		return spec
	}
}

// countEarlier checks the games of an earlier run (cfg.Earlier) and counts
// them into a new tally of r, and returns the tally and which of the
// match's games are done.
func countEarlier(cfg *Config, r *Result, hdr *pgnHeader, spec func(g int) gameSpec) (*tally, []bool, error) {
	earlier, err := hdr.resume(cfg, spec)
	if err != nil {
		return nil, nil, err
	}
	t := newTally(r, cfg)
	done := make([]bool, cfg.Games)
	for _, rec := range earlier {
		done[rec.spec.index] = true
		t.add(rec)
	}
	r.Resumed = len(earlier)
	return t, done, nil
}

// playGames hands the games not done to max(cfg.Concurrency, 1) workers,
// first among them, until ctx ends, and returns the channel of their
// outcomes, closed when every worker has stopped. When the earlier games
// alone decided the match (decided), it plays none.
func playGames(ctx context.Context, cfg *Config, first *worker, spec func(g int) gameSpec, done []bool, decided bool) <-chan outcome {
	jobs := make(chan gameSpec)
	go func() {
		defer close(jobs)
		for g := range cfg.Games {
			if done[g] || decided {
				continue
			}
			select {
			case jobs <- spec(g):
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make(chan outcome, cfg.Concurrency)
	var wg sync.WaitGroup
	for i := range max(cfg.Concurrency, 1) {
		w := first
		if i > 0 {
			w = &worker{cfg: cfg, names: first.names}
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
	return out
}

// collect takes the workers' outcomes until out closes: it counts each
// finished game into r, logs its forfeits, writes it to the PGN in the
// match's order and shows the score on the progress bar. It cancels the
// match when the SPRT decides it or on the first error (a worker's or the
// PGN's), which it returns.
func collect(cfg *Config, r *Result, t *tally, hdr *pgnHeader, done []bool, out <-chan outcome, cancel context.CancelFunc) error {
	bar := progress.New(cfg.Progress, int64(cfg.Games), "match",
		progress.Style{Width: 30, Throttle: 250 * time.Millisecond, Unit: "games", Elapsed: true, EndLine: true})
	if r.Resumed > 0 {
		bar.StartAt(int64(r.Resumed)) // counted, but not in the rate of this run's games
		bar.Describe(progressLine(r))
	}
	games := newPGNQueue(cfg, hdr, done)
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
		t.add(rec)
		for side := range 2 {
			if rec.fault[side] != "" {
				logForfeit(cfg.Log, rec, side)
			}
		}
		if err := games.add(rec); err != nil && fatal == nil {
			fatal = fmt.Errorf("writing PGN: %w", err)
			cancel()
		}
		if r.Stopped {
			cancel()
		}
		if bar != nil {
			bar.Update(int64(r.Score.Games()), progressLine(r))
		}
	}
	// An early stop leaves games unplayed: end the bar at the count played
	// so that it reads as finished.
	bar.SetTotal(int64(r.Score.Games()))
	bar.Finish()
	if err := games.flush(); err != nil && fatal == nil {
		fatal = fmt.Errorf("writing PGN: %w", err)
	}
	return fatal
}

// pgnQueue writes a match's finished games to its PGN (for draughts, PDN)
// in the match's order: a game waits there for the games before it, and
// the games an earlier run played (done) are passed over.
type pgnQueue struct {
	w       io.Writer // nil: no PGN, and add and flush do nothing
	hdr     *pgnHeader
	write   func(w io.Writer, h *pgnHeader, g *gameRecord) error
	done    []bool
	pending map[int]*gameRecord
	next    int // the first game not yet written, nor resumed
}

func newPGNQueue(cfg *Config, hdr *pgnHeader, done []bool) *pgnQueue {
	q := &pgnQueue{w: cfg.PGN, hdr: hdr, write: writePGN, done: done, pending: map[int]*gameRecord{}}
	if cfg.dama() {
		q.write = writePDN
	}
	q.skipDone()
	return q
}

// skipDone moves next past the games an earlier run played.
func (q *pgnQueue) skipDone() {
	for q.next < len(q.done) && q.done[q.next] {
		q.next++
	}
}

// add queues a finished game and writes every game now next in order. It
// returns the first write's error, after writing on past it.
func (q *pgnQueue) add(rec *gameRecord) error {
	if q.w == nil {
		return nil
	}
	var first error
	q.pending[rec.spec.index] = rec
	for q.pending[q.next] != nil {
		if err := q.write(q.w, q.hdr, q.pending[q.next]); err != nil && first == nil {
			first = err
		}
		delete(q.pending, q.next)
		q.next++
		q.skipDone()
	}
	return first
}

// flush writes, in order, the games still waiting: those finished after a
// gap that an abandoned game left. It returns the first write's error.
func (q *pgnQueue) flush() error {
	if q.w == nil {
		return nil
	}
	keys := make([]int, 0, len(q.pending))
	for k := range q.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var first error
	for _, k := range keys {
		if err := q.write(q.w, q.hdr, q.pending[k]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// tally counts a match's finished games into its result: the score, the
// pairs, the forfeits and the SPRT's decision, which sets r.Stopped.
type tally struct {
	r           *Result
	sprt        *stats.SPRT
	firstOfPair map[int]float64 // A's points in the pairs' first finished game
}

func newTally(r *Result, cfg *Config) *tally {
	return &tally{r: r, sprt: cfg.SPRT, firstOfPair: map[int]float64{}}
}

// add counts one finished game.
func (t *tally) add(rec *gameRecord) {
	r := t.r
	switch p := rec.pointsA(); p {
	case 1:
		r.Score.W++
	case 0.5:
		r.Score.D++
	default:
		r.Score.L++
	}
	pair := rec.spec.index / 2
	if p, ok := t.firstOfPair[pair]; ok {
		r.Pairs[int(math.Round(2*(p+rec.pointsA())))]++
		delete(t.firstOfPair, pair)
	} else {
		t.firstOfPair[pair] = rec.pointsA()
	}
	for side := range 2 {
		if rec.fault[side] != "" {
			r.Forfeits[side][faultKind(rec.fault[side])]++
		}
	}
	if t.sprt != nil {
		r.LLR = t.sprt.LLR(r.Pairs)
		if r.Pairs.Pairs() >= minSPRTPairs {
			r.Decision = t.sprt.Decide(r.LLR)
		}
		if r.Decision != stats.Continue {
			r.Stopped = true
		}
	}
}

// logForfeit writes the log line of an engine's forfeit: the game, the
// engine and why. On a terminal it first clears the progress bar's line,
// which the next update draws again.
func logForfeit(w io.Writer, rec *gameRecord, side int) {
	if w == nil {
		return
	}
	clear := ""
	if progress.IsTerminal(w) {
		clear = "\r\033[K"
	}
	fmt.Fprintf(w, "%smatch: game %d: engine %c loses, %s\n", clear, rec.spec.index+1, "AB"[side], rec.fault[side])
}

// The kinds of forfeit: the first words of a forfeited game's termination,
// before its ':', and the keys of Result.Forfeits.
const (
	FaultStart    = "forfeit"        // the engine failed to start a game
	FaultStalled  = "stalled"        // no answer within a node- or depth-limited search's budget
	FaultTime     = "time forfeit"   // no answer within the clock, or the clock overstepped
	FaultCrash    = "crash"          // the engine exited
	FaultProtocol = "protocol error" // an answer the protocol does not allow
	FaultIllegal  = "illegal move"   // a move the rules do not allow
	FaultNoMove   = "no move"        // a draughts engine answered none while it had a move
)

// faultKind returns the first words of a forfeit's termination, up to ':'.
func faultKind(t string) string {
	kind, _, _ := strings.Cut(t, ":")
	return kind
}

// isFault reports whether a termination is a forfeit's.
func isFault(termination string) bool {
	switch faultKind(termination) {
	case FaultStart, FaultStalled, FaultTime, FaultCrash, FaultProtocol, FaultIllegal, FaultNoMove:
		return true
	}
	return false
}

// progressLine is the progress bar's details: the score and the figures of
// the games counted.
func progressLine(r *Result) string {
	e := r.Estimate()
	line := fmt.Sprintf("+%d =%d -%d, Elo %s", r.Score.W, r.Score.D, r.Score.L, FormatEstimate(e))
	if r.SPRT != nil {
		lo, hi := r.SPRT.Bounds()
		line += fmt.Sprintf(" LLR %.2f (%.2f, %.2f)", r.LLR, lo, hi)
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

// FormatEstimate writes an estimate as "E ± C" (SPEC §4), or, when E is
// infinite (every game won, or every game lost), as the bound the 95%
// interval gives: "> X (95%)" or "< X (95%)", X signed with one decimal.
func FormatEstimate(e stats.Estimate) string {
	switch x, side := e.Bound(); side {
	case 1:
		return fmt.Sprintf("> %+.1f (95%%)", x)
	case -1:
		return fmt.Sprintf("< %+.1f (95%%)", x)
	}
	return formatElo(e.Elo) + " ± " + formatMargin(e.Margin())
}

// formatInterval writes the 95% interval as " [Lo, Hi]", or nothing when
// FormatEstimate has written it as a bound.
func formatInterval(e stats.Estimate) string {
	if _, side := e.Bound(); side != 0 {
		return ""
	}
	return fmt.Sprintf(" [%s, %s]", formatElo(e.Lo), formatElo(e.Hi))
}

// formatMargin writes the half-width of an interval: one decimal, or "Inf".
func formatMargin(x float64) string {
	if math.IsInf(x, 1) {
		return "Inf"
	}
	return formatElo(x)
}
