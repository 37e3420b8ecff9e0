package tuner

import (
	"fmt"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/eval"
	"chessforge/engine/eval/evalgen"
	"chessforge/engine/search"
)

// ChessModel is the chess evaluation, package engine/eval: tapered, with
// king danger through its curve and drawishness scales, positions read as
// FEN and resolved by the engine's quiescence search (search.Engine.QuietPV).
var ChessModel Model = chessModel{}

type chessModel struct{}

func (chessModel) Game() string { return GameChess }

func (chessModel) Shape() Shape {
	return Shape{
		Features: eval.NumFeatures, PhaseMax: eval.PhaseMax, ScaleNormal: eval.ScaleNormal,
		MaxEval: eval.MaxEval, KingDangerMG: eval.KingDangerMG, KingDangerEG: eval.KingDangerEG,
	}
}

func (chessModel) Weights() []float64                 { return eval.Weights() }
func (chessModel) Select(spec string) ([]bool, error) { return eval.Select(spec) }
func (chessModel) ParamName(j int) string             { return eval.ParamName(j) }
func (chessModel) WeightsFile() string                { return "engine/eval/weights_gen.go" }

func (chessModel) WriteWeights(path string, w []float64, p Provenance) error {
	return evalgen.WriteFile(path, w, eval.Provenance{
		Source: p.Source, Positions: p.Positions, K: p.K, ErrorBefore: p.ErrorBefore, ErrorAfter: p.ErrorAfter,
	})
}

func (chessModel) NewTracer(sel string) Tracer {
	t := &chessTracer{}
	if sel != AsIs {
		t.eng = search.New(search.Options{HashMB: 1, Threads: 1})
	}
	return t
}

// chessTracer reads FENs, selects with the engine's quiescence search and
// traces with eval.Tracer.
type chessTracer struct {
	eng *search.Engine // nil when positions are taken as they are
	tr  eval.Tracer
	fen string
	pos *board.Position
	c   Coefs
}

func (t *chessTracer) Clear() {
	if t.eng != nil {
		t.eng.Clear()
	}
}

func (t *chessTracer) Parse(fen string) error {
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return err
	}
	t.fen, t.pos = fen, pos
	return nil
}

func (t *chessTracer) Ply() (int, error) {
	if len(strings.Fields(t.fen)) < 6 {
		return 0, fmt.Errorf("the FEN %q has no move counters", t.fen)
	}
	return 2*(t.pos.FullmoveNumber()-1) + int(t.pos.SideToMove()), nil
}

func (t *chessTracer) InCheck() bool { return t.pos.InCheck() }

func (t *chessTracer) NoisyMove(move string) (bool, error) {
	m, err := t.pos.ParseUCIMove(move)
	if err != nil {
		return false, err
	}
	return t.pos.IsCapture(m) || m.IsPromotion(), nil
}

func (t *chessTracer) Quiet() bool {
	pv, _ := t.eng.QuietPV(t.pos)
	return len(pv) == 0
}

func (t *chessTracer) Resolve() bool {
	pv, _ := t.eng.QuietPV(t.pos)
	if len(pv) == 0 {
		return false
	}
	leaf := t.pos.Clone()
	for _, m := range pv {
		leaf.MakeMove(m)
	}
	t.pos = leaf
	return true
}

func (t *chessTracer) Trace() *Coefs {
	c := t.tr.Trace(t.pos)
	t.c = Coefs{Linear: t.c.Linear[:0], Safety: [2][]Coef{t.c.Safety[0][:0], t.c.Safety[1][:0]},
		Phase: c.Phase, Scale: c.Scale, Draw: c.Draw}
	t.c.Linear = appendCoefs(t.c.Linear, c.Linear)
	for s := range t.c.Safety {
		t.c.Safety[s] = appendCoefs(t.c.Safety[s], c.Safety[s])
	}
	return &t.c
}

func appendCoefs(dst []Coef, src []eval.Coef) []Coef {
	for _, e := range src {
		dst = append(dst, Coef(e))
	}
	return dst
}
