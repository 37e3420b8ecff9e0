package stage

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

func TestStartQuotesArgumentsWithSpaces(t *testing.T) {
	var b bytes.Buffer
	Start(&b, "match", []string{"bin/match", "-a-opt", "Use NNUE=true"})
	if !strings.HasSuffix(b.String(), " match: bin/match -a-opt 'Use NNUE=true'\n") {
		t.Errorf("header %q", b.String())
	}
}

func TestRunEchoesAndReportsTheExitStatus(t *testing.T) {
	var out bytes.Buffer
	if err := Run("say", &out, io.Discard, "sh", "-c", "echo hello"); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, " say: sh -c 'echo hello'\nhello\n== say: done in ") {
		t.Errorf("output %q", s)
	}
	err := Run("fail", io.Discard, io.Discard, "sh", "-c", "exit 3")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.HasPrefix(err.Error(), "fail failed: ") {
		t.Errorf("error %v, want the command's exit status 3", err)
	}
}
