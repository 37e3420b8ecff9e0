// Package clitest holds the test that builds every command of the project
// and checks how each answers a request for help and a wrong command line:
// -h and --help print the usage on standard output and exit 0; a mistake
// exits 2 with one line on standard error saying what was wrong and a
// hint to run -h (see package chessforge/configs, ParseFlags and Exit).
package clitest
