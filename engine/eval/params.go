package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"chessforge/engine/board"
)

// Score is a pair of weights, one for the middlegame and one for the endgame,
// in centipawns.
type Score struct {
	MG, EG int32
}

// weightTable declares every feature group once, as one field: the
// field's array length is the group's size, its place in the struct the
// group's offset in the weight vector, and its tag says the rest:
//
//	group:"name"        the group's name, for -params and reports (required)
//	family:"name"       the -params family it belongs to (required)
//	layout:"board"      how its entries are laid out and labelled: list
//	                    (the default), board, ranks or pieces (see Layout)
//	cols:"7"            values per line in the generated file (default 8 for
//	                    boards and ranks, else the group's size)
//	curve:"kingdanger"  its weights enter through the king-danger curve
//	                    (see Group.Nonlinear)
//	doc:"text"          one line, written above the group in the generated file
//
// Groups, the feature offsets below, NumFeatures, the trace, the tuner's
// -params selection, the layout's fingerprint and the generated weights
// file all follow from this declaration. weights_gen.go assigns each
// group's values to its field by name, in an array of its own length
// ([...]Score), so that changing a group's size, or renaming or removing a
// group, fails to build until the file is edited to match; a new group
// starts at zero, and a test fails until the file is regenerated.
type weightTable struct {
	Material [5]Score `group:"material" family:"material" layout:"pieces" doc:"piece values: pawn, knight, bishop, rook, queen"`

	PSQTPawn   [64]Score `group:"psqt_pawn" family:"psqt" layout:"board" doc:"pawn piece-square table"`
	PSQTKnight [64]Score `group:"psqt_knight" family:"psqt" layout:"board" doc:"knight piece-square table"`
	PSQTBishop [64]Score `group:"psqt_bishop" family:"psqt" layout:"board" doc:"bishop piece-square table"`
	PSQTRook   [64]Score `group:"psqt_rook" family:"psqt" layout:"board" doc:"rook piece-square table"`
	PSQTQueen  [64]Score `group:"psqt_queen" family:"psqt" layout:"board" doc:"queen piece-square table"`
	PSQTKing   [64]Score `group:"psqt_king" family:"psqt" layout:"board" doc:"king piece-square table"`

	PawnIsolated      [1]Score `group:"pawn_isolated" family:"pawns" doc:"per pawn with no own pawn on an adjacent file"`
	PawnDoubled       [1]Score `group:"pawn_doubled" family:"pawns" doc:"per pawn with an own pawn ahead on its file"`
	PawnBackward      [1]Score `group:"pawn_backward" family:"pawns" doc:"per pawn behind its neighbours whose stop square an enemy pawn guards"`
	PawnConnected     [8]Score `group:"pawn_connected" family:"pawns" layout:"ranks" doc:"per pawn defended by a pawn or beside one, by relative rank"`
	PassedRank        [8]Score `group:"passed_rank" family:"pawns" layout:"ranks" doc:"per passed pawn, by relative rank"`
	PassedFree        [8]Score `group:"passed_free" family:"pawns" layout:"ranks" doc:"per passed pawn whose path is empty and not attacked, by relative rank"`
	PassedKingOwn     [8]Score `group:"passed_king_own" family:"pawns" layout:"ranks" doc:"per passed pawn, times the own king's distance to its stop square, by relative rank"`
	PassedKingEnemy   [8]Score `group:"passed_king_enemy" family:"pawns" layout:"ranks" doc:"per passed pawn, times the enemy king's distance to its stop square, by relative rank"`
	PassedUnstoppable [1]Score `group:"passed_unstoppable" family:"pawns" doc:"per passed pawn the lone enemy king cannot catch (rule of the square, pawn endings)"`

	MobKnight [9]Score  `group:"mob_knight" family:"mobility" doc:"knight by number of safe squares reached, 0..8"`
	MobBishop [14]Score `group:"mob_bishop" family:"mobility" cols:"7" doc:"bishop by number of safe squares reached, 0..13"`
	MobRook   [15]Score `group:"mob_rook" family:"mobility" cols:"8" doc:"rook by number of safe squares reached, 0..14"`
	MobQueen  [28]Score `group:"mob_queen" family:"mobility" cols:"7" doc:"queen by number of safe squares reached, 0..27"`

	BishopPair    [1]Score `group:"bishop_pair" family:"pieces" doc:"two bishops or more"`
	BishopPawns   [1]Score `group:"bishop_pawns" family:"pieces" doc:"per bishop, times the own pawns on its square colour"`
	KnightOutpost [1]Score `group:"knight_outpost" family:"pieces" doc:"knight on ranks 4-6, defended by a pawn, out of reach of enemy pawns"`
	BishopOutpost [1]Score `group:"bishop_outpost" family:"pieces" doc:"bishop on ranks 4-6, defended by a pawn, out of reach of enemy pawns"`
	RookOpen      [1]Score `group:"rook_open" family:"pieces" doc:"rook on a file without pawns"`
	RookSemiOpen  [1]Score `group:"rook_semiopen" family:"pieces" doc:"rook on a file with enemy pawns only"`
	RookSeventh   [1]Score `group:"rook_seventh" family:"pieces" doc:"rook on the seventh with the enemy king on the eighth or enemy pawns on the seventh"`

	ThreatPawn     [1]Score `group:"threat_pawn" family:"threats" doc:"per enemy piece (not pawn or king) attacked by a pawn"`
	ThreatPawnPush [1]Score `group:"threat_pawn_push" family:"threats" doc:"per enemy piece a safe pawn push would attack"`
	ThreatMinor    [5]Score `group:"threat_minor" family:"threats" layout:"pieces" doc:"per enemy piece attacked by a minor, by victim pawn..queen (minors and pawns only when not pawn-defended)"`
	ThreatRook     [5]Score `group:"threat_rook" family:"threats" layout:"pieces" doc:"per enemy piece attacked by a rook, by victim pawn..queen (all but the queen only when not pawn-defended)"`
	Hanging        [1]Score `group:"hanging" family:"threats" doc:"per enemy piece (not king) attacked and not defended"`

	KingShelter   [32]Score `group:"king_shelter" family:"kingsafety" cols:"8" doc:"per file by the king: [file class a/h=0 .. d/e=3][relative rank of the nearest own pawn in front, 0 = none]"`
	KingStorm     [32]Score `group:"king_storm" family:"kingsafety" cols:"8" doc:"per file by the king: [file class a/h=0 .. d/e=3][relative rank of the nearest enemy pawn in front, 0 = none]"`
	KingOpenFile  [1]Score  `group:"king_open_file" family:"kingsafety" doc:"per file by the king without pawns of either colour"`
	KSAttackers   [4]Score  `group:"ks_attackers" family:"kingsafety" curve:"kingdanger" doc:"king danger: per enemy piece attacking the king zone, by type knight, bishop, rook, queen"`
	KSZoneAttacks [1]Score  `group:"ks_zone_attacks" family:"kingsafety" curve:"kingdanger" doc:"king danger: per attack on a king-zone square"`
	KSWeakSquares [1]Score  `group:"ks_weak_squares" family:"kingsafety" curve:"kingdanger" doc:"king danger: per attacked king-zone square defended at most by king or queen"`
	KSSafeChecks  [4]Score  `group:"ks_safe_checks" family:"kingsafety" curve:"kingdanger" doc:"king danger: per safe checking square, by checker knight, bishop, rook, queen"`
	KSNoQueen     [1]Score  `group:"ks_no_queen" family:"kingsafety" curve:"kingdanger" doc:"king danger: the attacker has no queen"`
	KSBase        [1]Score  `group:"ks_base" family:"kingsafety" curve:"kingdanger" doc:"king danger: constant, once the attack is on"`

	MateEdge     [1]Score `group:"mate_edge" family:"endgame" doc:"lone king's distance from the centre (0..6), for the side that can mate it"`
	MateKings    [1]Score `group:"mate_kings" family:"endgame" doc:"7 minus the distance between the kings (0..6), for the side that can mate a lone king"`
	MateBNCorner [1]Score `group:"mate_bn_corner" family:"endgame" doc:"KBNK: 7 minus the lone king's distance to a corner of the bishop's colour"`

	Tempo [1]Score `group:"tempo" family:"misc" doc:"side to move"`
}

