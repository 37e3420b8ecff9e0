package layers

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module path; package paths below are relative to it.
const module = "chessforge"

// layers are the module's layers, bottom up, each the top-level directories
// it holds. A package may import its own layer and the layers before it.
var layers = [][]string{
	{"internal"},
	{"engine"},
	{"encoder"},
	{"configs"},
	{"datasets"},
	{"selfplay"},
	{"tuner"},
	{"cmd", "docs"},
}

// unlinked names, for a command, packages it must not link, directly or
// through another package.
var unlinked = map[string][]string{
	// bin/dataset reads and writes datasets; the engine that played them
	// (its search and its embedded network) stays out of it.
	"cmd/dataset": {"engine/search", "engine/nnue", "selfplay"},
}

// pkg is what the rules read of a package (the fields of go list -json).
type pkg struct {
	ImportPath   string
	Name         string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// top returns a module path's top-level directory ("datasets" for
// "datasets/stats").
func top(path string) string {
	dir, _, _ := strings.Cut(path, "/")
	return dir
}

// rank returns the index in layers of the layer holding path, or -1.
func rank(path string) int {
	for i, dirs := range layers {
		if slices.Contains(dirs, top(path)) {
			return i
		}
	}
	return -1
}

// local returns the path relative to the module, and whether it is in it.
func local(path string) (string, bool) {
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest, true
	}
	return "", false
}

// check returns one line for each import that breaks the rules: a package
// in no layer, a library importing a layer above its own, any package
// outside cmd/ importing cmd/ (tests included), and a command linking a
// package named in unlinked.
func check(pkgs []pkg) []string {
	var bad []string
	byPath := map[string]*pkg{}
	for i := range pkgs {
		byPath[pkgs[i].ImportPath] = &pkgs[i]
	}
	for _, p := range pkgs {
		from, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		r := rank(from)
		if r < 0 && p.Name != "main" {
			bad = append(bad, fmt.Sprintf("%s: in no layer: give %s/ a layer in internal/layers", from, top(from)))
			continue
		}
		imports := func(list []string, what string) {
			for _, imp := range list {
				to, ok := local(imp)
				if !ok {
					continue
				}
				if top(to) == "cmd" && top(from) != "cmd" {
					bad = append(bad, fmt.Sprintf("%s%s imports %s: no package outside cmd imports cmd", from, what, to))
					continue
				}
				if what != "" || p.Name == "main" {
					continue // tests and commands may import any layer
				}
				if rt := rank(to); rt > r {
					bad = append(bad, fmt.Sprintf("%s imports %s: %s sits below %s", from, to, strings.Join(layers[r], ", "), strings.Join(layers[rt], ", ")))
				}
			}
		}
		imports(p.Imports, "")
		imports(p.TestImports, " (test)")
		imports(p.XTestImports, " (test)")
	}
	for _, cmd := range sortedKeys(unlinked) {
		deps := linked(byPath, module+"/"+cmd)
		for _, not := range unlinked[cmd] {
			if via, ok := deps[module+"/"+not]; ok {
				bad = append(bad, fmt.Sprintf("%s links %s (imported by %s): it must not", cmd, not, strings.TrimPrefix(via, module+"/")))
			}
		}
	}
	return bad
}

// linked returns every module package that root links, each mapped to a
// package that imports it.
func linked(byPath map[string]*pkg, root string) map[string]string {
	seen := map[string]string{}
	queue := []string{root}
	for len(queue) > 0 {
		p := byPath[queue[0]]
		queue = queue[1:]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, ok := seen[imp]; !ok && strings.HasPrefix(imp, module+"/") {
				seen[imp] = p.ImportPath
				queue = append(queue, imp)
			}
		}
	}
	return seen
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listModule reads the imports of every package of the module, as
// `go list chessforge/...` lists them: it walks the module from its root,
// two directories up, passing over what the go command ignores (testdata,
// names that begin with . or _, vendor, nested modules). It reads the
// files in the test's own process, not in a go list child, so that go
// test's cache sees each file and directory read, and a changed import
// runs the test again.
func listModule(t *testing.T) []pkg {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(mod), "\n"); strings.TrimSpace(first) != "module "+module {
		t.Fatalf("%s/go.mod:1: %q, want module %s", root, first, module)
	}
	var pkgs []pkg
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		bp, err := build.Default.ImportDir(path, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		p := pkg{ImportPath: module, Name: bp.Name, Imports: bp.Imports, TestImports: bp.TestImports, XTestImports: bp.XTestImports}
		if rel != "." {
			p.ImportPath += "/" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, p)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's packages: %v", err)
	}
	return pkgs
}

