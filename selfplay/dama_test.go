package selfplay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/encoder"
	"chessforge/engine/dama"
)

// damaTinyConfig is a small draughts job: a few hundred nodes a move,
// short games, generated endgames for a third of the games, every
// adjudication rule on, rows from ply 0.
func damaTinyConfig() Config {
	c := DamaDefaults()
	c.Games = 6
	c.Seed = 5
	c.Nodes = 300
	c.Hash = 1
	c.RandomPlies = 2
	c.MultiPVPlies = 2
	c.MultiPV = 3
	c.MultiPVMargin = 30
	c.Endgames = "2Kv1K1M,3Mv2M"
	c.EndgameShare = 0.34
	c.DrawPly = 16
	c.DrawPlies = 6
	c.MaxPlies = 70
	c.WriteMinPly = 0
	c.Workers = 2
	return c
}

// replayDama replays every game of a draughts dataset written from ply 0
// and checks it from the rows alone: each row's FEN is the game replayed,
// its planes and policy re-derive, its moves are legal, and the game ends
// as its termination and result say (by the rules in the final position,
// or by adjudication over the recorded scores).
func replayDama(t *testing.T, cfg *Config, rows []datasets.Row) (games, endgames int) {
	t.Helper()
	var planes [encoder.DamaNumPlanes * encoder.PlaneSize]float32
	for len(rows) > 0 {
		n := 1
		for n < len(rows) && rows[n].GameID == rows[0].GameID {
			n++
		}
		game := rows[:n]
		rows = rows[n:]
		games++
		pos, err := dama.ParseFEN(game[0].FEN)
		if err != nil || game[0].Ply != 0 {
			t.Fatalf("game %d: ply %d, %v", game[0].GameID, game[0].Ply, err)
		}
		if pos.FEN() != dama.StartPosition().FEN() {
			endgames++
		}
		var scores []int32
		for i, r := range game {
			if int(r.Ply) != i || r.FEN != pos.FEN() || r.InCheck {
				t.Fatalf("game %d row %d: ply %d fen %q in check %v, replay gives %q", r.GameID, i, r.Ply, r.FEN, r.InCheck, pos.FEN())
			}
			if o := pos.Outcome(); o != dama.Ongoing {
				t.Fatalf("game %d ply %d: a row after the game ended (%v)", r.GameID, i, o)
			}
			encoder.EncodeDama(planes[:], pos)
			if !slices.Equal(planes[:], r.Planes[:len(planes)]) {
				t.Fatalf("game %d ply %d: planes differ from the re-derived ones", r.GameID, i)
			}
			best, err := pos.ParseMove(r.BestMove)
			if err != nil || best.String() != r.BestMove {
				t.Fatalf("game %d ply %d: best move %q: %v", r.GameID, i, r.BestMove, err)
			}
			if p, _ := encoder.DamaPolicyIndex(best); int(r.Policy) != p || r.BestIsCapture != best.IsCapture() || r.BestIsPromotion != best.Crowns() {
				t.Fatalf("game %d ply %d: policy %d (re-derived %d), capture %v, crowns %v", r.GameID, i, r.Policy, p, r.BestIsCapture, r.BestIsPromotion)
			}
			m, err := pos.ParseMove(r.Move)
			if err != nil {
				t.Fatalf("game %d ply %d: move: %v", r.GameID, i, err)
			}
			if r.Result != game[0].Result || r.Termination != game[0].Termination {
				t.Fatalf("game %d ply %d: result or termination differs within the game", r.GameID, i)
			}
			scores = append(scores, r.ScoreCP)
			pos.MakeMove(m)
		}
		checkDamaEnd(t, cfg, game[0], pos, scores)
	}
	return games, endgames
}

