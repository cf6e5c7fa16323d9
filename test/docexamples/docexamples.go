// Package docexamples finds every mvpctl command the documentation shows — each line of a
// fenced code block in README.md and docs/*.md that starts with `mvpctl ` (after `$ `, a YAML
// list item's `- ` or indentation) — and says how the tests run it. cmd/mvpctl's
// TestDocsCommands runs the offline ones in-process; test/e2e's TestDocsCommands runs the live
// ones against real kube-apiservers. A command that is neither fails both tests, so the docs
// cannot show a command no test runs.
//
// Each command is run as written except for the substitutions listed in FileSubstitutions
// (both tests) and Placeholders (the live test), which stand for things only the reader has:
// their CI repository's files, their apiservers' addresses.
package docexamples

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Kind is how a documented command is run.
type Kind string

const (
	// Offline commands read only shipped files (examples/...) or embedded profiles: the unit
	// test runs them in-process.
	Offline Kind = "offline"
	// Live commands talk to a cluster: the e2e test runs them against a real control plane.
	Live Kind = "live"
	// Synopsis lines (`mvpctl discovery diff [--apiserver NAME] ...`) are usage forms, not
	// commands: the unit test checks that the command exists and has every flag they name.
	Synopsis Kind = "synopsis"
)

// FileSubstitutions replace file names that stand for the reader's own files by the shipped
// examples, in every test. Each is named here, with why.
var FileSubstitutions = []Substitution{
	// docs/ci.md, GitHub Actions: the reader's audit log of the last day.
	{From: "audit/last-24h.log.gz", To: "examples/audit.log.gz"},
	// docs/ci.md, GitLab CI: a snapshot the reader commits to their CI repository.
	{From: "snapshots/prod.yaml", To: "examples/skew.yaml"},
	// docs/watch.md: the reader's kubeconfig context; the live test's first context.
	{From: "prod-a", To: "cp-1"},
	// docs/simulate.md: the context of the reader's cluster running a new release.
	{From: "new-release", To: "cp-1"},
}

// Placeholders are the addresses in the docs that stand for the reader's apiservers. The
// live test replaces each by the URL of the named server of its control plane (kas-a,
// kas-b, kas-c). Context names (`--contexts cp-1,cp-2,cp-3`) need no substitution: the live
// test's kubeconfig has contexts of those names, one per server.
var Placeholders = map[string]string{
	"https://10.0.0.12:6443": "kas-b",
	"https://10.0.0.13:6443": "kas-c",
}

// Substitution replaces one argument (or the part of one after `=`) by another.
type Substitution struct{ From, To string }

// Command is one documented command line.
type Command struct {
	File string // README.md, docs/snapshot.md, ...
	Line int    // 1-based
	Text string // the command as written, without its comment
	// Args are the arguments after `mvpctl`, without a `> FILE` redirect, after
	// FileSubstitutions (not Placeholders).
	Args []string
	// Stdout is the file a `> FILE` redirect names ("" if none).
	Stdout string
	Kind   Kind
	// Why says why the command has its kind (for the test logs and error messages).
	Why string
	// Follows is true for a command that runs until it is interrupted (watch, routes -w):
	// the live test lets it run a few seconds, then sends SIGINT.
	Follows bool
}

func (c Command) String() string { return fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Text) }

// Files are the documents whose commands are tested, relative to the repository root.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(docs)
	files := []string{"README.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, filepath.ToSlash(rel))
	}
	return files, nil
}

// Extract returns every documented command of Files(root), in document order, classified.
// A command that cannot be run (a pipe, a file no earlier command of its document writes, an
// address that is not a Placeholder, an unknown command) is an error naming it.
func Extract(root string) ([]Command, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var all []Command
	var errs []string
	for _, f := range files {
		cmds, bad, err := extractFile(root, f)
		if err != nil {
			return nil, err
		}
		errs = append(errs, bad...)
		produced := map[string]bool{} // files written by earlier live commands of this document
		for _, c := range cmds {
			if err := classify(&c, produced); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", c, err))
				continue
			}
			all = append(all, c)
		}
	}
	if len(errs) > 0 {
		return all, fmt.Errorf("documented commands no test can run (make them runnable, or add a substitution in test/docexamples):\n  %s", strings.Join(errs, "\n  "))
	}
	return all, nil
}

// extractFile returns the commands of one document, and the lines that look like commands
// but cannot be split into words.
func extractFile(root, name string) (cmds []Command, bad []string, err error) {
	f, err := os.Open(filepath.Join(root, name))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, n := false, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		line = strings.TrimPrefix(line, "$ ")
		line = strings.TrimPrefix(line, "- ")
		if !strings.HasPrefix(line, "mvpctl ") && line != "mvpctl" {
			continue
		}
		text := stripComment(line)
		if strings.Contains(text, "[") { // a usage form: its words as written
			cmds = append(cmds, Command{File: name, Line: n, Text: text, Args: strings.Fields(text)[1:]})
			continue
		}
		words, err := split(text)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s:%d: %v", name, n, err))
			continue
		}
		c := Command{File: name, Line: n, Text: text}
		args := words[1:]
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case a == ">" && i+1 < len(args):
				c.Stdout = args[i+1]
				i++
			case strings.HasPrefix(a, ">") && len(a) > 1:
				c.Stdout = a[1:]
			default:
				c.Args = append(c.Args, substitute(a))
			}
		}
		cmds = append(cmds, c)
	}
	return cmds, bad, sc.Err()
}

