// Package corpus holds the project's self-play kept across machines: each
// file an xz-compressed Stockfish binpack named after the record of the
// self-play that made it, listed with its SHA-256 in SHA256SUMS.
// `make corpus` restores them as datasets and NumPy exports under
// data/corpus (docs/training.md, "The corpus").
package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/internal/record"
)

// suffix ends every corpus file's name.
const suffix = ".binpack.xz"

// xzMagic opens every xz stream.
var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

// sums reads SHA256SUMS (sha256sum's format: 64 hex digits, two spaces, a
// name) into name → digest, failing on a malformed or repeated line.
func sums(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		digest, name, ok := strings.Cut(sc.Text(), "  ")
		if _, err := hex.DecodeString(digest); !ok || err != nil || len(digest) != 64 {
			t.Fatalf("SHA256SUMS:%d: want 64 hex digits, two spaces and a file name, got %q", n, sc.Text())
		}
		if _, dup := got[name]; dup {
			t.Fatalf("SHA256SUMS:%d: %s is listed twice", n, name)
		}
		got[name] = digest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFilesMatchTheirSums checks that SHA256SUMS lists every corpus file and
// nothing else, and that each file is an xz stream with the digest listed.
func TestFilesMatchTheirSums(t *testing.T) {
	listed := sums(t)
	files, err := filepath.Glob("*" + suffix)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		want, ok := listed[name]
		if !ok {
			t.Errorf("%s: not in SHA256SUMS (sha256sum %s >> SHA256SUMS)", name, name)
			continue
		}
		delete(listed, name)
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, len(xzMagic))
		if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, xzMagic) {
			t.Errorf("%s: not an xz stream", name)
		}
		h := sha256.New()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(h, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%s: SHA-256 %s, SHA256SUMS says %s", name, got, want)
		}
	}
	for name := range listed {
		t.Errorf("SHA256SUMS lists %s, which is not here", name)
	}
}

// TestFilesHaveTheirRecords checks that each corpus file is named after a
// self-play record of docs/history, which says how its games were played.
func TestFilesHaveTheirRecords(t *testing.T) {
	recs, err := record.ReadDir(filepath.Join("..", "..", "docs", "history"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]record.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for name := range sums(t) {
		if !strings.HasSuffix(name, suffix) {
			t.Errorf("SHA256SUMS: %s does not end in %s", name, suffix)
			continue
		}
		id := strings.TrimSuffix(name, suffix)
		r, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("%s: no record %q in docs/history", name, id)
		case r.Kind != "bench" || r.Subject != "selfplay":
			t.Errorf("%s: record %q is a %s of %q, want a bench record of subject selfplay", name, id, r.Kind, r.Subject)
		case r.Command == "" || r.Figures["games"] <= 0 || r.Figures["positions"] <= 0:
			t.Errorf("%s: record %q lacks the command or the games and positions figures", name, id)
		}
	}
}
