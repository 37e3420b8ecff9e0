package encoder

import (
	"fmt"
	"strings"
)

// The games a dataset can hold, as written in its chessforge.game metadata
// (a file without the key is chess: files were chess only before the key).
const (
	GameChess = "chess"
	GameDama  = "dama" // Italian draughts (Dama Italiana)
)

// Layout is one game's encoding of positions and moves for a network: its
// input planes (NumPlanes planes of 8×8 float32 values, flat in C order,
// value p*64 + r*8 + f) and its policy index (type*64 + from square), each
// with the version string a dataset's metadata records. The dataset
// writers and readers take a file's layout from its metadata, so that one
// set of tools reads either game. The layouts are Chess and Dama;
// docs/format.md describes them.
type Layout struct {
	Game        string // the game, a dataset's chessforge.game: GameChess or GameDama
	Planes      string // the planes' version, a dataset's chessforge.planes
	Policy      string // the policy index's version, a dataset's chessforge.policy
	NumPlanes   int    // input planes of 8×8 values
	PolicyTypes int    // policy move types: the index is type*64 + from, below PolicyTypes*64
	// PlaneNames names each plane, for reports.
	PlaneNames []string
	// Binary lists the planes that hold only 0 and 1, square by square;
	// Scalar the planes that hold one value on every square (whole-plane
	// features). Together they are every plane, each once.
	Binary, Scalar []int
	// RepetitionPlane is the plane that counts earlier occurrences of the
	// position (0, 0.5 once, 1 twice or more): the one plane that needs
	// the game's history.
	RepetitionPlane int
	// ClockPlane is the plane of the game's draw-rule counter (chess's
	// halfmove clock, draughts' plies without a capture), with the value
	// ClockValue gives on every square.
	ClockPlane int
	// ClockDivisor divides the counter in ClockValue.
	ClockDivisor int
}

// InputSize returns the number of float32 values of one position's planes.
func (l *Layout) InputSize() int { return l.NumPlanes * PlaneSize }

// PolicySize returns the number of policy indices.
func (l *Layout) PolicySize() int { return l.PolicyTypes * PlaneSize }

// Shape returns the planes' shape as written in the versions: "18x8x8".
func (l *Layout) Shape() string { return fmt.Sprintf("%dx8x8", l.NumPlanes) }

// ClockValue returns the clock plane's value for a counter n:
// min(float32(n)/ClockDivisor, 1), a float32 division (a multiplication by
// the reciprocal rounds differently for some n).
func (l *Layout) ClockValue(n int) float32 {
	v := float32(n) / float32(l.ClockDivisor)
	if v > 1 {
		return 1
	}
	return v
}

// String returns the game and its versions: "dama (planes dama-7x8x8-v1,
// policy dama-200x8x8-v1)".
func (l *Layout) String() string {
	return fmt.Sprintf("%s (planes %s, policy %s)", l.Game, l.Planes, l.Policy)
}

// Chess is the chess layout of SPEC §1 and §2: 18×8×8 planes and the
// 73×8×8 policy index (planes.go, policy.go).
var Chess = &Layout{
	Game: GameChess, Planes: PlanesVersion, Policy: PolicyVersion,
	NumPlanes: NumPlanes, PolicyTypes: PolicySize / PlaneSize,
	PlaneNames: []string{
		"white pawns", "white knights", "white bishops", "white rooks", "white queens", "white king",
		"black pawns", "black knights", "black bishops", "black rooks", "black queens", "black king",
		"repetitions", "side to move", "white castling", "black castling", "en passant", "halfmove clock",
	},
	Binary:          []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, PlaneEnPassant},
	Scalar:          []int{PlaneRepetition, PlaneSideToMove, PlaneWhiteCastling, PlaneBlackCastling, PlaneHalfmove},
	RepetitionPlane: PlaneRepetition,
	ClockPlane:      PlaneHalfmove,
	ClockDivisor:    100,
}

// Layouts returns every layout, chess first.
func Layouts() []*Layout { return []*Layout{Chess, Dama} }

// Games returns the names of the games, in the order of Layouts.
func Games() []string {
	var g []string
	for _, l := range Layouts() {
		g = append(g, l.Game)
	}
	return g
}

// LayoutOf returns the layout of a game; "" is chess.
func LayoutOf(game string) (*Layout, error) {
	if game == "" {
		return Chess, nil
	}
	for _, l := range Layouts() {
		if l.Game == game {
			return l, nil
		}
	}
	return nil, fmt.Errorf("encoder: unknown game %q (known: %s)", game, strings.Join(Games(), ", "))
}