// stripComment removes a trailing `# comment` (a # after whitespace, outside quotes).
func stripComment(s string) string {
	quote := rune(0)
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// split splits a command line into words as sh would for the simple lines the docs hold:
// blanks separate, single and double quotes group. Anything sh would expand is refused.
func split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|;&$`<(){}*?\\", r):
			return nil, fmt.Errorf("%q: the shell would interpret %q; the docs test runs plain commands only", s, r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: unterminated quote", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func substitute(arg string) string {
	for _, s := range FileSubstitutions {
		if arg == s.From {
			return s.To
		}
		if k, v, ok := strings.Cut(arg, "="); ok && v == s.From {
			return k + "=" + s.To
		}
	}
	return arg
}

// commands are mvpctl's top-level commands: whether each needs a cluster.
var commands = map[string]bool{ // name → live unless told otherwise
	"snapshot": true, "probe": true, "routes": true, "explain": true, "discovery": true,
	"simulate": true, "preflight": true, "watch": true, "traffic": true,
	"version": false, "help": false, "completion": false, "profiles": false, "apis": false,
}

// FlagValue returns the value of --name (as `--name V` or `--name=V`) and whether it is set.
func FlagValue(args []string, names ...string) (string, bool) {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1], true
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v, true
			}
		}
	}
	return "", false
}

func classify(c *Command, produced map[string]bool) error {
	if strings.Contains(c.Text, "[") {
		c.Kind, c.Why = Synopsis, "usage form: checked against the command's --help"
		return nil
	}
	if len(c.Args) == 0 {
		return fmt.Errorf("no command")
	}
	live, known := commands[c.Args[0]]
	if !known {
		return fmt.Errorf("unknown command %q", c.Args[0])
	}
	if len(c.Args) > 1 && c.Args[0] == "profiles" && c.Args[1] == "record" {
		live = true // reads an apiserver; the other profiles commands read files
	}
	for _, a := range c.Args {
		if strings.Contains(a, "://") || looksLikeIP(a) {
			addr := a
			if _, v, ok := strings.Cut(a, "="); ok {
				addr = v
			}
			if _, ok := Placeholders[addr]; !ok {
				return fmt.Errorf("address %q is not in docexamples.Placeholders", addr)
			}
			if !live {
				return fmt.Errorf("address %q in an offline command", addr)
			}
		}
	}
	snap, hasSnap := FlagValue(c.Args, "--snapshot")
	_, hasServers := FlagValue(c.Args, "--servers")
	if hasSnap && !strings.HasPrefix(snap, "examples/") && !produced[snap] {
		return fmt.Errorf("--snapshot %s: neither a shipped example (examples/...) nor written by an earlier command of %s (add e.g. `mvpctl snapshot -f %s` before it)", snap, c.File, snap)
	}
	for _, flag := range []string{"--audit-log", "--requests"} {
		if v, ok := FlagValue(c.Args, flag); ok && !strings.HasPrefix(v, "examples/") && !produced[v] {
			return fmt.Errorf("%s %s: neither a shipped example (examples/...) nor written by an earlier command of %s", flag, v, c.File)
		}
	}
	switch {
	case !live:
		c.Kind, c.Why = Offline, "needs no cluster"
	case c.Args[0] == "probe":
		c.Kind, c.Why = Live, "probe sends real requests"
	case hasServers:
		c.Kind, c.Why = Offline, "servers from the embedded profiles (--servers)"
	case hasSnap && strings.HasPrefix(snap, "examples/"):
		c.Kind, c.Why = Offline, "reads the shipped snapshot "+snap
	case hasSnap:
		c.Kind, c.Why = Live, "reads "+snap+", written by an earlier live command"
	default:
		c.Kind, c.Why = Live, "takes a live snapshot"
	}
	if c.Kind == Live && (c.Args[0] == "watch" || (c.Args[0] == "routes" && (slices.Contains(c.Args, "-w") || slices.Contains(c.Args, "--watch")))) {
		c.Follows, c.Why = true, "follows the live control plane until interrupted"
	}
	if c.Kind == Live {
		if f, ok := FlagValue(c.Args, "-f", "--file"); ok {
			produced[f] = true
		}
		if c.Stdout != "" {
			produced[c.Stdout] = true
		}
	}
	return nil
}

// ipv4 finds an IPv4 address: the docs' placeholder addresses are written as IPs.
var ipv4 = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

func looksLikeIP(s string) bool { return ipv4.MatchString(s) }

// CopyExamples copies the repository's examples/ (under root) into dir/examples: the working
// directory the documented commands run in, so that they never write into the repository.
func CopyExamples(root, dir string) error {
	from, to := filepath.Join(root, "examples"), filepath.Join(dir, "examples")
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
