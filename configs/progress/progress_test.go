package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestNilBarDrawsNothing(t *testing.T) {
	b := New(nil, 10, "games", Style{EndLine: true})
	if b != nil {
		t.Fatal("New(nil writer) is not nil")
	}
	b.Set(3)
	b.Add(1)
	b.Describe("x")
	b.SetTotal(5)
	b.Finish()
	b.Exit()
}

func TestBarShowsCountDescriptionAndEndsItsLine(t *testing.T) {
	var w bytes.Buffer
	b := New(&w, 4, "rows", Style{Width: 10, Unit: "rows", EndLine: true})
	b.Add(2)
	b.Describe("reading")
	b.Set(4)
	b.Finish()
	out := w.String()
	if !strings.Contains(out, "4/4") || !strings.Contains(out, "reading") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("bar output %q", out)
	}
	w.Reset()
	b = New(&w, 4, "", Style{ClearOnFinish: true})
	b.Set(1)
	b.Finish()
	if strings.HasSuffix(w.String(), "\n") {
		t.Fatalf("a bar without EndLine ended its line: %q", w.String())
	}
}
