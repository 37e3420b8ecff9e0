package selfplay

import (
	"reflect"
	"strings"
	"testing"

	"chessforge/engine/search"
)

// softConfig is tinyConfig searched by a soft node limit alone.
func softConfig() Config {
	c := tinyConfig()
	c.Games = 4
	c.Nodes = 0
	c.SoftNodes = 300
	c.RandomPlies = 8
	c.MultiPVPlies = 0
	return c
}

// TestSoftNodesFinishTheIteration: with -soft-nodes every search ends with
// a complete iteration past the limit: at least that many nodes, unless
// the game's search stopped early at a mate within its depth.
func TestSoftNodesFinishTheIteration(t *testing.T) {
	cfg := softConfig()
	searched := 0
	for _, g := range collect(t, cfg, Unsharded) {
		checkGame(t, &cfg, g)
		for i, pl := range g.Plies {
			if pl.choice != choiceBest {
				continue
			}
			searched++
			mate := pl.Score >= search.MateInMaxPly || pl.Score <= -search.MateInMaxPly
			if pl.Nodes < int64(cfg.SoftNodes) && !mate {
				t.Errorf("game %d ply %d: %d nodes at depth %d, score %d: want at least -soft-nodes %d", g.Number, i, pl.Nodes, pl.Depth, pl.Score, cfg.SoftNodes)
			}
		}
	}
	if searched == 0 {
		t.Fatal("no ply was searched")
	}
}

// TestSoftNodesGamesAreDeterministic: the same seed and settings give the
// same games, whatever the number of workers.
func TestSoftNodesGamesAreDeterministic(t *testing.T) {
	a := softConfig()
	b := softConfig()
	b.Workers = 1
	ga, gb := collect(t, a, Unsharded), collect(t, b, Unsharded)
	for n, g := range ga {
		if !reflect.DeepEqual(g.Plies, gb[n].Plies) || g.Result != gb[n].Result {
			t.Errorf("game %d differs between two runs of the same job", n)
		}
	}
	// And the soft limit decides the games: a hard one of the same count
	// plays others.
	h := softConfig()
	h.SoftNodes, h.Nodes = 0, 300
	gh := collect(t, h, Unsharded)
	same := 0
	for n, g := range ga {
		if reflect.DeepEqual(g.Plies, gh[n].Plies) {
			same++
		}
	}
	if same == len(ga) {
		t.Error("-soft-nodes 300 played the games of -nodes 300")
	}
}

// TestSoftNodesSetting: -soft-nodes is a budget of its own, enters the job
// record only when set (earlier jobs keep their records), and must lie
// below a hard -nodes limit, which would otherwise end every search first.
func TestSoftNodesSetting(t *testing.T) {
	c := DefaultConfig()
	c.Nodes, c.SoftNodes = 0, 20000
	if err := c.Validate(); err != nil {
		t.Errorf("-nodes 0 -soft-nodes 20000: %v", err)
	}
	c.Nodes = 200000
	if err := c.Validate(); err != nil {
		t.Errorf("-nodes 200000 -soft-nodes 20000: %v", err)
	}
	c.Nodes = 5000
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "-soft-nodes 20000") || !strings.Contains(err.Error(), "-nodes 5000") {
		t.Errorf("-nodes 5000 -soft-nodes 20000: error %v, want one naming both", err)
	}
	d := DamaDefaults()
	d.SoftNodes = 20000
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "-soft-nodes") {
		t.Errorf("-game dama -soft-nodes 20000: error %v, want one naming -soft-nodes", err)
	}
	def := DefaultConfig()
	rec, err := jobRecord(&def, 1, "v0", "")
	if err != nil || strings.Contains(string(rec), "soft-nodes") {
		t.Errorf("default job record %s (%v): want no soft-nodes key", rec, err)
	}
	soft := DefaultConfig()
	soft.Nodes, soft.SoftNodes = 0, 20000
	rec, err = jobRecord(&soft, 1, "v0", "")
	if err != nil || !strings.Contains(string(rec), `"soft-nodes":20000`) {
		t.Errorf("job record %s (%v): want \"soft-nodes\":20000", rec, err)
	}
}
