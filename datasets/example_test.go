package datasets_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
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

// A draughts file is written the same way, with the draughts layout in
// the options and SetDamaPosition; its readers take the layout from the
// file.
func Example_draughts() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "dama.parquet")

	w, err := datasets.Create(path, datasets.WriterOptions{
		Layout:        encoder.Dama,
		EngineVersion: "chessforge 0.1",
		Config:        []byte(`{"game":"dama","games":1,"seed":42}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	pos := dama.StartPosition()
	for _, text := range []string{"22-18", "9-13", "18x9"} {
		m, err := pos.ParseMove(text)
		if err != nil {
			log.Fatal(err)
		}
		var r datasets.Row
		if err := r.SetDamaPosition(pos, 0, m, m); err != nil {
			log.Fatal(err)
		}
		r.GameID, r.Result, r.Termination = 1, 0.5, datasets.TerminationPlyCap
		if err := w.Write(&r); err != nil {
			w.Abort()
			log.Fatal(err)
		}
		pos.MakeMove(m)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	rd, err := datasets.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Close()
	fmt.Println(rd.Layout())
	var r datasets.Row
	for rd.Read(&r) == nil {
		fmt.Printf("%d %-5s policy %5d capture %-5v %s\n", r.Ply, r.Move, r.Policy, r.BestIsCapture, r.FEN)
	}
	// Output:
	// dama (planes dama-7x8x8-v1, policy dama-200x8x8-v1)
	// 0 22-18 policy   211 capture false W:W21-32:B1-12
	// 1 9-13  policy   104 capture false B:W18,21,23-32:B1-12
	// 2 18x9  policy 11610 capture true  W:W18,21,23-32:B1-8,10-13
}
