package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/test/docexamples"
)

// docsOfflineExit is the exit code of every offline command of README.md and docs/*.md, by
// the command as written. A documented command missing here fails TestDocsCommands, which
// prints the code it got: add it with a comment if it is what the docs mean. 1 (a usage or
// input error) is never accepted.
var docsOfflineExit = map[string]int{
	// README's first screen.
	"mvpctl routes --snapshot examples/skew.yaml --group batch":                                                           ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml -o table jobs.batch":                                                    ExitOK,
	"mvpctl routes --snapshot examples/skew.yaml":                                                                         ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml GET /apis/batch/v1/namespaces/default/jobs":                             ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml --why-not GET /apis/certificates.k8s.io/v1beta1/podcertificaterequests": ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml -o json GET /apis/resource.k8s.io/v1beta1/resourceclaims":               ExitOK,
	// docs/usage.md: --fail-on turns the 404 both servers answer into exit 3.
	"mvpctl explain --snapshot examples/skew.yaml --fail-on 404,503 GET /apis/certificates.k8s.io/v1beta1/podcertificaterequests": ExitFindings,
	"mvpctl explain --snapshot examples/skew.yaml -o mermaid GET /apis/resource.k8s.io/v1beta1/resourceclaims":                    ExitOK,
	"mvpctl simulate upgrade --snapshot examples/skew.yaml --to 1.37":                                                             ExitOK,
	"mvpctl discovery diff --snapshot examples/skew.yaml":                                                                         ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml -n team-a jobs.batch":                                                           ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml --resource resourceclaims --group resource.k8s.io -o wide":                      ExitOK,
	"mvpctl routes --snapshot examples/skew.yaml --group batch -o name":                                                           ExitOK,
	"mvpctl simulate upgrade --snapshot examples/skew.yaml --to 1.37 --group resource.k8s.io -o csv":                              ExitOK,
	// Traffic at risk is reported, not an error: simulate exits 0 (preflight would block).
	"mvpctl simulate upgrade --snapshot examples/skew.yaml --to 1.37 --audit-log examples/audit.log.gz": ExitOK,
	// README's headline: profiles with the peer proxy set up (stated): every new GVR proxied.
	"mvpctl simulate upgrade --servers a=1.36,b=1.36,c=1.36 --proxy=configured --to 1.37": ExitOK,
	// Profiles with kube-apiserver's defaults: the result rests on an assumption (ASSUMED line).
	"mvpctl simulate upgrade --servers a=1.36,b=1.36,c=1.36 --to 1.37":                                                        ExitIncomplete,
	"mvpctl preflight --servers a=1.36,b=1.36,c=1.36 --proxy=configured --to 1.37 --audit-log examples/audit.log.gz -o junit": ExitOK,
	"mvpctl simulate run --servers a=1.37,b=1.36 --proxy=configured --step peer-ca-wrong:b":                                   ExitOK,
	// The provisional 1.38 (docs/profiles.md): never 0; the v1beta1 client of the shipped audit
	// log blocks the upgrade that removes v1beta1.
	"mvpctl profiles list":                                              ExitOK,
	"mvpctl apis --removed-in 1.37":                                     ExitOK,
	"mvpctl apis --deprecated --at 1.37":                                ExitOK,
	"mvpctl apis --replacement-for policy/v1beta1/poddisruptionbudgets": ExitOK,
	"mvpctl simulate upgrade --servers a=1.37,b=1.37,c=1.37 --runtime-config=resource.k8s.io/v1beta1=true --proxy=configured --to 1.38":                                    ExitIncomplete,
	"mvpctl simulate run --servers a=1.37,b=1.37,c=1.37 --runtime-config=resource.k8s.io/v1beta1=true --step stop:a --step upgrade:a=1.38":                                 ExitIncomplete,
	"mvpctl preflight --servers a=1.37,b=1.37,c=1.37 --runtime-config=resource.k8s.io/v1beta1=true --proxy=configured --to 1.38 --audit-log examples/audit.log.gz":         ExitFindings,
	"mvpctl preflight --servers a=1.37,b=1.37,c=1.37 --runtime-config=resource.k8s.io/v1beta1=true --proxy=configured --to 1.38 --audit-log examples/audit.log.gz -o wide": ExitFindings,
	// docs/ci.md's GitLab job on the shipped skew snapshot (for snapshots/prod.yaml): kas-b
	// (--runtime-config=api/all=true) serves alpha/beta GVRs that kas-a answers by proxy today
	// and 404 while kas-b is down for its upgrade, whatever the order; without traffic to say
	// they are unused, each blocks (MVP011).
	"mvpctl preflight --snapshot snapshots/prod.yaml --to 1.37 -o junit > preflight.xml": ExitFindings,
	// docs/ci.md's examples of each severity: GVRs new in the target warn; the example's
	// windows block without traffic, and with its audit log only the one a client uses does.
	"mvpctl preflight --servers a=1.36,b=1.36,c=1.36 --to 1.37":                                  ExitIncomplete,
	"mvpctl preflight --snapshot examples/skew.yaml --to 1.37":                                   ExitFindings,
	"mvpctl preflight --snapshot examples/skew.yaml --to 1.37 --audit-log examples/audit.log.gz": ExitFindings,
	// docs/ci.md's example of each verdict: pass; a warning that rests on a provisional
	// profile; warnings and an assumption, which --fail-on blocking lets pass.
	"mvpctl preflight --servers a=1.37,b=1.37 --proxy configured --to 1.37":        ExitOK,
	"mvpctl preflight --servers a=1.37,b=1.37,c=1.37 --proxy configured --to 1.38": ExitIncomplete,
	"mvpctl preflight --servers a=1.36,b=1.36,c=1.36 --to 1.37 --fail-on blocking": ExitOK,
	// docs/triage.md: a 503 explained, now and right after a crash (--step), and over a group.
	"mvpctl explain --snapshot examples/skew.yaml -o table GET /apis/batch/v1/jobs":                    ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml --step crash:kas-a GET /apis/batch/v1/jobs":          ExitOK,
	"mvpctl explain --snapshot examples/skew.yaml --step crash:kas-a -o table GET /apis/batch/v1/jobs": ExitOK,
	"mvpctl simulate run --snapshot examples/skew.yaml --step crash:kas-a --group batch":               ExitOK,
	// docs/ci.md's accepted risks: the same findings, written to a baseline, then accepted.
	"mvpctl preflight --snapshot examples/skew.yaml --to 1.37 --write-baseline accepted.txt --reason \"alpha/beta APIs only kas-b serves\"": ExitOK,
	"mvpctl preflight --snapshot examples/skew.yaml --to 1.37 --baseline accepted.txt":                                                      ExitOK,
}

