//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// processCase is one row of docs/faults.md: a fault, the command run against it as a whole
// process, and the bounds the process must keep.
type processCase struct {
	fault   string
	command string // as the doc shows it (the kubeconfig and files the test makes are left out)
	exit    int
	within  time.Duration // wall time, from the start or from the signal
	setup   func(t *testing.T, dir string) processRun
	// check, when set, looks at the output (the error line, secrets).
	check func(t *testing.T, r processResult)
	// alone: the run takes the CPU (decompression), so it runs before the others, not beside.
	alone bool
}

// maxRSSMB bounds every row's peak RSS: a decompression bomb included.
const maxRSSMB = 150

// wallSlack: a row fails when its wall time passes wallSlack times its bound. A loaded
// machine stretches the time a process waits for a CPU, not the CPU it uses: on a 2-core
// machine at a load average of 17, a process that ends 0.4 s after SIGINT by design took
// 1.18 s of wall time and 0.02 s of CPU (the log shows both for every row). What the bound
// is there to catch stretches further: a signal not heard, or a timeout not kept, ends the
// process at the command's own 30 s or 60 s, or never.
const wallSlack = 2

// cpuStretch: a row that works (reads 64 MiB, parses 20,000 steps) waits for a CPU in
// proportion to the CPU it uses: at a load average of 20 on 2 cores, the /dev/zero audit
// log's 0.53 s of CPU took 7.7 s of wall time. Its wall time is allowed its bound plus
// cpuStretch times its CPU time; its CPU time itself must stay within the bound, so that
// work past a bound fails whatever the load. On a machine busier than that (a run queue
// longer than cpuStretch/4 per core at the end of the run), the stretch grows with it: 4
// times the load average per core (a run queue of 20 on 2 cores, half of it at a higher
// priority, stretched 0.17 s of CPU to 6.4 s of wall time).
const cpuStretch = 10

// stretchAt is the stretch allowed at a 1-minute load average of load.
func stretchAt(load float64) int {
	return max(cpuStretch, int(4*load/float64(runtime.NumCPU())))
}

// overBound says how a run passed its bound within (from the start, or from the signal):
// its CPU time past the bound, or its wall time past wallSlack times the bound and past
// the bound plus stretchAt(load) times its CPU time; "" when it kept it.
func overBound(r processResult, within time.Duration) string {
	switch {
	case r.cpu > within:
		return fmt.Sprintf("used %s of CPU; bound %s", r.cpu.Round(time.Millisecond), within)
	case r.took > wallSlack*within && r.took > within+time.Duration(stretchAt(r.load))*r.cpu:
		return fmt.Sprintf("took %s (CPU %s, load average %.1f); bound %s, failing past %d× it and past it plus %d× the CPU time", r.took.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.load, within, wallSlack, stretchAt(r.load))
	}
	return ""
}

// plantedToken is planted in plugins' output, environment and returned credentials.
const plantedToken = "planted-plugin-token-5e0c7a91"

