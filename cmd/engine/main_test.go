package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/search"
)

var engineBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "engine-test")
	if err != nil {
		panic(err)
	}
	engineBin = filepath.Join(dir, "engine")
	if out, err := exec.Command("go", "build", "-o", engineBin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// process is a running engine with line-wise access to its output.
type process struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func start(t *testing.T, args ...string) *process {
	cmd := exec.Command(engineBin, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, cmd: cmd, in: in, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

func (p *process) send(s string) {
	if _, err := io.WriteString(p.in, s+"\n"); err != nil {
		p.t.Fatalf("send %q: %v", s, err)
	}
}

// quit sends "quit" and expects the engine to exit with status 0 within
// 5 s.
func (p *process) quit() {
	p.t.Helper()
	p.send("quit")
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			p.t.Errorf("engine exit after quit: %v", err)
		}
	case <-time.After(5 * time.Second):
		p.t.Error("engine did not quit within 5 s")
	}
}

// expect reads lines until one starts with prefix, within d.
func (p *process) expect(prefix string, d time.Duration) string {
	p.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("engine exited while waiting for %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			p.t.Fatalf("no %q within %v", prefix, d)
		}
	}
}

func TestUCISessionThroughSubprocess(t *testing.T) {
	p := start(t)
	p.send("uci")
	p.expect("uciok", 5*time.Second)
	p.send("setoption name Hash value 32")
	p.send("setoption name Threads value 2")
	p.send("isready")
	p.expect("readyok", 5*time.Second)
	p.send("ucinewgame")
	p.send("position startpos moves e2e4 e7e5 g1f3")
	p.send("go infinite")
	p.expect("info depth 3", 10*time.Second)
	// go returned at once: the engine answers while it searches.
	p.send("isready")
	p.expect("readyok", 2*time.Second)
	p.send("stop")
	bm := p.expect("bestmove ", 2*time.Second)
	if !regexp.MustCompile(`^bestmove [a-h][1-8][a-h][1-8]`).MatchString(bm) {
		t.Errorf("bad bestmove line %q", bm)
	}
	// A timed search on a clock.
	p.send("position startpos")
	p.send("go wtime 3000 btime 3000 winc 100 binc 100")
	start := time.Now()
	p.expect("bestmove ", 3*time.Second)
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %v on a 3 s clock", el)
	}
	p.send("go perft 2")
	p.expect("Nodes searched: 400", 5*time.Second)
	p.quit()
}

func TestQuitDuringSearch(t *testing.T) {
	p := start(t)
	p.send("position startpos")
	p.send("go infinite")
	p.expect("info depth 2", 10*time.Second)
	p.quit()
}

