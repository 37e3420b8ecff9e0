// Package spsa tunes the engine's search parameters from games:
// simultaneous perturbation stochastic approximation (SPSA), in the form
// fishtest made the common way to tune a chess engine's integer constants.
//
// A run has a length of N game pairs. Pair k (from 0) perturbs every tuned
// parameter θ_i by ±c_k,i, each sign drawn at random, and plays the engine
// with θ+c against the engine with θ−c on one opening, once with each
// colour. The score of the pair, r = wins − losses of θ+c (−2 to 2), moves
// each parameter by
//
//	θ_i += R_k,i · c_k,i · r · sign_i,   R_k,i = a_k,i / c_k,i²
//
// with the schedules c_k,i = C_i·N^γ / (k+1)^γ and a_k,i = r_end·C_i²·(A+N)^α
// / (A+k+1)^α, γ = 0.101, α = 0.602, A = N/10: at the last pair the
// perturbation is C_i and the learning rate R is r_end. θ stays within
// each parameter's range; the engine is given θ±c rounded to whole numbers
// (bin/engine -param NAME=VALUE).
//
// Pairs are played in batches from one θ, whose updates are applied in
// pair order when the batch is done, and each pair's signs and opening
// follow from the seed and its number alone: the same settings give the
// same run whatever the concurrency, and at a fixed node count the same
// values. After each batch the state (θ, the pairs played, the score) is
// written to its file, atomically, so that an interrupted run resumes
// where it stopped (LoadState, then Runner.Run).
package spsa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"chessforge/configs"
	"chessforge/configs/progress"
	"chessforge/engine/pgn"
	"chessforge/engine/search"
	"chessforge/internal/atomicfile"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
)

// The schedule's exponents and the stability constant A as a fraction of
// the run's length (Spall's recommendations, fishtest's defaults).
const (
	alpha     = 0.602
	gamma     = 0.101
	stability = 0.1
)

// Plan is what decides a run's games and values: a resumed run must have
// the same. Each setting is declared here once; its json name is its flag
// and its key in a config file and in the state file.
type Plan struct {
	Engine   string            `json:"engine" usage:"the engine's command line (words split on spaces; quotes group); each game adds -param NAME=VALUE for every parameter tuned"`
	Params   string            `json:"params" usage:"the search parameters to tune, comma-separated (bin/engine -params lists them), each NAME, NAME=START, NAME:C or NAME=START:C, with START its value at the start (default: the search's default) and C its perturbation at the end of the run (default: a twentieth of its range, at least 1)"`
	Pairs    int               `json:"pairs" usage:"game pairs in the run: the schedule's length"`
	Batch    int               `json:"batch" usage:"pairs played from one set of values before they are updated"`
	REnd     float64           `json:"r-end" usage:"the learning rate R at the end of the run"`
	TC       match.TimeControl `json:"tc" usage:"time control of every game: nodes=N, depth=N, movetime=MS or clock=SECONDS+INC"`
	Openings string            `json:"openings" usage:"opening book, EPD or PGN (default: the built-in lines, then the same with two random plies added)"`
	Resign   match.ResignRule  `json:"resign" usage:"adjudicate a loss: SCORE,MOVES (as bin/match)"`
	Draw     match.DrawRule    `json:"draw" usage:"adjudicate a draw: SCORE,MOVES,MINPLY (as bin/match)"`
	MaxPlies int               `json:"max-plies" usage:"adjudicate a draw when a game reaches this many plies (0: no cap)"`
	Seed     uint64            `json:"seed" usage:"seed of the perturbations' signs and of the openings' order"`
}

// Settings are a run's plan and how it is carried out, as bin/spsa's
// command line gives them.
type Settings struct {
	Plan
	State         string           `json:"state" usage:"the run's state file (JSON), written after every batch; required"`
	Resume        bool             `json:"resume" usage:"continue the run whose state -state holds (its plan must be this one)"`
	Concurrency   int              `json:"concurrency" usage:"game pairs played at once"`
	TimeoutMargin configs.Duration `json:"timeout-margin" usage:"allowed beyond a clock or movetime budget before a loss on time"`
	MoveTimeout   configs.Duration `json:"move-timeout" usage:"budget for one node- or depth-limited search before the engine counts as hung"`
	Quiet         bool             `json:"quiet" usage:"no progress"`
	Record        string           `json:"record" usage:"append the run's tune record (docs/records.md) to this .jsonl file when it ends or is interrupted (docs/history/tuning.jsonl for a run worth keeping); empty: none"`
}

