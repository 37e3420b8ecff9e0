package tuner

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/dama"
	damaeval "chessforge/engine/dama/eval"
	"chessforge/engine/dama/search"
)

// damaTestData holds 6,749 positions of 50 games of the draughts search
// against itself (tuner/internal/damagames), results from White's side.
const damaTestData = "testdata/dama-games.txt"

var (
	damaOnce   sync.Once
	damaCorpus *Set
	damaErr    error
)

// damaTestSet returns the draughts test positions traced as they are, all
// in one set, loaded once.
func damaTestSet(t *testing.T) *Set {
	t.Helper()
	damaOnce.Do(func() {
		damaCorpus, _, _, damaErr = Load(damaTestData, LoadOptions{Model: DamaModel, Select: AsIs})
	})
	if damaErr != nil {
		t.Fatal(damaErr)
	}
	return damaCorpus
}

// damaCoefs returns c in engine/dama/eval's form.
func damaCoefs(c *Coefs) *damaeval.Coefs {
	d := &damaeval.Coefs{Phase: c.Phase}
	for _, t := range c.Linear {
		d.Linear = append(d.Linear, damaeval.Coef(t))
	}
	return d
}

// TestDamaKernelMatchesEval holds the tuner's compact evaluation equal to
// the draughts evaluation's own Coefs.Eval, at the compiled-in weights and
// at perturbed ones, and its stored positions free of the chess-only parts.
func TestDamaKernelMatchesEval(t *testing.T) {
	s := damaTestSet(t)
	if s.Len() < 6000 {
		t.Fatalf("%d positions, want the whole file", s.Len())
	}
	w0 := DamaModel.Weights()
	for _, w := range [][]float64{w0, perturbed(w0, nil, 40, 3)} {
		for i := 0; i < s.Len(); i++ {
			c := s.Coefs(i)
			if len(c.Safety[0])+len(c.Safety[1]) > 0 || c.Draw || c.Scale != [2]int{1, 1} {
				t.Fatalf("position %d: %+v has chess-only parts", i, c)
			}
			var p pass
			if got, want := s.eval(&s.hdr[i], w, &p), damaCoefs(c).Eval(w); got != want {
				t.Fatalf("position %d: tuner evaluates %v, dama/eval %v", i, got, want)
			}
		}
	}
}

// TestDamaGradientMatchesNumeric checks the analytic gradient of the
// draughts objective against central differences on every weight.
func TestDamaGradientMatchesNumeric(t *testing.T) {
	s := damaTestSet(t)
	w := offGrid(perturbed(DamaModel.Weights(), nil, 10, 5), 6)
	o := NewObjective(s, 1.2, 2)
	grad := make([]float64, len(w))
	o.ValueGrad(w, grad)
	nonzero := 0
	for j := range w {
		const h = 1e-3
		wp := append([]float64(nil), w...)
		wp[j] += h
		fp := o.Value(wp)
		wp[j] -= 2 * h
		fm := o.Value(wp)
		num := (fp - fm) / (2 * h)
		if math.Abs(num-grad[j]) > 1e-4*math.Abs(num)+1e-10 {
			t.Errorf("%s: analytic %.10g, numeric %.10g", DamaModel.ParamName(j), grad[j], num)
		}
		if grad[j] != 0 {
			nonzero++
		}
	}
	if nonzero < len(w)*3/4 {
		t.Errorf("only %d of %d weights have a gradient", nonzero, len(w))
	}
}

// TestDamaResolveEndsQuiet: resolving plays the forced captures out to a
// position without a capture, on every test position that has one, and
// leaves quiet positions alone.
func TestDamaResolveEndsQuiet(t *testing.T) {
	f, err := os.Open(damaTestData)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := DamaModel.NewTracer(Resolve).(*damaTracer)
	sc := bufio.NewScanner(f)
	resolved := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fen, _, err := ParseLine(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Parse(fen); err != nil {
			t.Fatal(err)
		}
		quiet := tr.Quiet()
		moved := tr.Resolve()
		if moved == quiet || tr.pos.HasCapture() {
			t.Fatalf("%s: quiet %v, resolved %v, ends in %s with a capture %v", fen, quiet, moved, tr.pos.FEN(), tr.pos.HasCapture())
		}
		if moved {
			resolved++
		}
	}
	if resolved < 500 {
		t.Errorf("only %d positions had captures to resolve", resolved)
	}
}

