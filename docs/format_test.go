// Package docs holds the repository's user documentation; its test checks
// that format.md, the dataset format, agrees with the code that writes
// datasets (chess and draughts), so that the page cannot drift from the
// files silently.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
	"chessforge/selfplay"
)

// page reads format.md, the file datasets.FormatDoc names (relative to the
// repository root, one directory up).
func page(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(datasets.FormatDoc)))
	if err != nil {
		t.Fatalf("the page datasets.FormatDoc names: %v", err)
	}
	return string(b)
}

// tableRows returns the cells of the Markdown table rows whose first cell is
// first, trimmed.
func tableRows(doc, first string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == first {
			rows = append(rows, cells)
		}
	}
	return rows
}

// arrowType is how the page writes an Arrow type: its name, and for a
// fixed-size list fixed_size_list<element type>[length].
func arrowType(dt arrow.DataType) string {
	if l, ok := dt.(*arrow.FixedSizeListType); ok {
		return fmt.Sprintf("fixed_size_list<%s>[%d]", l.Elem(), l.Len())
	}
	return dt.String()
}

// TestPageListsEveryColumn checks that every column the writer writes has a
// row in a table of the page, with its Arrow type.
func TestPageListsEveryColumn(t *testing.T) {
	doc := page(t)
	for _, f := range datasets.Schema().Fields() {
		rows := tableRows(doc, "`"+f.Name+"`")
		if len(rows) != 1 {
			t.Errorf("column %s: %d table rows on the page, want 1", f.Name, len(rows))
			continue
		}
		if got, want := rows[0][1], arrowType(f.Type); len(rows[0]) < 3 || got != want {
			t.Errorf("column %s: the page says type %q, the writer writes %q", f.Name, got, want)
		}
	}
}

// TestPageListsEveryMetadataKey checks that every metadata key the writer
// and self-play write has a row in the page's metadata table.
func TestPageListsEveryMetadataKey(t *testing.T) {
	doc := page(t)
	keys := append(datasets.WriterKeys(), selfplay.KeyShard, selfplay.KeyGames, selfplay.KeyEval, selfplay.KeyNetwork,
		selfplay.KeyEngine, selfplay.KeyEngineCommand)
	for _, k := range keys {
		if len(tableRows(doc, "`"+k+"`")) == 0 {
			t.Errorf("metadata key %s has no table row on the page", k)
		}
	}
}

// TestPageVersions checks that the version strings on the page are the ones
// the writer writes: every row of the metadata tables gives the code's
// value, every layout string on the page is a current one, and each
// version's section has its anchor.
func TestPageVersions(t *testing.T) {
	doc := page(t)
	versions := map[string]string{
		datasets.KeySchemaVersion: datasets.SchemaVersion,
		datasets.KeyPlanes:        encoder.PlanesVersion,
		datasets.KeyPolicy:        encoder.PolicyVersion,
		datasets.KeyFormat:        datasets.FormatDoc,
	}
	for k, v := range versions {
		rows := tableRows(doc, "`"+k+"`")
		if len(rows) == 0 {
			t.Errorf("%s: no table row on the page", k)
		}
		for _, r := range rows {
			if len(r) < 2 || !strings.HasPrefix(r[1], "`"+v+"`") {
				t.Errorf("%s: the page says %q, the writer writes %q", k, r[1], v)
			}
		}
	}
	var known []string
	anchors := []string{"schema-version-" + datasets.SchemaVersion}
	for _, l := range encoder.Layouts() {
		known = append(known, l.Planes, l.Policy)
		anchors = append(anchors, "planes-"+l.Planes, "policy-"+l.Policy)
	}
	var games []string
	for _, g := range encoder.Games() {
		if g != encoder.GameChess {
			games = append(games, regexp.QuoteMeta(g))
		}
	}
	layouts := regexp.MustCompile(`\b(?:(?:`+strings.Join(games, "|")+`)-)?\d+x\d+x\d+-v\d+\b`).FindAllString(doc, -1)
	for _, l := range layouts {
		if !slices.Contains(known, l) {
			t.Errorf("the page names layout %s, the code has %v", l, known)
		}
	}
	for _, v := range known {
		if !slices.Contains(layouts, v) {
			t.Errorf("the page never names layout %s", v)
		}
	}
	for _, anchor := range anchors {
		if !strings.Contains(doc, `<a id="`+anchor+`"></a>`) {
			t.Errorf("no anchor %s on the page", anchor)
		}
	}
	// Every row of chessforge.game names the draughts game and says chess
	// files have no key.
	for _, r := range tableRows(doc, "`"+datasets.KeyGame+"`") {
		if !strings.Contains(r[1], "`"+encoder.GameDama+"`") || !strings.Contains(r[1], "chess") {
			t.Errorf("%s: the page says %q", datasets.KeyGame, r[1])
		}
	}
}

