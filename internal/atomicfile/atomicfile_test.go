package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesTheTargetAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old contents, longer than the new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "new" {
		t.Errorf("contents %q, want %q", got, "new")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after the write, want only out.txt", len(entries))
	}
}

func TestWriteFileFailsWithoutTouchingTheTarget(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the rename fails.
	path := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a non-empty directory: no error")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "taken" || !entries[0].IsDir() {
		t.Errorf("after a failed write the directory holds %v, want the untouched target only", entries)
	}
	// A missing directory is an error naming the target.
	missing := filepath.Join(dir, "no", "such", "file")
	if err := WriteFile(missing, []byte("x"), 0o644); err == nil {
		t.Error("writing into a missing directory: no error")
	}
}

func TestConcurrentWritersUseDistinctTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	done := make(chan error)
	for i := range 8 {
		go func() { done <- WriteFile(path, []byte{byte('a' + i)}, 0o644) }()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] < 'a' || got[0] > 'h' {
		t.Errorf("contents %q, want one writer's byte whole", got)
	}
}