// processCases are the fault suites of this package (TestFaults' servers, the credential
// plugins, signals at each phase of the commands that wait) as whole-process runs.
func processCases() []processCase {
	var cases []processCase
	for _, f := range faults() {
		// The hung server's row proves --timeout; the others prove what the server answered,
		// and their --timeout leaves room for it on a busy machine.
		timeout := "10s"
		if f.name == "hung server" {
			timeout = "1s"
		}
		cases = append(cases, processCase{
			fault: "server: " + f.name, command: "routes --timeout " + timeout, exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				kc := filepath.Join(dir, "kubeconfig")
				content := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: " + f.start(t) + "\n  name: c\nusers:\n- name: u\n  user: {token: " + faultToken + "}\ncontexts:\n- context: {cluster: c, user: u}\n  name: ctx\ncurrent-context: ctx\n"
				if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"routes", "--kubeconfig", kc, "--timeout", timeout}}
			},
			check: func(t *testing.T, r processResult) {
				if !strings.Contains(r.stderr, f.want) || strings.Contains(r.stderr, faultToken) {
					t.Errorf("stderr %q: want %q and never the token", r.stderr, f.want)
				}
			},
		})
	}

	// A plugin against a server nothing listens on, run by routes with --timeout: 3s where it
	// is the bound the row proves, 30s where another bound must end the run first.
	plugin := func(fault, body, timeout string, sig syscall.Signal, exit int, within time.Duration, want string) processCase {
		command := "routes --timeout " + timeout
		if sig != 0 {
			command = fmt.Sprintf("routes --timeout %s, %s once the plugin runs", timeout, signalName(sig))
		}
		return processCase{fault: fault, command: command, exit: exit, within: within,
			setup: func(t *testing.T, dir string) processRun {
				started := filepath.Join(dir, "started")
				p := pluginScript(t, dir, "plugin", "touch '"+started+"'\n"+body)
				kc := pluginKubeconfig(t, dir, "https://127.0.0.1:1", nil, p, "Never", nil)
				r := processRun{args: []string{"routes", "--kubeconfig", kc, "--timeout", timeout}}
				if sig != 0 {
					r.sig = &signalAt{sig: sig, ready: fileExists(started)}
				}
				return r
			},
			check: func(t *testing.T, r processResult) {
				if n := strings.Count(r.stderr, "error: "); n != 1 || !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q: want one error line with %q", r.stderr, want)
				}
			},
		}
	}
	const hung = `credential plugin "`
	cases = append(cases,
		plugin("credential plugin sleeps 300 s", "sleep 300\n", "3s", 0, ExitError, 4*time.Second, "did not finish within 3s"),
		plugin("credential plugin ignores SIGTERM, sleeps 300 s", "trap '' TERM\nsleep 300\n", "3s", 0, ExitError, 4*time.Second, "did not finish within 3s"),
		plugin("credential plugin (a shell wrapper) forks a background child and waits", "sleep 300 &\nwait\n", "3s", 0, ExitError, 4*time.Second, "did not finish within 3s"),
		plugin("credential plugin returns a token, its background child keeps its stdout", "(sleep 300 &)\necho '"+execCredential(plantedToken)+"'\n", "3s", 0, ExitError, 4*time.Second, "did not finish within 3s"),
		plugin("credential plugin sleeps 300 s", "sleep 300\n", "30s", syscall.SIGINT, ExitInterrupted, time.Second, "interrupted while the kubeconfig's "+hung),
		plugin("credential plugin sleeps 300 s", "sleep 300\n", "30s", syscall.SIGTERM, ExitTerminated, time.Second, "interrupted while the kubeconfig's "+hung),
		plugin("credential plugin ignores SIGTERM and SIGINT, sleeps 300 s", "trap '' TERM INT\nsleep 300\n", "30s", syscall.SIGINT, ExitInterrupted, time.Second, "interrupted while the kubeconfig's "+hung),
		plugin("credential plugin writes 500 MB to stdout", "head -c 500000000 /dev/zero | tr '\\0' x\n", "30s", 0, ExitError, 3*time.Second, "was stopped: it wrote more than 16 MiB"),
		plugin("credential plugin fails, printing a secret to stderr", "echo 'debug: SECRET_ENV=hunter2-plugin-secret' >&2\nexit 1\n", "30s", 0, ExitError, 3*time.Second, "credential plugin failed (exec: executable"),
	)

	// SIGINT at each phase of the commands that wait, against two fake servers, through a
	// plugin that leaves a helper running in the background (re-parented to mvpctl).
	// hung: the kubeconfig names a server that accepts connections and never answers; slow: one
	// of the fake servers answers resource requests only after a minute.
	phase := func(command string, args []string, slowPlugin, hung, slow bool, after time.Duration) processCase {
		name := "SIGINT while " + command
		return processCase{fault: name, command: strings.Join(args, " "), exit: ExitInterrupted, within: time.Second,
			setup: func(t *testing.T, dir string) processRun {
				a := &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
				b := &pt.Server{Name: "kas-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
				if slow {
					b.Slow = time.Minute
				}
				c := pt.Start(t, a, b)
				server, ca := a.URL(), c.PKI.CAPEM
				if hung {
					server, ca = "https://"+hungServer(t).Addr().String(), nil
				}
				ran := filepath.Join(t.TempDir(), "ran") // dir is checked for leftovers
				body := "sleep 300 </dev/null >/dev/null 2>&1 &\ntouch '" + ran + "'\necho '" + execCredential(pt.Token) + "'\n"
				if slowPlugin {
					body = "touch '" + ran + "'\nsleep 300\n"
				}
				p := pluginScript(t, t.TempDir(), "plugin", body)
				kc := pluginKubeconfig(t, t.TempDir(), server, ca, p, "Never", nil)
				full := append(append([]string{}, args...), "--kubeconfig", kc)
				ready := fileExists(ran)
				if after > 0 {
					var since time.Time
					ready = func() bool {
						if since.IsZero() && fileExists(ran)() {
							since = time.Now()
						}
						return !since.IsZero() && time.Since(since) > after
					}
				}
				return processRun{args: full, dir: dir, sig: &signalAt{sig: syscall.SIGINT, ready: ready}}
			},
			check: func(t *testing.T, r processResult) {
				if len(r.files) > 0 {
					t.Errorf("left files behind: %v", r.files)
				}
			},
		}
	}
	cases = append(cases,
		phase("snapshot runs the credential plugin", []string{"snapshot", "-f", "snap.yaml", "--timeout", "30s"}, true, false, false, 0),
		phase("snapshot reads a hung server", []string{"snapshot", "-f", "snap.yaml", "--timeout", "30s"}, false, true, false, 1500*time.Millisecond),
		phase("probe runs the credential plugin", []string{"probe", "--timeout", "30s"}, true, false, false, 0),
		phase("probe waits on a slow server", []string{"probe", "--timeout", "30s"}, false, false, true, 1500*time.Millisecond),
		phase("watch runs the credential plugin", []string{"watch", "--interval", "60s"}, true, false, false, 0),
		phase("watch waits between reads", []string{"watch", "--interval", "60s"}, false, false, false, 1500*time.Millisecond),
		phase("traffic runs the credential plugin", []string{"traffic", "--interval", "60s"}, true, false, false, 0),
		phase("traffic waits between the two reads", []string{"traffic", "--interval", "60s"}, false, false, false, 1500*time.Millisecond),
	)

	// A signal while the command is blocked on something no context ends: a read of a pipe or
	// a device, a write to a stdout nobody reads. The process ends whatever it waits on.
	blocked := func(fault string, sig syscall.Signal, args []string, prepare func(t *testing.T, dir string, r *processRun)) processCase {
		exit := ExitInterrupted
		if sig == syscall.SIGTERM {
			exit = ExitTerminated
		}
		return processCase{fault: signalName(sig) + " while " + fault, command: strings.Join(args, " "), exit: exit, within: time.Second,
			setup: func(t *testing.T, dir string) processRun {
				r := processRun{args: append([]string{}, args...), sig: &signalAt{sig: sig, ready: after(700 * time.Millisecond)}}
				if prepare != nil {
					prepare(t, dir, &r)
				}
				return r
			},
			check: func(t *testing.T, r processResult) {
				if n := strings.Count(r.stderr, "error: "); n != 1 || !strings.Contains(r.stderr, "interrupted by "+signalName(sig)) {
					t.Errorf("stderr %q: want one error line saying it was interrupted", r.stderr)
				}
			},
		}
	}
	fifo := func(name string) func(t *testing.T, dir string, r *processRun) {
		return func(t *testing.T, dir string, r *processRun) {
			path := filepath.Join(t.TempDir(), name) // dir is checked for leftovers
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			for i, a := range r.args {
				r.args[i] = strings.ReplaceAll(a, name, path)
			}
			r.sig.blockedIn = &blockedCall{name: "openat", fd: -1, fallback: r.sig.ready}
		}
	}
	manyServers := "a=1.36,b=1.36,c=1.36,d=1.36,e=1.36,f=1.36,g=1.36,h=1.36"
	cases = append(cases,
		blocked("reading a stdin nobody writes to", syscall.SIGINT, []string{"routes", "--snapshot", "-"},
			func(t *testing.T, dir string, r *processRun) {
				r.silentStdin = true
				r.sig.blockedIn = &blockedCall{name: "read", fd: 0, fallback: r.sig.ready}
			}),
		blocked("opening a FIFO nobody writes to", syscall.SIGINT, []string{"routes", "--snapshot", "snap.fifo"}, fifo("snap.fifo")),
		blocked("replaying an endless audit log", syscall.SIGINT, []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--audit-log", "endless.log"}, endlessAuditLog),
		blocked("replaying an endless audit log", syscall.SIGTERM, []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--audit-log", "endless.log"}, endlessAuditLog),
		blocked("writing to a stdout nobody reads", syscall.SIGINT, []string{"simulate", "upgrade", "--servers", manyServers, "--to", "1.37", "-o", "json"},
			func(t *testing.T, dir string, r *processRun) {
				r.blockedStdout = true
				r.sig.blockedIn = &blockedCall{name: "write", fd: 1, fallback: r.sig.ready}
			}),
	)

	// A FIFO where mvpctl looks for a file by itself is refused at once, not opened.
	cases = append(cases,
		processCase{fault: "a FIFO named x.json in the profile directory", command: "profiles list", exit: ExitError, within: time.Second,
			setup: func(t *testing.T, dir string) processRun {
				config := t.TempDir()
				profiles := filepath.Join(config, "mvpctl", "profiles")
				if err := os.MkdirAll(profiles, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(filepath.Join(profiles, "x.json"), 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"profiles", "list"}, env: []string{"XDG_CONFIG_HOME=" + config}}
			},
			check: func(t *testing.T, r processResult) {
				if !strings.Contains(r.stderr, "x.json: a named pipe (FIFO), not a regular file") {
					t.Errorf("stderr %q", r.stderr)
				}
			},
		},
		processCase{fault: "a FIFO named .mvpctl-ignore in the current directory", command: "preflight --servers a=1.36,b=1.36 --to 1.37", exit: ExitError, within: time.Second,
			setup: func(t *testing.T, dir string) processRun {
				cwd := t.TempDir()
				if err := syscall.Mkfifo(filepath.Join(cwd, ".mvpctl-ignore"), 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"preflight", "--servers", "a=1.36,b=1.36", "--to", "1.37"}, dir: cwd}
			},
			check: func(t *testing.T, r processResult) {
				if !strings.Contains(r.stderr, "baseline .mvpctl-ignore: a named pipe (FIFO), not a regular file") {
					t.Errorf("stderr %q", r.stderr)
				}
			},
		},
	)

	// Inputs past a bound: refused at once, naming the bound, in bounded memory.
	scenario := func(fault string, steps int, want string) processCase {
		return processCase{fault: fault, command: "simulate run --scenario scenario.yaml", exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				var b strings.Builder
				b.WriteString("apiVersion: mvpctl.io/v1alpha1\nkind: Scenario\nfrom:\n  servers:\n  - {name: a, version: \"1.36\", proxy: configured}\n  - {name: b, version: \"1.37\", proxy: configured}\nsteps:\n")
				for i := range steps {
					b.WriteString([]string{"- {action: crash, server: b}\n", "- {action: start, server: b}\n"}[i%2])
				}
				path := filepath.Join(t.TempDir(), "scenario.yaml")
				if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"simulate", "run", "--scenario", path}}
			},
			check: func(t *testing.T, r processResult) {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q, want %q", r.stderr, want)
				}
			},
		}
	}
	cases = append(cases,
		scenario("a scenario of 20,000 steps", 20000, "20000 steps; at most 200 are simulated"),
		scenario("a scenario file of 2 MB", 60000, "larger than 1 MiB: not a scenario file"),
		processCase{fault: "an endless scenario file (/dev/zero)", command: "simulate run --scenario /dev/zero", exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				return processRun{args: []string{"simulate", "run", "--scenario", "/dev/zero"}}
			},
		},
	)
	cases = append(cases, boundCases()...)
	cases = append(cases, budgetCases()...)
	cases = append(cases, escapeCases()...)
	cases = append(cases, writeCases()...)
	cases = append(cases, leaseCases()...)

	cases = append(cases, processCase{
		fault: "snapshot file: a 2 MB gzip that expands to 2 GiB", command: "routes --snapshot bomb.json.gz", exit: ExitError, within: 10 * time.Second, alone: true,
		setup: func(t *testing.T, dir string) processRun {
			return processRun{args: []string{"routes", "--snapshot", gzipBomb(t, dir)}}
		},
	})
	return cases
}