// DefaultSettings returns the defaults of every setting.
func DefaultSettings() Settings {
	return Settings{
		Plan: Plan{
			Engine: "bin/engine",
			Pairs:  4000,
			Batch:  8,
			REnd:   0.002,
			TC:     match.TimeControl{Kind: match.TCNodes, N: 10000},
			Resign: match.ResignRule{Score: 1000, Moves: 3},
			Draw:   match.DrawRule{Score: 10, Moves: 8, MinPly: 80},
			Seed:   1,
		},
		Concurrency:   1,
		TimeoutMargin: configs.Duration(500 * time.Millisecond),
		MoveTimeout:   configs.Duration(60 * time.Second),
	}
}

// Param is one tuned parameter: the search's (search.Param) with its value
// at the start of the run and its perturbation at the end, C.
type Param struct {
	search.Param
	Start int
	C     float64
}

// ParamList reads the plan's parameter list, each with its start and its
// C; an unknown name, one named twice, a start outside the parameter's
// range or a C that is not positive is an error naming it.
func (p *Plan) ParamList() ([]Param, error) {
	known := map[string]search.Param{}
	for _, s := range search.ParamList() {
		known[s.Name] = s
	}
	var list []Param
	for _, item := range paramItems(p.Params) {
		item, c, hasC := strings.Cut(item, ":")
		name, start, hasStart := strings.Cut(item, "=")
		s, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("-params: no search parameter %q (bin/engine -params lists them)", name)
		}
		if slices.ContainsFunc(list, func(q Param) bool { return q.Name == name }) {
			return nil, fmt.Errorf("-params: %s is named twice", name)
		}
		q := Param{Param: s, Start: s.Default, C: max(1, float64(s.Max-s.Min)/20)}
		if hasStart {
			v, err := strconv.Atoi(start)
			if err != nil {
				return nil, fmt.Errorf("-params: %s: start %q is not a whole number", name, start)
			}
			if v < s.Min || v > s.Max {
				return nil, fmt.Errorf("-params: %s: start %d is outside its range [%d, %d]", name, v, s.Min, s.Max)
			}
			q.Start = v
		}
		if hasC {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("-params: %s: perturbation %q is not a positive number", name, c)
			}
			q.C = v
		}
		list = append(list, q)
	}
	if len(list) == 0 {
		return nil, errors.New("-params: name at least one search parameter (bin/engine -params lists them)")
	}
	return list, nil
}

