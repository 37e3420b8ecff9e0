package stage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckBinariesFindsProgramsOlderThanTheirSources: a program built
// before a source changed is stale; tests, test data, hidden directories,
// data, and networks or profiles away from Go files do not make it so; a
// missing program is named.
func TestCheckBinariesFindsProgramsOlderThanTheirSources(t *testing.T) {
	root := t.TempDir()
	base := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	put := func(rel string, at time.Time) string {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	put("go.mod", base)
	put("engine/search/search.go", base.Add(time.Minute))
	put("engine/nnue/nnue.go", base)
	put("cmd/engine/main.go", base)
	engine := put("bin/engine", base.Add(2*time.Minute))
	if err := CheckBinaries(root, engine); err != nil {
		t.Fatalf("a program built after its sources: %v", err)
	}
	// Changes that do not go into the program.
	for _, rel := range []string{"engine/search/search_test.go", "engine/nnue/testdata/narrow.nnue", ".git/HEAD.go",
		"data/cycle/next.nnue", "bin/other.go", "README.md", "net.nnue", "cmd/engine/old/profile.pgo"} {
		put(rel, base.Add(time.Hour))
	}
	if err := CheckBinaries(root, engine); err != nil {
		t.Fatalf("tests, test data, hidden directories, data and docs made the program stale: %v", err)
	}
	// An experiment undone after the build: the source is newer.
	src := put("engine/search/search.go", base.Add(3*time.Minute))
	err := CheckBinaries(root, engine)
	local := func(d time.Duration) string { return base.Add(d).Local().Format(time.DateTime) } // as the message gives it
	if err == nil || !strings.Contains(err.Error(), engine+" (built "+local(2*time.Minute)) ||
		!strings.Contains(err.Error(), src+" (changed "+local(3*time.Minute)) || !strings.Contains(err.Error(), "run make build") {
		t.Errorf("a source changed after the build: %v", err)
	}
	for _, rel := range []string{"engine/nnue/default.nnue", "cmd/engine/default.pgo", "go.sum"} {
		put("engine/search/search.go", base)
		p := put(rel, base.Add(4*time.Minute))
		if err := CheckBinaries(root, engine); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s changed after the build: %v", rel, err)
		}
		put(rel, base)
	}
	if err := CheckBinaries(root, engine, filepath.Join(root, "bin/selfplay")); err == nil || !strings.Contains(err.Error(), "bin/selfplay is missing") {
		t.Errorf("a missing program: %v", err)
	}
}
