package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture copies the records of testdata/history into a new directory
// with a README holding a status block, and returns its paths.
func fixture(t *testing.T) paths {
	t.Helper()
	dir := t.TempDir()
	p := paths{dir: filepath.Join(dir, "docs", "history"), page: filepath.Join(dir, "docs", "history.md"), readme: filepath.Join(dir, "README.md")}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/history/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture records: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readme := "# chessforge\n\nWhere it stands:\n\n<!-- begin status -->\nold status\n<!-- end status -->\n\nThe rest.\n"
	if err := os.WriteFile(p.readme, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func args(p paths, more ...string) []string {
	return append([]string{"-dir", p.dir, "-page", p.page, "-readme", p.readme}, more...)
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestTheFixtureRendersItsTables(t *testing.T) {
	p := fixture(t)
	var stdout, stderr bytes.Buffer
	if err := run(args(p), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	page := read(t, p.page)
	for _, row := range []string{
		// Networks, OpenBench's way: the gate match's result and the sum over the lineage.
		"| <a id=\"net-1e3bf8638d5e0a3e\"></a>`1e3bf8638d5e0a3e` | 2026-11-20 | 9662f71f33e1868d | 768x2-256-1-screlu | 35,700,000 | " +
			"+18.1 ± 12.9 (1,054 games, H1) [gate-1e3b](#gate-1e3b) | +108.4 | yes, embedded |",
		"| <a id=\"net-aaaabbbbccccdddd\"></a>`aaaabbbbccccdddd` | 2026-11-25 | 1e3bf8638d5e0a3e | 768x2-256-1-screlu |  | " +
			"+16.1 ± 16.5 (692 games) [gate-aaaa](#gate-aaaa) |  | no |",
		"The lineage from the hand-crafted evaluation: 2 networks kept, the newest 1e3bf8638d5e0a3e at +108.4 Elo over it",
		// Tests, fishtest's way.
		"| 2026-11-21 | 1e3bf8638d5e0a3e against 9662f71f33e1868d at 4+0.04 | clock=4+0.04 | 1,054 | 300 / 481 / 273 | " +
			"[20, 100, 200, 120, 87] | +18.1 ± 12.9 | 2.95 (-2.94, 2.94) [0, 5] | H1, kept | <a id=\"gate-1e3b\"></a>gate-1e3b |",
		"| 2026-11-29 | capture futility at 20,000 nodes | nodes=20000 | 2,000 | 600 / 900 / 500 |  | +13.2 ± 10.3 | " +
			"-1.10 (-2.94, 2.94) [0, 5] | undecided, interrupted | <a id=\"nodes-test\"></a>nodes-test |",
		"| 2026-11-12 | 9662f71f33e1868d against Stockfish 2850 at 10+0.1 | clock=10+0.1 | 100 | 30.0% |  | -147.2 ± 70.3 |  |  | <a id=\"sf-old\"></a>sf-old |",
		// A pipe in what is escaped; the corrected record is listed apart.
		"| 2026-11-28 | capture futility \\| at 4+0.04 | clock=4+0.04 | 563 | 160 / 253 / 150 |",
		"| <a id=\"futility-wrong\"></a>futility-wrong | 2026-11-28 | capture futility \\| at 4+0.04 | [futility](#futility) |",
		"| 2026-11-05 | texel | texel on 1 M positions | out.parquet | 200 | k 1.13, val_mse 0.0712 | [nodes-test](#nodes-test) | <a id=\"texel-1\"></a>texel-1 |",
		"| 2026-11-24 | loop-nnue | 1 | selfplay 600 s, train 1200 s | reverted | [gate-aaaa](#gate-aaaa) | [net-aaaabbbbccccdddd](#net-aaaabbbbccccdddd) | <a id=\"cycle-1\"></a>cycle-1 |",
		"| 2026-11-29 | search | bench after capture futility | nodes 2,339,207, nps 2,130,000 | `bin/engine bench` | 2 cores | 1c9bad8 | <a id=\"bench-search\"></a>bench-search |",
		"![lineage](history/lineage.svg)",
		"![training](history/training.svg)",
	} {
		if !strings.Contains(page, row) {
			t.Errorf("the page has no line\n%s\npage:\n%s", row, page)
		}
	}
	if strings.Contains(page, "150 / 263 / 150") || strings.Count(page, `id="futility-wrong"`) != 1 {
		t.Errorf("the corrected record is shown as a test:\n%s", page)
	}
	// Newest first.
	order := []string{`id="nodes-test"`, `id="futility"`, `id="gate-aaaa"`, `id="sf-new"`, `id="gate-1e3b"`, `id="sf-old"`, `id="gate-9662"`}
	for i := 1; i < len(order); i++ {
		if strings.Index(page, order[i-1]) > strings.Index(page, order[i]) {
			t.Errorf("%s comes after %s", order[i-1], order[i])
		}
	}

	readme := read(t, p.readme)
	want := "# chessforge\n\nWhere it stands:\n\n<!-- begin status -->\n" +
		"| where it stands | figure | record |\n|---|---|---|\n" +
		"| Embedded network | `1e3bf8638d5e0a3e`, +108.4 Elo over the hand-crafted evaluation (its lineage's gate matches) | [record](docs/history.md#net-1e3bf8638d5e0a3e) |\n" +
		"| Against Stockfish 2850 | 44.3%, -39.7 ± 26.0 Elo, 246 games at clock=10+0.1 | [record](docs/history.md#sf-new) |\n" +
		"| Search bench | 2,339,207 nodes, 2,130,000 nodes/s; 2 cores | [record](docs/history.md#bench-search) |\n" +
		"| Self-play | 1234.5 positions/s; 2 cores | [record](docs/history.md#bench-selfplay) |\n" +
		"\n![lineage](docs/history/lineage.svg)\n<!-- end status -->\n\nThe rest.\n"
	if readme != want {
		t.Errorf("README:\n%s\nwant:\n%s", readme, want)
	}
	for _, line := range strings.Split(readme, "\n") {
		if len(line) >= 200 {
			t.Errorf("a status line of %d characters: %s", len(line), line)
		}
	}

	lineage, training := read(t, p.lineage()), read(t, p.training())
	if !strings.HasPrefix(lineage, "<?xml") || !strings.Contains(lineage, "a network against Stockfish at UCI_Elo 2850") {
		t.Errorf("lineage.svg is not the plot:\n%.300s", lineage)
	}
	if !strings.Contains(training, "Training of the embedded network 1e3bf8638d5e0a3e") || !strings.Contains(training, "validation") {
		t.Errorf("training.svg is not the plot:\n%.300s", training)
	}
}

// TestOutputIsTheSameByteForByte generates twice, in two directories, and
// compares every file.
func TestOutputIsTheSameByteForByte(t *testing.T) {
	a, b := fixture(t), fixture(t)
	for _, p := range []paths{a, b} {
		var stdout, stderr bytes.Buffer
		if err := run(args(p), &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range [][2]string{{a.page, b.page}, {a.lineage(), b.lineage()}, {a.training(), b.training()}, {a.readme, b.readme}} {
		if read(t, f[0]) != read(t, f[1]) {
			t.Errorf("%s and %s differ", f[0], f[1])
		}
	}
}

func TestCheckNamesEachStaleFileAndWritesNothing(t *testing.T) {
	p := fixture(t)
	var stdout, stderr bytes.Buffer
	err := run(args(p, "-check"), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), p.page+", "+p.lineage()+", "+p.training()+", "+p.readme+" (run make history)") {
		t.Errorf("-check before any run: %v", err)
	}
	if _, err := os.Stat(p.page); !os.IsNotExist(err) {
		t.Errorf("-check wrote %s", p.page)
	}
	if err := run(args(p), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if err := run(args(p, "-check"), &stdout, &stderr); err != nil {
		t.Errorf("-check after a run: %v", err)
	}
	if err := os.WriteFile(p.training(), []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(args(p, "-check"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), ": "+p.training()+" (run make history)") {
		t.Errorf("-check with a stale plot: %v", err)
	}
}

func TestErrorsNameTheFileTheLineAndTheField(t *testing.T) {
	tests := []struct {
		name, file, line, want string
	}{
		{"bad wdl", "engine.jsonl", `{"kind":"match","id":"x1","date":"2026-12-01","what":"x","engines":[{"name":"a"},{"name":"b"}],"tc":"nodes=1","games":563,"wdl":[200,150,200],"elo":0}`,
			"engine.jsonl:4: wdl: want three counts that sum to games (563), got [200 150 200]"},
		{"unknown field", "bench.jsonl", `{"kind":"bench","id":"b9","date":"2026-12-01","what":"x","subject":"search","command":"c","figures":{"n":1},"speed":3}`,
			"bench.jsonl:5: speed: unknown field"},
		{"duplicate id", "tuning.jsonl", `{"kind":"tune","id":"texel-1","date":"2026-12-01","what":"again","tool":"texel"}`,
			`tuning.jsonl:2: id: "texel-1" is already the id of the record at `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := fixture(t)
			path := filepath.Join(p.dir, tc.file)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.line + "\n")
			f.Close()
			var stdout, stderr bytes.Buffer
			err = run(args(p), &stdout, &stderr)
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(p.dir, tc.want)) {
				t.Errorf("error %v\nwant %s", err, filepath.Join(p.dir, tc.want))
			}
			if _, err := os.Stat(p.page); !os.IsNotExist(err) {
				t.Errorf("a history with a bad record wrote %s", p.page)
			}
		})
	}
}

func TestAReadmeWithoutTheStatusMarkersIsAnError(t *testing.T) {
	p := fixture(t)
	if err := os.WriteFile(p.readme, []byte("# chessforge\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run(args(p), &stdout, &stderr)
	if err == nil || err.Error() != p.readme+": "+errNoMarkers.Error() {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(p.page); !os.IsNotExist(err) {
		t.Errorf("wrote %s", p.page)
	}
}

// TestTheRepositorysHistoryIsUpToDate generates the repository's page,
// plots and README status block from its records and compares them with
// the files committed: a record added without `make history` fails here.
func TestTheRepositorysHistoryIsUpToDate(t *testing.T) {
	p := paths{dir: "../../docs/history", page: "../../docs/history.md", readme: "../../README.md"}
	if recs, _ := filepath.Glob(filepath.Join(p.dir, "*.jsonl")); len(recs) == 0 {
		t.Skipf("%s holds no records yet", p.dir)
	}
	files, err := generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		old, err := os.ReadFile(f.path)
		if err != nil || !bytes.Equal(old, f.data) {
			what := f.path
			if f.path == p.readme {
				what += "'s status block"
			}
			t.Errorf("%s is stale against the records in %s: run make history", what, p.dir)
		}
	}
}
