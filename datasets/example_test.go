package datasets_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"chessforge/datasets"
	"chessforge/engine/board"
)

// A self-play worker fills one Row per position as the game goes, keeps the
// game's rows until it ends, then sets the result and termination and writes
// them in order.
func Example_write() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "part-000.parquet")

	w, err := datasets.Create(path, datasets.WriterOptions{
		EngineVersion: "chessforge 0.1",
		Config:        []byte(`{"games":1,"nodes":5000,"seed":42}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	pos := board.NewPosition()
	var rows []datasets.Row
	for _, uci := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		m, _ := pos.ParseUCIMove(uci)
		var r datasets.Row
		if err := r.SetPosition(pos, 0, m, m); err != nil { // played and best move
			log.Fatal(err)
		}
		r.GameID, r.ScoreCP, r.Depth, r.Nodes = 1, 0, 8, 5000
		rows = append(rows, r)
		pos.MakeMove(m)
	}
	for i := range rows { // the game is over: Black mated
		rows[i].Result, rows[i].Termination = 0, datasets.TerminationCheckmate
		if err := w.Write(&rows[i]); err != nil {
			w.Abort()
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // renames part-000.parquet.tmp to part-000.parquet
		log.Fatal(err)
	}

	// Reading back: a file, a directory of shards or a glob.
	rd, err := datasets.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Close()
	var r datasets.Row
	for {
		if err := rd.Read(&r); err == io.EOF {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d %-5s policy %4d result %.1f %s, white to move %v\n",
			r.Ply, r.Move, r.Policy, r.Result, r.Termination, r.Planes.At(13, 0, 0) == 1)
	}
	// Output:
	// 0 f2f3  policy   13 result 0.0 checkmate, white to move true
	// 1 e7e5  policy 1908 result 0.0 checkmate, white to move false
	// 2 g2g4  policy   78 result 0.0 checkmate, white to move true
	// 3 d8h4  policy 1595 result 0.0 checkmate, white to move false
}
