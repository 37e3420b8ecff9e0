package search

import (
	"fmt"
	"math"
	"reflect"

	"chessforge/engine/board"
)

// Params are the numbers that decide how the search shapes its tree: its
// aspiration windows, what it prunes, reduces and extends, and how it
// rewards moves. They are declared once, with a range a tuner may try, in
// paramTable; the search reads them from params. Depths are in plies,
// margins and values in centipawns. (Time management's numbers are in
// time.go.)
type Params struct {
	// Aspiration windows: from AspirationMinDepth on, an iteration starts
	// with a window of ±AspirationDelta around the line's previous score;
	// after each failure the step grows by AspirationGrowth percent, and
	// past AspirationMaxDelta the window opens fully.
	AspirationMinDepth int
	AspirationDelta    int
	AspirationGrowth   int
	AspirationMaxDelta int

	// Reverse futility pruning: up to RFPMaxDepth, a node whose evaluation
	// beats beta by RFPMargin per ply of depth (one ply less when
	// improving) fails high without a search.
	RFPMaxDepth int
	RFPMargin   int

	// Razoring: up to RazorMaxDepth, a node whose evaluation is RazorMargin
	// per ply of depth below alpha is checked by quiescence alone.
	RazorMaxDepth int
	RazorMargin   int

	// Null move: from NullMinDepth on, with the evaluation at or above
	// beta, the side to move passes and the search goes on reduced by
	// NullBaseReduction, plus a ply per NullDepthDivisor plies of depth,
	// plus a ply per NullEvalDivisor of evaluation above beta (at most
	// NullEvalMaxReduction). From NullVerifyDepth on, a cutoff is verified
	// by a search of the node itself at the reduced depth (zugzwang).
	NullMinDepth         int
	NullBaseReduction    int
	NullDepthDivisor     int
	NullEvalDivisor      int
	NullEvalMaxReduction int
	NullVerifyDepth      int

	// ProbCut: from ProbCutMinDepth on, outside PV nodes, a capture that
	// wins at least the distance from the evaluation to beta+ProbCutMargin
	// in exchanges is searched ProbCutReduction plies shallower against
	// that raised beta; if it beats it, so does the node.
	ProbCutMinDepth  int
	ProbCutMargin    int
	ProbCutReduction int

	// Internal iterative reduction: from IIRMinDepth on, a PV or cut node
	// without a TT move is searched a ply shallower.
	IIRMinDepth int

	// Late-move pruning: up to LMPMaxDepth, quiet moves after the first
	// (LMPBase + depth²) moves (half as many when not improving) are
	// pruned.
	LMPMaxDepth int
	LMPBase     int

	// Futility pruning: outside check, a quiet move is pruned when the
	// evaluation plus FutilityBase plus FutilityMargin per ply of its
	// reduced depth (see reducedDepth), at most FutilityMaxDepth, does not
	// reach alpha.
	FutilityMaxDepth int
	FutilityBase     int
	FutilityMargin   int

	// Static exchange pruning: up to SEEPruneMaxDepth, a quiet move that
	// loses more than SEEQuietMargin·d² in exchanges (d its reduced depth),
	// or a capture that loses more than SEENoisyMargin·depth, is pruned.
	SEEPruneMaxDepth int
	SEEQuietMargin   int
	SEENoisyMargin   int

	// Capture futility: up to CaptureFutilityMaxDepth, a capture that
	// neither checks nor promotes is pruned when the static evaluation
	// plus CaptureFutilityBase, CaptureFutilityMargin per ply of depth, the
	// piece it takes and its capture history over
	// CaptureFutilityHistDivisor stays at or below alpha.
	CaptureFutilityMaxDepth    int
	CaptureFutilityBase        int
	CaptureFutilityMargin      int
	CaptureFutilityHistDivisor int

	// Singular extension: from SingularMinDepth on, a TT move whose lower
	// bound is at most SingularTTDepthMargin plies shallower than the node
	// is extended when every other move fails below the TT score less
	// SingularMargin per ply of depth, in a search of (depth−1) /
	// SingularDepthDivisor plies. Outside PV nodes it is extended by two
	// plies when they fail SingularDoubleMargin lower still, at most
	// SingularDoubleMax times on a line. When they do not fail low but the
	// TT score beats beta, the move is searched a ply shallower.
	SingularMinDepth      int
	SingularTTDepthMargin int
	SingularMargin        int
	SingularDepthDivisor  int
	SingularDoubleMargin  int
	SingularDoubleMax     int

	// Late-move reductions: from LMRMinDepth on, late quiet moves and
	// losing captures are reduced by LMRBase/100 + ln(depth)·ln(move
	// number) / (LMRDivisor/100) plies (the table lmrTable), adjusted by
	// the node's kind, less a ply per LMRHistoryDivisor of history score;
	// captures get LMRNoisyPercent percent of it. A reduced move that
	// beats alpha is searched again at full depth, a ply deeper when it
	// beat the best score so far by more than LMRDeeperMargin plus 2 per
	// ply, a ply shallower when by less than LMRShallowerMargin.
	LMRMinDepth        int
	LMRBase            int
	LMRDivisor         int
	LMRHistoryDivisor  int
	LMRNoisyPercent    int
	LMRDeeperMargin    int
	LMRShallowerMargin int

	// History: a quiet move that causes a cutoff at depth d earns
	// HistoryBonusQuadratic·d² + HistoryBonusLinear·d, at most
	// HistoryBonusMax (which must not exceed historyLimit); the quiet
	// moves tried before it lose as much.
	HistoryBonusQuadratic int
	HistoryBonusLinear    int
	HistoryBonusMax       int

	// Capture history: a capture (or promotion) that causes a cutoff earns
	// the history bonus above in its capture history, and the captures
	// tried before it lose as much; captures are ordered by MVV-LVA plus
	// their capture history divided by CaptureHistoryDivisor.
	CaptureHistoryDivisor int

	// Quiet move ordering beside the histories: a quiet move of a queen,
	// rook or minor piece that leaves a square a cheaper enemy piece
	// attacks for one it does not gains ThreatEscapeQueen, ThreatEscapeRook
	// or ThreatEscapeMinor; one that walks into such an attack loses as
	// much (see threats).
	ThreatEscapeQueen int
	ThreatEscapeRook  int
	ThreatEscapeMinor int

	// Quiescence: a capture that leaves the stand-pat score plus the
	// material it wins plus QuiescenceDeltaMargin at or below alpha is
	// pruned (delta pruning).
	QuiescenceDeltaMargin int

	// Piece values of the static exchange evaluation and of MVV-LVA
	// capture ordering (the king's is fixed: more than all the others).
	SEEPawn   int
	SEEKnight int
	SEEBishop int
	SEERook   int
	SEEQueen  int
}

