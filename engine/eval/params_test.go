package eval

import (
	"strings"
	"testing"

	"chessforge/engine/internal/evalweights"
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

func TestGroupsFollowTheWeightTable(t *testing.T) {
	// The offsets the code indexes with are the fields' places.
	for _, tc := range []struct {
		name   string
		offset int
	}{
		{"material", fMaterial}, {"psqt_pawn", fPSQT}, {"passed_rank", fPassedRank},
		{"mob_queen", fMobQueen}, {"king_storm", fKingStorm}, {"ks_base", fKSBase}, {"tempo", fTempo},
	} {
		g, ok := GroupOf(tc.offset)
		if !ok || g.Name != tc.name || g.Offset != tc.offset {
			t.Errorf("feature %d: group %+v, want %s starting there", tc.offset, g, tc.name)
		}
	}
	// psqtIndex reads six consecutive boards, pawn to king.
	for i, piece := range []string{"pawn", "knight", "bishop", "rook", "queen", "king"} {
		g, _ := GroupOf(fPSQT + i*64)
		if g.Name != "psqt_"+piece || g.Layout != Board {
			t.Errorf("board %d is %s (%s), want psqt_%s", i, g.Name, g.Layout, piece)
		}
	}
	if g := Groups[len(Groups)-1]; g.Offset+g.Size != NumFeatures {
		t.Errorf("last group ends at %d, NumFeatures is %d", g.Offset+g.Size, NumFeatures)
	}
	if g, _ := GroupOf(fMobBishop); g.Field != "MobBishop" || g.Family != "mobility" || g.Cols != 7 || g.Size != 14 || g.Layout != List {
		t.Errorf("mob_bishop read as %+v", g)
	}
	if g, _ := GroupOf(fKSSafeChecks); !g.Nonlinear || g.Cols != 4 {
		t.Errorf("ks_safe_checks read as %+v", g)
	}
}

// TestChessSchemaChecksItsLayoutsAndCurve checks what the chess schema
// adds to the shared reading of weight tables (package evalweights tests
// the rest): boards of 64 squares, piece tables of at most six pieces, the
// king-danger curve, and their labels.
func TestChessSchemaChecksItsLayoutsAndCurve(t *testing.T) {
	for name, read := range map[string]func() error{
		"board not 64": func() error {
			_, err := evalweights.Read[struct {
				A [63]Score `group:"a" family:"f" layout:"board"`
			}, Score](schema)
			return err
		},
		"pieces above 6": func() error {
			_, err := evalweights.Read[struct {
				A [7]Score `group:"a" family:"f" layout:"pieces"`
			}, Score](schema)
			return err
		},
		"bad curve": func() error {
			_, err := evalweights.Read[struct {
				A [2]Score `group:"a" family:"f" curve:"cubic"`
			}, Score](schema)
			return err
		},
		"not Score": func() error {
			_, err := evalweights.Read[struct{ A [2]int32 }, Score](schema)
			return err
		},
	} {
		if err := read(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	tab, err := evalweights.Read[struct {
		A [2]Score  `group:"a" family:"f" layout:"pieces"`
		B [64]Score `group:"b" family:"f" layout:"board" curve:"kingdanger" cols:"4"`
	}, Score](schema)
	if err != nil {
		t.Fatal(err)
	}
	a, b := tab.Groups[0], tab.Groups[1]
	if a.Cols != 2 || a.Layout != Pieces || a.Nonlinear || a.Label(1) != "knight" {
		t.Errorf("group a read as %+v", a)
	}
	if b.Offset != 2 || b.Cols != 4 || b.Layout != Board || !b.Nonlinear || b.Label(0) != "a8" || b.Label(63) != "h1" {
		t.Errorf("group b read as %+v", b)
	}
}

func TestCompiledWeightsAreForThisLayout(t *testing.T) {
	if got, want := CurrentProvenance().Layout, LayoutFingerprint(); got != want {
		t.Errorf("weights_gen.go was written for layout %s, the groups are layout %s: run go generate ./engine/eval/", got, want)
	}
}