// TestDamaRunLowersValidationAndWritesAFileThatCompiles tunes the draughts
// evaluation on real games: the validation error falls, the weights file
// is written, and built over the committed one (go run -overlay) it
// evaluates every test position as the tuner does with the written
// weights.
func TestDamaRunLowersValidationAndWritesAFileThatCompiles(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Data, o.Game = damaTestData, GameDama
	o.Out = filepath.Join(dir, "weights_gen.go")
	o.Report, o.Source = "", "the draughts test games"
	var log bytes.Buffer
	o.Log = &log
	sum, err := Run(o)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Log(sum.Line())
	if sum.Positions != 6749 || !(sum.ValAfter < sum.ValBefore) || !(sum.TrainAfter < sum.TrainBefore) {
		t.Errorf("summary %+v: want every position and lower errors", sum)
	}
	for _, want := range []string{"weights of the dama evaluation", "λ=1", "resolved to another leaf", "wrote " + o.Out} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	gen, err := os.ReadFile(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), "Source: the draughts test games") || !strings.Contains(string(gen), "Layout: "+damaeval.LayoutFingerprint()) {
		t.Errorf("weights file header:\n%.600s", gen)
	}
	if testing.Short() {
		return
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	w, err := readDamaWeights(gen)
	if err != nil {
		t.Fatal(err)
	}
	s := damaTestSet(t)
	var fens bytes.Buffer
	f, err := os.ReadFile(damaTestData)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(f), "\n") {
		if fen, _, err := ParseLine(l); err == nil {
			fens.WriteString(fen + "\n")
		}
	}
	checkGeneratedEvals(t, goTool, "../engine/dama/eval/weights_gen.go", o.Out, []string{"-game", "dama"}, &fens, s, w)
}

// readDamaWeights reads the weight vector back from a generated draughts
// weights file: the {mg, eg} pairs in the order the groups are written.
func readDamaWeights(src []byte) ([]float64, error) {
	text := string(src)
	text = text[strings.Index(text, "var weights"):]
	var pairs [][2]float64
	for _, f := range strings.Split(text, "{")[1:] {
		end := strings.IndexByte(f, '}')
		a, b, ok := strings.Cut(f[:max(end, 0)], ", ")
		if end < 0 || !ok {
			continue
		}
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		pairs = append(pairs, [2]float64{x, y})
	}
	if len(pairs) != damaeval.NumFeatures {
		return nil, errors.New("weights file: " + strconv.Itoa(len(pairs)) + " pairs")
	}
	w := make([]float64, damaeval.NumParams)
	for f, p := range pairs {
		w[f], w[damaeval.NumFeatures+f] = p[0], p[1]
	}
	return w, nil
}

// TestDamaRunRefusesAFitThatWorsensValidation: the refusal rule holds for
// draughts as for chess.
func TestDamaRunRefusesAFitThatWorsensValidation(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Data, o.Game = writeContradictory(t, damaTestData, dir, 800), GameDama
	o.Val, o.Seed, o.EPDBlock = 0.5, 1, 1
	o.Params, o.Iters, o.Patience = "material,mobility,tempo", 30, 5
	o.Out, o.Report = filepath.Join(dir, "weights_gen.go"), ""
	sum, err := Run(o)
	var ng *NoGainError
	if !errors.As(err, &ng) || sum == nil || sum.Better() {
		t.Fatalf("Run: %v, %+v; want a *NoGainError and the summary", err, sum)
	}
	if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
		t.Errorf("a refused fit wrote %s", o.Out)
	}
}