// scoreSize is the size of one feature's weights in weightTable.
const scoreSize = unsafe.Sizeof(Score{})

// Feature offsets: the index of each group's first feature, from its
// field's place in weightTable (a compile-time constant, so that the
// evaluation indexes its weights with constants). Only the groups the code
// names have one.
const (
	fMaterial          = int(unsafe.Offsetof(weightTable{}.Material) / scoreSize)
	fPSQT              = int(unsafe.Offsetof(weightTable{}.PSQTPawn) / scoreSize)
	fPawnIsolated      = int(unsafe.Offsetof(weightTable{}.PawnIsolated) / scoreSize)
	fPawnDoubled       = int(unsafe.Offsetof(weightTable{}.PawnDoubled) / scoreSize)
	fPawnBackward      = int(unsafe.Offsetof(weightTable{}.PawnBackward) / scoreSize)
	fPawnConnected     = int(unsafe.Offsetof(weightTable{}.PawnConnected) / scoreSize)
	fPassedRank        = int(unsafe.Offsetof(weightTable{}.PassedRank) / scoreSize)
	fPassedFree        = int(unsafe.Offsetof(weightTable{}.PassedFree) / scoreSize)
	fPassedKingOwn     = int(unsafe.Offsetof(weightTable{}.PassedKingOwn) / scoreSize)
	fPassedKingEnemy   = int(unsafe.Offsetof(weightTable{}.PassedKingEnemy) / scoreSize)
	fPassedUnstoppable = int(unsafe.Offsetof(weightTable{}.PassedUnstoppable) / scoreSize)
	fMobKnight         = int(unsafe.Offsetof(weightTable{}.MobKnight) / scoreSize)
	fMobBishop         = int(unsafe.Offsetof(weightTable{}.MobBishop) / scoreSize)
	fMobRook           = int(unsafe.Offsetof(weightTable{}.MobRook) / scoreSize)
	fMobQueen          = int(unsafe.Offsetof(weightTable{}.MobQueen) / scoreSize)
	fBishopPair        = int(unsafe.Offsetof(weightTable{}.BishopPair) / scoreSize)
	fBishopPawns       = int(unsafe.Offsetof(weightTable{}.BishopPawns) / scoreSize)
	fKnightOutpost     = int(unsafe.Offsetof(weightTable{}.KnightOutpost) / scoreSize)
	fBishopOutpost     = int(unsafe.Offsetof(weightTable{}.BishopOutpost) / scoreSize)
	fRookOpen          = int(unsafe.Offsetof(weightTable{}.RookOpen) / scoreSize)
	fRookSemiOpen      = int(unsafe.Offsetof(weightTable{}.RookSemiOpen) / scoreSize)
	fRookSeventh       = int(unsafe.Offsetof(weightTable{}.RookSeventh) / scoreSize)
	fThreatPawn        = int(unsafe.Offsetof(weightTable{}.ThreatPawn) / scoreSize)
	fThreatPawnPush    = int(unsafe.Offsetof(weightTable{}.ThreatPawnPush) / scoreSize)
	fThreatMinor       = int(unsafe.Offsetof(weightTable{}.ThreatMinor) / scoreSize)
	fThreatRook        = int(unsafe.Offsetof(weightTable{}.ThreatRook) / scoreSize)
	fHanging           = int(unsafe.Offsetof(weightTable{}.Hanging) / scoreSize)
	fKingShelter       = int(unsafe.Offsetof(weightTable{}.KingShelter) / scoreSize)
	fKingStorm         = int(unsafe.Offsetof(weightTable{}.KingStorm) / scoreSize)
	fKingOpenFile      = int(unsafe.Offsetof(weightTable{}.KingOpenFile) / scoreSize)
	fKSAttackers       = int(unsafe.Offsetof(weightTable{}.KSAttackers) / scoreSize)
	fKSZoneAttacks     = int(unsafe.Offsetof(weightTable{}.KSZoneAttacks) / scoreSize)
	fKSWeakSquares     = int(unsafe.Offsetof(weightTable{}.KSWeakSquares) / scoreSize)
	fKSSafeChecks      = int(unsafe.Offsetof(weightTable{}.KSSafeChecks) / scoreSize)
	fKSNoQueen         = int(unsafe.Offsetof(weightTable{}.KSNoQueen) / scoreSize)
	fKSBase            = int(unsafe.Offsetof(weightTable{}.KSBase) / scoreSize)
	fMateEdge          = int(unsafe.Offsetof(weightTable{}.MateEdge) / scoreSize)
	fMateKings         = int(unsafe.Offsetof(weightTable{}.MateKings) / scoreSize)
	fMateBNCorner      = int(unsafe.Offsetof(weightTable{}.MateBNCorner) / scoreSize)
	fTempo             = int(unsafe.Offsetof(weightTable{}.Tempo) / scoreSize)

	// NumFeatures is the number of features; the weight vector a tuner
	// sees has 2*NumFeatures entries (see Weights).
	NumFeatures = int(unsafe.Sizeof(weightTable{}) / scoreSize)

	// NumParams is the length of the tuner's weight vector: NumFeatures
	// midgame weights followed by NumFeatures endgame weights.
	NumParams = 2 * NumFeatures
)

