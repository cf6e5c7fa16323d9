package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// What mvpctl must say of an aggregated APIService's group/version in each state of
// TestAggregatedAPI (docs/behaviour.md §16): the routes cell and explain's outcome from a live
// snapshot, and probe's observed cell. Never a 404.
type aggWant struct {
	// cells are the routes/explain cells allowed for every server ("local": the backend's
	// answer through the server's own aggregator).
	cells []string
	// observed are the probe's observed cells allowed.
	observed []string
}

var (
	aggWantBackend = aggWant{cells: []string{"local"}, observed: []string{"local"}}
	// Right after the backend's SIGKILL the APIService is still Available: the prediction is
	// local with the aggregator's two 503s as alternatives, and probe sees the dial error —
	// or, if the availability check ran meanwhile, "service unavailable" everywhere.
	aggWantDialWindow  = aggWant{cells: []string{"local", aggCellUnavailable}, observed: []string{"local 503 (backend unreachable)", aggCellUnavailable}}
	aggWantUnavailable = aggWant{cells: []string{aggCellUnavailable}, observed: []string{aggCellUnavailable}}
)

const aggCellUnavailable = "local 503 (APIService unavailable)"

// aggRow is one line of the predicted-vs-observed table the test logs.
type aggRow struct{ state, server, request, routes, explain, probe, verdict string }

// aggTable collects the rows of every state.
type aggTable struct{ rows []aggRow }

func (tb *aggTable) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %-8s %-58s %-36s %-50s %-36s %s\n", "STATE", "SERVER", "REQUEST", "ROUTES", "EXPLAIN", "PROBE", "VERDICT")
	for _, r := range tb.rows {
		fmt.Fprintf(&b, "%-28s %-8s %-58s %-36s %-50s %-36s %s\n", r.state, r.server, r.request, r.routes, r.explain, r.probe, r.verdict)
	}
	return b.String()
}

// checkAggMvpctl takes a live snapshot, and checks what `mvpctl routes` and `mvpctl explain`
// predict for the APIService apiService (group/version gv) on every server and what `mvpctl
// probe --group` measures, against want; apiServiceReason, when set, is the Available
// condition's reason explain must name.
func checkAggMvpctl(t *testing.T, cp *harness.ControlPlane, tb *aggTable, state, apiService, gv, apiServiceReason string, paths []string, want aggWant) {
	t.Helper()
	dir := t.TempDir()
	snapPath := filepath.Join(dir, "snapshot.json")
	snap, _ := mvpctlSnapshot(t, snapPath, []int{0, 2}, "--kubeconfig", cp.Kubeconfig)
	var recorded bool
	for _, a := range snap.Cluster.APIServices {
		if a.Name == apiService {
			recorded = true
			t.Logf("%s: snapshot records APIService %s: service %s, available %+v, resources %v, stale on %v", state, a.Name, a.Service, a.Available, a.Resources, a.Stale)
		}
	}
	if !recorded {
		t.Errorf("%s: the snapshot does not record APIService %s", state, apiService)
	}

	// routes --all: every row of the group/version, every server.
	r := runMvpctl(t, "routes", "--snapshot", snapPath, "--all", "-o", "json")
	var table route.RoutingTable
	if err := json.Unmarshal(r.Stdout, &table); err != nil {
		t.Fatalf("%s\n%v", r, err)
	}
	routesCell := map[string]string{} // server → cell of the group/version's rows
	rows := 0
	for _, row := range table.Rows {
		if row.Name != gv && !strings.HasPrefix(row.Name, gv+"/") {
			continue
		}
		rows++
		for _, c := range row.Cells {
			routesCell[c.Server] = c.Text
			if !hasString(want.cells, c.Text) {
				t.Errorf("%s: routes %s on %s: %q, want one of %q", state, row.Name, c.Server, c.Text, want.cells)
			}
		}
	}
	if rows == 0 {
		t.Errorf("%s: routes --all has no row of %s", state, gv)
	}
	// Without --all, an unavailable APIService's rows are shown even though every server
	// answers alike.
	if want.cells[0] == aggCellUnavailable {
		r := runMvpctl(t, "routes", "--snapshot", snapPath, "--no-headers")
		if !strings.Contains(string(r.Stdout), aggCellUnavailable) {
			t.Errorf("%s: routes (without --all) does not show %s:\n%s", state, gv, r.Stdout)
		}
	}

	// explain, for every path.
	for _, path := range paths {
		r := runMvpctl(t, "explain", "--snapshot", snapPath, "-o", "json", "GET", path)
		var e route.Explanation
		if err := json.Unmarshal(r.Stdout, &e); err != nil {
			t.Fatalf("%s\n%v", r, err)
		}
		for _, d := range e.Servers {
			cell := d.Cell()
			text := cell
			if len(d.AlsoPossible) > 0 {
				text += " (also " + strings.Join(d.AlsoPossible, ", ") + ")"
			}
			tb.rows = append(tb.rows, aggRow{state: state, server: d.Server, request: "GET " + path, routes: routesCell[d.Server], explain: text})
			if !hasString(want.cells, cell) {
				t.Errorf("%s: explain GET %s on %s: %s (%s), want one of %q", state, path, d.Server, cell, d.Reason, want.cells)
			}
			if d.APIService == nil || d.APIService.Name != apiService {
				t.Errorf("%s: explain GET %s on %s does not name APIService %s: %+v", state, path, d.Server, apiService, d.APIService)
			}
			if cell == aggCellUnavailable && (!strings.Contains(d.Reason, apiService) || !strings.Contains(d.Reason, apiServiceReason)) {
				t.Errorf("%s: explain's reason does not name %s and %s: %s", state, apiService, apiServiceReason, d.Reason)
			}
		}
	}

	// probe --group: every result of the group/version matches, exit never 3.
	group := strings.Split(gv, "/")[0]
	args := append(append([]string{"probe", "--kubeconfig", cp.Kubeconfig, "-o", "json"}, probeCmdFast...), "--group", group)
	pr := runMvpctl(t, args...)
	var rep probe.Report
	if err := json.Unmarshal(pr.Stdout, &rep); err != nil {
		t.Fatalf("%s\ndecoding the report: %v\n%.2000s", pr, err, pr.Stdout)
	}
	probeCmdLog(t, &rep)
	if pr.Exit == 3 || pr.Exit == 1 {
		t.Errorf("%s: %s\nwant exit 0 or 2, never 3", state, pr)
	}
	measured := 0
	for _, res := range rep.Results {
		if res.Name != gv && !strings.HasPrefix(res.Name, gv+"/") {
			continue
		}
		measured++
		for i := range tb.rows {
			row := &tb.rows[i]
			// A result of the group/version itself (discovery lists no resource of it) is its
			// /apis/<group>/<version> row; a resource's, the first free row of its resource.
			same := row.request == "GET /apis/"+res.Name
			if res.Name != gv {
				same = strings.HasSuffix(row.request, "/"+res.GVR.Resource)
			}
			if row.state == state && row.server == res.Server && row.probe == "" && same {
				row.probe, row.verdict = res.Observed.Text, string(res.Verdict)
				break
			}
		}
		if res.Verdict != probe.VerdictMatch || !hasString(want.observed, res.Observed.Text) {
			t.Errorf("%s: probe %s %s on %s: predicted %s, observed %s (%s): %s, want a match observing one of %q",
				state, res.Verb, res.Path, res.Server, res.Predicted.Text, res.Observed.Text, res.Observed.Why, res.Verdict, want.observed)
		}
	}
	if measured == 0 {
		t.Errorf("%s: probe --group %s measured nothing of %s", state, group, gv)
	}
}