func TestImportsRunDownwards(t *testing.T) {
	pkgs := listModule(t)
	// The listing must hold the packages the rules are about, or the
	// check below would pass on nothing.
	for _, want := range []string{"engine/nnue", "datasets/stats", "selfplay", "cmd/dataset"} {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.ImportPath == module+"/"+want }) {
			t.Fatalf("%s/%s is not among the %d packages read", module, want, len(pkgs))
		}
	}
	for _, line := range check(pkgs) {
		t.Error(line)
	}
}

func TestCheckNamesEachBrokenRule(t *testing.T) {
	lib := func(path string, imports ...string) pkg {
		p := pkg{ImportPath: module + "/" + path, Name: path[strings.LastIndex(path, "/")+1:]}
		for _, imp := range imports {
			p.Imports = append(p.Imports, module+"/"+imp)
		}
		return p
	}
	withTest := func(p pkg, imports ...string) pkg {
		for _, imp := range imports {
			p.XTestImports = append(p.XTestImports, module+"/"+imp)
		}
		return p
	}
	main := func(p pkg) pkg { p.Name = "main"; return p }
	for _, c := range []struct {
		name string
		pkgs []pkg
		want []string
	}{
		{"downwards and sideways", []pkg{
			lib("engine/search", "engine/board", "internal/atomicfile"),
			lib("datasets/stats", "datasets", "datasets/jobs", "encoder", "engine/board"),
			lib("tuner/spsa", "selfplay/match", "configs"),
			lib("cmd/loop", "tuner", "cmd/internal/stage"),
			lib("docs", "selfplay"),
		}, nil},
		{"upwards", []pkg{
			lib("datasets/stats", "datasets", "selfplay"),
			lib("engine/uci", "engine/search", "configs"),
		}, []string{
			"datasets/stats imports selfplay: datasets sits below selfplay",
			"engine/uci imports configs: engine sits below configs",
		}},
		{"into cmd", []pkg{
			lib("selfplay/match", "cmd/clitest"),
			withTest(lib("tuner"), "cmd/clitest"),
			main(lib("datasets/internal/gendata", "cmd/clitest")),
		}, []string{
			"selfplay/match imports cmd/clitest: no package outside cmd imports cmd",
			"tuner (test) imports cmd/clitest: no package outside cmd imports cmd",
			"datasets/internal/gendata imports cmd/clitest: no package outside cmd imports cmd",
		}},
		{"tests and commands reach up", []pkg{
			withTest(lib("configs"), "selfplay"),
			main(lib("datasets/internal/gendata", "selfplay")),
		}, nil},
		{"a library in no layer", []pkg{lib("history", "internal/record"), main(lib("scratch/try", "selfplay"))},
			[]string{"history: in no layer: give history/ a layer in internal/layers"}},
		{"a command linking what it must not", []pkg{
			lib("cmd/dataset", "datasets/stats"),
			lib("datasets/stats", "datasets/jobs"),
			lib("datasets/jobs", "engine/nnue"),
			lib("engine/nnue", "engine/board"),
		}, []string{
			// datasets may import the engine; only the link breaks a rule.
			"cmd/dataset links engine/nnue (imported by datasets/jobs): it must not",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := check(c.pkgs)
			if !slices.Equal(got, c.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