// paramItems splits a -params list into its items, blanks dropped.
func paramItems(params string) []string {
	var items []string
	for _, item := range strings.Split(params, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// check reports the first setting of the plan that cannot be run.
func (p *Plan) check() error {
	switch {
	case p.Pairs <= 0:
		return fmt.Errorf("-pairs %d: must be positive", p.Pairs)
	case p.Batch <= 0:
		return fmt.Errorf("-batch %d: must be positive", p.Batch)
	case !(p.REnd > 0) || math.IsInf(p.REnd, 0):
		return fmt.Errorf("-r-end %v: must be a positive number", p.REnd)
	case p.MaxPlies < 0:
		return fmt.Errorf("-max-plies %d: must not be negative", p.MaxPlies)
	case p.Resign != (match.ResignRule{}) && (p.Resign.Score <= 0 || p.Resign.Moves <= 0):
		return fmt.Errorf("-resign %v: score and moves must be positive", p.Resign)
	case p.Draw != (match.DrawRule{}) && (p.Draw.Score < 0 || p.Draw.Moves <= 0 || p.Draw.MinPly < 0):
		return fmt.Errorf("-draw %v: moves must be positive, score and ply not negative", p.Draw)
	}
	if _, err := match.SplitCommand(p.Engine); err != nil {
		return fmt.Errorf("-engine: %w", err)
	}
	if _, err := p.ParamList(); err != nil {
		return err
	}
	return p.TC.Validate()
}

// State is a run as far as it has gone: what its state file holds.
type State struct {
	Format  string    `json:"format"`  // StateFormat
	Version int       `json:"version"` // StateVersion
	Plan    Plan      `json:"plan"`
	Names   []string  `json:"names"`  // the tuned parameters, in the plan's order
	Theta   []float64 `json:"theta"`  // their values now
	Start   []int     `json:"start"`  // their values at the start
	Played  int       `json:"played"` // game pairs played
	// W, D and L count the games of the engine with θ+c.
	W int `json:"w"`
	D int `json:"d"`
	L int `json:"l"`
	// Forfeits counts the games lost by a crash, a hang, an illegal move
	// or on time, by either side.
	Forfeits int     `json:"forfeits"`
	Seconds  float64 `json:"seconds"` // the time spent playing, over every sitting
}

// The state file's format name and version.
const (
	StateFormat  = "chessforge-spsa"
	StateVersion = 1
)

// NewState returns the state of a run of plan that has not started: θ at
// the parameters' starts.
func NewState(plan Plan) (*State, error) {
	if err := plan.check(); err != nil {
		return nil, err
	}
	params, _ := plan.ParamList()
	st := &State{Format: StateFormat, Version: StateVersion, Plan: plan}
	for _, p := range params {
		st.Names = append(st.Names, p.Name)
		st.Theta = append(st.Theta, float64(p.Start))
		st.Start = append(st.Start, p.Start)
	}
	return st, nil
}

// LoadState reads a state file and checks that it is a run of plan: any
// difference is an error naming the file and the setting.
func LoadState(path string, plan Plan) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: not an SPSA state file: %w", path, err)
	}
	if st.Format != StateFormat || st.Version != StateVersion {
		return nil, fmt.Errorf("%s: format %q version %d, want %q version %d", path, st.Format, st.Version, StateFormat, StateVersion)
	}
	if err := plan.check(); err != nil {
		return nil, err
	}
	if key, was, now := planDifference(st.Plan, plan); key != "" {
		return nil, fmt.Errorf("%s: the run was made with -%s %s, this one has %s: resume it with the same plan, or start another state file", path, key, was, now)
	}
	params, _ := plan.ParamList()
	if len(st.Names) != len(params) || len(st.Theta) != len(params) || len(st.Start) != len(params) {
		return nil, fmt.Errorf("%s: %d names, %d values and %d starts for %d parameters", path, len(st.Names), len(st.Theta), len(st.Start), len(params))
	}
	for i, p := range params {
		if st.Names[i] != p.Name || math.IsNaN(st.Theta[i]) || st.Theta[i] < float64(p.Min) || st.Theta[i] > float64(p.Max) {
			return nil, fmt.Errorf("%s: parameter %d is %s=%v, want %s within [%d, %d]", path, i+1, st.Names[i], st.Theta[i], p.Name, p.Min, p.Max)
		}
	}
	if st.Played < 0 || st.Played > plan.Pairs {
		return nil, fmt.Errorf("%s: %d pairs played of %d", path, st.Played, plan.Pairs)
	}
	return &st, nil
}

// planDifference names the first setting in which two plans differ, with
// its two values as on a command line; "" when they are the same.
func planDifference(a, b Plan) (key, was, now string) {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		x, y := fmt.Sprint(va.Field(i).Interface()), fmt.Sprint(vb.Field(i).Interface())
		if x != y {
			key, _, _ = strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
			return key, strconv.Quote(x), strconv.Quote(y)
		}
	}
	return "", "", ""
}

// Save writes the state to path, atomically.
func (st *State) Save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// Values returns θ rounded to whole numbers: the values a tuned engine
// takes.
func (st *State) Values() []int {
	v := make([]int, len(st.Theta))
	for i, t := range st.Theta {
		v[i] = int(math.Round(t))
	}
	return v
}

// Flags returns the engine's command-line flags for θ, the tuned values:
// "-param NAME=VALUE" for each.
func (st *State) Flags() []string {
	return paramFlags(st.Names, st.Values())
}