// checkDamaEnd checks a game's termination and result against its final
// position and the scores of its plies.
func checkDamaEnd(t *testing.T, cfg *Config, r datasets.Row, final *dama.Position, scores []int32) {
	t.Helper()
	o := final.Outcome()
	n := len(scores)
	last := func(k int) []int32 {
		if n < k {
			t.Fatalf("game %d: %v after %d plies, fewer than the %d the rule needs", r.GameID, r.Termination, n, k)
		}
		return scores[n-k:]
	}
	switch r.Termination {
	case datasets.TerminationNoMoves, datasets.TerminationThreefold, datasets.TerminationFortyMove:
		term, res := datasets.DamaRuleTermination(o, final.SideToMove())
		if term != r.Termination || res != r.Result {
			t.Fatalf("game %d: %v %v, but the final position %s is %v", r.GameID, r.Termination, r.Result, final.FEN(), o)
		}
	case datasets.TerminationAdjudicatedWin:
		for _, s := range last(cfg.ResignPlies) {
			if (r.Result == 1 && int(s) < cfg.ResignScore) || (r.Result == 0 && int(s) > -cfg.ResignScore) {
				t.Fatalf("game %d: adjudicated %v over scores %v", r.GameID, r.Result, last(cfg.ResignPlies))
			}
		}
	case datasets.TerminationAdjudicatedDraw:
		for _, s := range last(cfg.DrawPlies) {
			if abs(int(s)) > cfg.DrawScore || n < cfg.DrawPly {
				t.Fatalf("game %d: drawn over scores %v", r.GameID, last(cfg.DrawPlies))
			}
		}
	case datasets.TerminationPlyCap:
		if n != cfg.MaxPlies || r.Result != 0.5 {
			t.Fatalf("game %d: ply cap after %d plies", r.GameID, n)
		}
	default:
		t.Fatalf("game %d: termination %v", r.GameID, r.Termination)
	}
	if r.Termination != datasets.TerminationNoMoves && r.Termination != datasets.TerminationAdjudicatedWin && r.Result != 0.5 {
		t.Fatalf("game %d: %v with result %v", r.GameID, r.Termination, r.Result)
	}
}

