// Package eval is the engine's static evaluation: a tapered, hand-crafted
// evaluation whose every weight is data, generated into weights_gen.go.
package eval

//go:generate go run ./evalgen/cmd/evalgen -out weights_gen.go
