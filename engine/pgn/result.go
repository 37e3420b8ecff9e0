package pgn

import "chessforge/engine/board"

// The game termination markers of PGN: the result of a game.
const (
	WhiteWins  = "1-0"
	BlackWins  = "0-1"
	Draw       = "1/2-1/2"
	Unfinished = "*"
)

// Win returns the result of a game that colour c won.
func Win(c board.Color) string {
	if c == board.White {
		return WhiteWins
	}
	return BlackWins
}

// RuleResult returns the result and the termination of a game that the
// rules ended with outcome o, toMove being the side to move in the final
// position: a checkmate is lost by the side to move, and every other outcome
// (stalemate, threefold repetition, the fifty-move rule, insufficient
// material) is a draw. The termination is the outcome's name, o.String()
// ("checkmate", "threefold", ...), the name a dataset's termination column
// also uses. A game still in progress (board.Ongoing) is Unfinished.
func RuleResult(o board.Outcome, toMove board.Color) (result, termination string) {
	switch o {
	case board.Ongoing:
		return Unfinished, o.String()
	case board.Checkmate:
		return Win(toMove.Other()), o.String()
	}
	return Draw, o.String()
}

// Points returns White's points in a game with the given result: 1 for
// WhiteWins, 0 for BlackWins and 1/2 for a draw; ok is false for any other
// marker (an unfinished game).
func Points(result string) (white float32, ok bool) {
	switch result {
	case WhiteWins:
		return 1, true
	case BlackWins:
		return 0, true
	case Draw:
		return 0.5, true
	}
	return 0, false
}

// ResultOf returns the result of a finished game in which White scored
// white points: WhiteWins for 1, BlackWins for 0 and Draw otherwise.
func ResultOf(white float32) string {
	switch white {
	case 1:
		return WhiteWins
	case 0:
		return BlackWins
	}
	return Draw
}
