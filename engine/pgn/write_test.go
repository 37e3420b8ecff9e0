package pgn

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"chessforge/engine/board"
)

func mustMoves(t *testing.T, fen string, uci ...string) []board.Move {
	t.Helper()
	g := Game{FEN: fen}
	pos, err := g.Start()
	if err != nil {
		t.Fatal(err)
	}
	var out []board.Move
	for _, s := range uci {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		pos.MakeMove(m)
	}
	return out
}

func TestWriteExportFormat(t *testing.T) {
	tests := []struct {
		name string
		game Game
		want string
	}{
		{
			name: "roster defaults, tags in name order, result from the game",
			game: Game{
				Tags:   map[string]string{"White": "A", "Black": "B", "Round": "3", "PlyCount": "3", "Opening": `Ruy "Spanish" \ Lopez`, "GameId": "7"},
				Moves:  mustMoves(t, "", "e2e4", "e7e5", "g1f3"),
				Result: "1-0",
			},
			want: `[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "3"]
[White "A"]
[Black "B"]
[Result "1-0"]
[GameId "7"]
[Opening "Ruy \"Spanish\" \\ Lopez"]
[PlyCount "3"]

1. e4 e5 2. Nf3 1-0

`,
		},
		{
			name: "Black first from a set-up position, comments, final comment",
			game: Game{
				Tags:         map[string]string{"Event": "e", "Result": "0-1", "FEN": "ignored", "SetUp": "0"},
				FEN:          "4k3/8/8/8/8/8/4P3/4K3 b - - 3 41",
				Moves:        mustMoves(t, "4k3/8/8/8/8/8/4P3/4K3 b - - 3 41", "e8d7", "e2e4", "d7d6", "e4e5"),
				Comments:     []string{"book", "", "+0.10/5 {x}"},
				FinalComment: "adjudicated",
			},
			want: `[Event "e"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "0-1"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 3 41"]

41... Kd7 {book} 42. e4 Kd6 {+0.10/5 {x)} 43. e5+ {adjudicated} 0-1

`,
		},
		{
			name: "no result anywhere, standard FEN given",
			game: Game{FEN: board.StartFEN},
			want: "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n*\n\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, &tc.game); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestWriteRejectsAnIllegalMove(t *testing.T) {
	g := Game{Moves: mustMoves(t, "", "e2e4", "e7e5")}
	g.Moves = append(g.Moves, g.Moves[0]) // e2e4 again
	var b bytes.Buffer
	if err := Write(&b, &g); err == nil || !strings.Contains(err.Error(), "move 3 (e2e4) is not legal") {
		t.Fatalf("error %v, want one naming move 3", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes for a bad game", b.Len())
	}
}

// Random games, some from set-up positions with Black to move and some
// with comments, written and read back, give the same tags, start, moves
// and result, and no line is longer than 79 columns.
func TestWriteReadsBackAndWrapsAt79Columns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	starts := []string{"", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 17", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"}
	var buf bytes.Buffer
	var games []Game
	var list board.MoveList
	for i := range 30 {
		g := Game{FEN: starts[i%len(starts)], Result: []string{"1-0", "0-1", "1/2-1/2", "*"}[i%4],
			Tags: map[string]string{"Round": string(rune('1' + i%9)), "Annotator": "x]y"}}
		pos, _ := g.Start()
		for range rng.IntN(150) {
			pos.GenerateLegal(&list)
			if list.N == 0 {
				break
			}
			m := list.Moves[rng.IntN(list.N)]
			g.Moves = append(g.Moves, m)
			if i%2 == 1 {
				g.Comments = append(g.Comments, []string{"", "a comment", "+1.25/12 0.5s"}[rng.IntN(3)])
			}
			pos.MakeMove(m)
		}
		if err := Write(&buf, &g); err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	for line := range strings.Lines(buf.String()) {
		if len(strings.TrimSuffix(line, "\n")) > 79 {
			t.Fatalf("line longer than 79 columns: %q", line)
		}
	}
	back, err := ReadGames(&buf, "w.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(games) {
		t.Fatalf("read %d games, wrote %d", len(back), len(games))
	}
	for i, g := range games {
		r := back[i]
		if r.FEN != g.FEN || r.Result != g.Result || !slices.Equal(r.Moves, g.Moves) ||
			r.Tags["Round"] != g.Tags["Round"] || r.Tags["Annotator"] != "x]y" || r.Tags["Result"] != g.Result {
			t.Fatalf("game %d does not read back: wrote %+v, read %+v", i, g, r)
		}
	}
}
