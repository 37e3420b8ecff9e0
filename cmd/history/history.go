package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"chessforge/internal/record"
)

// history is the records, indexed for drawing: those of each kind that no
// later record corrects, newest first, and the network lineage.
type history struct {
	byID         map[string]*record.Record
	supersededBy map[string]string // id -> the id of the record that corrects it
	superseded   []*record.Record  // in file order

	matches, networks, cycles, tunes, benches []*record.Record // newest first

	network map[string]*record.Record // network id -> its newest network record
}

// newHistory indexes the records of a history (as record.ReadDir returns
// them, in file order).
func newHistory(recs []record.Record) (*history, error) {
	h := &history{byID: map[string]*record.Record{}, supersededBy: map[string]string{}, network: map[string]*record.Record{}}
	all := make([]*record.Record, len(recs))
	for i := range recs {
		r := &recs[i]
		all[i] = r
		h.byID[r.ID] = r
		if r.Supersedes != "" {
			h.supersededBy[r.Supersedes] = r.ID
		}
	}
	var current []*record.Record
	for _, r := range all {
		if _, ok := h.supersededBy[r.ID]; ok {
			h.superseded = append(h.superseded, r)
		} else {
			current = append(current, r)
		}
	}
	// Newest first; of two records of the same time, the later in the
	// files (appended later) first.
	order := make(map[*record.Record]int, len(current))
	for i, r := range current {
		order[r] = i
	}
	newest := slices.Clone(current)
	slices.SortStableFunc(newest, func(a, b *record.Record) int {
		if c := when(b).Compare(when(a)); c != 0 {
			return c
		}
		return order[b] - order[a]
	})
	for _, r := range newest {
		switch r.Kind {
		case record.KindMatch:
			h.matches = append(h.matches, r)
		case record.KindNetwork:
			h.networks = append(h.networks, r)
			if _, ok := h.network[r.Network]; !ok {
				h.network[r.Network] = r
			}
		case record.KindCycle:
			h.cycles = append(h.cycles, r)
		case record.KindTune:
			h.tunes = append(h.tunes, r)
		case record.KindBench:
			h.benches = append(h.benches, r)
		}
	}
	for _, n := range h.networks {
		if n.Gate == "" {
			continue
		}
		g := h.byID[n.Gate]
		if g == nil {
			return nil, fmt.Errorf("network record %s: gate: no record has the id %q", n.ID, n.Gate)
		}
		if g.Kind != record.KindMatch {
			return nil, fmt.Errorf("network record %s: gate: %s is a %s record, not a match", n.ID, n.Gate, g.Kind)
		}
	}
	return h, nil
}

// when is a record's date as a time: a day is its midnight, UTC.
func when(r *record.Record) time.Time {
	if t, err := time.Parse(time.RFC3339, r.Date); err == nil {
		return t.UTC()
	}
	t, _ := time.Parse(time.DateOnly, r.Date) // Validate has checked one parses
	return t
}

// day is a record's date as its day, UTC.
func day(r *record.Record) string { return when(r).Format(time.DateOnly) }

// gate returns the match that decided network n, nil if none.
func (h *history) gate(n *record.Record) *record.Record {
	if n.Gate == "" {
		return nil
	}
	if g := h.current(n.Gate); g != nil && g.Kind == record.KindMatch {
		return g
	}
	return nil
}

// current returns the record of the id, or the record that corrects it
// (and so on), nil when none.
func (h *history) current(id string) *record.Record {
	for range len(h.byID) + 1 {
		next, ok := h.supersededBy[id]
		if !ok {
			return h.byID[id]
		}
		id = next
	}
	return nil
}

// cumulative returns the Elo of kept network n over the hand-crafted
// evaluation: the sum of the gate Elo of n and of each kept network above
// it, parent by parent, up to the one whose parent is hce. ok is false for
// a network not kept, and when a network on the way is not recorded or a
// kept one has no gate match.
func (h *history) cumulative(n *record.Record) (elo float64, ok bool) {
	if n.Kept == nil || !*n.Kept {
		return 0, false
	}
	seen := map[string]bool{}
	for {
		if seen[n.Network] {
			return 0, false // parents in a circle
		}
		seen[n.Network] = true
		if n.Kept != nil && *n.Kept {
			g := h.gate(n)
			if g == nil {
				return 0, false
			}
			elo += *g.Elo
		}
		if n.Parent == "hce" {
			return elo, true
		}
		if n = h.network[n.Parent]; n == nil {
			return 0, false
		}
	}
}

// lineage returns the kept networks whose parents lead to the
// hand-crafted evaluation, oldest first, each with its cumulative Elo.
func (h *history) lineage() []*record.Record {
	var line []*record.Record
	for _, n := range h.networks {
		if h.network[n.Network] != n {
			continue
		}
		if _, ok := h.cumulative(n); ok {
			line = append(line, n)
		}
	}
	slices.Reverse(line)
	return line
}

// embedded returns the newest network record with embedded true, nil if
// none.
func (h *history) embedded() *record.Record {
	for _, n := range h.networks {
		if n.Embedded != nil && *n.Embedded {
			return n
		}
	}
	return nil
}

// isStockfish2850 reports whether match m measures a network (engine A
// names one) against an engine set to UCI_Elo 2850 (engine B).
func isStockfish2850(m *record.Record) bool {
	return m.Kind == record.KindMatch && len(m.Engines) == 2 && m.Engines[0].Network != "" &&
		m.Engines[1].Options["UCI_Elo"] == "2850"
}

// stockfish2850 returns the matches against UCI_Elo 2850, newest first.
func (h *history) stockfish2850() []*record.Record {
	var ms []*record.Record
	for _, m := range h.matches {
		if isStockfish2850(m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// score returns A's score in match m as a fraction, from its W/D/L or its
// transcribed score.
func score(m *record.Record) (float64, bool) {
	switch {
	case m.WDL != nil:
		return (float64(m.WDL[0]) + float64(m.WDL[1])/2) / float64(m.Games), true
	case m.Score != nil:
		return *m.Score, true
	}
	return 0, false
}

// formatElo writes an Elo difference with its interval: "+18.1 ± 12.9",
// or the bound of an infinite one: "> -290.5".
func formatElo(m *record.Record) string {
	s := fmt.Sprintf("%+.1f", *m.Elo)
	switch m.EloBound {
	case "above":
		s = "> " + s
	case "below":
		s = "< " + s
	}
	if m.EloCI != nil {
		s += fmt.Sprintf(" ± %.1f", *m.EloCI)
	}
	return s
}

// formatInt writes n with thousands separators: 35,700,000.
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatNumber writes a figure: a whole number with separators, else %g.
func formatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return formatInt(int64(x))
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// formatFigures writes a name-to-number object: the names of first in
// that order, then the rest by name: "nodes 2,339,207, nps 2,130,000".
func formatFigures(m map[string]float64, first ...string) string {
	var parts []string
	for _, k := range first {
		if v, ok := m[k]; ok {
			parts = append(parts, k+" "+formatNumber(v))
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(first, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, k+" "+formatNumber(m[k]))
	}
	return strings.Join(parts, ", ")
}