// TestDocsChecks: docs/ci.md gives the severity rule of every preflight check, by ID and name.
func TestDocsChecks(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range preflight.Checks {
		if row := "| " + c.ID + " | " + c.Name + " | "; !strings.Contains(string(doc), row) {
			t.Errorf("docs/ci.md has no row %q: give the check's subject and severity rule", row)
		}
	}
}

// TestDocsCommands runs every offline mvpctl command of README.md and docs/*.md in-process,
// as written (see test/docexamples for what counts as one and for the few
// substitutions), in a directory holding a copy of the shipped examples/. Usage forms are
// checked against the command's --help. Live commands are run by test/e2e's
// TestDocsCommands; a command that is neither fails here (docexamples.Extract).
func TestDocsCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := docexamples.Extract(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := docexamples.CopyExamples(root, dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	seen := map[string]bool{}
	offline, live := 0, 0
	for _, c := range cmds {
		switch c.Kind {
		case docexamples.Live:
			// Run by test/e2e; here only its flags are parsed (with --help, which then prints
			// the help instead of running it), so a typo fails without a cluster too.
			live++
			if _, stderr, code := run(t, append(append([]string(nil), c.Args...), "--help")...); code != ExitOK {
				t.Errorf("%s: its flags do not parse (exit %d with --help):\n%s", c, code, stderr)
			}
			t.Logf("live (test/e2e TestDocsCommands; flags parsed here): %s (%s)", c, c.Why)
			continue
		case docexamples.Synopsis:
			checkSynopsis(t, c)
			continue
		}
		offline++
		seen[c.Text] = true
		stdout, stderr, code := run(t, c.Args...)
		t.Logf("offline: %s: exit %d (%s)", c, code, c.Why)
		want, ok := docsOfflineExit[c.Text]
		switch {
		case code == ExitError:
			t.Errorf("%s: exit 1 (usage or input error):\n%s", c, stderr)
		case !ok:
			t.Errorf("%s: exit %d; add the command with its exit code to docsOfflineExit", c, code)
		case code != want:
			t.Errorf("%s: exit %d, want %d:\n%s", c, code, want, stderr)
		}
		if strings.TrimSpace(stdout) == "" {
			t.Errorf("%s: printed nothing on stdout", c)
		}
		checkDocFigures(t, root, c)
		if c.Stdout != "" {
			if err := os.WriteFile(c.Stdout, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for text := range docsOfflineExit {
		if !seen[text] {
			t.Errorf("docsOfflineExit lists %q, which no document shows any more: remove it", text)
		}
	}
	if offline == 0 || live == 0 {
		t.Errorf("found %d offline and %d live commands: the extraction is broken", offline, live)
	}
}

var synopsisFlag = regexp.MustCompile(`(^|\[)(--[a-z][a-z-]*|-[a-z])\b`)

// checkSynopsis checks a usage form (`mvpctl discovery diff [--apiserver NAME] ...`): the
// command exists, and its --help lists every flag the form names.
func checkSynopsis(t *testing.T, c docexamples.Command) {
	t.Helper()
	var path []string
	for _, a := range c.Args {
		if strings.HasPrefix(a, "[") || strings.HasPrefix(a, "-") || strings.ToUpper(a) == a {
			break
		}
		path = append(path, a)
	}
	help, stderr, code := run(t, append(path, "--help")...)
	if code != ExitOK {
		t.Errorf("%s: mvpctl %s --help: exit %d:\n%s", c, strings.Join(path, " "), code, stderr)
		return
	}
	if !strings.Contains(help, "mvpctl "+strings.Join(path, " ")) {
		t.Errorf("%s: `mvpctl %s --help` does not describe that command:\n%s", c, strings.Join(path, " "), help)
	}
	n := 0
	for _, a := range c.Args[len(path):] {
		for _, m := range synopsisFlag.FindAllStringSubmatch(a, -1) {
			n++
			if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(m[2]) + `\b`).MatchString(help) {
				t.Errorf("%s: %s is not a flag of `mvpctl %s`:\n%s", c, m[2], strings.Join(path, " "), help)
			}
		}
	}
	t.Logf("synopsis: %s: %d flag(s) checked against --help", c, n)
}

// TestShippedAuditLog checks examples/audit.log.gz (make examples) is what the docs say: a
// small gzipped audit.k8s.io/v1 log of Metadata-level ResponseComplete events — no request or
// response bodies — with nothing that looks like a bearer token, and requests for GVRs only
// one of the example's servers serves.
func TestShippedAuditLog(t *testing.T) {
	const path = "../../examples/audit.log.gz"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 50<<10 {
		t.Errorf("%s is %d bytes, over 50 KiB", path, len(raw))
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	tokenLike := regexp.MustCompile(`(?i)bearer|authorization:|eyJ[A-Za-z0-9_-]{10,}`)
	uris := map[string]bool{}
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	for i, line := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if e["apiVersion"] != "audit.k8s.io/v1" || e["kind"] != "Event" || e["level"] != "Metadata" || e["stage"] != "ResponseComplete" {
			t.Errorf("line %d: not a Metadata ResponseComplete audit.k8s.io/v1 Event: %.200s", i+1, line)
		}
		for _, k := range []string{"requestObject", "responseObject"} {
			if _, ok := e[k]; ok {
				t.Errorf("line %d has a %s", i+1, k)
			}
		}
		if tokenLike.MatchString(line) {
			t.Errorf("line %d looks like it carries a token: %s", i+1, line)
		}
		uri, _ := e["requestURI"].(string)
		uris[strings.SplitN(uri, "?", 2)[0]] = true
	}
	if len(lines) < 30 {
		t.Errorf("%d events; make examples records a few dozen", len(lines))
	}
	for _, want := range []string{"/apis/batch/v1/namespaces/default/jobs", "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims", "/apis/certificates.k8s.io/v1/clustertrustbundles"} {
		if !uris[want] {
			t.Errorf("no request for %s (a GVR only some of the example's servers serve)", want)
		}
	}
}

// docFigure is a count the comments around a command state of its result: "(27 rows" of a
// table, "(4 GVRs at risk)" of a simulation; -o name prints one line for each.
var docFigure = regexp.MustCompile(`\((\d+) (rows|GVRs at risk)\b`)

// checkDocFigures checks the figures the comment lines right before and after a command state
// against the command's -o name output.
func checkDocFigures(t *testing.T, root string, c docexamples.Command) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, c.File))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var comments []string
	for i := c.Line - 2; i >= 0 && strings.HasPrefix(lines[i], "#"); i-- {
		comments = append(comments, lines[i])
	}
	for i := c.Line; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		comments = append(comments, lines[i])
	}
	for _, m := range docFigure.FindAllStringSubmatch(strings.Join(comments, " "), -1) {
		names, stderr, _ := run(t, append(append([]string(nil), c.Args...), "-o", "name")...)
		if got := strings.Count(names, "\n"); strconv.Itoa(got) != m[1] {
			t.Errorf("%s: its comment says %s %s, -o name prints %d (%s)", c, m[1], m[2], got, stderr)
		}
	}
}
