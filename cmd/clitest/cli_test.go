package clitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bin is the directory TestMain builds the commands into.
var bin string

// commands are the binaries under test.
var commands = []string{"selfplay", "dataset", "match", "tune", "loop", "nnue", "spsa"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clitest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, c := range commands {
		args = append(args, "chessforge/cmd/"+c)
	}
	build := exec.Command("go", args...)
	build.Stderr = os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the commands:", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBin runs a built command from the repository root (where loop finds
// configs/loop.json) and returns its exit status and outputs.
func runBin(t *testing.T, name string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = "../.."
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// prog is a command, with its subcommand for dataset.
type prog struct{ bin, sub string }

func (p prog) name() string { return strings.TrimSpace(p.bin + " " + p.sub) }

func (p prog) args(args ...string) []string {
	if p.sub == "" {
		return args
	}
	return append([]string{p.sub}, args...)
}

func progs() []prog {
	ps := []prog{{"selfplay", ""}, {"match", ""}, {"tune", ""}, {"loop", ""}, {"nnue", ""}, {"spsa", ""}}
	for _, sub := range []string{"info", "stats", "head", "verify", "split", "merge", "export", "import"} {
		ps = append(ps, prog{"dataset", sub})
	}
	return ps
}

func TestHelpPrintsTheUsageOnStdoutAndExitsZero(t *testing.T) {
	for _, p := range append(progs(), prog{"dataset", ""}) {
		for _, h := range []string{"-h", "-help", "--help"} {
			t.Run(p.name()+" "+h, func(t *testing.T) {
				code, stdout, stderr := runBin(t, p.bin, p.args(h)...)
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
				}
				if !strings.HasPrefix(stdout, "usage: "+p.name()) {
					t.Fatalf("stdout does not start with %q:\n%s", "usage: "+p.name(), stdout)
				}
				if p.name() != "dataset" && !strings.Contains(stdout, "\n  -") {
					t.Errorf("the usage lists no flags:\n%s", stdout)
				}
			})
		}
	}
	// dataset help COMMAND is dataset COMMAND -h.
	_, viaHelp, _ := runBin(t, "dataset", "help", "head")
	_, viaFlag, _ := runBin(t, "dataset", "head", "-h")
	if viaHelp != viaFlag || !strings.Contains(viaHelp, "-board") {
		t.Errorf("dataset help head:\n%s\ndataset head -h:\n%s", viaHelp, viaFlag)
	}
}

func TestUsageErrorsExitTwoWithOneLine(t *testing.T) {
	type tc struct {
		p    prog
		args []string
		want string // the line after "NAME: "
	}
	var cases []tc
	for _, p := range progs() {
		cases = append(cases, tc{p, []string{"-bogus"}, "-bogus: no such flag"})
		switch p.name() {
		case "loop":
			cases = append(cases, tc{p, []string{"-keep-if-undecided=maybe"}, "-keep-if-undecided=maybe: not true or false"})
		case "dataset head", "nnue":
		default:
			cases = append(cases, tc{p, []string{"-quiet=maybe"}, "-quiet=maybe: not true or false"})
		}
	}
	cases = append(cases,
		tc{prog{"selfplay", ""}, []string{"-nodes", "-1"}, "-nodes -1: not a whole number (0 or more)"},
		tc{prog{"selfplay", ""}, []string{"-games", "0"}, "-games 0: need at least one game"},
		tc{prog{"selfplay", ""}, []string{"-games"}, "-games: needs a value"},
		tc{prog{"selfplay", ""}, []string{"games=3"}, `unexpected argument "games=3" (settings are flags: -games N ...)`},
		tc{prog{"selfplay", ""}, []string{"-config", "no-such.json"}, "config: open no-such.json: no such file or directory"},
		tc{prog{"match", ""}, []string{"-games", "x"}, "-games x: not a whole number"},
		tc{prog{"match", ""}, []string{"-games", "0"}, "-games 0: must be positive"},
		tc{prog{"match", ""}, []string{"-tc", "fast"}, `-tc fast: time control "fast": want nodes=N, depth=N, movetime=MS or clock=SECONDS+INC`},
		tc{prog{"tune", ""}, []string{"-lambda", "x"}, "-lambda x: neither auto nor a number in [0, 1]"},
		tc{prog{"tune", ""}, []string{"-lambda", "2"}, "-lambda 2: not in [0, 1]"},
		tc{prog{"tune", ""}, []string{"-min-ply", "-1"}, "datasets: -min-ply -1: must not be negative (0: off)"},
		tc{prog{"loop", ""}, []string{"-work-dir="}, "work-dir must not be empty"},
		tc{prog{"loop", ""}, []string{"now"}, `unexpected arguments ["now"]`},
		tc{prog{"nnue", ""}, []string{"-python-env="}, "python-env must not be empty"},
		tc{prog{"nnue", ""}, []string{"now"}, `unexpected arguments ["now"]`},
		tc{prog{"spsa", ""}, []string{"-params", "LMRBase"}, "-state: name the run's state file"},
		tc{prog{"spsa", ""}, []string{"-params", "LMRBase", "-state", "x.json", "-pairs", "0"}, "-pairs 0: must be positive"},
		tc{prog{"spsa", ""}, []string{"-params", "Hash", "-state", "x.json"}, `-params: no search parameter "Hash" (bin/engine -params lists them)`},
		tc{prog{"spsa", ""}, []string{"-params", "LMRBase", "-state", "no-such.json", "-resume"}, "-resume: open no-such.json: no such file or directory"},
		tc{prog{"spsa", ""}, []string{"-params", "LMRBase", "-state", "README.md"}, "-state README.md: the file exists; -resume continues its run (or remove it to start again)"},
		tc{prog{"dataset", "info"}, nil, "want a dataset PATH"},
		tc{prog{"dataset", "head"}, []string{"-n", "0", "x.parquet"}, "-n 0: want at least 1 row"},
		tc{prog{"dataset", "stats"}, []string{"-min-ply", "x", "x.parquet"}, "-min-ply x: not a whole number"},
		tc{prog{"dataset", "merge"}, []string{"x.parquet"}, "-out FILE is required"},
		tc{prog{"dataset", ""}, []string{"inspect"}, `unknown command "inspect"`},
	)
	for _, c := range cases {
		t.Run(c.p.name()+" "+strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runBin(t, c.p.bin, c.p.args(c.args...)...)
			want := fmt.Sprintf("%s: %s\nrun '%s -h' for usage\n", c.p.name(), c.want, c.p.name())
			if code != 2 || stderr != want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 2, no stdout, stderr\n%s", code, stdout, stderr, want)
			}
		})
	}
	// A bare dataset lists the commands, on stderr, and exits 2.
	if code, stdout, stderr := runBin(t, "dataset"); code != 2 || stdout != "" || !strings.HasPrefix(stderr, "usage: dataset COMMAND") {
		t.Errorf("bare dataset: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestOutputPathsAreCheckedBeforeAnyWork(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		p    prog
		args []string
		want string
	}{
		{prog{"selfplay", ""}, []string{"-games", "1", "-nodes", "1", "-quiet", "-out", filepath.Join(missing, "x.parquet")},
			"selfplay: -out " + filepath.Join(missing, "x.parquet") + ": directory " + missing + " does not exist (create it first)\n"},
		{prog{"selfplay", ""}, []string{"-games", "1", "-nodes", "1", "-quiet", "-out", filepath.Join(dir, "x.parquet"), "-pgn", filepath.Join(missing, "x.pgn")},
			"selfplay: -pgn " + filepath.Join(missing, "x.pgn") + ": directory " + missing + " does not exist (create it first)\n"},
		{prog{"tune", ""}, []string{"-data", "x.parquet", "-out", filepath.Join(missing, "w.go")},
			"tune: -out " + filepath.Join(missing, "w.go") + ": directory " + missing + " does not exist (create it first)\n"},
		{prog{"spsa", ""}, []string{"-params", "LMRBase", "-state", filepath.Join(missing, "s.json")},
			"spsa: -state " + filepath.Join(missing, "s.json") + ": directory " + missing + " does not exist (create it first)\n"},
		{prog{"dataset", "import"}, []string{"x.plain", "-out", filepath.Join(missing, "x.parquet")},
			"dataset import: -out " + filepath.Join(missing, "x.parquet") + ": directory " + missing + " does not exist (create it first)\n"},
	} {
		t.Run(c.p.name(), func(t *testing.T) {
			code, stdout, stderr := runBin(t, c.p.bin, c.p.args(c.args...)...)
			if code != 1 || stderr != c.want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 1, no stdout, stderr\n%s", code, stdout, stderr, c.want)
			}
			if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was created", missing)
			}
		})
	}
}
