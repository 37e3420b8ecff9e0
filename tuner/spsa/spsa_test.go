package spsa

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"chessforge/engine/search"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
)

// target is where the fake games' strength peaks for each parameter.
var target = map[string]int{"LMRBase": 120, "RFPMargin": 60}

// fakePlay plays a pair without engines: the side whose -param values lie
// closer to target (by squared distance) wins both games, and equal ones
// draw. It checks the pair's settings on the way.
func fakePlay(t *testing.T, tc match.TimeControl) func(context.Context, *match.Config) (*match.Result, error) {
	return func(_ context.Context, cfg *match.Config) (*match.Result, error) {
		if cfg.Games != 2 || len(cfg.Openings) != 1 || cfg.Concurrency != 1 {
			t.Errorf("a pair: %d games, %d openings, concurrency %d", cfg.Games, len(cfg.Openings), cfg.Concurrency)
		}
		var loss [2]float64
		for side, p := range cfg.Players {
			if p.TC != tc || p.Command[0] != "engine-under-test" {
				t.Errorf("player %d: %v at %v", side, p.Command, p.TC)
			}
			for i, w := range p.Command {
				if w != "-param" {
					continue
				}
				name, value, _ := strings.Cut(p.Command[i+1], "=")
				v, err := strconv.Atoi(value)
				if err != nil {
					t.Fatalf("player %d: %v", side, p.Command)
				}
				d := float64(v - target[name])
				loss[side] += d * d
			}
		}
		r := &match.Result{}
		switch {
		case loss[0] < loss[1]:
			r.Score = stats.Trinomial{W: 2}
		case loss[0] > loss[1]:
			r.Score = stats.Trinomial{L: 2}
		default:
			r.Score = stats.Trinomial{D: 2}
		}
		return r, nil
	}
}

func testPlan() Plan {
	p := DefaultSettings().Plan
	p.Engine = "engine-under-test"
	p.Params = "LMRBase,RFPMargin:4"
	p.Pairs = 600
	p.Batch = 5
	p.REnd = 0.05
	return p
}

// runFake runs plan with fake games to its end, at this concurrency,
// stopping (as an interrupt does) after stopAfter pairs when that is
// positive; it returns the state.
func runFake(t *testing.T, plan Plan, concurrency, stopAfter int, st *State, path string) (*State, error) {
	t.Helper()
	if st == nil {
		var err error
		if st, err = NewState(plan); err != nil {
			t.Fatal(err)
		}
	}
	s := DefaultSettings()
	s.State, s.Concurrency = path, concurrency
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	play := fakePlay(t, plan.TC)
	var mu sync.Mutex
	played := 0
	r := NewRunner(s)
	r.play = func(c context.Context, cfg *match.Config) (*match.Result, error) {
		mu.Lock()
		played++
		if played == stopAfter {
			cancel()
		}
		mu.Unlock()
		return play(c, cfg)
	}
	return st, r.Run(ctx, st)
}