// writeDamaDataset writes a draughts self-play dataset of the search's
// games at a few hundred nodes a move, with scores, to path.
func writeDamaDataset(t *testing.T, path string, games int) {
	t.Helper()
	w, err := datasets.Create(path, datasets.WriterOptions{Layout: encoder.Dama, EngineVersion: "tuner test", Config: []byte(`{"source": "tuner test games"}`)})
	if err != nil {
		t.Fatal(err)
	}
	s := search.New(1)
	var l dama.MoveList
	for g := range games {
		s.Clear()
		p := dama.StartPosition()
		// A different opening each game: the g-th legal move, then the
		// search.
		p.GenerateMoves(&l)
		p.MakeMove(l.At(g % l.Len()))
		var rows []datasets.Row
		for ply := 0; p.Outcome() == dama.Ongoing && ply < 200; ply++ {
			r := s.Search(p, search.Limits{Nodes: 300})
			var row datasets.Row
			if err := row.SetDamaPosition(p, 0, r.Best, r.Best); err != nil {
				t.Fatal(err)
			}
			row.GameID, row.ScoreCP, row.Nodes, row.Depth = int64(g+1), int32(r.Score), int64(r.Nodes), int32(r.Depth)
			if p.SideToMove() == dama.Black {
				row.ScoreCP = -row.ScoreCP
			}
			rows = append(rows, row)
			p.MakeMove(r.Best)
		}
		result, term := float32(0.5), datasets.TerminationAdjudicatedDraw
		if p.Outcome() == dama.NoMoves {
			result, term = 1, datasets.TerminationAdjudicatedWin
			if p.SideToMove() == dama.White {
				result = 0
			}
		}
		for i := range rows {
			rows[i].Result, rows[i].Termination = result, term
			if err := w.Write(&rows[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDamaDatasetPicksTheGameFromItsMetadata: a draughts Parquet dataset
// is tuned as draughts without -game (λ auto = 0: its rows carry scores),
// -select filter reads its best moves in draughts notation, and -game chess
// on it is an error naming both games.
func TestDamaDatasetPicksTheGameFromItsMetadata(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "dama.parquet")
	writeDamaDataset(t, pq, 6)
	if g, err := DataGame(pq); err != nil || g != GameDama {
		t.Fatalf("DataGame = %q, %v", g, err)
	}
	if g, err := DataGame(damaTestData); err != nil || g != "" {
		t.Errorf("DataGame of a text file = %q, %v; want \"\"", g, err)
	}
	for _, sel := range []string{Resolve, Filter} {
		o := DefaultOptions()
		o.Data, o.Select = pq, sel
		o.Params, o.Iters, o.Report, o.DryRun, o.AllowWorse = "material", 3, "", true, true
		var log bytes.Buffer
		o.Log = &log
		sum, err := Run(o)
		if err != nil {
			t.Fatalf("-select %s: %v\n%s", sel, err, log.String())
		}
		if sum.Lambda != 0 || !strings.Contains(log.String(), "weights of the dama evaluation") || !strings.Contains(log.String(), "dry run, no weights written") {
			t.Errorf("-select %s: λ %v, log:\n%s", sel, sum.Lambda, log.String())
		}
		if sel == Filter && !regexp.MustCompile(`[1-9]\d* not quiet\)`).MatchString(log.String()) {
			t.Errorf("-select filter skipped nothing:\n%s", log.String())
		}
	}
	o := DefaultOptions()
	o.Data, o.Game, o.DryRun = pq, GameChess, true
	if _, err := Run(o); err == nil || !strings.Contains(err.Error(), "holds dama positions") || !strings.Contains(err.Error(), "chess") {
		t.Errorf("-game chess on a draughts dataset: %v", err)
	}
	o.Game = "go"
	if _, err := Run(o); err == nil || !strings.Contains(err.Error(), "-game") {
		t.Errorf("-game go: %v", err)
	}
}