// Layout says how a group's weights are laid out and labelled.
type Layout uint8

// The layouts of groups.
const (
	// List is a plain list, labelled by position (0, 1, ...).
	List Layout = iota
	// Board is a 64-entry piece-square table from White's side, stored in
	// reading order: rank 8 first, file a first within a rank.
	Board
	// Ranks is indexed by the pawn's or piece's relative rank, 0 (own first
	// rank) to 7; entries that cannot occur stay 0.
	Ranks
	// Pieces is indexed by piece type from pawn (0), or from knight when
	// the group says so in its doc.
	Pieces
)

// String returns the layout's name as a weightTable tag writes it.
func (l Layout) String() string {
	if int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return fmt.Sprintf("Layout(%d)", l)
}

var layoutNames = [...]string{List: "list", Board: "board", Ranks: "ranks", Pieces: "pieces"}

// Group is a named range of features, one field of the weight table: a
// registry entry in the manner of CounterGo's feature list. The
// coefficient vector, the weight vector, the tuner's choice of what to
// tune and the generated weights file all follow this one list.
type Group struct {
	Name   string // unique, e.g. "psqt_knight"
	Field  string // the field that holds its weights in weights_gen.go, e.g. "PSQTKnight"
	Family string // the -params family it belongs to, e.g. "psqt"
	Doc    string // one line, written above the group in the generated file
	Offset int    // index of the first feature
	Size   int    // number of features
	Cols   int    // values per line in the generated file
	Layout Layout
	// Nonlinear marks the king-safety groups whose weights enter the
	// evaluation through the king-danger curve (see the package doc), not
	// as a plain dot product.
	Nonlinear bool
}