func TestDamaRunWritesADatasetThatVerifies(t *testing.T) {
	dir := t.TempDir()
	cfg := damaTinyConfig()
	cfg.Games = 9
	cfg.Out = filepath.Join(dir, "dama.parquet")
	cfg.PGN = filepath.Join(dir, "dama.pdn")
	sum := runJob(t, cfg, Options{})
	rows := fixture.Rows(t, cfg.Out)
	checkVerify(t, cfg.Out, len(rows))
	games, endgames := replayDama(t, &cfg, rows)
	if games != cfg.Games || sum.Games != cfg.Games || sum.Positions != int64(len(rows)) || endgames == 0 || endgames == games {
		t.Fatalf("%d games (%d from endgames) in the file, summary %d games %d positions, %d rows", games, endgames, sum.Games, sum.Positions, len(rows))
	}
	infos, err := datasets.Stat(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	meta := infos[0].Metadata
	var job map[string]any
	if err := json.Unmarshal([]byte(meta[datasets.KeyConfig]), &job); err != nil {
		t.Fatal(err)
	}
	if infos[0].Layout != encoder.Dama || meta[datasets.KeyGame] != "dama" || job["game"] != "dama" || job["endgames"] != cfg.Endgames {
		t.Fatalf("layout %v, metadata %v", infos[0].Layout, meta)
	}
	pdn, err := os.ReadFile(cfg.PGN)
	if err != nil || strings.Count(string(pdn), `[GameType "22"]`) != cfg.Games || !strings.Contains(string(pdn), "[FEN ") {
		t.Fatalf("PDN: %v\n%s", err, pdn)
	}
	// The PDN's moves replay the rows' games.
	for _, g := range strings.Split(strings.TrimSpace(string(pdn)), "\n\n[Event")[:1] {
		moves := strings.Fields(g[strings.LastIndex(g, "]")+1:])
		pos := dama.StartPosition()
		for _, w := range moves[:len(moves)-1] {
			if strings.HasSuffix(w, ".") {
				continue
			}
			m, err := pos.ParseMove(w)
			if err != nil {
				t.Fatalf("PDN move %q: %v", w, err)
			}
			pos.MakeMove(m)
		}
		if want := map[float32]string{1: "2-0", 0.5: "1-1", 0: "0-2"}[rows[0].Result]; moves[len(moves)-1] != want {
			t.Errorf("PDN result %q, want %q", moves[len(moves)-1], want)
		}
	}
}

func TestDamaSameSeedGivesTheSameFilesWhateverTheWorkers(t *testing.T) {
	dir := t.TempDir()
	var files, pdns [][]byte
	for _, workers := range []int{1, 3} {
		cfg := damaTinyConfig()
		cfg.Workers = workers
		cfg.Out = filepath.Join(dir, fmt.Sprintf("w%d.parquet", workers))
		cfg.PGN = filepath.Join(dir, fmt.Sprintf("w%d.pdn", workers))
		runJob(t, cfg, Options{})
		f, _ := os.ReadFile(cfg.Out)
		p, _ := os.ReadFile(cfg.PGN)
		files, pdns = append(files, f), append(pdns, p)
	}
	if len(files[0]) == 0 || !bytes.Equal(files[0], files[1]) || !bytes.Equal(pdns[0], pdns[1]) {
		t.Fatal("1 and 3 workers wrote different files")
	}
	cfg := damaTinyConfig()
	cfg.Seed++
	cfg.Out = filepath.Join(dir, "other.parquet")
	runJob(t, cfg, Options{})
	if reflect.DeepEqual(fixture.Rows(t, cfg.Out), fixture.Rows(t, filepath.Join(dir, "w1.parquet"))) {
		t.Fatal("another seed wrote the same rows")
	}
}

func TestDamaShardsTogetherWriteTheUnshardedDataset(t *testing.T) {
	dir := t.TempDir()
	cfg := damaTinyConfig()
	cfg.Games = 5
	cfg.Out = filepath.Join(dir, "all.parquet")
	runJob(t, cfg, Options{})
	whole := fixture.Rows(t, cfg.Out)
	shared := filepath.Join(dir, "sharded")
	for k := 1; k <= 2; k++ {
		c := cfg
		c.Out, c.Shard = shared, fmt.Sprintf("%d/2", k)
		if sum := runJob(t, c, Options{}); sum.Total != []int{3, 2}[k-1] {
			t.Fatalf("shard %d/2: summary %+v", k, sum)
		}
	}
	union := fixture.Rows(t, shared)
	checkVerify(t, shared, len(union))
	order := func(rows []datasets.Row) {
		slices.SortStableFunc(rows, func(a, b datasets.Row) int {
			if a.GameID != b.GameID {
				return int(a.GameID - b.GameID)
			}
			return int(a.Ply - b.Ply)
		})
	}
	order(union)
	order(whole)
	if !reflect.DeepEqual(union, whole) {
		t.Fatalf("the shards wrote %d rows, the unsharded job %d, and they differ", len(union), len(whole))
	}
}

func TestDamaStoppedRunResumesToTheUninterruptedGames(t *testing.T) {
	dir := t.TempDir()
	cfg := damaTinyConfig()
	cfg.Games = 5
	cfg.Out, cfg.PGN = filepath.Join(dir, "full.parquet"), filepath.Join(dir, "full.pdn")
	runJob(t, cfg, Options{})
	full := fixture.Rows(t, cfg.Out)
	fullPDN, _ := os.ReadFile(cfg.PGN)
	for _, layout := range []string{"directory", "single file"} {
		t.Run(layout, func(t *testing.T) {
			cfg := cfg
			cfg.PartGames, cfg.Out = 2, filepath.Join(dir, "cut-dir")
			if layout == "single file" {
				cfg.PartGames, cfg.Out = 100, filepath.Join(dir, "cut.parquet")
			}
			cfg.PGN = cfg.Out + ".pdn"
			if sum := runJob(t, cfg, Options{stopAfter: 3}); !sum.Interrupted || sum.Done != 3 {
				t.Fatalf("stopped run: %+v", sum)
			}
			if sum := runJob(t, cfg, Options{Resume: true}); sum.Interrupted || sum.Games != 2 || sum.Done != 5 {
				t.Fatalf("resumed run: %+v", sum)
			}
			if got := fixture.Rows(t, cfg.Out); !reflect.DeepEqual(got, full) {
				t.Fatalf("stopped and resumed: %d rows, uninterrupted %d, and they differ", len(got), len(full))
			}
			if got, _ := os.ReadFile(cfg.PGN); !bytes.Equal(got, fullPDN) {
				t.Fatal("the resumed PDN differs from the uninterrupted one")
			}
		})
	}
	// A chess job cannot resume the draughts job's files.
	c := DefaultConfig()
	c.Games, c.Nodes, c.Out = 5, 100, filepath.Join(dir, "full.parquet")
	if _, err := Run(t.Context(), c, Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "another job") {
		t.Fatalf("a chess job resuming a draughts job's file: %v", err)
	}
}

// TestDamaChooseMoveStaysWithinTheMargin checks the draughts stand-in for
// MultiPV: the moves chosen are among the -multipv best within the margin,
// and more than one is chosen over many draws.
func TestDamaChooseMoveStaysWithinTheMargin(t *testing.T) {
	cfg := damaTinyConfig()
	cfg.Nodes, cfg.MultiPVMargin, cfg.MultiPV = 4000, 60, 3
	p := newDamaPlayer(&cfg, nil)
	pos := dama.StartPosition()
	res, _ := p.chooseMove(pos, gameRand(1, 1))
	if len(p.scored) != 7 || res.Best != p.scored[0].move || res.Score != p.scored[0].score || res.Nodes == 0 {
		t.Fatalf("result %+v, scored %+v", res, p.scored)
	}
	candidates := func() map[dama.Move]bool {
		ok := map[dama.Move]bool{}
		for _, s := range p.scored[:3] {
			if s.score >= p.scored[0].score-cfg.MultiPVMargin {
				ok[s.move] = true
			}
		}
		return ok
	}
	chosen, most := map[dama.Move]bool{}, 0
	rng := gameRand(1, 2)
	for range 60 {
		_, m := p.chooseMove(pos, rng)
		ok := candidates()
		if !ok[m] {
			t.Fatalf("chose %v, not among %v (scores %+v)", m, ok, p.scored)
		}
		chosen[m] = true
		most = max(most, len(ok))
	}
	if most > 1 && len(chosen) < 2 {
		t.Errorf("always chose %v, with up to %d candidates", chosen, most)
	}
	if pos.FEN() != dama.StartPosition().FEN() || pos.Ply() != 0 {
		t.Errorf("chooseMove left the position at %s", pos.FEN())
	}
}

func TestDamaConfig(t *testing.T) {
	ok := damaTinyConfig()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		mutate func(*Config)
		want   string
	}{
		"a book":            {func(c *Config) { c.Book = "b.pgn" }, "-book"},
		"a network":         {func(c *Config) { c.EvalFile = "x.nnue" }, "-eval-file"},
		"a chess signature": {func(c *Config) { c.Endgames = "KRvK" }, "-endgames"},
		"an unknown game":   {func(c *Config) { c.Game = "go" }, "-game"},
	} {
		cfg := damaTinyConfig()
		c.mutate(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, c.want)
		}
	}
	// The job record names the game for draughts only: a chess job's record
	// is what it was before the setting existed.
	chess := DefaultConfig()
	rec, err := jobRecord(&chess, 1, "v", "")
	if err != nil || strings.Contains(string(rec), `"game"`) || !strings.HasPrefix(string(rec), `{"games":`) {
		t.Errorf("chess job record %s (%v)", rec, err)
	}
	rec, err = jobRecord(&ok, 1, "v", "")
	if err != nil || !strings.HasPrefix(string(rec), `{"game":"dama","games":`) {
		t.Errorf("draughts job record %s (%v)", rec, err)
	}
	// -nnue, on in configs/selfplay.json, is chess's: a draughts job plays
	// its own evaluation and its record is the same without it.
	withNNUE := damaTinyConfig()
	withNNUE.NNUE = true
	if err := withNNUE.Validate(); err != nil {
		t.Errorf("a draughts job with -nnue: %v", err)
	}
	withNNUE = withNNUE.playing()
	if rec2, err := jobRecord(&withNNUE, 1, "v", ""); err != nil || string(rec2) != string(rec) {
		t.Errorf("draughts job record with -nnue %s (%v), want %s", rec2, err, rec)
	}
	if d := DamaDefaults(); d.Game != "dama" || d.ResignScore == DefaultConfig().ResignScore || !reflect.DeepEqual(DefaultsFor("dama"), d) || !reflect.DeepEqual(DefaultsFor("chess"), DefaultConfig()) {
		t.Errorf("draughts defaults %+v", d)
	}
}

// chooseMove scores a win as the search does: a win found n plies below a
// root move is n+1 plies from the position (here wins in 1 and 3 plies).
func TestDamaChooseMoveScoresWinsAsTheSearchDoes(t *testing.T) {
	cfg := DamaDefaults()
	cfg.Nodes, cfg.MultiPV, cfg.MultiPVMargin = 2000, 4, 0
	for _, fen := range []string{"W:WK9,K10,K11:B5", "W:W22,23:B14"} {
		pos, err := dama.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := newDamaPlayer(&cfg, nil).chooseMove(pos, rand.New(rand.NewPCG(1, 1)))
		p := newDamaPlayer(&cfg, nil)
		want := p.eng.Search(pos, p.limits).Score
		if res.Score != want {
			t.Errorf("%s: chooseMove scores %d, the search %d", fen, res.Score, want)
		}
	}
}