// gzipBomb writes a gzip file of about 2 MB that expands to 2 GiB: a snapshot's opening,
// then 2,048 gzip members of 1 MiB of spaces each (valid JSON whitespace, so nothing but the
// size can refuse it).
func gzipBomb(t *testing.T, dir string) string {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(bytes.Repeat([]byte(" "), 1<<20))
	zw.Close()
	var head bytes.Buffer
	zw = gzip.NewWriter(&head)
	zw.Write([]byte(`{"apiVersion":"mvpctl.io/v1alpha2","kind":"Snapshot","servers":[`))
	zw.Close()
	path := filepath.Join(dir, "bomb.json.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(head.Bytes())
	for range 2048 {
		f.Write(member.Bytes())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func signalName(s syscall.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// TestFaultTable runs every processCase as a whole process and checks its exit code, its
// wall time and peak RSS against the bounds, that no process it started is left and no file;
// docs/faults.md shows the last measured values (`go test ./cmd/mvpctl -run TestFaultTable
// -update` rewrites it) and must agree with the run in every column but the measured ones.
func TestFaultTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 30 processes")
	}
	cases := processCases()
	results := make([]processResult, len(cases))
	slots := make(chan struct{}, 3) // the machine may have two cores shared with others
	t.Run("cases", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.fault+"/"+c.command, func(t *testing.T) {
				if !c.alone {
					t.Parallel()
					slots <- struct{}{}
					defer func() { <-slots }()
				}
				dir := t.TempDir()
				r := runProcess(t, c.setup(t, dir))
				results[i] = r
				t.Logf("%s: wall %.2f s (bound %g s), CPU %.2f s, peak RSS %.0f MB (bound %d MB; the test process's own at the start: %.0f MB); ended: exit %d, %s", c.fault, r.took.Seconds(), c.within.Seconds(), r.cpu.Seconds(), r.rssMB, maxRSSMB, r.rssStart, r.code, endedBy(r))
				if r.code != c.exit {
					t.Errorf("exit %d, want %d; stderr %q", r.code, c.exit, r.stderr)
				}
				if over := overBound(r, c.within); over != "" {
					t.Error(over)
				}
				if r.rssMB > maxRSSMB {
					t.Errorf("peak RSS %.0f MB, bound %d MB", r.rssMB, maxRSSMB)
					if r.rssMB <= r.rssStart {
						t.Errorf("the test process's own peak RSS was %.0f MB at the start: the figure may be the test's, not the process's", r.rssStart)
					}
				}
				if len(r.leftover) > 0 {
					t.Errorf("processes left after exit: %q", r.leftover)
				}
				for _, s := range []string{plantedToken, pt.Token, "hunter2"} {
					if strings.Contains(r.stdout+r.stderr, s) {
						t.Errorf("output shows %q: %q", s, r.stderr)
					}
				}
				if c.check != nil {
					c.check(t, r)
				}
			})
		}
	})
	doc := faultTableDoc(cases, results)
	const path = "../../docs/faults.md"
	if *update {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := stableColumns(doc), stableColumns(string(want)); got != w {
		t.Errorf("docs/faults.md disagrees with the run (go test ./cmd/mvpctl -run TestFaultTable -update rewrites it)\n--- run\n%s\n--- doc\n%s", got, w)
	}
}