// paramSpec declares one search parameter: its name (its Params field's),
// its field in defaultParams, its value, and the range [lo, hi] a tuner
// may try.
type paramSpec struct {
	name   string
	field  *int
	value  int
	lo, hi int
}

// paramTable declares every search parameter once (TestParamTable checks
// that it covers Params field by field).
var paramTable = [...]paramSpec{
	{"AspirationMinDepth", &defaultParams.AspirationMinDepth, 5, 1, 10},
	{"AspirationDelta", &defaultParams.AspirationDelta, 18, 5, 60},
	{"AspirationGrowth", &defaultParams.AspirationGrowth, 50, 10, 200},
	{"AspirationMaxDelta", &defaultParams.AspirationMaxDelta, 1000, 200, 5000},

	{"RFPMaxDepth", &defaultParams.RFPMaxDepth, 8, 0, 16},
	{"RFPMargin", &defaultParams.RFPMargin, 80, 20, 200},

	{"RazorMaxDepth", &defaultParams.RazorMaxDepth, 3, 0, 6},
	{"RazorMargin", &defaultParams.RazorMargin, 250, 50, 600},

	{"NullMinDepth", &defaultParams.NullMinDepth, 3, 1, 6},
	{"NullBaseReduction", &defaultParams.NullBaseReduction, 3, 1, 6},
	{"NullDepthDivisor", &defaultParams.NullDepthDivisor, 3, 1, 8},
	{"NullEvalDivisor", &defaultParams.NullEvalDivisor, 200, 50, 500},
	{"NullEvalMaxReduction", &defaultParams.NullEvalMaxReduction, 3, 0, 6},
	{"NullVerifyDepth", &defaultParams.NullVerifyDepth, 12, 6, 40},

	{"ProbCutMinDepth", &defaultParams.ProbCutMinDepth, 5, 3, 12},
	{"ProbCutMargin", &defaultParams.ProbCutMargin, 200, 50, 500},
	{"ProbCutReduction", &defaultParams.ProbCutReduction, 4, 2, 6},

	{"IIRMinDepth", &defaultParams.IIRMinDepth, 4, 2, 10},

	{"LMPMaxDepth", &defaultParams.LMPMaxDepth, 8, 0, 16},
	{"LMPBase", &defaultParams.LMPBase, 3, 0, 10},

	{"FutilityMaxDepth", &defaultParams.FutilityMaxDepth, 8, 0, 16},
	{"FutilityBase", &defaultParams.FutilityBase, 100, 0, 300},
	{"FutilityMargin", &defaultParams.FutilityMargin, 90, 20, 200},

	{"SEEPruneMaxDepth", &defaultParams.SEEPruneMaxDepth, 8, 0, 16},
	{"SEEQuietMargin", &defaultParams.SEEQuietMargin, 25, 5, 100},
	{"SEENoisyMargin", &defaultParams.SEENoisyMargin, 90, 20, 200},

	{"CaptureFutilityMaxDepth", &defaultParams.CaptureFutilityMaxDepth, 6, 0, 16},
	{"CaptureFutilityBase", &defaultParams.CaptureFutilityBase, 120, 0, 500},
	{"CaptureFutilityMargin", &defaultParams.CaptureFutilityMargin, 120, 20, 400},
	{"CaptureFutilityHistDivisor", &defaultParams.CaptureFutilityHistDivisor, 16, 1, 128},

	{"SingularMinDepth", &defaultParams.SingularMinDepth, 7, 1, 16},
	{"SingularTTDepthMargin", &defaultParams.SingularTTDepthMargin, 3, 0, 8},
	{"SingularMargin", &defaultParams.SingularMargin, 2, 0, 8},
	{"SingularDepthDivisor", &defaultParams.SingularDepthDivisor, 2, 1, 4},
	{"SingularDoubleMargin", &defaultParams.SingularDoubleMargin, 20, 0, 100},
	{"SingularDoubleMax", &defaultParams.SingularDoubleMax, 6, 0, 16},

	{"LMRMinDepth", &defaultParams.LMRMinDepth, 3, 1, 6},
	{"LMRBase", &defaultParams.LMRBase, 80, 0, 200},
	{"LMRDivisor", &defaultParams.LMRDivisor, 230, 100, 500},
	{"LMRHistoryDivisor", &defaultParams.LMRHistoryDivisor, 8000, 1000, 32000},
	{"LMRNoisyPercent", &defaultParams.LMRNoisyPercent, 50, 0, 100},
	{"LMRDeeperMargin", &defaultParams.LMRDeeperMargin, 40, 0, 200},
	{"LMRShallowerMargin", &defaultParams.LMRShallowerMargin, 10, 0, 100},

	{"HistoryBonusQuadratic", &defaultParams.HistoryBonusQuadratic, 16, 0, 64},
	{"HistoryBonusLinear", &defaultParams.HistoryBonusLinear, 32, 0, 128},
	{"HistoryBonusMax", &defaultParams.HistoryBonusMax, 1200, 100, 4000},

	{"CaptureHistoryDivisor", &defaultParams.CaptureHistoryDivisor, 8, 2, 64},

	{"ThreatEscapeQueen", &defaultParams.ThreatEscapeQueen, 16000, 0, 40000},
	{"ThreatEscapeRook", &defaultParams.ThreatEscapeRook, 10000, 0, 40000},
	{"ThreatEscapeMinor", &defaultParams.ThreatEscapeMinor, 8000, 0, 40000},

	{"QuiescenceDeltaMargin", &defaultParams.QuiescenceDeltaMargin, 200, 0, 600},

	{"SEEPawn", &defaultParams.SEEPawn, 100, 50, 150},
	{"SEEKnight", &defaultParams.SEEKnight, 320, 200, 450},
	{"SEEBishop", &defaultParams.SEEBishop, 330, 200, 450},
	{"SEERook", &defaultParams.SEERook, 500, 350, 700},
	{"SEEQueen", &defaultParams.SEEQueen, 950, 700, 1300},
}

