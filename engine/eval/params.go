package eval

import (
	"unsafe"

	"chessforge/engine/board"
	"chessforge/engine/internal/evalweights"
)

// Score is a pair of weights, one for the middlegame and one for the endgame,
// in centipawns.
type Score struct {
	MG, EG int32
}

// weightTable declares every feature group once, as one field: the
// field's array length is the group's size, its place in the struct the
// group's offset in the weight vector, and its tags (group, family,
// layout, cols, curve, doc; engine/internal/evalweights says what each
// means) the rest. Its layouts are list (the default), board, ranks and
// pieces (see Layout); its one curve is kingdanger, the king-danger curve
// (see Group.Nonlinear).
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
type Layout = evalweights.Layout

// The layouts of groups.
const (
	// List is a plain list, labelled by position (0, 1, ...).
	List = evalweights.List
	// Board is a 64-entry piece-square table from White's side, stored in
	// reading order: rank 8 first, file a first within a rank; labelled by
	// square.
	Board Layout = "board"
	// Ranks is indexed by the pawn's or piece's relative rank, 0 (own first
	// rank) to 7; entries that cannot occur stay 0.
	Ranks Layout = "ranks"
	// Pieces is indexed by piece type from pawn (0), or from knight when
	// the group says so in its doc.
	Pieces Layout = "pieces"
)

// schema is what the chess weight table declares beyond the shared
// machinery: its layouts with their labels, and the king-danger curve.
var schema = evalweights.Schema{
	Pkg:  "eval",
	Unit: "centipawn",
	Layouts: []evalweights.LayoutSpec{
		{Name: Board, Labels: boardLabels(), Cols: 8},
		{Name: Ranks, Labels: []string{"rank1", "rank2", "rank3", "rank4", "rank5", "rank6", "rank7", "rank8"}, Cols: 8},
		{Name: Pieces, Labels: []string{"pawn", "knight", "bishop", "rook", "queen", "king"}, Prefix: true},
	},
	Curve: "kingdanger",
}

// boardLabels returns the square names of a board in reading order.
func boardLabels() []string {
	out := make([]string, 64)
	for k := range out {
		out[k] = board.MakeSquare(k%8, 7-k/8).String()
	}
	return out
}

// Group is a named range of features, one field of the weight table: a
// registry entry in the manner of CounterGo's feature list. Its Label(k)
// names an entry: a square for boards ("e4"), "rank3" for rank tables, a
// piece for piece tables, the index otherwise.
type Group = evalweights.Group

// table is the registry weightTable declares.
var table = evalweights.MustRead[weightTable, Score](schema)

// Registry returns the registry of feature groups that weightTable
// declares, for the weights file's generator (package evalgen).
func Registry() *evalweights.Table[weightTable, Score] { return table }

// Groups is the registry of every feature group, in index order: one entry
// per field of weightTable, read from its declaration.
var Groups = table.Groups

// LayoutFingerprint returns a short hash of the weight layout: every
// group's name, size, layout and curve, in order. The generated weights
// file records the fingerprint of the layout it was written for (see
// Provenance), and a test checks that it is the current one.
func LayoutFingerprint() string { return table.Fingerprint() }

// psqtIndex returns the feature index of piece type t standing on relative
// square s (s from the owner's side: White's own squares, Black's mirrored).
// Tables are stored in reading order, rank 8 first.
func psqtIndex(t board.PieceType, s board.Square) int {
	return fPSQT + int(t)*64 + int(s^56)
}

// GroupOf returns the group that holds feature f.
func GroupOf(f int) (Group, bool) { return table.GroupOf(f) }

// ParamName names entry j of the tuner's weight vector, e.g.
// "psqt_knight[f3].mg" or "passed_rank[rank6].eg".
func ParamName(j int) string { return table.ParamName(j) }

// Select parses a comma-separated list of group names and families (as in
// a tuner's -params flag: "psqt,kingsafety,passed_rank", or "all") and
// returns a mask over the NumParams weights, true where a weight may be tuned.
// A name may end in ".mg" or ".eg" to select only that half.
func Select(spec string) ([]bool, error) { return table.Select(spec) }

// Families returns the family names in registry order, each once.
func Families() []string { return table.Families() }

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
	return (*[NumFeatures]Score)(table.Features(t))
}

// Provenance says where a weight set came from; the generator writes it into
// the generated file's header and back into CurrentProvenance.
type Provenance = evalweights.Provenance

// CurrentProvenance returns the provenance of the compiled-in weights.
func CurrentProvenance() Provenance { return provenance }