// NextParams returns the plan's -params with each parameter starting at
// its tuned value (and its C as the plan gives it): the list for a further
// run from where this one stands.
func (st *State) NextParams() string {
	values := st.Values()
	items := paramItems(st.Plan.Params)
	for i, item := range items {
		_, c, hasC := strings.Cut(item, ":")
		items[i] = fmt.Sprintf("%s=%d", st.Names[i], values[i])
		if hasC {
			items[i] += ":" + c
		}
	}
	return strings.Join(items, ",")
}

// paramFlags returns "-param NAME=VALUE" for each name and value.
func paramFlags(names []string, values []int) []string {
	var args []string
	for i, name := range names {
		args = append(args, "-param", fmt.Sprintf("%s=%d", name, values[i]))
	}
	return args
}

// Summary returns the run's summary line:
// "spsa: P of N pairs, +W =D -L for θ+c: NAME=VALUE (from START) ...".
func (st *State) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "spsa: %d of %d pairs, +%d =%d -%d for θ+c:", st.Played, st.Plan.Pairs, st.W, st.D, st.L)
	for i, v := range st.Values() {
		fmt.Fprintf(&b, " %s=%d (from %d)", st.Names[i], v, st.Start[i])
	}
	return b.String()
}

// schedule is pair k's perturbation c and step R·c of a parameter whose
// perturbation at the end of a run of n pairs is cEnd (see the package
// doc).
func schedule(k, n int, cEnd, rEnd float64) (c, step float64) {
	N, A := float64(n), stability*float64(n)
	c = cEnd * math.Pow(N, gamma) / math.Pow(float64(k+1), gamma)
	a := rEnd * cEnd * cEnd * math.Pow(A+N, alpha) / math.Pow(A+float64(k+1), alpha)
	return c, a / c
}

// mix is SplitMix64's finaliser: the random bits of pair k's signs follow
// from the seed and k alone.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// sign returns parameter i's perturbation sign in pair k: +1 or −1.
func sign(seed uint64, k, i int) float64 {
	if mix(mix(seed^0x7370736173)^uint64(k)<<20^uint64(i))&1 == 0 {
		return 1
	}
	return -1
}

// Runner carries out a run.
type Runner struct {
	StateFile   string        // where the state is saved after every batch
	Concurrency int           // pairs played at once (at least 1)
	Margin      time.Duration // allowed beyond a clock or movetime budget
	MoveTimeout time.Duration // budget for one node- or depth-limited search
	Progress    io.Writer     // nil: no progress
	// play plays one game pair (tests replace it); nil: match.Run, between
	// the engine's two command lines.
	play func(ctx context.Context, cfg *match.Config) (*match.Result, error)
}

// NewRunner returns the runner that settings describe.
func NewRunner(s Settings) *Runner {
	return &Runner{StateFile: s.State, Concurrency: s.Concurrency,
		Margin: time.Duration(s.TimeoutMargin), MoveTimeout: time.Duration(s.MoveTimeout)}
}

// pair is one pair's perturbation and outcome.
type pair struct {
	signs    []float64
	score    stats.Trinomial // θ+c's games
	forfeits int
	err      error
}

