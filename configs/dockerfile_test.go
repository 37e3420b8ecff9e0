package configs_test

// The Dockerfile at the repository root, checked without a Docker engine:
// its instructions are parsed, the files it copies from the build context
// are looked up with .dockerignore applied, and (outside -short) its build
// stage runs here in a copy of the context, as Docker would run it.

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// root is the repository root, the Docker build context.
const root = ".."

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	Cmd  string   // upper case: FROM, COPY, RUN, ...
	Args string   // the rest of the line
	Line int      // where it starts
	Opts []string // --flags of COPY
}

// stage is one FROM and the instructions after it.
type stage struct {
	Name, Base string
	Instr      []instruction
}

// dockerfile is a parsed Dockerfile.
type dockerfile struct {
	Stages []stage
	Text   string
}

// parseDockerfile reads the Dockerfile's stages. It knows the instructions
// this repository's Dockerfile uses and fails on others, so that a new
// instruction is checked by a test that understands it.
func parseDockerfile(path string) (*dockerfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	df := &dockerfile{Text: string(data)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var cur strings.Builder
	start, n := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		cur.Reset()
		in := instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args), Line: start}
		for in.Cmd == "COPY" && strings.HasPrefix(in.Args, "--") {
			opt, rest, _ := strings.Cut(in.Args, " ")
			in.Opts = append(in.Opts, opt)
			in.Args = strings.TrimSpace(rest)
		}
		switch in.Cmd {
		case "FROM":
			f := strings.Fields(in.Args)
			st := stage{Base: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.Name = f[2]
			} else if len(f) != 1 {
				return nil, fmt.Errorf("%s:%d: FROM %s: want IMAGE [AS NAME]", path, start, in.Args)
			}
			df.Stages = append(df.Stages, st)
			continue
		case "WORKDIR", "COPY", "RUN", "ENV", "CMD", "ENTRYPOINT", "LABEL", "USER":
		default:
			return nil, fmt.Errorf("%s:%d: instruction %s: this test does not know it", path, start, in.Cmd)
		}
		if len(df.Stages) == 0 {
			return nil, fmt.Errorf("%s:%d: %s before FROM", path, start, in.Cmd)
		}
		st := &df.Stages[len(df.Stages)-1]
		st.Instr = append(st.Instr, in)
	}
	if cur.Len() > 0 {
		return nil, fmt.Errorf("%s: ends in a continuation line", path)
	}
	return df, sc.Err()
}

// workdir returns the stage's working directory after its instructions
// (Docker's default is /).
func (s *stage) workdir() string {
	wd := "/"
	for _, in := range s.Instr {
		if in.Cmd == "WORKDIR" {
			wd = path.Join(wd, in.Args)
		}
	}
	return wd
}

// copySpec is a COPY instruction's sources and destination, the
// destination absolute.
type copySpec struct {
	From string // the stage copied from; "" for the build context
	Srcs []string
	Dst  string
	Line int
}

