// Command mkexample records the examples the README and docs/*.md run, from real apiservers:
// a v1.37.1 server and a v1.36.3 server with batch/v1 turned off, on one etcd, both with
// audit logging on.
//
//   - examples/skew.yaml: the snapshot, taken by the mvpctl binary the way a user would (with
//     every server's /apis documents, so `discovery expected|diff` work on it);
//   - examples/audit.log.gz: the audit log (Metadata level, ResponseComplete stage only) of a
//     few dozen ordinary requests sent to both servers, among them requests for GVRs only one
//     of the two serves, merged from both servers' logs in the order they were received.
//
// Needs root (as the e2e harness does). `make examples` from the repository root runs it:
//
//	cd test/e2e && go run ./cmd/mkexample -mvpctl ../../bin/mvpctl [-out ../../examples/skew.yaml] [-audit-out ../../examples/audit.log.gz]
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// maxAuditGz is the size the shipped audit log must stay under.
const maxAuditGz = 50 << 10

func main() {
	bin := flag.String("mvpctl", "../../bin/mvpctl", "the mvpctl binary (make build)")
	out := flag.String("out", "../../examples/skew.yaml", "where to write the snapshot")
	auditOut := flag.String("audit-out", "../../examples/audit.log.gz", "where to write the gzipped audit log (empty: none)")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "mkexample-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	policy := filepath.Join(tmp, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(harness.AuditPolicy), 0o644); err != nil {
		log.Fatal(err)
	}
	auditFlags := func(name string) []string {
		return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + filepath.Join(tmp, name+"-audit.log"), "--audit-log-format=json"}
	}
	cp, err := harness.NewControlPlane(harness.Config{Logf: log.Printf, Servers: []harness.ServerSpec{
		{Name: "kas-a", Version: harness.V1_37, ExtraFlags: auditFlags("kas-a")},
		{Name: "kas-b", Version: harness.V1_36, ExtraFlags: append([]string{"--runtime-config=api/all=true,batch/v1=false"}, auditFlags("kas-b")...)},
	}})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cp.WaitPeers(ctx); err != nil {
		log.Fatal(err)
	}

	// Traffic first, so the snapshot (whose reads are audited too) is not part of the log.
	since := time.Now()
	sent, err := traffic(ctx, cp)
	if err != nil {
		log.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the audit backend writes asynchronously
	until := time.Now()

	cmd := exec.Command(*bin, "snapshot", "--kubeconfig", cp.Kubeconfig, "-f", *out)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		cp.Close()
		log.Fatalf("mvpctl snapshot: %v", err)
	}
	log.Printf("wrote %s", *out)

	if *auditOut == "" {
		return
	}
	if err := writeAudit(*auditOut, sent, since, until, filepath.Join(tmp, "kas-a-audit.log"), filepath.Join(tmp, "kas-b-audit.log")); err != nil {
		cp.Close()
		log.Fatal(err)
	}
}

// userAgent is the User-Agent of the recorded requests.
const userAgent = "mkexample (mvpctl test/e2e)"

// request is one request of the recorded traffic.
type request struct {
	method, path, body string
}