// aggWatch is `mvpctl watch -o json` running through the test: its lines, for the checks at
// the end.
type aggWatch struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mu     sync.Mutex
	lines  []watchLine
	done   chan struct{}
}

func startAggWatch(t *testing.T, kubeconfig string) *aggWatch {
	t.Helper()
	w := &aggWatch{done: make(chan struct{})}
	w.cmd = exec.Command(mvpctlBinary(t), "watch", "--interval", "1s", "--metrics=false", "-o", "json", "--kubeconfig", kubeconfig)
	w.cmd.Stderr = &w.stderr
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.cmd.Process.Kill() })
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l watchLine
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				w.mu.Lock()
				w.lines = append(w.lines, l)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// seen returns the events so far.
func (w *aggWatch) seen() []watchLine {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]watchLine(nil), w.lines...)
}

// waitFor waits until an event satisfying ok was printed, and returns it.
func (w *aggWatch) waitFor(timeout time.Duration, ok func(watchLine) bool) (watchLine, bool) {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		for _, l := range w.seen() {
			if ok(l) {
				return l, true
			}
		}
	}
	return watchLine{}, false
}

// stop interrupts the watch and waits for its last line.
func (w *aggWatch) stop(t *testing.T) {
	t.Helper()
	_ = w.cmd.Process.Signal(os.Interrupt)
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Errorf("the watch did not end 30s after SIGINT")
	}
	_ = w.cmd.Wait()
	var b strings.Builder
	for _, l := range w.seen() {
		if l.APIService != "" || strings.Contains(l.GVR, "metrics.k8s.io") {
			fmt.Fprintf(&b, "%s %s %s %s %s %q → %q\n", l.Time.Format("15:04:05.0"), l.Type, l.APIService, l.Server, l.GVR, l.From, l.To)
		}
	}
	t.Logf("watch: the APIService's events:\n%s\nstderr:\n%s", b.String(), strings.TrimSpace(w.stderr.String()))
}

// aggWatchCells checks that the watch saw every server's cell of the group/version's rows
// change from one cell to the other.
func aggWatchCells(t *testing.T, w *aggWatch, gv string, servers []string, from, to string) {
	t.Helper()
	for _, s := range servers {
		_, ok := w.waitFor(20*time.Second, func(l watchLine) bool {
			return l.Type == "outcome-changed" && l.Server == s && (l.GVR == gv || strings.HasPrefix(l.GVR, gv+"/")) && l.From == from && l.To == to
		})
		if !ok {
			t.Errorf("watch: no outcome-changed %q → %q of %s on %s", from, to, gv, s)
		}
	}
}

// aggWatchAPIService checks that the watch reported APIService name's event of type typ.
func aggWatchAPIService(t *testing.T, w *aggWatch, typ, name string) {
	t.Helper()
	l, ok := w.waitFor(20*time.Second, func(l watchLine) bool { return l.Type == typ && l.APIService == name })
	if !ok {
		t.Errorf("watch: no %s event of APIService %s", typ, name)
		return
	}
	t.Logf("watch: %s %s: %q → %q", typ, name, l.From, l.To)
}