func TestBenchFromShell(t *testing.T) {
	out, err := exec.Command(engineBin, "bench", "4").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^\d+ nodes \d+ nps$`).MatchString(last) {
		t.Errorf("last line %q, want \"N nodes N nps\"", last)
	}
	// The node count is a signature: the same on every run.
	out2, err := exec.Command(engineBin, "bench", "4").Output()
	if err != nil {
		t.Fatal(err)
	}
	l2 := strings.Split(strings.TrimSpace(string(out2)), "\n")
	if strings.Fields(last)[0] != strings.Fields(l2[len(l2)-1])[0] {
		t.Errorf("bench node counts differ: %q vs %q", last, l2[len(l2)-1])
	}
}

// TestSearchParams checks -params' list and that -param changes the search:
// the bench's node count moves with LMRBase and comes back with its
// default.
func TestSearchParams(t *testing.T) {
	code, stdout, stderr := exitCode(t, "-params")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || stderr != "" || len(lines) != len(search.ParamList()) || lines[0] != "AspirationMinDepth 5 1 10" {
		t.Fatalf("engine -params: exit %d, stderr %q, %d lines from %q", code, stderr, len(lines), lines[0])
	}
	nodes := func(args ...string) string {
		out, err := exec.Command(engineBin, append(args, "bench", "6")...).Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return strings.Fields(lines[len(lines)-1])[0]
	}
	def, changed := nodes(), nodes("-param", "LMRBase=150", "-param", "RFPMargin=60")
	if same := nodes("-param", "LMRBase=80"); same != def || changed == def {
		t.Errorf("bench nodes: %s by default, %s with LMRBase=80 (its default), %s with LMRBase=150 and RFPMargin=60", def, same, changed)
	}
}

// exitCode runs the engine with args and returns its exit status, stdout
// and stderr.
func exitCode(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(engineBin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

func TestHelpPrintsUsageAndExitsZero(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		code, stdout, stderr := exitCode(t, arg)
		if code != 0 || !strings.HasPrefix(stdout, "usage: engine") || !strings.Contains(stdout, "engine bench [depth]") || stderr != "" {
			t.Errorf("engine %s: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", arg, code, stdout, stderr)
		}
	}
}

func TestUsageErrorsExitTwoWithOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "abc"}, `engine: bench: depth must be a whole number from 1 to 64, got "abc"`},
		{[]string{"bench", "0"}, `got "0"`},
		{[]string{"bench", "65"}, `got "65"`},
		{[]string{"bench", "4", "5"}, `engine: unknown command "5"`},
		{[]string{"bench 4 5"}, "engine: bench takes one argument at most, the depth; got 2"},
		{[]string{"bench abc"}, `engine: bench: depth must be a whole number from 1 to 64, got "abc"`},
		{[]string{"frobnicate"}, `engine: unknown command "frobnicate"`},
		{[]string{"go", "depth", "3"}, `engine: unknown command "depth"`},
		{[]string{"position startpos", "go infinite", "quit"}, `engine: "go infinite": a search on the command line needs an end (depth, nodes, softnodes, movetime, mate, a clock or perft)`},
		{[]string{"go ponder depth 3"}, `engine: "go ponder depth 3": a search on the command line needs an end`},
		{[]string{"go"}, `engine: "go": a search on the command line needs an end`},
		{[]string{"go infinite softnodes 1000"}, `engine: "go infinite softnodes 1000": a search on the command line needs an end (depth, nodes, softnodes, movetime, mate, a clock or perft)`},
		{[]string{""}, `engine: an empty command ""`},
		{[]string{"bench", "genfens 4 seed x book None", "quit"}, `engine: genfens: seed must be a whole number from 0 to 18446744073709551615, got "x"`},
		{[]string{"genfens 4 seed 1"}, `engine: genfens: want "genfens N seed S book FILE|None", got "genfens 4 seed 1"`},
		{[]string{"isready", "perft 3"}, `engine: unknown command "perft 3"`},
		{[]string{"--hash", "64"}, `engine: unknown command "--hash"`},
		{[]string{"-game"}, "engine: -game needs a value: chess or dama"},
		{[]string{"-game", "checkers"}, `engine: -game "checkers": want chess or dama`},
		{[]string{"-game=dama", "frobnicate"}, `engine: -game dama: unknown command "frobnicate"`},
		{[]string{"-game", "dama", "bench", "0"}, `engine: bench: depth must be a whole number from 1 to 64, got "0"`},
		{[]string{"-game", "dama", "bench", "2", "3"}, "bench takes one argument at most"},
		{[]string{"-param"}, "engine: -param needs NAME=VALUE"},
		{[]string{"-param", "LMRBase", "bench"}, `engine: -param: "LMRBase": want NAME=VALUE`},
		{[]string{"-param", "LMRBase=x"}, `engine: -param: LMRBase: value "x" is not a whole number`},
		{[]string{"-param", "SEEKnight=999"}, "engine: -param: search parameter SEEKnight=999: outside its range [200, 450]"},
		{[]string{"-param", "Hash=64"}, `engine: -param: no search parameter "Hash"`},
		{[]string{"-game", "dama", "-param", "LMRBase=90"}, "engine: -param: the search parameters are the chess engine's"},
		{[]string{"-param", "LMRBase=90", "frobnicate"}, `engine: unknown command "frobnicate"`},
		{[]string{"-game", "dama", "isready"}, `engine: -game dama: unknown command "isready"`},
	}
	for _, c := range cases {
		code, stdout, stderr := exitCode(t, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.Contains(stderr, c.want) {
			t.Errorf("engine %s: exit %d, stdout %q, stderr %q; want 2, nothing on stdout and one line on stderr with %q",
				strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
}

func TestRunInProcess(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != usage {
		t.Errorf("run --help: %d, %q", code, stdout.String())
	}
	stdout.Reset()
	// Without arguments the engine speaks UCI on its input.
	in := "uci\nposition startpos moves e2e4 e7e5 e1e3\ngo depth 2\nposition startpos\ngo perft 1\nquit\n"
	if code := run(nil, strings.NewReader(in), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Errorf("run in UCI mode: exit %d, stderr %q", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"uciok\n", `info string position: move "e1e3" is not legal`, "\nbestmove 0000\n", "\nNodes searched: 20\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("run in UCI mode: no %q in:\n%s", want, out)
		}
	}
}

// -game dama speaks the draughts text protocol: a line-wise conversation
// through the process's pipes, and quit ends it.
func TestDamaThroughSubprocess(t *testing.T) {
	p := start(t, "-game", "dama")
	p.send("position startpos moves 22-18 11-15")
	p.send("go nodes 5000")
	p.expect("info depth 1 ", 5*time.Second)
	bm := p.expect("bestmove ", 10*time.Second)
	if !regexp.MustCompile(`^bestmove [0-9]+[-x][0-9]+`).MatchString(bm) {
		t.Errorf("bad bestmove line %q", bm)
	}
	p.send("position fen B:W29:B25")
	p.send("go depth 3")
	if l := p.expect("bestmove", 5*time.Second); l != "bestmove none" {
		t.Errorf("no move: %q", l)
	}
	p.send("bogus")
	p.expect("error: unknown command", 5*time.Second)
	p.send("position startpos")
	p.send("perft 3")
	p.expect("Nodes searched: 302", 5*time.Second)
	p.quit()
}

// The draughts bench ends with "N nodes N nps" and its node count is a
// signature; -game chess (or none) is the chess engine.
func TestDamaBenchAndGameFlag(t *testing.T) {
	var outs [2]string
	for i, args := range [][]string{{"-game", "dama", "bench", "4"}, {"--game=dama", "bench", "4"}} {
		var stdout, stderr strings.Builder
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		last := lines[len(lines)-1]
		if !regexp.MustCompile(`^\d+ nodes \d+ nps$`).MatchString(last) || !strings.HasPrefix(lines[0], "position  1/") {
			t.Errorf("%v: first line %q, last %q", args, lines[0], last)
		}
		outs[i] = strings.Fields(last)[0]
	}
	if outs[0] != outs[1] {
		t.Errorf("draughts bench node counts differ: %s vs %s", outs[0], outs[1])
	}
	var stdout, stderr strings.Builder
	in := "uci\nposition startpos\ngo perft 1\nquit\n"
	if code := run([]string{"-game", "chess"}, strings.NewReader(in), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "uciok\n") || !strings.Contains(stdout.String(), "Nodes searched: 20") {
		t.Errorf("-game chess: exit %d, stdout %q", code, stdout.String())
	}
}

// clientBench reads bench output as OpenBench's client does: from the last
// line up, each line with every character that is not a letter, a digit or
// a space made a space, the first "N nodes" (or "nodes N", "nodes searched
// N") and the first "N nps" (or "nps N", "nodes second N") found.
func clientBench(out string) (nodes, nps int, ok bool) {
	npsRE := regexp.MustCompile(`(?i)(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)`)
	nodesRE := regexp.MustCompile(`(?i)(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)`)
	clean := regexp.MustCompile(`[^a-zA-Z0-9 ]+`)
	digits := regexp.MustCompile(`\d+`)
	var nodesText, npsText string
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := clean.ReplaceAllString(lines[i], " ")
		if m := npsRE.FindString(l); m != "" && npsText == "" {
			npsText = m
		}
		if m := nodesRE.FindString(l); m != "" && nodesText == "" {
			nodesText = m
		}
	}
	if nodesText == "" || npsText == "" {
		return 0, 0, false
	}
	nodes, _ = strconv.Atoi(digits.FindString(nodesText))
	nps, _ = strconv.Atoi(digits.FindString(npsText))
	return nodes, nps, true
}

// OpenBench runs "./engine bench", one per core at once, and wants the
// same node count every time, within 60 s.
func TestBenchAsOpenBenchRunsIt(t *testing.T) {
	var counts [2]int
	for i := range counts {
		start := time.Now()
		out, err := exec.Command(engineBin, "bench").Output()
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > 30*time.Second {
			t.Errorf("bench took %v, half OpenBench's limit of 60 s", el)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if !regexp.MustCompile(`^\d+ nodes \d+ nps$`).MatchString(lines[len(lines)-1]) {
			t.Errorf("last line %q, want \"N nodes N nps\"", lines[len(lines)-1])
		}
		nodes, nps, ok := clientBench(string(out))
		if !ok || nodes == 0 || nps == 0 || lines[len(lines)-1] != strconv.Itoa(nodes)+" nodes "+strconv.Itoa(nps)+" nps" {
			t.Fatalf("the client reads %d nodes, %d nps (%t) from the last line %q", nodes, nps, ok, lines[len(lines)-1])
		}
		counts[i] = nodes
	}
	if counts[0] != counts[1] {
		t.Errorf("bench nodes %d, then %d: OpenBench calls that non-deterministic", counts[0], counts[1])
	}
}

// clientGenfens runs the engine as OpenBench's client does for a datagen
// workload, ./engine "genfens N seed S book B " quit, and returns the FENs
// it reads: the rest of each line that begins "info string genfens ".
func clientGenfens(t *testing.T, n int, seed int, book string) []string {
	t.Helper()
	cmd := exec.Command(engineBin, "genfens "+strconv.Itoa(n)+" seed "+strconv.Itoa(seed)+" book "+book+" ", "quit")
	out, err := cmd.CombinedOutput() // the client reads both streams as one
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	var fens []string
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if strings.HasPrefix(l, "info string genfens ") {
			fens = append(fens, strings.TrimRight(strings.SplitN(l, "genfens ", 2)[1], " \t\r\n"))
		}
	}
	if len(fens) != n {
		t.Fatalf("%v: %d positions, want %d:\n%s", cmd.Args, len(fens), n, out)
	}
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		// The client turns each into EPD from its six fields.
		if err != nil || len(strings.Fields(fen)) != 6 || !p.HasLegalMove() {
			t.Errorf("%q: %v", fen, err)
		}
	}
	return fens
}

func TestGenfensAsOpenBenchRunsIt(t *testing.T) {
	a := clientGenfens(t, 16, 7, "None")
	if b := clientGenfens(t, 16, 7, "None"); !slices.Equal(a, b) {
		t.Errorf("seed 7 twice: other positions")
	}
	if c := clientGenfens(t, 16, 8, "None"); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8: the same positions")
	}
	// A book of one line, at move 20: every position comes from it.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "book.epd"), []byte("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - hmvc 4; fmvn 20;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fen := range clientGenfens(t, 4, 1, filepath.Join(dir, "book.epd")) {
		if f := strings.Fields(fen); f[5] != "21" {
			t.Errorf("%q: not two or three plies from the book's line at move 20", fen)
		}
	}
	// A book that cannot be read fails the run: one line on stderr, exit 1.
	code, stdout, stderr := exitCode(t, "genfens 4 seed 1 book "+filepath.Join(dir, "missing.epd"), "quit")
	if code != 1 || stdout != "" || stderr != "engine: genfens: book: open "+filepath.Join(dir, "missing.epd")+": no such file or directory\n" {
		t.Errorf("a missing book: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// The arguments are UCI commands, run in order, each to its end, then the
// engine exits; quit ends them early.
func TestCommandLineCommands(t *testing.T) {
	code, stdout, stderr := exitCode(t, "position startpos moves e2e4", "d", "go depth 3", "isready", "quit", "bench 2")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	board := strings.Index(stdout, "4P3")
	info := strings.Index(stdout, "info depth 3 ")
	best := strings.Index(stdout, "\nbestmove ")
	ready := strings.Index(stdout, "\nreadyok\n")
	if board < 0 || info < board || best < info || ready < best || strings.Contains(stdout, " nps\n") {
		t.Errorf("want the board, the search, bestmove, readyok in order and no bench after quit:\n%s", stdout)
	}
	// go softnodes is an end of its own.
	code, stdout, stderr = exitCode(t, "position startpos", "go softnodes 5000")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "\nbestmove ") {
		t.Errorf("go softnodes 5000: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	// An EvalFile set on the command line is the bench's network: the
	// option is answered before the bench, whose signature is the
	// network's own.
	net, err := filepath.Abs("../../engine/nnue/testdata/narrow.nnue")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = exitCode(t, "setoption name EvalFile value "+net, "bench 3", "quit")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "info string NNUE evaluation using "+net+",") {
		t.Fatalf("EvalFile then bench: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	other, _, _ := clientBench(stdout)
	_, def, _ := exitCode(t, "bench", "3")
	if nodes, _, _ := clientBench(def); nodes == other {
		t.Errorf("bench 3 with %s: %d nodes, the same as with the default network", net, other)
	}
	// The older form, bench and its depth as two arguments, is bench 3.
	if _, one, _ := exitCode(t, "bench 3"); strings.Split(one, "\n")[0] != strings.Split(def, "\n")[0] {
		t.Errorf("bench 3 as one argument and as two differ:\n%s\n%s", one, def)
	}
}

// make EXE=PATH (how OpenBench's client builds an engine) builds the
// engine alone into PATH with the flags of make build; EVALFILE embeds a
// network in place of the default one. A dry run is enough to show the
// command (docs/openbench.md builds one for real).
func TestMakeEXE(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dry := func(args ...string) string {
		cmd := exec.Command("make", append([]string{"-n", "-C", "../.."}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	build := dry("build")
	exe := dry("EXE=/tmp/x/chessforge-ob", "CXX=g++")
	flags := regexp.MustCompile(`GOEXPERIMENT=\S* \S+ build -buildvcs=auto -pgo=\S+`).FindString(build)
	if flags == "" || !strings.Contains(exe, flags+" -o /tmp/x/chessforge-ob ./cmd/engine") || strings.Contains(exe, "-overlay") {
		t.Errorf("make EXE= runs:\n%s\nwant the flags of make build (%q) into /tmp/x/chessforge-ob:\n%s", exe, flags, build)
	}
	if evalfile := dry("EXE=ob", "EVALFILE=/nets/x.nnue"); !strings.Contains(evalfile, "-overlay") || !strings.Contains(evalfile, "/nets/x.nnue") {
		t.Errorf("make EXE=ob EVALFILE=/nets/x.nnue runs:\n%s", evalfile)
	}
	if plain := dry(); plain != build {
		t.Errorf("make without EXE is not make build:\n%s\n%s", plain, build)
	}
}
