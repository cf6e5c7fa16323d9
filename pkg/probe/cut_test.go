package probe_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// overBound is body followed by spaces to one byte past probe.MaxBody: whole, it is still the
// shape it starts with.
func overBound(body string) string {
	return body + strings.Repeat(" ", probe.MaxBody+1-len(body))
}

// bigJobList is a JobList of one job whose annotation takes it 1 KiB past probe.MaxBody: the
// cut is inside the annotation. Its resourceVersion comes before the items, as the apiserver
// writes it.
func bigJobList() string {
	head := `{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"777"},"items":[{"metadata":{"name":"big","annotations":{"pad":"`
	tail := `"}}}]}` + "\n"
	return head + strings.Repeat("x", probe.MaxBody+1024-len(head)-len(tail)) + tail
}

// answerBatch makes s answer the batch/v1 jobs requests that match with code and body.
func answerBatch(s *pt.Server, match func(r *http.Request) bool, code int, contentType, body string) {
	s.Answer = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.URL.Path, "/apis/batch/v1/") || !match(r) {
			return false
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		io.WriteString(w, body)
		return true
	}
}

func isList(r *http.Request) bool  { return r.URL.Query().Get("limit") == "1" }
func isWatch(r *http.Request) bool { return r.URL.Query().Get("watch") == "1" }
func isGet(r *http.Request) bool   { return strings.HasSuffix(r.URL.Path, "/mvpctl-probe-absent-test") }
func forced(r *http.Request) bool  { return r.Header.Get(mvp.LoopPreventionHeader) == "true" }

// TestAnswersOverTheBound: an answer longer than probe.MaxBody is read to the bound and the
// report says so on the response (truncated). A cut 200 is still classified by its status, so
// kas-b's list of batch jobs (batch/v1 off on kas-b) is still seen proxied, and the watch
// still starts at the cut list's resourceVersion. A cut 404 or 503 — whose shape the class
// depends on, and which no apiserver answers that long — is no apiserver's own answer: the
// measurement is inconclusive, whatever the first bytes look like.
func TestAnswersOverTheBound(t *testing.T) {
	for _, tc := range []struct {
		name         string
		tweak        func(a, b *pt.Server)
		server, verb string
		normalCut    bool
		localCut     bool
		verdict      probe.Verdict
		observed     mvp.Outcome
		note         string
	}{
		{"a 200 list, proxied", func(a, _ *pt.Server) { answerBatch(a, isList, 200, pt.ContentTypeJSON, bigJobList()) },
			"kas-b", probe.VerbList, true, false, probe.VerdictMatch, mvp.Proxied, ""},
		{"a 200 list, local", func(a, _ *pt.Server) { answerBatch(a, isList, 200, pt.ContentTypeJSON, bigJobList()) },
			"kas-a", probe.VerbList, true, true, probe.VerdictMatch, mvp.Local, ""},
		{"the last-resort 404 text, padded", func(_, b *pt.Server) { answerBatch(b, forced, 404, pt.ContentTypeText, overBound(pt.BodyTextNotFound)) },
			"kas-b", probe.VerbList, false, true, probe.VerdictInconclusive, mvp.Unknown, "the forced-local answer (404) was cut at 1 MiB"},
		{"a Status 404 about the object, padded", func(a, _ *pt.Server) {
			answerBatch(a, isGet, 404, pt.ContentTypeJSON, overBound(fmt.Sprintf(pt.BodyMissingObjectFormat, "mvpctl-probe-absent-test", "batch", "jobs")))
		}, "kas-a", probe.VerbGet, true, true, probe.VerdictInconclusive, mvp.Unknown, "the answer (404) and the forced-local answer (404) were cut at 1 MiB"},
		{"the transport 503, padded", func(a, _ *pt.Server) {
			answerBatch(a, isWatch, 503, pt.ContentTypeText, overBound(fmt.Sprintf(pt.BodyTransportFormat, "10.0.0.1:6443")))
		}, "kas-a", probe.VerbWatch, true, true, probe.VerdictInconclusive, mvp.Unknown, "no answer of the apiserver's own is that long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, a, b := pair(t, nil)
			tc.tweak(a, b)
			snap := takeSnapshot(t, c)
			o := fastOptions(c)
			o.Selection = probe.Selection{Resources: []string{"jobs.batch"}}
			rep := run(t, snap, o)
			var got *probe.Result
			for _, r := range results(rep, tc.server, "batch/v1/jobs") {
				if r.Verb == tc.verb {
					got = &r
				}
			}
			if got == nil || got.Observed.Normal == nil || got.Observed.ForcedLocal == nil {
				dump(t, rep)
				t.Fatalf("no measured %s of batch/v1/jobs on %s", tc.verb, tc.server)
			}
			obs := got.Observed
			if obs.Normal.Truncated != tc.normalCut || obs.ForcedLocal.Truncated != tc.localCut {
				t.Errorf("truncated %t/%t (normal/forced local), want %t/%t", obs.Normal.Truncated, obs.ForcedLocal.Truncated, tc.normalCut, tc.localCut)
			}
			if got.Verdict != tc.verdict || obs.Outcome != tc.observed || !strings.Contains(got.Note, tc.note) {
				dump(t, rep)
				t.Errorf("verdict %s, observed %s, note %q: want %s, %s, a note with %q", got.Verdict, obs.Outcome, got.Note, tc.verdict, tc.observed, tc.note)
			}
			if want := tc.verdict == probe.VerdictInconclusive; rep.Partial != want {
				t.Errorf("partial %t, want %t", rep.Partial, want)
			}
			if rep.Summary.Truncated == 0 {
				t.Errorf("summary %+v: no result counted with a cut answer", rep.Summary)
			}
		})
	}
}

// TestWatchStartsAtACutListsVersion: the list cut at the bound still gives its
// resourceVersion, so the watch asks for no initial state (the initial state is what would
// make the watch long).
func TestWatchStartsAtACutListsVersion(t *testing.T) {
	c, a, _ := pair(t, nil)
	answerBatch(a, isList, 200, pt.ContentTypeJSON, bigJobList())
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"jobs.batch"}}
	rep := run(t, takeSnapshot(t, c), o)
	watches := 0
	for _, r := range rep.Results {
		if r.Verb == probe.VerbWatch {
			watches++
			if !strings.HasSuffix(r.Path, "&resourceVersion=777") {
				t.Errorf("%s: watch %s, want it at the cut list's resourceVersion 777", r.Server, r.Path)
			}
		}
	}
	if watches != 2 {
		t.Errorf("%d watches, want one per server", watches)
	}
}