// endedBy is what the process said last on stderr: the line that names the bound or the
// fault that ended the run (a check then tells whether it is the row's).
func endedBy(r processResult) string {
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "nothing on stderr"
	}
	if r := []rune(last); len(r) > 360 {
		last = string(r[:120]) + " … " + string(r[len(r)-240:]) // the cause is said last
	}
	return fmt.Sprintf("%q", last)
}

var measured = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\| [0-9.]+ (s|MB) \(`) })

// stableColumns is the doc with the measured values blanked.
func stableColumns(doc string) string { return measured().ReplaceAllString(doc, "| … (") }

// boundsDoc is the table of every bound on what mvpctl reads or computes (boundRows).
func boundsDoc() string {
	var b strings.Builder
	b.WriteString(`## Bounds

Every read has a bound; past it the read is refused with one line naming the source and the
bound (a server's answer is never cut short silently), and so has a simulation's work, refused
before it starts. What a run at the bound costs is in the third column, measured once with
` + "`/usr/bin/time -v`" + ` (peak RSS, user + system CPU) on a 2-core machine; most bounds cost a few
hundred MB at most, a snapshot file near its bound costs GBs. Time: one ` + "`--timeout`" + ` is one deadline for the whole exchange with a server
(its lease list and its own reads); a signal ends the process within a second whatever it
waits on (the command gets 0.4 s to stop by itself, docs/architecture.md). Files mvpctl finds
by itself (the profile directory's ` + "`*.json`" + `, ` + "`.mvpctl-ignore`" + `) are read only when regular files.

| what is read or computed | bound | at the bound (2 cores) | tests |
|---|---|---|---|
`)
	for _, r := range boundRows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.what, r.bound, r.atBound, r.tests)
	}
	return b.String()
}

func faultTableDoc(cases []processCase, results []processResult) string {
	var b strings.Builder
	b.WriteString(`# Faults, measured on the whole process

Generated by ` + "`TestFaultTable`" + ` (cmd/mvpctl/faulttable_test.go), which runs the built binary once
per row: ` + "`go test ./cmd/mvpctl -run TestFaultTable -update`" + ` rewrites this file with the values it
measured. The test fails when a process exits with another code, uses more CPU time than its
bound, takes more than twice its bound in wall time (both from the start, or from the signal
when one is sent) and more than the bound plus ten times its CPU time (a loaded machine stretches
the time a process waits for a CPU, in proportion to the CPU it uses; past a load average of
2.5 per core, four times the load per core stands for ten; the test's log shows the CPU time,
the load, and the line that ended the run, for every row), peaks
above the RSS bound (the process's own: wait4's figure above the test process's own peak),
leaves a process it started alive (found by a marker in their environment; zombies aside) or
a file behind, or shows a planted credential. The measured values vary from run to run; the
other columns must match this file.

A credential plugin runs as client-go runs it, with the kubeconfig's ` + "`exec`" + ` entry; the servers
are the fake apiservers of the tests. How mvpctl ends its child processes: docs/architecture.md.

` + boundsDoc() + `
## Measured

| fault | command | exit | wall time (bound) | peak RSS (bound) | processes left |
|---|---|---|---|---|---|
`)
	for i, c := range cases {
		r := results[i]
		fmt.Fprintf(&b, "| %s | `mvpctl %s` | %d | %.2f s (≤ %g s) | %.0f MB (≤ %d MB) | %d |\n",
			c.fault, c.command, c.exit, r.took.Seconds(), c.within.Seconds(), r.rssMB, maxRSSMB, len(r.leftover))
	}
	return b.String()
}

// TestOverBound pins the wall-time rule: a slow run passes only when its CPU time, stretched
// by the machine's load, explains the wait; a run that waits without using CPU (a timeout
// not kept) fails whatever the load, and CPU past the bound always fails.
func TestOverBound(t *testing.T) {
	cores := float64(runtime.NumCPU())
	for _, c := range []struct {
		name      string
		took, cpu time.Duration
		load      float64 // per core
		fails     bool
	}{
		{"within the bound", 900 * time.Millisecond, 100 * time.Millisecond, 0, false},
		{"twice the bound, idle machine, little CPU", 2500 * time.Millisecond, 50 * time.Millisecond, 0.5, true},
		{"stretched by its CPU on a busy machine", 6 * time.Second, 500 * time.Millisecond, 2, false},
		{"stretched by a very busy machine", 6400 * time.Millisecond, 170 * time.Millisecond, 10, false},
		{"waited without CPU on a very busy machine", 30 * time.Second, 20 * time.Millisecond, 10, true},
		{"CPU past the bound", 1500 * time.Millisecond, 1100 * time.Millisecond, 0, true},
	} {
		got := overBound(processResult{took: c.took, cpu: c.cpu, load: c.load * cores}, time.Second)
		if (got != "") != c.fails {
			t.Errorf("%s: overBound = %q, want failing %v", c.name, got, c.fails)
		}
	}
}