// TestPageDraughtsPlanes checks what §1d says of the grid and the planes
// against the encoder: the corner squares, the plane count and names, and
// the quiet plane's divisor.
func TestPageDraughtsPlanes(t *testing.T) {
	doc := page(t)
	for _, c := range []struct {
		text string
		n    int
		r, f int
	}{{"square 1 is\na8 (r = 7, f = 0)", 1, 7, 0}, {"29 is b1 (r = 0, f = 1)", 29, 0, 1}, {"32 is h1 (r = 0, f = 7)", 32, 0, 7}} {
		if !strings.Contains(doc, strings.ReplaceAll(c.text, "\\n", "\n")) {
			t.Errorf("the page does not say %q", c.text)
		}
		if g := encoder.DamaSquare(dama.SquareAt(c.n)); g != c.r*8+c.f {
			t.Errorf("square %d: the encoder puts it at r=%d f=%d, the page at r=%d f=%d", c.n, g/8, g%8, c.r, c.f)
		}
	}
	l := encoder.Dama
	start := strings.Index(doc, `<a id="planes-`+l.Planes+`"></a>`)
	end := strings.Index(doc, `<a id="policy-`+l.Policy+`"></a>`)
	if start < 0 || end < start {
		t.Fatalf("no §1d section between the anchors planes-%s and policy-%s", l.Planes, l.Policy)
	}
	section := doc[start:end]
	for p, name := range l.PlaneNames {
		found := false
		for _, line := range strings.Split(section, "\n") {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) < 2 || !strings.HasPrefix(line, "|") {
				continue
			}
			planes := strings.Split(strings.TrimSpace(cells[0]), ", ")
			found = found || slices.Contains(planes, strconv.Itoa(p)) && strings.Contains(strings.ToLower(cells[1]), name)
		}
		if !found {
			t.Errorf("plane %d (%s): no row of the §1d table names it", p, name)
		}
	}
	if want := fmt.Sprintf("/ %d, 1.0)", l.ClockDivisor); !strings.Contains(doc, want) {
		t.Errorf("the page does not give the quiet plane as %q", want)
	}
}

// TestPageDraughtsPolicyExamples checks §2d's examples against
// encoder.DamaPolicyIndex, each move parsed in its position.
func TestPageDraughtsPolicyExamples(t *testing.T) {
	doc := page(t)
	n := 0
	for _, line := range strings.Split(doc, "\n") {
		m := regexp.MustCompile("^\\| `(\\d+[-x][\\dx]+)` \\| `([WB]:[^`]+)` \\| (\\d+) \\| (\\d+) .*\\| (\\d+) \\|$").FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		pos, err := dama.ParseFEN(m[2])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		mv, err := pos.ParseMove(m[1])
		if err != nil || mv.String() != m[1] {
			t.Fatalf("%s: move %v, %v", line, mv, err)
		}
		got, err := encoder.DamaPolicyIndex(mv)
		if err != nil {
			t.Fatal(err)
		}
		from, _ := strconv.Atoi(m[3])
		typ, _ := strconv.Atoi(m[4])
		policy, _ := strconv.Atoi(m[5])
		if got != policy || got%64 != from || got/64 != typ {
			t.Errorf("%s: the page says from %d type %d policy %d; encoder.DamaPolicyIndex gives %d (from %d, type %d)",
				line, from, typ, policy, got, got%64, got/64)
		}
	}
	if n < 6 {
		t.Errorf("%d draughts policy examples found on the page, want at least 6", n)
	}
}

// TestPagePolicyExamples checks the page's policy index examples against
// encoder.PolicyIndex.
func TestPagePolicyExamples(t *testing.T) {
	doc := page(t)
	n := 0
	for _, line := range strings.Split(doc, "\n") {
		m := regexp.MustCompile("^\\| `([a-h][1-8])([a-h][1-8])([nbrq]?)` \\| (\\d+) \\| (\\d+) .*\\| (\\d+) \\|$").FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		from, _ := board.ParseSquare(m[1])
		to, _ := board.ParseSquare(m[2])
		mv := board.NewMove(from, to)
		if m[3] != "" {
			mv = board.NewPromotion(from, to, board.PieceType(strings.Index("nbrq", m[3])+int(board.Knight)))
		}
		got, err := encoder.PolicyIndex(mv)
		if err != nil {
			t.Fatal(err)
		}
		fromSq, _ := strconv.Atoi(m[4])
		typ, _ := strconv.Atoi(m[5])
		policy, _ := strconv.Atoi(m[6])
		if got != policy || got%64 != fromSq || got/64 != typ || fromSq != int(from) {
			t.Errorf("%s: the page says from %d type %d policy %d; encoder.PolicyIndex gives %d (from %d, type %d)",
				line, fromSq, typ, policy, got, got%64, got/64)
		}
	}
	if n < 4 {
		t.Errorf("%d policy examples found on the page, want at least 4", n)
	}
}
