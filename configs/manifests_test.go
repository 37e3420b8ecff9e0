package configs_test

// The cluster examples, checked as far as a machine without a cluster can:
// the Kubernetes manifests (configs/selfplay-k8s-*.yaml) are parsed, every
// object they refer to must be defined among them, they must run the image
// the Dockerfile documents, binaries and config files it holds, with flags
// bin/selfplay takes; the Slurm script (configs/selfplay-slurm-array.sh)
// runs here with a stand-in for bin/selfplay, and its command line is
// checked the same way.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"chessforge/selfplay"
)

// object is one Kubernetes object of a manifest, its spec decoded by kind.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec yaml.Node `yaml:"spec"`

	where string // file:line
}

// jobSpec is the part of a batch/v1 Job's spec the checks read.
type jobSpec struct {
	CompletionMode       string `yaml:"completionMode"`
	Completions          *int   `yaml:"completions"`
	Parallelism          *int   `yaml:"parallelism"`
	BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
	Template             struct {
		Spec podSpec `yaml:"spec"`
	} `yaml:"template"`
}

type podSpec struct {
	RestartPolicy      string      `yaml:"restartPolicy"`
	ServiceAccountName string      `yaml:"serviceAccountName"`
	ImagePullSecrets   []reference `yaml:"imagePullSecrets"`
	InitContainers     []container `yaml:"initContainers"`
	Containers         []container `yaml:"containers"`
	Volumes            []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
		ConfigMap *reference `yaml:"configMap"`
		Secret    *struct {
			SecretName string `yaml:"secretName"`
		} `yaml:"secret"`
	} `yaml:"volumes"`
}