// copies returns the stage's COPY instructions, destinations resolved
// against the working directory at each.
func (s *stage) copies() ([]copySpec, error) {
	var out []copySpec
	wd := "/"
	for _, in := range s.Instr {
		switch in.Cmd {
		case "WORKDIR":
			wd = path.Join(wd, in.Args)
		case "COPY":
			if strings.HasPrefix(in.Args, "[") {
				return nil, fmt.Errorf("Dockerfile:%d: COPY in JSON form: this test reads the plain form", in.Line)
			}
			f := strings.Fields(in.Args)
			if len(f) < 2 {
				return nil, fmt.Errorf("Dockerfile:%d: COPY needs a source and a destination", in.Line)
			}
			c := copySpec{Srcs: f[:len(f)-1], Dst: f[len(f)-1], Line: in.Line}
			if !path.IsAbs(c.Dst) {
				dir := strings.HasSuffix(c.Dst, "/") || c.Dst == "."
				c.Dst = path.Join(wd, c.Dst)
				if dir {
					c.Dst += "/"
				}
			}
			for _, o := range in.Opts {
				if from, ok := strings.CutPrefix(o, "--from="); ok {
					c.From = from
				} else {
					return nil, fmt.Errorf("Dockerfile:%d: COPY option %s: this test does not know it", in.Line, o)
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// dockerignore is the build context's exclusion patterns.
type dockerignore []string

// readDockerignore reads .dockerignore; it fails on the forms this test does
// not implement (exceptions with "!").
func readDockerignore(name string) (dockerignore, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var pats dockerignore
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			return nil, fmt.Errorf("%s:%d: exception patterns are not implemented by this test", name, i+1)
		}
		p := path.Clean(strings.TrimPrefix(line, "/"))
		if _, err := filepath.Match(strings.ReplaceAll(p, "**/", ""), ""); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %v", name, i+1, line, err)
		}
		pats = append(pats, p)
	}
	return pats, nil
}

// excluded reports whether the context path rel (slash-separated) or a
// directory above it matches a pattern. "**/" at a pattern's start matches
// any number of leading directories, as in Docker.
func (d dockerignore) excluded(rel string) bool {
	for p := rel; p != "." && p != "/"; p = path.Dir(p) {
		for _, pat := range d {
			if ok, _ := path.Match(pat, p); ok {
				return true
			}
			if tail, ok := strings.CutPrefix(pat, "**/"); ok {
				parts := strings.Split(p, "/")
				for i := range parts {
					if ok, _ := path.Match(tail, strings.Join(parts[i:], "/")); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// contextFiles returns the regular files of the build context under the
// context path rel ("." for all), .dockerignore applied.
func contextFiles(ign dockerignore, rel string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, rel), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		if r != "." && ign.excluded(r) {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Type().IsRegular() {
			files = append(files, r)
		}
		return nil
	})
	return files, err
}

// imageTags returns the image names that `docker build -t NAME` lines in
// text give.
func imageTags(text string) []string {
	var tags []string
	for _, m := range regexp.MustCompile(`docker build\b.*?\s-t\s+(\S+)`).FindAllStringSubmatch(text, -1) {
		tags = append(tags, m[1])
	}
	return tags
}

// loadImage parses the Dockerfile and .dockerignore and checks what needs
// no build: the documented tag, the stages' names, every source copied from
// the context present and sent.
func loadImage(t *testing.T) (*dockerfile, dockerignore) {
	t.Helper()
	df, err := parseDockerfile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	ign, err := readDockerignore(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	if tags := imageTags(df.Text); len(tags) != 1 {
		t.Fatalf("Dockerfile: its header should document one `docker build -t NAME .`, found %q", tags)
	}
	names := map[string]bool{}
	for _, st := range df.Stages {
		cs, err := st.copies()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.From != "" {
				if !names[c.From] {
					t.Errorf("Dockerfile:%d: COPY --from=%s: no earlier stage of that name", c.Line, c.From)
				}
				continue
			}
			for _, src := range c.Srcs {
				rel := path.Clean(src)
				if path.IsAbs(rel) || strings.HasPrefix(rel, "..") {
					t.Errorf("Dockerfile:%d: COPY %s: outside the build context", c.Line, src)
					continue
				}
				if rel != "." && ign.excluded(rel) {
					t.Errorf("Dockerfile:%d: COPY %s: .dockerignore leaves it out of the build context", c.Line, src)
					continue
				}
				files, err := contextFiles(ign, rel)
				if err != nil || len(files) == 0 {
					t.Errorf("Dockerfile:%d: COPY %s: nothing to copy in the repository (%v)", c.Line, src, err)
				}
			}
		}
		if st.Name != "" {
			names[st.Name] = true
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return df, ign
}

// imageFile resolves an absolute path in the final image to where the file
// comes from: the build context (stage "") or a path in an earlier stage.
func imageFile(df *dockerfile, p string) (from, src string, ok bool) {
	final := df.Stages[len(df.Stages)-1]
	cs, _ := final.copies()
	for _, c := range slices.Backward(cs) { // a later COPY overwrites an earlier one
		dst := strings.TrimSuffix(c.Dst, "/")
		if len(c.Srcs) == 1 && !strings.HasSuffix(c.Dst, "/") && p == c.Dst {
			return c.From, c.Srcs[0], true
		}
		rest, ok := strings.CutPrefix(p, dst+"/")
		if !ok {
			continue
		}
		// A directory source's contents land in dst; so does a file
		// source of that base name.
		for _, src := range c.Srcs {
			if strings.HasSuffix(src, "/") || src == "." || (c.From == "" && isDir(filepath.Join(root, src))) {
				return c.From, path.Join(src, rest), true
			}
			if path.Base(src) == rest {
				return c.From, src, true
			}
		}
	}
	return "", "", false
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func TestDockerfileCopiesWhatTheRepositoryHas(t *testing.T) {
	df, _ := loadImage(t)
	if len(df.Stages) < 2 {
		t.Fatalf("Dockerfile: %d stages, want a build stage and a small runtime stage", len(df.Stages))
	}
	// The runtime image holds the binaries where the manifests run them.
	if _, src, ok := imageFile(df, "/app/bin/selfplay"); !ok {
		t.Errorf("Dockerfile: the image has no /app/bin/selfplay")
	} else if !strings.HasSuffix(src, "/bin/selfplay") {
		t.Errorf("Dockerfile: /app/bin/selfplay comes from %s, not a build's bin/", src)
	}
}

// builtStage is a build stage run on this machine: its working directory
// in the image and the directory standing for it here.
type builtStage struct{ Workdir, Dir string }

// builtImage runs the build stages of the Dockerfile in copies of the build
// context under dir, as Docker would. A stage's RUN lines run with sh in the
// directory standing for its working directory, with the stage's ENV
// settings over this process's environment.
func builtImage(df *dockerfile, ign dockerignore, dir string) (map[string]builtStage, error) {
	stages := map[string]builtStage{}
	for i, st := range df.Stages[:len(df.Stages)-1] {
		if st.Name == "" {
			return nil, errors.New("Dockerfile: an unnamed build stage")
		}
		b := builtStage{Workdir: "/", Dir: filepath.Join(dir, fmt.Sprint(i))}
		env := os.Environ()
		for _, in := range st.Instr {
			bad := func(format string, a ...any) error {
				return fmt.Errorf("Dockerfile:%d: %s: %s", in.Line, in.Cmd, fmt.Sprintf(format, a...))
			}
			switch in.Cmd {
			case "WORKDIR":
				if b.Workdir != "/" {
					return nil, bad("a second one in a build stage is not emulated by this test")
				}
				b.Workdir = path.Join(b.Workdir, in.Args)
			case "ENV":
				for _, kv := range strings.Fields(in.Args) {
					if !strings.Contains(kv, "=") || strings.ContainsAny(kv, `$"'`) {
						return nil, bad("%s: this test reads KEY=VALUE without quotes or variables", kv)
					}
					env = append(env, kv)
				}
			case "COPY":
				if len(in.Opts) > 0 {
					return nil, bad("%v in a build stage is not emulated by this test", in.Opts)
				}
				f := strings.Fields(in.Args)
				srcs, dst := f[:len(f)-1], f[len(f)-1]
				toDir := strings.HasSuffix(dst, "/") || dst == "." || len(srcs) > 1
				if !path.IsAbs(dst) {
					dst = path.Join(b.Workdir, dst)
				}
				local, ok := b.file(dst)
				if !ok {
					return nil, bad("to %s outside the working directory is not emulated by this test", dst)
				}
				for _, src := range srcs {
					src = path.Clean(src)
					files, err := contextFiles(ign, src)
					if err != nil {
						return nil, err
					}
					for _, file := range files {
						// A directory's contents go into dst; a file goes
						// into dst, or to dst itself.
						to := local
						if isDir(filepath.Join(root, src)) {
							rel, err := filepath.Rel(src, file)
							if err != nil {
								return nil, err
							}
							to = filepath.Join(local, rel)
						} else if toDir {
							to = filepath.Join(local, path.Base(file))
						}
						if err := copyFile(filepath.Join(root, file), to); err != nil {
							return nil, err
						}
					}
				}
			case "RUN":
				if strings.HasPrefix(in.Args, "[") {
					return nil, bad("the JSON form is not emulated by this test")
				}
				if err := os.MkdirAll(b.Dir, 0o755); err != nil {
					return nil, err
				}
				cmd := exec.Command("sh", "-c", in.Args)
				cmd.Dir, cmd.Env = b.Dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					return nil, bad("%s: %v\n%s", in.Args, err, tail(out))
				}
			}
		}
		stages[st.Name] = b
	}
	return stages, nil
}

// The Dockerfile's build, run once for the tests that need it, in a
// directory TestMain removes.
var (
	buildDir  string
	buildOnce sync.Once
	built     map[string]builtStage
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chessforge-dockerfile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildImage returns the Dockerfile and its build stages run here.
func buildImage(t *testing.T) (*dockerfile, map[string]builtStage) {
	t.Helper()
	df, ign := loadImage(t)
	buildOnce.Do(func() { built, buildErr = builtImage(df, ign, buildDir) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return df, built
}

// file maps an absolute path in the stage to this machine; only paths
// under the working directory have a place here.
func (b builtStage) file(p string) (string, bool) {
	p = path.Clean(p)
	if p == b.Workdir {
		return b.Dir, true
	}
	rest, ok := strings.CutPrefix(p, strings.TrimSuffix(b.Workdir, "/")+"/")
	if !ok {
		return "", false
	}
	return filepath.Join(b.Dir, filepath.FromSlash(rest)), true
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// tail returns the last lines of a command's output.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// TestDockerfileBuildsStaticBinaries runs the build stage here and checks
// that what the runtime stage copies from it exists, and that every binary
// is static (the runtime image need not have Go's or any C library).
func TestDockerfileBuildsStaticBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary as the Dockerfile does")
	}
	df, built := buildImage(t)
	final := df.Stages[len(df.Stages)-1]
	cs, err := final.copies()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.From == "" {
			continue
		}
		for _, src := range c.Srcs {
			local, ok := built[c.From].file(src)
			if !ok {
				t.Errorf("Dockerfile:%d: COPY --from=%s %s: outside that stage's working directory, not emulated by this test", c.Line, c.From, src)
				continue
			}
			n := 0
			err := filepath.WalkDir(local, func(p string, e fs.DirEntry, err error) error {
				if err != nil || !e.Type().IsRegular() {
					return err
				}
				n++
				f, err := elf.Open(p)
				if err != nil {
					return fmt.Errorf("%s: not an executable: %v", p, err)
				}
				defer f.Close()
				for _, prog := range f.Progs {
					if prog.Type == elf.PT_INTERP {
						return fmt.Errorf("%s is dynamically linked: build it with CGO_ENABLED=0", filepath.Base(p))
					}
				}
				return nil
			})
			if err != nil || n == 0 {
				t.Errorf("Dockerfile:%d: COPY --from=%s %s: %d files built, %v", c.Line, c.From, src, n, err)
			}
		}
	}
}
