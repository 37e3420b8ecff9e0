package spsa

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"chessforge/engine/search"
	"chessforge/internal/record"
)

// TestRecordIsTheRunsTuneRecord runs a plan with fake games, stopped
// partway and to its end, and checks each state's record: valid, with the
// values found, the pairs played, the score and the plan's settings; a
// stopped run's note says how to continue it; many parameters make a
// short what.
func TestRecordIsTheRunsTuneRecord(t *testing.T) {
	at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	plan := testPlan()
	plan.Pairs = 40
	for _, c := range []struct {
		name      string
		stopAfter int
		played    int
		stopped   bool
	}{
		{"complete", 0, 40, false},
		{"interrupted", 12, 10, true},
	} {
		st, _ := runFake(t, plan, 2, c.stopAfter, nil, filepath.Join(t.TempDir(), "run.json"))
		r := st.Record(at)
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v\n%+v", c.name, err, r)
		}
		values := st.Values()
		if r.Kind != record.KindTune || r.Tool != "spsa" || r.Iterations != c.played ||
			r.Params["LMRBase"] != float64(values[0]) || r.Params["RFPMargin"] != float64(values[1]) || len(r.Params) != 2 {
			t.Errorf("%s: tool %q, iterations %d, params %v; want spsa, %d, %v", c.name, r.Tool, r.Iterations, r.Params, c.played, values)
		}
		if r.What != "SPSA of LMRBase, RFPMargin at nodes=10000" || r.Date != "2026-12-01T20:00:00Z" || !strings.HasPrefix(r.ID, "2026-12-01-spsa-of-lmrbase-rfpmargin") {
			t.Errorf("%s: what %q, date %q, id %q", c.name, r.What, r.Date, r.ID)
		}
		f := r.Figures
		if f["wins"]+f["draws"]+f["losses"] != float64(2*c.played) || f["wins"] != float64(st.W) || f["pairs"] != 40 {
			t.Errorf("%s: figures %v, want the %d games of %d pairs played", c.name, f, 2*c.played, c.played)
		}
		if !strings.Contains(r.Data, "40 game pairs of engine-under-test, batch 5, r-end 0.05") {
			t.Errorf("%s: data %q", c.name, r.Data)
		}
		if !strings.Contains(r.Note, "From LMRBase=") || strings.Contains(r.Note, "-resume") != c.stopped {
			t.Errorf("%s: note %q", c.name, r.Note)
		}
	}
	var all []string
	for _, p := range search.ParamList() {
		all = append(all, p.Name)
	}
	plan.Params = strings.Join(all, ",")
	st, err := NewState(plan)
	if err != nil {
		t.Fatal(err)
	}
	r := st.Record(at)
	if err := r.Validate(); err != nil || !strings.HasPrefix(r.What, "SPSA of ") || !strings.Contains(r.What, " search parameters at nodes=10000") {
		t.Errorf("every parameter: what %q, %v", r.What, err)
	}
}