// TestRunMovesTowardTheOptimum checks that SPSA moves the parameters from
// their starts (the search's defaults, or the values -params gives, here
// beyond the peak) toward where the fake games' strength peaks.
func TestRunMovesTowardTheOptimum(t *testing.T) {
	for params, starts := range map[string][]int{
		"LMRBase,RFPMargin:4":         {80, 80},
		"LMRBase=160,RFPMargin=100:4": {160, 100},
	} {
		path := filepath.Join(t.TempDir(), "state.json")
		plan := testPlan()
		plan.Params = params
		st, err := runFake(t, plan, 2, 0, nil, path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Played != 600 || st.W+st.D+st.L != 1200 {
			t.Fatalf("%s: played %d pairs, %d games", params, st.Played, st.W+st.D+st.L)
		}
		if !slices.Equal(st.Start, starts) {
			t.Errorf("%s: started from %v, want %v", params, st.Start, starts)
		}
		for i, name := range st.Names {
			start, got := float64(st.Start[i]), st.Theta[i]
			if math.Abs(got-float64(target[name])) > 0.5*math.Abs(start-float64(target[name])) {
				t.Errorf("%s: %s: %v -> %v, want at least half way to %d", params, name, start, got, target[name])
			}
		}
		saved, err := LoadState(path, st.Plan)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(saved, st) {
			t.Errorf("%s: the state file holds %+v, the run ended with %+v", params, saved, st)
		}
		// A further run from here starts at the tuned values, with the same Cs.
		next := Plan{Params: st.NextParams()}
		list, err := next.ParamList()
		if err != nil {
			t.Fatalf("%s: NextParams() = %q: %v", params, next.Params, err)
		}
		for i, q := range list {
			if q.Name != st.Names[i] || q.Start != st.Values()[i] || q.C != map[string]float64{"LMRBase": 10, "RFPMargin": 4}[q.Name] {
				t.Errorf("%s: NextParams() = %q: parameter %d is %+v", params, next.Params, i, q)
			}
		}
		want := "spsa: 600 of 600 pairs, +"
		from := fmt.Sprintf("(from %d)", starts[0])
		if got := st.Summary(); !strings.HasPrefix(got, want) || !strings.Contains(got, " LMRBase=") || !strings.Contains(got, from) {
			t.Errorf("%s: Summary() = %q", params, got)
		}
	}
}

// TestRunIsReproducible checks that the concurrency and an interruption
// with a resume from the state file change nothing in a run's outcome.
func TestRunIsReproducible(t *testing.T) {
	plan := testPlan()
	plan.Pairs = 100
	dir := t.TempDir()
	one, err := runFake(t, plan, 1, 0, nil, filepath.Join(dir, "one.json"))
	if err != nil {
		t.Fatal(err)
	}
	three, err := runFake(t, plan, 3, 0, nil, filepath.Join(dir, "three.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "stopped.json")
	stopped, err := runFake(t, plan, 2, 33, nil, path)
	if err != context.Canceled {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	if stopped.Played%plan.Batch != 0 || stopped.Played >= 33 {
		t.Errorf("interrupted after 33 pairs with %d counted, want the batches finished before", stopped.Played)
	}
	saved, err := LoadState(path, plan)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := runFake(t, plan, 2, 0, saved, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*State{one, three, resumed} {
		st.Seconds = 0
	}
	if !reflect.DeepEqual(one, three) || !reflect.DeepEqual(one, resumed) {
		t.Errorf("θ %v at concurrency 1, %v at 3, %v interrupted and resumed", one.Theta, three.Theta, resumed.Theta)
	}
}

// TestSchedule checks the schedules against the package doc's formulas: at
// the last pair the perturbation is C and the step R·c is r_end·C.
func TestSchedule(t *testing.T) {
	c, step := schedule(999, 1000, 4, 0.002)
	if math.Abs(c-4) > 1e-12 || math.Abs(step-0.002*4) > 1e-12 {
		t.Errorf("last pair: c %v, step %v; want 4 and 0.008", c, step)
	}
	c, step = schedule(0, 1000, 4, 0.002)
	wantC := 4 * math.Pow(1000, 0.101)
	wantA := 0.002 * 16 * math.Pow(1100, 0.602) / math.Pow(101, 0.602)
	if math.Abs(c-wantC) > 1e-9 || math.Abs(step-wantA/wantC) > 1e-12 {
		t.Errorf("first pair: c %v, step %v; want %v and %v", c, step, wantC, wantA/wantC)
	}
	plus := 0
	for k := range 1000 {
		if sign(1, k, 0) > 0 {
			plus++
		}
	}
	if plus < 440 || plus > 560 {
		t.Errorf("%d of 1000 signs positive", plus)
	}
}

func TestParamList(t *testing.T) {
	p := Plan{Params: " LMRBase , SEEQuietMargin:2.5,AspirationMinDepth,RFPMargin=70,LMPBase=5:0.5"}
	list, err := p.ParamList()
	if err != nil {
		t.Fatal(err)
	}
	var byName = map[string]search.Param{}
	for _, s := range search.ParamList() {
		byName[s.Name] = s
	}
	param := func(name string, start int, c float64) Param {
		if start < 0 {
			start = byName[name].Default
		}
		return Param{byName[name], start, c}
	}
	want := []Param{param("LMRBase", -1, 10), param("SEEQuietMargin", -1, 2.5), param("AspirationMinDepth", -1, 1),
		param("RFPMargin", 70, 9), param("LMPBase", 5, 0.5)}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("ParamList() = %v, want %v", list, want)
	}
	for params, msg := range map[string]string{
		"":                   "-params: name at least one search parameter",
		"LMRBase,Hash":       `-params: no search parameter "Hash"`,
		"LMRBase,LMRBase:2":  "-params: LMRBase is named twice",
		"LMRBase:0":          `-params: LMRBase: perturbation "0" is not a positive number`,
		"LMRBase:x":          `-params: LMRBase: perturbation "x" is not a positive number`,
		"RFPMargin:-1,Other": `-params: RFPMargin: perturbation "-1" is not a positive number`,
		"RFPMargin=":         `-params: RFPMargin: start "" is not a whole number`,
		"RFPMargin=7.5:2":    `-params: RFPMargin: start "7.5" is not a whole number`,
		"RFPMargin=9999":     `-params: RFPMargin: start 9999 is outside its range [`,
		"Hash=1":             `-params: no search parameter "Hash"`,
	} {
		if _, err := (&Plan{Params: params}).ParamList(); err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("-params %q: %v, want %q", params, err, msg)
		}
	}
}

// TestLoadStateRefusesAnotherRun checks that a state file is resumed only
// by its own plan and only when it is whole and in range.
func TestLoadStateRefusesAnotherRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	plan := testPlan()
	st, err := NewState(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(path); err != nil {
		t.Fatal(err)
	}
	other := plan
	other.Pairs = 700
	if _, err := LoadState(path, other); err == nil || !strings.Contains(err.Error(), `the run was made with -pairs "600", this one has "700"`) {
		t.Errorf("another -pairs: %v", err)
	}
	other = plan
	other.TC = match.TimeControl{Kind: match.TCNodes, N: 5}
	if _, err := LoadState(path, other); err == nil || !strings.Contains(err.Error(), `-tc "nodes=10000", this one has "nodes=5"`) {
		t.Errorf("another -tc: %v", err)
	}
	for name, edit := range map[string]func(*State){
		"out of range": func(s *State) { s.Theta[1] = 1000 },
		"renamed":      func(s *State) { s.Names[0] = "LMRDivisor" },
		"overplayed":   func(s *State) { s.Played = 601 },
		"format":       func(s *State) { s.Version = 2 },
	} {
		bad, _ := NewState(plan)
		edit(bad)
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := bad.Save(p); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadState(p, plan); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("%s: %v, want an error naming %s", name, err, p)
		}
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(path, plan); err == nil || !strings.HasPrefix(err.Error(), path+": not an SPSA state file") {
		t.Errorf("truncated file: %v", err)
	}
	for name, edit := range map[string]func(*Plan){
		"-pairs 0: must be positive":       func(p *Plan) { p.Pairs = 0 },
		"-batch 0: must be positive":       func(p *Plan) { p.Batch = 0 },
		"-r-end 0: must be a positive":     func(p *Plan) { p.REnd = 0 },
		"-max-plies -1: must not be":       func(p *Plan) { p.MaxPlies = -1 },
		"-engine: ":                        func(p *Plan) { p.Engine = "'unclosed" },
		"no time control":                  func(p *Plan) { p.TC = match.TimeControl{} },
		`-params: no search parameter "x"`: func(p *Plan) { p.Params = "x" },
	} {
		p := testPlan()
		edit(&p)
		if _, err := NewState(p); err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("NewState: %v, want %q", err, name)
		}
	}
}