type container struct {
	Name       string   `yaml:"name"`
	Image      string   `yaml:"image"`
	WorkingDir string   `yaml:"workingDir"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	Env        []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			ConfigMapKeyRef *reference `yaml:"configMapKeyRef"`
			SecretKeyRef    *reference `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	EnvFrom []struct {
		ConfigMapRef *reference `yaml:"configMapRef"`
		SecretRef    *reference `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type reference struct {
	Name string `yaml:"name"`
}

type pvcSpec struct {
	AccessModes []string `yaml:"accessModes"`
	Resources   struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
}

// readManifests parses every document of the shipped Kubernetes manifests.
func readManifests(t *testing.T) []object {
	t.Helper()
	files, err := filepath.Glob("selfplay-k8s-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Kubernetes manifests: %v", err)
	}
	var objs []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var o object
			if err := doc.Decode(&o); err != nil {
				t.Fatalf("%s:%d: %v", f, doc.Line, err)
			}
			o.where = fmt.Sprintf("%s:%d", f, doc.Line)
			if len(doc.Content) > 0 {
				o.where = fmt.Sprintf("%s:%d", f, doc.Content[0].Line)
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: an object needs apiVersion, kind and metadata.name", o.where)
			}
			objs = append(objs, o)
		}
	}
	return objs
}

// pods returns the pod specs of the objects that run containers.
func pods(t *testing.T, objs []object) map[string]podSpec {
	t.Helper()
	out := map[string]podSpec{}
	for _, o := range objs {
		switch o.Kind {
		case "Job":
			var j jobSpec
			if err := o.Spec.Decode(&j); err != nil {
				t.Fatalf("%s: %v", o.where, err)
			}
			out[o.where] = j.Template.Spec
		case "Pod":
			var p podSpec
			if err := o.Spec.Decode(&p); err != nil {
				t.Fatalf("%s: %v", o.where, err)
			}
			out[o.where] = p
		case "PersistentVolumeClaim", "ConfigMap", "Secret", "ServiceAccount":
		default:
			t.Fatalf("%s: kind %s: this test does not know what it refers to", o.where, o.Kind)
		}
	}
	return out
}

func TestManifestsReferOnlyToObjectsTheyDefine(t *testing.T) {
	objs := readManifests(t)
	defined := map[string]object{}
	for _, o := range objs {
		key := o.Kind + "/" + o.Metadata.Name
		if prev, ok := defined[key]; ok {
			t.Errorf("%s: %s is defined twice (also %s)", o.where, key, prev.where)
		}
		defined[key] = o
	}
	need := func(where, kind, name string) {
		if name == "" {
			t.Errorf("%s: a reference to a %s without a name", where, kind)
		} else if _, ok := defined[kind+"/"+name]; !ok {
			t.Errorf("%s: refers to %s %q, which no manifest in configs/ defines", where, kind, name)
		}
	}
	for where, p := range pods(t, objs) {
		if p.ServiceAccountName != "" && p.ServiceAccountName != "default" {
			need(where, "ServiceAccount", p.ServiceAccountName)
		}
		for _, s := range p.ImagePullSecrets {
			need(where, "Secret", s.Name)
		}
		volumes := map[string]bool{}
		for _, v := range p.Volumes {
			volumes[v.Name] = false
			switch {
			case v.PersistentVolumeClaim != nil:
				need(where, "PersistentVolumeClaim", v.PersistentVolumeClaim.ClaimName)
			case v.ConfigMap != nil:
				need(where, "ConfigMap", v.ConfigMap.Name)
			case v.Secret != nil:
				need(where, "Secret", v.Secret.SecretName)
			}
		}
		for _, c := range append(p.InitContainers, p.Containers...) {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					need(where, "ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name)
				}
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					need(where, "Secret", e.ValueFrom.SecretKeyRef.Name)
				}
			}
			for _, e := range c.EnvFrom {
				if e.ConfigMapRef != nil {
					need(where, "ConfigMap", e.ConfigMapRef.Name)
				}
				if e.SecretRef != nil {
					need(where, "Secret", e.SecretRef.Name)
				}
			}
			for _, m := range c.VolumeMounts {
				if _, ok := volumes[m.Name]; !ok {
					t.Errorf("%s: container %s mounts volume %q, which the pod does not declare", where, c.Name, m.Name)
				}
				volumes[m.Name] = true
			}
		}
		for name, mounted := range volumes {
			if !mounted {
				t.Errorf("%s: volume %q is mounted by no container", where, name)
			}
		}
	}
}

func TestSharedVolumeTakesEveryPod(t *testing.T) {
	objs := readManifests(t)
	claims := map[string]pvcSpec{}
	for _, o := range objs {
		if o.Kind != "PersistentVolumeClaim" {
			continue
		}
		var s pvcSpec
		if err := o.Spec.Decode(&s); err != nil {
			t.Fatalf("%s: %v", o.where, err)
		}
		if _, err := quantity(s.Resources.Requests["storage"]); err != nil {
			t.Errorf("%s: resources.requests.storage: %v", o.where, err)
		}
		claims[o.Metadata.Name] = s
	}
	for _, o := range objs {
		if o.Kind != "Job" {
			continue
		}
		var j jobSpec
		if err := o.Spec.Decode(&j); err != nil {
			t.Fatalf("%s: %v", o.where, err)
		}
		if j.Parallelism != nil && *j.Parallelism < 2 {
			continue
		}
		for _, v := range j.Template.Spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			if s, ok := claims[v.PersistentVolumeClaim.ClaimName]; ok && !strings.Contains(strings.Join(s.AccessModes, " "), "ReadWriteMany") {
				t.Errorf("%s: claim %s: pods on many nodes write into it, so it must be ReadWriteMany, not %v", o.where, v.PersistentVolumeClaim.ClaimName, s.AccessModes)
			}
		}
	}
}

// quantity parses a Kubernetes resource quantity (the forms these manifests
// use: an integer or decimal with m, k, M, G, Ki, Mi or Gi) into thousandths
// of its unit, so that cpu "500m" is 500 and memory "1Ki" is 1024000.
func quantity(s string) (int64, error) {
	num := strings.TrimRight(s, "kmMGiK")
	mult := map[string]float64{"": 1e3, "m": 1, "k": 1e6, "M": 1e9, "G": 1e12, "Ki": 1 << 10 * 1e3, "Mi": 1 << 20 * 1e3, "Gi": 1 << 30 * 1e3}[s[len(num):]]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v < 0 {
		return 0, fmt.Errorf("%q is not a resource quantity", s)
	}
	return int64(v * mult), nil
}

// selfplayRun is one command line of bin/selfplay in an example, its paths
// resolved to this repository.
type selfplayRun struct {
	where string
	args  []string
}

// flagValue returns the value of the flag name in args (-name=v, -name v,
// or "true" for a bare boolean), or false if it is absent.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		a = "-" + strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, "-"+name+"="); ok {
			return v, true
		}
		if a == "-"+name {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return args[i+1], true
			}
			return "true", true
		}
	}
	return "", false
}

// checkConfig loads the config file an example's command line names (found
// in this repository with local) the way bin/selfplay will.
func checkConfig(t *testing.T, r selfplayRun, local func(string) (string, bool)) {
	t.Helper()
	file, ok := flagValue(r.args, "config")
	if !ok {
		return
	}
	p, ok := local(file)
	if !ok {
		t.Errorf("%s: -config %s: not a file of the image or repository", r.where, file)
		return
	}
	c, err := selfplay.LoadConfig(p, selfplay.DefaultConfig())
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		t.Errorf("%s: -config %s: %v", r.where, file, err)
	}
}

// checkFlags runs bin/selfplay (as the Dockerfile builds it) with the
// example's arguments and -h: it exits 0 only if every flag before -h exists
// and its value parses.
func checkFlags(t *testing.T, r selfplayRun) {
	t.Helper()
	if testing.Short() {
		t.Logf("%s: flags not checked under -short (that builds bin/selfplay)", r.where)
		return
	}
	df, built := buildImage(t)
	from, src, ok := imageFile(df, "/app/bin/selfplay")
	if !ok || from == "" {
		t.Fatal("Dockerfile: the image's /app/bin/selfplay is not made by a build stage")
	}
	bin, ok := built[from].file(src)
	if !ok {
		t.Fatalf("Dockerfile: %s of stage %s is outside its working directory", src, from)
	}
	cmd := exec.Command(bin, append(r.args, "-h")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		first, _, _ := strings.Cut(string(out), "\n")
		t.Errorf("%s: bin/selfplay %s: %v: %s", r.where, strings.Join(r.args, " "), err, first)
	}
}

func TestKubernetesJobRunsTheImageTheDockerfileBuilds(t *testing.T) {
	df, _ := loadImage(t)
	tag := imageTags(df.Text)[0]
	workdir := df.Stages[len(df.Stages)-1].workdir()
	// An image path of a file copied from the build context, in this
	// repository (files a build stage makes have no place here).
	local := func(p string) (string, bool) {
		if !path.IsAbs(p) {
			p = path.Join(workdir, p)
		}
		from, src, ok := imageFile(df, p)
		if !ok || from != "" {
			return "", ok
		}
		src = filepath.Join(root, filepath.FromSlash(path.Clean(src)))
		if _, err := os.Stat(src); err != nil {
			return "", false
		}
		return src, true
	}
	objs := readManifests(t)
	// Every `docker build -t` shown to a user builds the same image.
	docs, _ := filepath.Glob("selfplay-k8s-*.yaml")
	for _, doc := range append(docs, filepath.Join(root, "README.md")) {
		for _, tg := range imageTags(readFile(t, doc)) {
			if tg != tag {
				t.Errorf("%s: shows `docker build -t %s`, the Dockerfile %s", doc, tg, tag)
			}
		}
	}
	for where, p := range pods(t, objs) {
		for _, c := range p.Containers {
			if c.Image != tag {
				t.Errorf("%s: container %s runs image %q, the Dockerfile builds %q", where, c.Name, c.Image, tag)
			}
			if c.WorkingDir != "" && c.WorkingDir != workdir {
				t.Errorf("%s: container %s works in %s, the image's paths are relative to %s", where, c.Name, c.WorkingDir, workdir)
			}
			if len(c.Command) == 0 {
				t.Errorf("%s: container %s: name the command (the image's default is a usage message)", where, c.Name)
				continue
			}
			bin := c.Command[0]
			if !path.IsAbs(bin) {
				bin = path.Join(workdir, bin)
			}
			if from, src, ok := imageFile(df, bin); !ok || from == "" || !isDir(filepath.Join(root, "cmd", path.Base(src))) {
				t.Errorf("%s: container %s runs %s, which is not a binary the image's build makes from cmd/", where, c.Name, c.Command[0])
				continue
			}
			if path.Base(bin) != "selfplay" {
				continue
			}
			r := selfplayRun{where: where + " " + c.Name, args: append(c.Command[1:len(c.Command):len(c.Command)], c.Args...)}
			checkConfig(t, r, local)
			checkFlags(t, r)
			checkResources(t, r, c)
		}
	}
}

// readFile returns a file's contents.
func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkResources checks a self-play container's resources against its
// workers: one worker per CPU of the limit, requests equal to limits (the
// pod is not evicted first under pressure), GOMEMLIMIT below the memory
// limit.
func checkResources(t *testing.T, r selfplayRun, c container) {
	t.Helper()
	for _, res := range []string{"cpu", "memory"} {
		l, err := quantity(c.Resources.Limits[res])
		if err != nil {
			t.Errorf("%s: limits.%s: %v", r.where, res, err)
			continue
		}
		if q, err := quantity(c.Resources.Requests[res]); err != nil || q != l {
			t.Errorf("%s: requests.%s %q: want the limit, %s", r.where, res, c.Resources.Requests[res], c.Resources.Limits[res])
		}
	}
	cpu, _ := quantity(c.Resources.Limits["cpu"])
	w, ok := flagValue(r.args, "workers")
	if n, err := strconv.Atoi(w); !ok || err != nil || int64(n)*1000 != cpu {
		t.Errorf("%s: -workers %q: want one worker per CPU of the limit, %s", r.where, w, c.Resources.Limits["cpu"])
	}
	mem, _ := quantity(c.Resources.Limits["memory"])
	for _, e := range c.Env {
		switch e.Name {
		case "GOMAXPROCS":
			t.Errorf("%s: GOMAXPROCS is set: Go takes it from the CPU limit", r.where)
		case "GOMEMLIMIT":
			v := strings.TrimSuffix(e.Value, "B")
			if q, err := quantity(v); err != nil || q >= mem {
				t.Errorf("%s: GOMEMLIMIT %q: want a size below the memory limit %s (MiB or GiB)", r.where, e.Value, c.Resources.Limits["memory"])
			}
		}
	}
}

func TestSlurmScriptRunsAsSubmitted(t *testing.T) {
	const script = "selfplay-slurm-array.sh"
	text := readFile(t, script)
	opts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#SBATCH\s+--([\w-]+)(?:=(\S+))?`).FindAllStringSubmatch(text, -1) {
		opts[m[1]] = m[2]
	}
	// Slurm opens the log files before the script runs, relative to the
	// directory sbatch is run from (the repository root): a directory in
	// their names must exist there in a fresh clone.
	for _, o := range []string{"output", "error"} {
		if name, ok := opts[o]; ok && path.Dir(name) != "." {
			t.Errorf("%s: --%s=%s: Slurm opens it before the script runs, and %s/ is not in a fresh clone", script, o, name, path.Dir(name))
		}
	}
	array := regexp.MustCompile(`^(\d+)-(\d+)$`).FindStringSubmatch(opts["array"])
	if array == nil {
		t.Fatalf("%s: --array=%s: selfplay needs a contiguous range without a step", script, opts["array"])
	}
	lo, _ := strconv.Atoi(array[1])
	hi, _ := strconv.Atoi(array[2])
	cpus := opts["cpus-per-task"]

	// Run the script as a task of the array would, from a copy of the
	// repository root whose bin/selfplay records its arguments.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "args")
	stub := "#!/bin/sh\n{ echo \"$GOMEMLIMIT\"; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > " + record + "\n"
	if err := os.WriteFile(filepath.Join(dir, "bin", "selfplay"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", abs)
	cmd.Dir = dir
	mem, err := quantity(strings.TrimSuffix(opts["mem"], "M") + "Mi") // sbatch's M is MiB
	if err != nil {
		t.Fatalf("%s: --mem=%s: want a size in M", script, opts["mem"])
	}
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") }),
		"SLURM_ARRAY_TASK_ID="+array[1], "SLURM_ARRAY_TASK_MIN="+array[1],
		"SLURM_ARRAY_TASK_MAX="+array[2], "SLURM_ARRAY_TASK_COUNT="+strconv.Itoa(hi-lo+1),
		"SLURM_CPUS_PER_TASK="+cpus, "SLURM_MEM_PER_NODE="+strconv.FormatInt(mem/(1<<20*1e3), 10),
		"SLURM_SUBMIT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	lines := strings.Split(strings.TrimSuffix(readFile(t, record), "\n"), "\n")
	if q, err := quantity(strings.TrimSuffix(lines[0], "B")); err != nil || q >= mem {
		t.Errorf("%s: GOMEMLIMIT %q: want a size below --mem=%s", script, lines[0], opts["mem"])
	}
	args := lines[1:]
	r := selfplayRun{where: script, args: args}
	if w, _ := flagValue(args, "workers"); w != cpus {
		t.Errorf("%s: -workers %q: want --cpus-per-task, %s", script, w, cpus)
	}
	checkConfig(t, r, func(p string) (string, bool) {
		p = filepath.Join(root, filepath.FromSlash(p))
		_, err := os.Stat(p)
		return p, err == nil && !filepath.IsAbs(p)
	})
	checkFlags(t, r)
}
