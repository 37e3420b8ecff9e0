package spsa

import (
	"fmt"
	"strings"
	"time"

	"chessforge/internal/record"
)

// Record returns the run as a tune record (docs/records.md) made at t:
// the values found as its params, the pairs played as its iterations, the
// plan's match settings as its data, θ+c's score, the forfeits and the
// time as its figures, and in its note where the values started and, for
// a run that stopped before its last pair, how to continue it.
func (st *State) Record(t time.Time) record.Record {
	plan := st.Plan
	what := fmt.Sprintf("SPSA of %s at %s", strings.Join(st.Names, ", "), plan.TC)
	if len(what) > 120 {
		what = fmt.Sprintf("SPSA of %d search parameters at %s", len(st.Names), plan.TC)
	}
	openings := plan.Openings
	if openings == "" {
		openings = "built-in lines with two random plies"
	}
	data := fmt.Sprintf("%d game pairs of %s, batch %d, r-end %g, openings %s, seed %d",
		plan.Pairs, plan.Engine, plan.Batch, plan.REnd, openings, plan.Seed)
	params := map[string]float64{}
	for i, v := range st.Values() {
		params[st.Names[i]] = float64(v)
	}
	from := make([]string, len(st.Names))
	for i, name := range st.Names {
		from[i] = fmt.Sprintf("%s=%d", name, st.Start[i])
	}
	note := fmt.Sprintf("From %s; the tuned engine takes %s.", strings.Join(from, " "), strings.Join(st.Flags(), " "))
	if st.Played < plan.Pairs {
		note += fmt.Sprintf(" Stopped after %d of %d pairs: the same command with -resume continues it.", st.Played, plan.Pairs)
	}
	return record.Record{
		Kind:       record.KindTune,
		ID:         record.NewID(t, what),
		Date:       t.UTC().Format(time.RFC3339),
		What:       what,
		Commit:     record.Build(),
		Note:       note,
		Tool:       "spsa",
		Data:       data,
		Iterations: st.Played,
		Params:     params,
		Figures: map[string]float64{
			"pairs": float64(plan.Pairs), "wins": float64(st.W), "draws": float64(st.D), "losses": float64(st.L),
			"forfeits": float64(st.Forfeits), "seconds": st.Seconds,
		},
	}
}