// defaultParams holds the values of paramTable.
var defaultParams Params

// params are the parameters the search runs with; lmrTable and seeValue
// are derived from them by setParams.
var params Params

func init() {
	for _, s := range paramTable {
		*s.field = s.value
	}
	setParams(defaultParams)
}

// setParams makes p the search's parameters and derives the tables that
// follow from them. No search may be running.
func setParams(p Params) {
	params = p
	base, div := float64(p.LMRBase)/100, float64(p.LMRDivisor)/100
	for d := 1; d < len(lmrTable); d++ {
		for m := 1; m < len(lmrTable[d]); m++ {
			lmrTable[d][m] = int8(base + math.Log(float64(d))*math.Log(float64(m))/div)
		}
	}
	seeValue = [7]int{
		board.Pawn:        p.SEEPawn,
		board.Knight:      p.SEEKnight,
		board.Bishop:      p.SEEBishop,
		board.Rook:        p.SEERook,
		board.Queen:       p.SEEQueen,
		board.King:        20000,
		board.NoPieceType: 0,
	}
}

// Param describes one search parameter for a tuner: its name (its Params
// field's), its default value and the range [Min, Max] a tuner may try.
type Param struct {
	Name              string
	Default, Min, Max int
}

// ParamList returns every search parameter, in the order Params declares
// them.
func ParamList() []Param {
	list := make([]Param, len(paramTable))
	for i, s := range paramTable {
		list[i] = Param{Name: s.name, Default: s.value, Min: s.lo, Max: s.hi}
	}
	return list
}

// SetParam gives the named search parameter a value for every search the
// process runs from then on; an unknown name or a value outside the
// parameter's range is an error naming it, and changes nothing. It exists
// for tuners (bin/engine -param NAME=VALUE, bin/spsa): the engine calls it
// from its command line before it searches, and no search may be running.
func SetParam(name string, value int) error {
	for _, s := range paramTable {
		if s.name != name {
			continue
		}
		if value < s.lo || value > s.hi {
			return fmt.Errorf("search parameter %s=%d: outside its range [%d, %d]", name, value, s.lo, s.hi)
		}
		p := params
		// A row's name is its Params field's (TestParamTable).
		reflect.ValueOf(&p).Elem().FieldByName(name).SetInt(int64(value))
		setParams(p)
		return nil
	}
	return fmt.Errorf("no search parameter %q (bin/engine -params lists them)", name)
}
