package discover

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/redact"
)

// leaseList is a LeaseList of n identity leases, compact (as the apiserver writes it) or one
// lease a line.
func leaseList(n int, lines bool) string {
	items := make([]string, n)
	for i := range items {
		items[i] = leaseJSON(fmt.Sprintf("apiserver-%06d", i), "h", "7")
	}
	sep := ","
	if lines {
		sep = ",\n"
	}
	return `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"7"},"items":[` + strings.Join(items, sep) + "]}\n"
}

// TestLeaseListBounded: discovery's identity-lease list is bounded at MaxLeaseAnswer as a
// whole (it was read up to apiclient.DefaultMaxBody, 128 MiB), and so is the lease watch's
// list when the server breaks it into lines.
func TestLeaseListBounded(t *testing.T) {
	small, big := leaseList(3, false), leaseList(12000, false) // about 5.2 MB
	if len(big) <= MaxLeaseAnswer {
		t.Fatalf("the big list is %d bytes, not past the bound", len(big))
	}
	for _, tt := range []struct {
		name, body string
		want       string // "" when read
	}{
		{"three leases", small, ""},
		{"12,000 leases", big, "the lease list is larger than 4 MiB: not read (an identity lease is under 1 KiB)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tt.body)
			}))
			defer ts.Close()
			c, err := newServerClient(&rest.Config{Host: ts.URL}, ts.URL, "", 5*time.Second, &redact.Redactor{})
			if err != nil {
				t.Fatal(err)
			}
			leases, err := listIdentityLeases(context.Background(), c)
			if tt.want == "" {
				if err != nil || len(leases) != 3 {
					t.Fatalf("leases %d, err %v; want 3", len(leases), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line with %q", err, tt.want)
			}
		})
	}

	t.Run("the lease watch's list, a lease a line", func(t *testing.T) {
		ts := httptest.NewServer(&watchServer{script: []func(http.ResponseWriter, *http.Request){
			func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, leaseList(12000, true))
			},
		}})
		defer ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var failure string
		w := &LeaseWatch{Config: &rest.Config{Host: ts.URL}, OnLeases: func([]IdentityLease) {},
			OnFailure: func(err error, _ time.Duration) {
				if failure == "" {
					failure = err.Error()
				}
				cancel()
			}, MinBackoff: 10 * time.Millisecond}
		w.Run(ctx)
		if !strings.Contains(failure, "list leases: ") || !strings.Contains(failure, "the lease list is larger than 4 MiB") {
			t.Errorf("failure %q: want the list refused naming the 4 MiB bound", failure)
		}
	})
}
