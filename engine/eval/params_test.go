package eval

import (
	"strings"
	"testing"
)

func TestGroupsTileTheFeatureRange(t *testing.T) {
	next := 0
	names := map[string]bool{}
	for _, g := range Groups {
		if g.Offset != next {
			t.Fatalf("group %s starts at %d, want %d", g.Name, g.Offset, next)
		}
		if names[g.Name] {
			t.Fatalf("group name %s used twice", g.Name)
		}
		names[g.Name] = true
		if g.Layout == Board && g.Size != 64 {
			t.Errorf("board group %s has %d entries", g.Name, g.Size)
		}
		next += g.Size
	}
	if next != NumFeatures {
		t.Fatalf("groups cover %d features, NumFeatures is %d", next, NumFeatures)
	}
}

func TestSelectByFamilyGroupAndHalf(t *testing.T) {
	count := func(m []bool) int {
		n := 0
		for _, b := range m {
			if b {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		spec string
		want int
	}{
		{"psqt", 2 * 6 * 64},
		{"material,tempo", 2 * 6},
		{"psqt_knight.mg", 64},
		{"all", NumParams},
		{"kingsafety", 2 * (32 + 32 + 1 + 4 + 1 + 1 + 4 + 1 + 1)},
	} {
		m, err := Select(tc.spec)
		if err != nil {
			t.Fatalf("Select(%q): %v", tc.spec, err)
		}
		if got := count(m); got != tc.want {
			t.Errorf("Select(%q) selects %d weights, want %d", tc.spec, got, tc.want)
		}
	}
	if _, err := Select("psqt,nonsense"); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("unknown group: err = %v", err)
	}
}

func TestParamNames(t *testing.T) {
	for j, want := range map[int]string{
		0:                             "material[pawn].mg",
		NumFeatures + 1:               "material[knight].eg",
		psqtIndex(1, 28):              "psqt_knight[e4].mg", // square 28 is e4
		fPassedRank + 5:               "passed_rank[rank6].mg",
		NumFeatures + fTempo:          "tempo.eg",
		psqtIndex(0, 8) + NumFeatures: "psqt_pawn[a2].eg",
	} {
		if got := ParamName(j); got != want {
			t.Errorf("ParamName(%d) = %q, want %q", j, got, want)
		}
	}
}
