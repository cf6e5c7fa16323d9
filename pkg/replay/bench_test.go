package replay

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// auditLines generates an audit log on the fly: n ResponseComplete events over a mix of
// resources, namespaces, names and user agents, never held in memory as a whole.
type auditLines struct {
	n, i int
	buf  []byte
	// sample is called every 50,000 lines, to observe memory while the log streams.
	sample func()
}

var auditPaths = []string{
	"/api/v1/namespaces/ns-%d/pods/p-%d",
	"/apis/apps/v1/namespaces/ns-%d/deployments/d-%d",
	"/apis/batch/v1/namespaces/ns-%d/jobs?limit=%d",
	"/apis/new.k8s.io/v1/namespaces/ns-%d/widgets/w-%d",
	"/apis/old.k8s.io/v1beta1/namespaces/ns-%d/gadgets/g-%d",
}

func (a *auditLines) Read(p []byte) (int, error) {
	for len(a.buf) < len(p) && a.i < a.n {
		path := fmt.Sprintf(auditPaths[a.i%len(auditPaths)], a.i%50, a.i)
		a.buf = fmt.Appendf(a.buf, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%08x","stage":"ResponseComplete","requestURI":%q,"verb":"get","user":{"username":"system:serviceaccount:ns:sa-%d","groups":["system:authenticated"]},"sourceIPs":["10.0.0.1"],"userAgent":"agent-%d/v1.36","objectRef":{"resource":"pods","namespace":"ns","name":"p","apiVersion":"v1"},"responseStatus":{"code":200}}`+"\n", a.i, path, a.i%7, a.i%20)
		a.i++
		if a.sample != nil && a.i%50000 == 0 {
			a.sample()
		}
	}
	if len(a.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, a.buf)
	a.buf = a.buf[:copy(a.buf, a.buf[n:])]
	return n, nil
}

func upgradeSimulation(b testing.TB) *simulate.Simulation {
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}, {Name: "c", Version: "1.36"}}, planes.At)
	if err != nil {
		b.Fatal(err)
	}
	steps, err := simulate.UpgradePlan(s, "1.37", nil)
	if err != nil {
		b.Fatal(err)
	}
	sim, err := simulate.Run(s, steps)
	if err != nil {
		b.Fatal(err)
	}
	return sim
}

// BenchmarkReadAuditLog is the baseline: reading and decoding the audit events alone.
func BenchmarkReadAuditLog(b *testing.B) {
	for b.Loop() {
		tr, _ := NewReader(&auditLines{n: 10000}, "gen", FormatAuditLog)
		for {
			if _, err := tr.Next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkReplayAuditLog replays the same 10,000 events through a three-server rolling
// upgrade (7 steps × 3 servers). Compare with BenchmarkReadAuditLog: the replay should cost a
// small multiple of reading the log.
func BenchmarkReplayAuditLog(b *testing.B) {
	sim := upgradeSimulation(b)
	for b.Loop() {
		tr, _ := NewReader(&auditLines{n: 10000}, "gen", FormatAuditLog)
		if _, err := Replay(sim, tr, "gen", FormatAuditLog); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReplayConstantMemory streams 300,000 audit events (≈150 MB of log) through a replay and
// checks that the live heap stays bounded while it does: the log is never held in memory.
func TestReplayConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 150 MB of generated audit log")
	}
	sim := upgradeSimulation(t)
	var peak uint64
	sample := func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	gen := &auditLines{n: 300000, sample: sample}
	tr, _ := NewReader(gen, "gen", FormatAuditLog)
	rep, err := Replay(sim, tr, "gen", FormatAuditLog)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 300000 || rep.Malformed != 0 {
		t.Fatalf("requests %d, malformed %d", rep.Requests, rep.Malformed)
	}
	const limit = 64 << 20
	if peak > limit {
		t.Errorf("heap reached %d MiB while streaming the log; want under %d MiB", peak>>20, limit>>20)
	}
	t.Logf("peak live heap while streaming: %.1f MiB", float64(peak)/(1<<20))
}