// Run plays the state's remaining pairs, updating and saving the state
// after every batch. When ctx ends it returns ctx's error with the state
// as of the last batch finished, saved; the batch under way is discarded
// (a resumed run plays it again, the same way).
func (r *Runner) Run(ctx context.Context, st *State) error {
	plan := st.Plan
	params, err := plan.ParamList()
	if err != nil {
		return err
	}
	argv, err := match.SplitCommand(plan.Engine)
	if err != nil {
		return fmt.Errorf("-engine: %w", err)
	}
	openings, err := planOpenings(plan)
	if err != nil {
		return err
	}
	play := r.play
	if play == nil {
		play = match.Run
	}
	bar := progress.New(r.Progress, int64(plan.Pairs), "spsa", progress.Style{Elapsed: true, Unit: "pairs"})
	bar.StartAt(int64(st.Played))
	defer bar.Exit()
	for st.Played < plan.Pairs {
		start := time.Now()
		batch := make([]pair, min(plan.Batch, plan.Pairs-st.Played))
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range max(1, min(r.Concurrency, len(batch))) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					batch[j] = r.playPair(ctx, play, st, params, argv, openings, st.Played+j)
					bar.Add(1)
				}
			}()
		}
		for j := range batch {
			jobs <- j
		}
		close(jobs)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			bar.Set(int64(st.Played))
			return err
		}
		for _, p := range batch {
			if p.err != nil {
				return p.err
			}
		}
		for j, p := range batch {
			k := st.Played + j
			result := float64(p.score.W - p.score.L)
			for i, q := range params {
				_, step := schedule(k, plan.Pairs, q.C, plan.REnd)
				st.Theta[i] = min(float64(q.Max), max(float64(q.Min), st.Theta[i]+step*result*p.signs[i]))
			}
			st.W, st.D, st.L = st.W+p.score.W, st.D+p.score.D, st.L+p.score.L
			st.Forfeits += p.forfeits
		}
		st.Played += len(batch)
		st.Seconds += time.Since(start).Seconds()
		if err := st.Save(r.StateFile); err != nil {
			return err
		}
		bar.Describe(fmt.Sprintf("+%d =%d -%d for θ+c", st.W, st.D, st.L))
	}
	bar.Finish()
	return nil
}

// playPair plays pair k: the engine with θ+c (A) against θ−c (B), from
// the pair's opening, each colour once.
func (r *Runner) playPair(ctx context.Context, play func(context.Context, *match.Config) (*match.Result, error),
	st *State, params []Param, argv []string, openings []pgn.Opening, k int) pair {
	p := pair{signs: make([]float64, len(params))}
	values := [2][]int{make([]int, len(params)), make([]int, len(params))}
	for i, q := range params {
		p.signs[i] = sign(st.Plan.Seed, k, i)
		c, _ := schedule(k, st.Plan.Pairs, q.C, st.Plan.REnd)
		for side, dir := range [2]float64{1, -1} {
			v := int(math.Round(st.Theta[i] + dir*c*p.signs[i]))
			values[side][i] = min(q.Max, max(q.Min, v))
		}
	}
	plan := st.Plan
	cfg := &match.Config{
		Games:        2,
		Openings:     []pgn.Opening{openings[k%len(openings)]},
		Concurrency:  1,
		MaxPlies:     plan.MaxPlies,
		Margin:       r.Margin,
		MoveTimeout:  r.MoveTimeout,
		ReadyTimeout: 30 * time.Second,
	}
	if plan.Resign != (match.ResignRule{}) {
		cfg.Resign = &plan.Resign
	}
	if plan.Draw != (match.DrawRule{}) {
		cfg.Draw = &plan.Draw
	}
	for side, name := range [2]string{"θ+c", "θ−c"} {
		cfg.Players[side] = match.Player{
			Command: append(slices.Clone(argv), paramFlags(st.Names, values[side])...),
			Name:    name,
			TC:      plan.TC,
		}
	}
	res, err := play(ctx, cfg)
	if err != nil {
		p.err = fmt.Errorf("pair %d: %w", k+1, err)
		return p
	}
	p.score = res.Score
	for side := range 2 {
		for _, n := range res.Forfeits[side] {
			p.forfeits += n
		}
	}
	return p
}

// planOpenings returns a run's openings in the order its pairs take them
// (pair k plays the k-th, modulo their number): the book's, or the
// built-in lines extended with two random plies to one a pair (at most
// 100,000), shuffled by the seed.
func planOpenings(plan Plan) ([]pgn.Opening, error) {
	var book []pgn.Opening
	if plan.Openings != "" {
		var err error
		if book, err = pgn.LoadOpenings(plan.Openings); err != nil {
			return nil, err
		}
		if len(book) == 0 {
			return nil, fmt.Errorf("-openings %s: no openings", plan.Openings)
		}
	} else {
		builtin, err := match.BuiltinOpenings()
		if err != nil {
			return nil, err
		}
		book = match.ExtendOpenings(builtin, min(plan.Pairs, 100000), 2, plan.Seed)
	}
	rng := rand.New(rand.NewPCG(plan.Seed, 0x6f70656e))
	rng.Shuffle(len(book), func(i, j int) { book[i], book[j] = book[j], book[i] })
	return book, nil
}