// Groups is the registry of every feature group, in index order: one entry
// per field of weightTable, read from its declaration.
var Groups = mustGroups()

// mustGroups returns the groups weightTable declares. A malformed
// declaration is a programming error that every test run meets at start-up,
// so it panics, as regexp.MustCompile does.
func mustGroups() []Group {
	gs, err := groupsOf(reflect.TypeFor[weightTable]())
	if err != nil {
		panic(err)
	}
	return gs
}

// groupsOf reads the groups that the fields of struct type t declare.
func groupsOf(t reflect.Type) ([]Group, error) {
	score := reflect.TypeFor[Score]()
	gs := make([]Group, 0, t.NumField())
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Array || f.Type.Elem() != score || f.Type.Len() == 0 {
			return nil, fmt.Errorf("eval: weight table field %s is a %s, want a non-empty array of Score", f.Name, f.Type)
		}
		g := Group{
			Name:   f.Tag.Get("group"),
			Field:  f.Name,
			Family: f.Tag.Get("family"),
			Doc:    f.Tag.Get("doc"),
			Offset: int(f.Offset / score.Size()),
			Size:   f.Type.Len(),
		}
		if g.Name == "" || g.Family == "" || names[g.Name] {
			return nil, fmt.Errorf("eval: weight table field %s: want a unique group tag and a family tag", f.Name)
		}
		names[g.Name] = true
		if l := f.Tag.Get("layout"); l != "" {
			i := slices.Index(layoutNames[:], l)
			if i < 0 {
				return nil, fmt.Errorf("eval: group %s: unknown layout %q (want one of %s)", g.Name, l, strings.Join(layoutNames[:], ", "))
			}
			g.Layout = Layout(i)
		}
		if (g.Layout == Board && g.Size != 64) || (g.Layout == Ranks && g.Size != 8) || (g.Layout == Pieces && g.Size > 6) {
			return nil, fmt.Errorf("eval: group %s: %d entries do not fit layout %s", g.Name, g.Size, g.Layout)
		}
		switch c := f.Tag.Get("curve"); c {
		case "":
		case "kingdanger":
			g.Nonlinear = true
		default:
			return nil, fmt.Errorf("eval: group %s: unknown curve %q (want kingdanger)", g.Name, c)
		}
		g.Cols = g.Size
		if g.Layout == Board || g.Layout == Ranks {
			g.Cols = 8
		}
		if c := f.Tag.Get("cols"); c != "" {
			n, err := strconv.Atoi(c)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("eval: group %s: cols %q is not a positive number", g.Name, c)
			}
			g.Cols = n
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// LayoutFingerprint returns a short hash of the weight layout: every
// group's name, size, layout and curve, in order. The generated weights
// file records the fingerprint of the layout it was written for (see
// Provenance), and a test checks that it is the current one.
func LayoutFingerprint() string { return layoutFingerprint }

var layoutFingerprint = fingerprint(Groups)

// fingerprint hashes the layout of groups gs.
func fingerprint(gs []Group) string {
	h := sha256.New()
	for _, g := range gs {
		fmt.Fprintf(h, "%s %d %s %t\n", g.Name, g.Size, g.Layout, g.Nonlinear)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// psqtIndex returns the feature index of piece type t standing on relative
// square s (s from the owner's side: White's own squares, Black's mirrored).
// Tables are stored in reading order, rank 8 first.
func psqtIndex(t board.PieceType, s board.Square) int {
	return fPSQT + int(t)*64 + int(s^56)
}

// GroupOf returns the group that holds feature f.
func GroupOf(f int) (Group, bool) {
	for _, g := range Groups {
		if f >= g.Offset && f < g.Offset+g.Size {
			return g, true
		}
	}
	return Group{}, false
}

// Label returns the label of the k-th entry of group g: a square name for
// boards ("e4"), "rank3" for rank tables, a piece name for piece tables, the
// index otherwise.
func (g Group) Label(k int) string {
	switch g.Layout {
	case Board:
		return board.MakeSquare(k%8, 7-k/8).String()
	case Ranks:
		return fmt.Sprintf("rank%d", k+1)
	case Pieces:
		return [...]string{"pawn", "knight", "bishop", "rook", "queen", "king"}[k]
	}
	return fmt.Sprint(k)
}

// ParamName names entry j of the tuner's weight vector, e.g.
// "psqt_knight[f3].mg" or "passed_rank[rank6].eg".
func ParamName(j int) string {
	if j < 0 || j >= NumParams {
		return fmt.Sprintf("param%d", j)
	}
	f, phase := j, "mg"
	if j >= NumFeatures {
		f, phase = j-NumFeatures, "eg"
	}
	g, _ := GroupOf(f)
	if g.Size == 1 {
		return g.Name + "." + phase
	}
	return fmt.Sprintf("%s[%s].%s", g.Name, g.Label(f-g.Offset), phase)
}

// Select parses a comma-separated list of group names and families (as in
// a tuner's -params flag: "psqt,kingsafety,passed_rank", or "all") and
// returns a mask over the NumParams weights, true where a weight may be tuned.
// A name may end in ".mg" or ".eg" to select only that half.
func Select(spec string) ([]bool, error) {
	mask := make([]bool, NumParams)
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, half := item, ""
		if i := strings.LastIndexByte(item, '.'); i >= 0 {
			name, half = item[:i], item[i+1:]
			if half != "mg" && half != "eg" {
				return nil, fmt.Errorf("eval: -params %q: unknown half %q (want mg or eg)", item, half)
			}
		}
		found := false
		for _, g := range Groups {
			if name != "all" && name != g.Name && name != g.Family {
				continue
			}
			found = true
			for f := g.Offset; f < g.Offset+g.Size; f++ {
				if half != "eg" {
					mask[f] = true
				}
				if half != "mg" {
					mask[NumFeatures+f] = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("eval: -params %q: no group or family of that name (families: %s)", item, strings.Join(Families(), ", "))
		}
	}
	return mask, nil
}

// Families returns the family names in registry order, each once.
func Families() []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range Groups {
		if !seen[g.Family] {
			seen[g.Family] = true
			out = append(out, g.Family)
		}
	}
	return out
}

// Weights returns a copy of the current weights as the tuner's vector:
// entry f is feature f's midgame weight, entry NumFeatures+f its endgame
// weight.
func Weights() []float64 {
	w := make([]float64, NumParams)
	for f, s := range weights.features() {
		w[f] = float64(s.MG)
		w[NumFeatures+f] = float64(s.EG)
	}
	return w
}

// features returns the weights of t in feature order, group by group.
func (t *weightTable) features() *[NumFeatures]Score {
	var out [NumFeatures]Score
	v := reflect.ValueOf(t).Elem()
	for i, g := range Groups {
		reflect.Copy(reflect.ValueOf(out[g.Offset:g.Offset+g.Size]), v.Field(i))
	}
	return &out
}

// Provenance says where a weight set came from; the generator writes it into
// the generated file's header and back into CurrentProvenance.
type Provenance struct {
	Source      string  // data the weights were fitted to, or "hand-set"
	Positions   int     // number of positions fitted
	K           float64 // sigmoid scale used by the tuner
	ErrorBefore float64 // mean squared error before tuning
	ErrorAfter  float64 // mean squared error after tuning
	// Layout is the LayoutFingerprint of the group layout the weights were
	// written for; the generator fills it in.
	Layout string
}

// CurrentProvenance returns the provenance of the compiled-in weights.
func CurrentProvenance() Provenance { return provenance }
