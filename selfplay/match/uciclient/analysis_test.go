package uciclient

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseInfo(t *testing.T) {
	tests := []struct {
		line string
		want info
		ok   bool
	}{
		{"info depth 9 seldepth 12 multipv 2 score cp 31 nodes 1000 nps 5 pv e2e4 e7e5",
			info{multipv: 2, depth: 9, hasDepth: true, nodes: 1000, hasNodes: true, score: Score{Valid: true, CP: 31}, exact: true, move: "e2e4"}, true},
		{"info depth 9 score cp -120 lowerbound nodes 5",
			info{multipv: 1, depth: 9, hasDepth: true, nodes: 5, hasNodes: true, score: Score{Valid: true, CP: -120}}, true},
		{"info depth 9 score cp 40 upperbound pv d2d4",
			info{multipv: 1, depth: 9, hasDepth: true, score: Score{Valid: true, CP: 40}, move: "d2d4"}, true},
		{"info depth 20 score mate 3 pv a1a8",
			info{multipv: 1, depth: 20, hasDepth: true, score: Score{Valid: true, CP: 31995, Mate: 3}, exact: true, move: "a1a8"}, true},
		{"info depth 20 score mate -2",
			info{multipv: 1, depth: 20, hasDepth: true, score: Score{Valid: true, CP: -31996, Mate: -2}, exact: true}, true},
		{"info string depth 3 score cp 50", info{multipv: 1}, true},
		{"info score cp x pv e2e4", info{multipv: 1, move: "e2e4"}, true},
		{"bestmove e2e4", info{}, false},
	}
	for _, tc := range tests {
		got, ok := parseInfo(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseInfo(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// multiPVEngine is a shell script speaking enough UCI for Analyse: it
// declares MultiPV and answers go with two iterations of two lines, the
// last one's second line a bound that must be skipped, then bestmove.
const multiPVEngine = `while read -r cmd rest; do
  case "$cmd" in
    uci) echo "id name multi"; echo "option name MultiPV type spin default 1 min 1 max 9"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go)
      echo "info depth 1 multipv 1 score cp 10 nodes 20 pv e2e4"
      echo "info depth 1 multipv 2 score cp 5 nodes 30 pv d2d4"
      echo "info depth 2 multipv 1 score cp 30 lowerbound nodes 40 pv e2e4"
      echo "info depth 2 multipv 1 score mate 2 nodes 50 pv g1f3"
      echo "info depth 2 multipv 2 score cp -900 upperbound nodes 60 pv c2c4"
      echo "info string all done"
      echo "bestmove g1f3 ponder e7e5" ;;
    quit) exit 0 ;;
  esac
done`

func TestAnalyseKeepsTheLastExactReportOfEachLine(t *testing.T) {
	e, err := Start([]string{"sh", "-c", multiPVEngine}, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Name != "multi" || !e.HasOption("multipv") || e.HasOption("Threads") {
		t.Errorf("name %q, options %v", e.Name, e.options)
	}
	if err := e.SetOption("Threads", "1"); err == nil || !strings.Contains(err.Error(), `no option "Threads"`) {
		t.Errorf("SetOption of an undeclared option: error %v", err)
	}
	if err := e.SetOption("MultiPV", "2"); err != nil {
		t.Fatal(err)
	}
	a, err := e.Analyse(context.Background(), "startpos", "nodes 100", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{Score{Valid: true, CP: 31997, Mate: 2}, "g1f3"}, {Score{Valid: true, CP: 5}, "d2d4"}}
	if a.BestMove != "g1f3" || a.Score != want[0].Score || a.Depth != 2 || a.Nodes != 60 || !slices.Equal(a.Lines, want) {
		t.Errorf("analysis %+v, want best g1f3, depth 2, nodes 60, lines %+v", a, want)
	}
}

// boundEngine answers go with an exact score at depth 3, then a deeper
// lowerbound and a deeper upperbound, then bestmove: Go keeps the exact one.
const boundEngine = `while read -r cmd rest; do
  case "$cmd" in
    uci) echo "id name bounds"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go)
      echo "info depth 2 score cp 70 lowerbound nodes 10 pv e2e4"
      echo "info depth 3 score cp 25 nodes 20 pv e2e4"
      echo "info depth 4 score cp 90 lowerbound nodes 30 pv e2e4"
      echo "info depth 4 currmove e2e4 currmovenumber 1"
      echo "info depth 4 score cp -40 upperbound nodes 40 pv d2d4"
      echo "bestmove e2e4" ;;
    quit) exit 0 ;;
  esac
done`

func TestGoKeepsTheLastExactScoreAndItsDepth(t *testing.T) {
	e, err := Start([]string{"sh", "-c", boundEngine}, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Go(context.Background(), "startpos", "nodes 100", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "e2e4" || res.Score != (Score{Valid: true, CP: 25}) || res.Depth != 3 {
		t.Errorf("result %+v, want e2e4 at the exact cp 25 of depth 3", res)
	}
}
