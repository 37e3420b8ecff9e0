package eval

import (
	"fmt"
	"strings"

	"chessforge/engine/board"
)

// Score is a pair of weights, one for the middlegame and one for the endgame,
// in centipawns.
type Score struct {
	MG, EG int32
}

// Feature offsets: every evaluation term is a feature with a (midgame,
// endgame) weight pair, and its index in the weight vector is fixed here.
// Groups below names every range; the two lists must tile [0, NumFeatures)
// in order (a test checks it).
const (
	fMaterial = 0 // pawn, knight, bishop, rook, queen

	fPSQT = fMaterial + 5 // six boards of 64, pawn..king, in board layout (see psqtIndex)

	fPawnIsolated      = fPSQT + 6*64
	fPawnDoubled       = fPawnIsolated + 1
	fPawnBackward      = fPawnDoubled + 1
	fPawnConnected     = fPawnBackward + 1 // by relative rank
	fPassedRank        = fPawnConnected + 8
	fPassedFree        = fPassedRank + 8
	fPassedKingOwn     = fPassedFree + 8
	fPassedKingEnemy   = fPassedKingOwn + 8
	fPassedUnstoppable = fPassedKingEnemy + 8

	fMobKnight = fPassedUnstoppable + 1
	fMobBishop = fMobKnight + 9
	fMobRook   = fMobBishop + 14
	fMobQueen  = fMobRook + 15

	fBishopPair     = fMobQueen + 28
	fBishopPawns    = fBishopPair + 1
	fKnightOutpost  = fBishopPawns + 1
	fBishopOutpost  = fKnightOutpost + 1
	fRookOpen       = fBishopOutpost + 1
	fRookSemiOpen   = fRookOpen + 1
	fRookSeventh    = fRookSemiOpen + 1
	fThreatPawn     = fRookSeventh + 1
	fThreatPawnPush = fThreatPawn + 1
	fThreatMinor    = fThreatPawnPush + 1 // by victim, pawn..queen
	fThreatRook     = fThreatMinor + 5    // by victim, pawn..queen
	fHanging        = fThreatRook + 5

	fKingShelter  = fHanging + 1      // [file class 0..3][own pawn's relative rank, 0 = none]
	fKingStorm    = fKingShelter + 32 // [file class 0..3][enemy pawn's relative rank, 0 = none]
	fKingOpenFile = fKingStorm + 32

	fKSAttackers   = fKingOpenFile + 1 // by attacker type: knight, bishop, rook, queen
	fKSZoneAttacks = fKSAttackers + 4
	fKSWeakSquares = fKSZoneAttacks + 1
	fKSSafeChecks  = fKSWeakSquares + 1 // by checker type: knight, bishop, rook, queen
	fKSNoQueen     = fKSSafeChecks + 4
	fKSBase        = fKSNoQueen + 1

	fMateEdge     = fKSBase + 1
	fMateKings    = fMateEdge + 1
	fMateBNCorner = fMateKings + 1

	fTempo = fMateBNCorner + 1

	// NumFeatures is the number of features; the weight vector a tuner
	// sees has 2*NumFeatures entries (see Weights).
	NumFeatures = fTempo + 1

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

// Group is a named range of features: a registry entry in the manner of
// CounterGo's feature list. The coefficient vector, the weight vector, the
// tuner's choice of what to tune and the generated weights file all follow
// this one list.
type Group struct {
	Name   string // unique, e.g. "psqt_knight"
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

// Groups is the registry of every feature group, in index order.
var Groups = []Group{
	{Name: "material", Family: "material", Doc: "piece values: pawn, knight, bishop, rook, queen", Offset: fMaterial, Size: 5, Cols: 5, Layout: Pieces},

	{Name: "psqt_pawn", Family: "psqt", Doc: "pawn piece-square table", Offset: fPSQT + 0*64, Size: 64, Cols: 8, Layout: Board},
	{Name: "psqt_knight", Family: "psqt", Doc: "knight piece-square table", Offset: fPSQT + 1*64, Size: 64, Cols: 8, Layout: Board},
	{Name: "psqt_bishop", Family: "psqt", Doc: "bishop piece-square table", Offset: fPSQT + 2*64, Size: 64, Cols: 8, Layout: Board},
	{Name: "psqt_rook", Family: "psqt", Doc: "rook piece-square table", Offset: fPSQT + 3*64, Size: 64, Cols: 8, Layout: Board},
	{Name: "psqt_queen", Family: "psqt", Doc: "queen piece-square table", Offset: fPSQT + 4*64, Size: 64, Cols: 8, Layout: Board},
	{Name: "psqt_king", Family: "psqt", Doc: "king piece-square table", Offset: fPSQT + 5*64, Size: 64, Cols: 8, Layout: Board},

	{Name: "pawn_isolated", Family: "pawns", Doc: "per pawn with no own pawn on an adjacent file", Offset: fPawnIsolated, Size: 1, Cols: 1},
	{Name: "pawn_doubled", Family: "pawns", Doc: "per pawn with an own pawn ahead on its file", Offset: fPawnDoubled, Size: 1, Cols: 1},
	{Name: "pawn_backward", Family: "pawns", Doc: "per pawn behind its neighbours whose stop square an enemy pawn guards", Offset: fPawnBackward, Size: 1, Cols: 1},
	{Name: "pawn_connected", Family: "pawns", Doc: "per pawn defended by a pawn or beside one, by relative rank", Offset: fPawnConnected, Size: 8, Cols: 8, Layout: Ranks},
	{Name: "passed_rank", Family: "pawns", Doc: "per passed pawn, by relative rank", Offset: fPassedRank, Size: 8, Cols: 8, Layout: Ranks},
	{Name: "passed_free", Family: "pawns", Doc: "per passed pawn whose path is empty and not attacked, by relative rank", Offset: fPassedFree, Size: 8, Cols: 8, Layout: Ranks},
	{Name: "passed_king_own", Family: "pawns", Doc: "per passed pawn, times the own king's distance to its stop square, by relative rank", Offset: fPassedKingOwn, Size: 8, Cols: 8, Layout: Ranks},
	{Name: "passed_king_enemy", Family: "pawns", Doc: "per passed pawn, times the enemy king's distance to its stop square, by relative rank", Offset: fPassedKingEnemy, Size: 8, Cols: 8, Layout: Ranks},
	{Name: "passed_unstoppable", Family: "pawns", Doc: "per passed pawn the lone enemy king cannot catch (rule of the square, pawn endings)", Offset: fPassedUnstoppable, Size: 1, Cols: 1},

	{Name: "mob_knight", Family: "mobility", Doc: "knight by number of safe squares reached, 0..8", Offset: fMobKnight, Size: 9, Cols: 9},
	{Name: "mob_bishop", Family: "mobility", Doc: "bishop by number of safe squares reached, 0..13", Offset: fMobBishop, Size: 14, Cols: 7},
	{Name: "mob_rook", Family: "mobility", Doc: "rook by number of safe squares reached, 0..14", Offset: fMobRook, Size: 15, Cols: 8},
	{Name: "mob_queen", Family: "mobility", Doc: "queen by number of safe squares reached, 0..27", Offset: fMobQueen, Size: 28, Cols: 7},

	{Name: "bishop_pair", Family: "pieces", Doc: "two bishops or more", Offset: fBishopPair, Size: 1, Cols: 1},
	{Name: "bishop_pawns", Family: "pieces", Doc: "per bishop, times the own pawns on its square colour", Offset: fBishopPawns, Size: 1, Cols: 1},
	{Name: "knight_outpost", Family: "pieces", Doc: "knight on ranks 4-6, defended by a pawn, out of reach of enemy pawns", Offset: fKnightOutpost, Size: 1, Cols: 1},
	{Name: "bishop_outpost", Family: "pieces", Doc: "bishop on ranks 4-6, defended by a pawn, out of reach of enemy pawns", Offset: fBishopOutpost, Size: 1, Cols: 1},
	{Name: "rook_open", Family: "pieces", Doc: "rook on a file without pawns", Offset: fRookOpen, Size: 1, Cols: 1},
	{Name: "rook_semiopen", Family: "pieces", Doc: "rook on a file with enemy pawns only", Offset: fRookSemiOpen, Size: 1, Cols: 1},
	{Name: "rook_seventh", Family: "pieces", Doc: "rook on the seventh with the enemy king on the eighth or enemy pawns on the seventh", Offset: fRookSeventh, Size: 1, Cols: 1},

	{Name: "threat_pawn", Family: "threats", Doc: "per enemy piece (not pawn or king) attacked by a pawn", Offset: fThreatPawn, Size: 1, Cols: 1},
	{Name: "threat_pawn_push", Family: "threats", Doc: "per enemy piece a safe pawn push would attack", Offset: fThreatPawnPush, Size: 1, Cols: 1},
	{Name: "threat_minor", Family: "threats", Doc: "per enemy piece attacked by a minor, by victim pawn..queen (minors and pawns only when not pawn-defended)", Offset: fThreatMinor, Size: 5, Cols: 5, Layout: Pieces},
	{Name: "threat_rook", Family: "threats", Doc: "per enemy piece attacked by a rook, by victim pawn..queen (all but the queen only when not pawn-defended)", Offset: fThreatRook, Size: 5, Cols: 5, Layout: Pieces},
	{Name: "hanging", Family: "threats", Doc: "per enemy piece (not king) attacked and not defended", Offset: fHanging, Size: 1, Cols: 1},

	{Name: "king_shelter", Family: "kingsafety", Doc: "per file by the king: [file class a/h=0 .. d/e=3][relative rank of the nearest own pawn in front, 0 = none]", Offset: fKingShelter, Size: 32, Cols: 8},
	{Name: "king_storm", Family: "kingsafety", Doc: "per file by the king: [file class a/h=0 .. d/e=3][relative rank of the nearest enemy pawn in front, 0 = none]", Offset: fKingStorm, Size: 32, Cols: 8},
	{Name: "king_open_file", Family: "kingsafety", Doc: "per file by the king without pawns of either colour", Offset: fKingOpenFile, Size: 1, Cols: 1},

	{Name: "ks_attackers", Family: "kingsafety", Doc: "king danger: per enemy piece attacking the king zone, by type knight, bishop, rook, queen", Offset: fKSAttackers, Size: 4, Cols: 4, Nonlinear: true},
	{Name: "ks_zone_attacks", Family: "kingsafety", Doc: "king danger: per attack on a king-zone square", Offset: fKSZoneAttacks, Size: 1, Cols: 1, Nonlinear: true},
	{Name: "ks_weak_squares", Family: "kingsafety", Doc: "king danger: per attacked king-zone square defended at most by king or queen", Offset: fKSWeakSquares, Size: 1, Cols: 1, Nonlinear: true},
	{Name: "ks_safe_checks", Family: "kingsafety", Doc: "king danger: per safe checking square, by checker knight, bishop, rook, queen", Offset: fKSSafeChecks, Size: 4, Cols: 4, Nonlinear: true},
	{Name: "ks_no_queen", Family: "kingsafety", Doc: "king danger: the attacker has no queen", Offset: fKSNoQueen, Size: 1, Cols: 1, Nonlinear: true},
	{Name: "ks_base", Family: "kingsafety", Doc: "king danger: constant, once the attack is on", Offset: fKSBase, Size: 1, Cols: 1, Nonlinear: true},

	{Name: "mate_edge", Family: "endgame", Doc: "lone king's distance from the centre (0..6), for the side that can mate it", Offset: fMateEdge, Size: 1, Cols: 1},
	{Name: "mate_kings", Family: "endgame", Doc: "7 minus the distance between the kings (0..6), for the side that can mate a lone king", Offset: fMateKings, Size: 1, Cols: 1},
	{Name: "mate_bn_corner", Family: "endgame", Doc: "KBNK: 7 minus the lone king's distance to a corner of the bishop's colour", Offset: fMateBNCorner, Size: 1, Cols: 1},

	{Name: "tempo", Family: "misc", Doc: "side to move", Offset: fTempo, Size: 1, Cols: 1},
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
	for f, s := range weights {
		w[f] = float64(s.MG)
		w[NumFeatures+f] = float64(s.EG)
	}
	return w
}

// Provenance says where a weight set came from; the generator writes it into
// the generated file's header and back into CurrentProvenance.
type Provenance struct {
	Source      string  // data the weights were fitted to, or "hand-set"
	Positions   int     // number of positions fitted
	K           float64 // sigmoid scale used by the tuner
	ErrorBefore float64 // mean squared error before tuning
	ErrorAfter  float64 // mean squared error after tuning
}

// CurrentProvenance returns the provenance of the compiled-in weights.
func CurrentProvenance() Provenance { return provenance }