// traffic sends the same ordinary requests (what kubectl, controllers and operators send) to
// each server: reads of shared GVRs, a configmap's create/get/patch/delete, 404s for missing
// names, watches, discovery, and reads of GVRs only kas-a (batch/v1, 1.37-only groups) or
// only kas-b (resource.k8s.io/v1beta1, removed in 1.37) serves.
func traffic(ctx context.Context, cp *harness.ControlPlane) (sent int, err error) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mkexample-%s"},"data":{"k":"v"}}`
	for _, s := range cp.Servers() {
		reqs := []request{
			{"GET", "/version", ""},
			{"GET", "/api", ""},
			{"GET", "/apis", ""},
			{"GET", "/api/v1/namespaces", ""},
			{"GET", "/api/v1/namespaces/default", ""},
			{"GET", "/api/v1/namespaces/default/pods?limit=500", ""},
			{"GET", "/api/v1/namespaces/default/services", ""},
			{"GET", "/api/v1/namespaces/kube-system/configmaps/absent-config", ""},
			{"POST", "/api/v1/namespaces/default/configmaps", fmt.Sprintf(cm, s.Name)},
			{"GET", "/api/v1/namespaces/default/configmaps/mkexample-" + s.Name, ""},
			{"DELETE", "/api/v1/namespaces/default/configmaps/mkexample-" + s.Name, ""},
			{"GET", "/apis/apps/v1/namespaces/default/deployments", ""},
			{"GET", "/apis/apps/v1/namespaces/default/deployments/absent/scale", ""},
			{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", ""},
			{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=500", ""},
			{"GET", "/apis/batch/v1/namespaces/default/jobs", ""},
			{"GET", "/apis/batch/v1/cronjobs", ""},
			{"GET", "/apis/batch/v1/namespaces/default/jobs/absent-job", ""},
			{"GET", "/apis/batch/v1/namespaces/default/jobs?watch=1&timeoutSeconds=1", ""},
			{"GET", "/apis/certificates.k8s.io/v1/clustertrustbundles", ""},
			{"GET", "/apis/storagemigration.k8s.io/v1/storageversionmigrations", ""},
			{"GET", "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims", ""},
			{"GET", "/apis/resource.k8s.io/v1beta1/resourceclaims?watch=1&timeoutSeconds=1", ""},
		}
		for _, r := range reqs {
			h := http.Header{"User-Agent": {userAgent}}
			if r.body != "" {
				h.Set("Content-Type", "application/json")
			}
			resp, err := s.Do(ctx, r.method, r.path, h, strings.NewReader(r.body))
			if err != nil {
				return sent, fmt.Errorf("%s %s%s: %w", r.method, s.Name, r.path, err)
			}
			sent++
			log.Printf("%s %-6s %-75s %d", s.Name, r.method, r.path, resp.StatusCode)
		}
	}
	return sent, nil
}

// tokenLike finds what must never be shipped in an audit log: bearer tokens and JWTs.
var tokenLike = regexp.MustCompile(`(?i)bearer|eyJ[A-Za-z0-9_-]{10,}`)

// writeAudit merges the events of the given logs received in [since, until], sorted by
// their requestReceivedTimestamp, into a gzip file, after checking they carry no token and
// that each of the sent requests was logged (proxied ones are logged by both servers).
func writeAudit(out string, sent int, since, until time.Time, logs ...string) error {
	type ev struct {
		at   time.Time
		line []byte
	}
	var evs []ev
	ours := 0
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e struct {
				Level     string    `json:"level"`
				Stage     string    `json:"stage"`
				UserAgent string    `json:"userAgent"`
				Received  time.Time `json:"requestReceivedTimestamp"`
				RequestOb any       `json:"requestObject"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
			if e.Received.Before(since) || e.Received.After(until) {
				continue
			}
			if e.Level != "Metadata" || e.Stage != "ResponseComplete" || e.RequestOb != nil {
				f.Close()
				return fmt.Errorf("%s: unexpected event (level %s, stage %s): %s", path, e.Level, e.Stage, sc.Text())
			}
			if tokenLike.Match(sc.Bytes()) {
				f.Close()
				return fmt.Errorf("%s: an event looks like it carries a token: %s", path, sc.Text())
			}
			if e.UserAgent == userAgent {
				ours++
			}
			evs = append(evs, ev{e.Received, append([]byte(nil), sc.Bytes()...)})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	if ours < sent {
		return fmt.Errorf("the audit logs hold %d events of the %d requests sent", ours, sent)
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, e := range evs {
		zw.Write(e.line)
		zw.Write([]byte("\n"))
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if buf.Len() > maxAuditGz {
		return fmt.Errorf("audit log of %d events is %d bytes gzipped, over %d", len(evs), buf.Len(), maxAuditGz)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s: %d events, %d bytes", out, len(evs), buf.Len())
	return nil
}
