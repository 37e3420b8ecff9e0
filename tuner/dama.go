package tuner

import (
	"fmt"

	"chessforge/engine/dama"
	damaeval "chessforge/engine/dama/eval"
)

// DamaModel is the Italian draughts evaluation, package engine/dama/eval:
// tapered by the pieces on the board, linear in its weights (no king
// danger, no drawishness scale). Positions are PDN FENs; best moves are in
// standard notation; a position is quiet when the side to move has no
// capture, and it is resolved through the forced captures (see Resolve).
var DamaModel Model = damaModel{}

type damaModel struct{}

func (damaModel) Game() string { return GameDama }

func (damaModel) Shape() Shape {
	return Shape{
		Features: damaeval.NumFeatures, PhaseMax: damaeval.PhaseMax, ScaleNormal: 1,
		MaxEval: damaeval.MaxEval, KingDangerMG: 1, KingDangerEG: 1,
	}
}

func (damaModel) Weights() []float64                 { return damaeval.Default().Vector() }
func (damaModel) Select(spec string) ([]bool, error) { return damaeval.Select(spec) }
func (damaModel) ParamName(j int) string             { return damaeval.ParamName(j) }
func (damaModel) WeightsFile() string                { return "engine/dama/eval/weights_gen.go" }

func (damaModel) WriteWeights(path string, w []float64, p Provenance) error {
	return damaeval.WriteWeights(path, w, damaeval.Provenance{
		Source: p.Source, Positions: p.Positions, K: p.K, ErrorBefore: p.ErrorBefore, ErrorAfter: p.ErrorAfter,
	})
}

func (damaModel) NewTracer(string) Tracer { return &damaTracer{w: damaeval.Default()} }

// damaTracer reads PDN FENs and traces them with the draughts evaluation.
type damaTracer struct {
	w     damaeval.Weights
	tr    damaeval.Tracer
	fen   string
	pos   *dama.Position
	c     Coefs
	nodes int
	lists [resolveDepth + 1]dama.MoveList
	pv    [resolveDepth + 1][resolveDepth + 1]dama.Move
	pvLen [resolveDepth + 1]int
}

// Bounds of a resolution: the captures followed at most, and the nodes
// visited, after which the positions left are scored as they stand.
const (
	resolveDepth = 24
	resolveNodes = 100_000
	resolveWin   = 32000
)

func (t *damaTracer) Clear() {}

func (t *damaTracer) Parse(fen string) error {
	pos, err := dama.ParseFEN(fen)
	if err != nil {
		return err
	}
	t.fen, t.pos = fen, pos
	return nil
}

func (t *damaTracer) Ply() (int, error) {
	return 0, fmt.Errorf("the PDN FEN %q does not give it (filter a Parquet dataset, whose ply column does)", t.fen)
}

func (t *damaTracer) InCheck() bool { return false }

// NoisyMove reports whether move captures or crowns.
func (t *damaTracer) NoisyMove(move string) (bool, error) {
	m, err := t.pos.ParseMove(move)
	if err != nil {
		return false, err
	}
	return m.IsCapture() || m.Crowns(), nil
}

// Quiet reports whether the side to move has no capture: captures are
// compulsory, so a quiescence search stands pat exactly there.
func (t *damaTracer) Quiet() bool { return !t.pos.HasCapture() }

// Resolve plays the forced captures out: a search of the captures alone,
// as the draughts search's quiescence does it (while the side to move must
// capture every capture is searched and it may not stand pat; a quiet
// position scores its static evaluation; a side without a move has lost),
// and the current position becomes the quiet position at the end of its
// principal variation.
func (t *damaTracer) Resolve() bool {
	if !t.pos.HasCapture() {
		return false
	}
	t.nodes = 0
	t.captures(0, -resolveWin-1, resolveWin+1)
	for _, m := range t.pv[0][:t.pvLen[0]] {
		t.pos.MakeMove(m)
	}
	return t.pvLen[0] > 0
}

// captures is the capture search at ply, with its principal variation in
// t.pv[ply][:t.pvLen[ply]].
func (t *damaTracer) captures(ply, alpha, beta int) int {
	t.pvLen[ply] = 0
	t.nodes++
	p := t.pos
	l := &t.lists[ply]
	p.GenerateMoves(l)
	if l.Len() == 0 {
		return -resolveWin + ply
	}
	if !l.At(0).IsCapture() || ply == resolveDepth || t.nodes > resolveNodes {
		return t.w.Evaluate(p)
	}
	best := -resolveWin - 1
	for i := range l.Len() {
		m := l.At(i)
		p.MakeMove(m)
		v := -t.captures(ply+1, -beta, -alpha)
		p.UnmakeMove()
		if v > best {
			best = v
			if v > alpha {
				alpha = v
				t.pv[ply][0] = m
				copy(t.pv[ply][1:], t.pv[ply+1][:t.pvLen[ply+1]])
				t.pvLen[ply] = 1 + t.pvLen[ply+1]
				if v >= beta {
					break
				}
			}
		}
	}
	return best
}

func (t *damaTracer) Trace() *Coefs {
	c := t.tr.Trace(t.pos, t.w)
	t.c = Coefs{Linear: t.c.Linear[:0], Phase: c.Phase, Scale: [2]int{1, 1}}
	for _, e := range c.Linear {
		t.c.Linear = append(t.c.Linear, Coef(e))
	}
	return &t.c
}
