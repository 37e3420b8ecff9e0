package main

import (
	"bytes"
	"fmt"

	"chessforge/internal/record"
)

// maxLine bounds the length of the README's lines (issue 61: none of 200
// characters or more).
const maxLine = 200

// status returns the README's status block: a table of where the engine
// stands (the embedded network and its lineage's Elo over the hand-crafted
// evaluation, its latest result against Stockfish 2850, the latest bench
// figures of the search and of self-play), each row linking to its record
// on the page, then the lineage plot. page and lineage are paths relative
// to the README.
func (h *history) status(page, lineage string) []byte {
	link := func(r *record.Record) string { return fmt.Sprintf("[record](%s#%s)", page, r.ID) }
	var b bytes.Buffer
	b.WriteString("| where it stands | figure | record |\n|---|---|---|\n")
	row := func(what, figure, rec string) { fmt.Fprintf(&b, "| %s | %s | %s |\n", what, cell(figure), rec) }

	e := h.embedded()
	switch {
	case e == nil:
		row("Embedded network", "none recorded", "")
	default:
		figure := "`" + e.Network + "`"
		if c, ok := h.cumulative(e); ok {
			figure += fmt.Sprintf(", %+.1f Elo over the hand-crafted evaluation (its lineage's gate matches)", c)
		}
		row("Embedded network", figure, link(e))
	}

	var sf *record.Record
	for _, m := range h.stockfish2850() {
		if e != nil && m.Engines[0].Network == e.Network {
			sf = m
			break
		}
	}
	if ms := h.stockfish2850(); sf == nil && len(ms) > 0 {
		sf = ms[0]
	}
	if sf == nil {
		row("Against Stockfish 2850", "none recorded", "")
	} else {
		figure := ""
		if s, ok := score(sf); ok {
			figure = fmt.Sprintf("%.1f%%, ", 100*s)
		}
		figure += fmt.Sprintf("%s Elo, %s games at %s", formatElo(sf), formatInt(int64(sf.Games)), sf.TC)
		if e == nil || sf.Engines[0].Network != e.Network {
			figure += " (network " + sf.Engines[0].Network + ")"
		}
		row("Against Stockfish 2850", figure, link(sf))
	}

	for _, s := range []struct {
		subject, name string
		figures       []string // the figures shown, which the record must give
		format        string
	}{
		{"search", "Search bench", []string{"nodes", "nps"}, "%s nodes, %s nodes/s"},
		{"selfplay", "Self-play", []string{"positions_per_s"}, "%s positions/s"},
	} {
		var latest *record.Record
		var values []any
		for _, r := range h.benches {
			values = values[:0]
			for _, f := range s.figures {
				if v, ok := r.Figures[f]; ok {
					values = append(values, formatNumber(v))
				}
			}
			if r.Reference && r.Subject == s.subject && len(values) == len(s.figures) {
				latest = r
				break
			}
		}
		if latest == nil {
			row(s.name, "none recorded", "")
			continue
		}
		figure := fmt.Sprintf(s.format, values...)
		// The machine, unless it would make the line too long.
		if m := "; " + latest.Machine; latest.Machine != "" &&
			len(fmt.Sprintf("| %s | %s | %s |", s.name, cell(figure+m), link(latest))) < maxLine {
			figure += m
		}
		row(s.name, figure, link(latest))
	}
	fmt.Fprintf(&b, "\n![lineage](%s)\n", lineage)
	return b.Bytes()
}
